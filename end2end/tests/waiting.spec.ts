import { expect, test } from './fixtures/test';
import { ChatPage, MOCKED } from './fixtures/chat-page';

test('waiting shows its own timer, and the first-token guard ends a silent turn', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  await chat.send('mock:slow-first');
  await expect(chat.assistant().getByTestId('waiting')).toHaveText(/Thinking… \ds/);
  await expect(chat.assistant()).toHaveAttribute('data-status', 'error');
  await expect(chat.assistant().getByTestId('turn-error')).toContainText('sent nothing for 2 seconds');
  await expect(chat.assistant().getByTestId('waiting')).toHaveCount(0);
});
