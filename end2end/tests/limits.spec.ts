import { expect, test } from './fixtures/test';
import { ChatPage, NO_THINKING } from './fixtures/chat-page';

test('an oversized message is refused with a clear error, kept on screen, and the next turn works', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.open(NO_THINKING); // this server accepts at most 64 KB per request
  const huge = 'a long paste '.repeat(8_000); // ~100 KB
  await chat.send(huge);
  const refused = chat.assistant();
  await expect(refused.getByTestId('turn-error')).toContainText('the server accepts at most 64 KiB');
  await expect(page.getByTestId('user-text').last()).toContainText('a long paste a long paste');

  await chat.send('Why is the sky blue?');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await expect(chat.assistant().getByTestId('answer')).toContainText('The main points');
});
