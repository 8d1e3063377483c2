import { expect, test } from './fixtures/test';
import { ChatPage, MOCKED } from './fixtures/chat-page';

test('folded while thinking, the header shows one live line: the latest headline', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  await chat.send('Convert it mock:headlines');
  const block = chat.thinking();
  const header = chat.header(block);
  await expect(header).toHaveText(/Thinking…/);
  await header.click();
  await expect(header).toHaveAttribute('aria-expanded', 'false');

  // The latest headline names the block (issue 11: it stays on the header).
  const topic = block.getByTestId('thinking-topic');
  await expect(topic).toHaveText('Checking the units');
  await expect(header).toHaveText(/^Thinking… \d+s · Checking the units$/);
  await expect(topic).toHaveText('Final check');
  // With a headline there is no last-line preview beside it.
  await expect(block.getByTestId('thinking-preview')).toHaveCount(0);
  // The answer ends the timer; the block stays folded as the user left it, named.
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await expect(header).toHaveText(/^Thought for (\d+s|less than a second) · Final check$/);
  await expect(header).toHaveAttribute('aria-expanded', 'false');
  // The topic label is a headline, not body text.
  await header.click();
  await expect(chat.body(block)).toContainText('Converting metres to feet');
  await expect(chat.body(block)).not.toContainText('<topic>');
  await expect(chat.body(block)).not.toContainText('Checking the units');
});

test('folded while thinking with no headline, the header previews the last line', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  await chat.send('mock:normal');
  const block = chat.thinking();
  const header = chat.header(block);
  await expect(header).toHaveText(/Thinking…/);
  await header.click();
  await expect(header).toHaveAttribute('aria-expanded', 'false');
  await expect(block.getByTestId('thinking-preview')).toContainText('Let me think');
  await expect(block.getByTestId('thinking-topic')).toHaveCount(0);
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await expect(block.getByTestId('thinking-preview')).toHaveCount(0);
});
