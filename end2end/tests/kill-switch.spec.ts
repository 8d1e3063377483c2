import { expect, test } from './fixtures/test';
import { ChatPage, NO_THINKING } from './fixtures/chat-page';

test('the kill switch: no thinking reaches the page, the answer does', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.open(NO_THINKING);
  await chat.send('Why is the sky blue?');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await expect(chat.assistant().getByTestId('answer')).toContainText('The main points');
  await expect(chat.assistant().getByTestId('thinking-block')).toHaveCount(0);
});
