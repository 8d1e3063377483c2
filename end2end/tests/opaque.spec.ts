import { expect, test } from './fixtures/test';
import { ChatPage, MOCKED } from './fixtures/chat-page';

test('opaque reasoning is an honest header-only block', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  await chat.send('secret mock:opaque');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  const header = chat.header(chat.thinking());
  await expect(header).toHaveText(/^Thought for (\d+s|less than a second) · reasoning hidden by the provider$/);
  // The turn's reasoning tokens, once, in its footer.
  await expect(chat.assistant().getByTestId('reasoning-tokens')).toHaveText('640 reasoning tokens');
  await expect(header).toBeDisabled();
  await expect(header).not.toHaveAttribute('aria-expanded', /.*/);
});

test('no block but reasoning tokens in usage: one "Reasoned for" block', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  await chat.send('mock:reasoning-tokens');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await expect(chat.header(chat.thinking())).toHaveText(/^Reasoned for \d+s · 640 tokens$/);
  await expect(chat.assistant().getByTestId('answer')).toHaveText('Here is the answer: 42.');
});
