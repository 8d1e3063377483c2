import { expect, test } from './fixtures/test';
import { ChatPage, MOCKED } from './fixtures/chat-page';

test('folded while thinking, the header shows one live line: the latest headline, else the last line', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  await chat.send('Convert it mock:headlines');
  const block = chat.thinking();
  const header = chat.header(block);
  await expect(header).toHaveText(/Thinking…/);
  await header.click();
  await expect(header).toHaveAttribute('aria-expanded', 'false');

  const preview = block.getByTestId('thinking-preview');
  await expect(preview).toHaveText('Checking the units');
  await expect(preview).toHaveText('Final check');
  // The answer ends the preview; the block stays folded as the user left it.
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await expect(preview).toHaveCount(0);
  await expect(header).toHaveAttribute('aria-expanded', 'false');
  // The topic label is a headline, not body text.
  await header.click();
  await expect(chat.body(block)).toContainText('Converting metres to feet');
  await expect(chat.body(block)).not.toContainText('<topic>');
  await expect(chat.body(block)).not.toContainText('Checking the units');
});
