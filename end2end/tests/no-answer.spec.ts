import { expect, test } from './fixtures/test';
import { ChatPage, MOCKED } from './fixtures/chat-page';

test('thinking without an answer shows the fallback and keeps the reasoning', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  await chat.send('mock:no-answer');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await expect(chat.assistant().getByTestId('empty-outcome')).toHaveText('The model finished thinking without an answer.');
  await expect(chat.assistant()).not.toContainText('empty answer');
  await expect(chat.header(chat.thinking())).toHaveAttribute('aria-expanded', 'true');
  await expect(chat.body(chat.thinking())).toContainText('Let me think');
});
