import { expect, test } from './fixtures/test';
import { ChatPage, MOCKED } from './fixtures/chat-page';

test('"Keep open" keeps the block open after the answer, and the choice survives a reload', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  await page.getByTestId('fold-preference').selectOption('open');
  await chat.send('mock:normal');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await expect(chat.header(chat.thinking())).toHaveAttribute('aria-expanded', 'true');
  await page.reload();
  await chat.hydrated();
  await expect(page.getByTestId('fold-preference')).toHaveValue('open');
});

test('"Start folded" streams with the block folded', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  await page.getByTestId('fold-preference').selectOption('folded');
  await chat.send('mock:headlines');
  await expect(chat.header(chat.thinking())).toHaveText(/Thinking…/);
  await expect(chat.header(chat.thinking())).toHaveAttribute('aria-expanded', 'false');
  // Folded, the header still names what the model is doing, live.
  await expect(chat.thinking().getByTestId('thinking-topic')).toHaveText('Checking the units');
  await expect(chat.header(chat.thinking())).toHaveText(/^Thinking… \d+s · Checking the units$/);
});
