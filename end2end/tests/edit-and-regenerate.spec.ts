import { expect, test } from './fixtures/test';
import { ChatPage, MOCKED } from './fixtures/chat-page';

test('edit-and-resend the last message, then regenerate the last answer', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  await chat.send('Frist question mock:normal');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');

  await page.getByTestId('user-message').last().getByTestId('edit').click();
  await page.getByTestId('edit-input').fill('First question, fixed mock:normal');
  await page.getByTestId('edit-send').click();
  await expect(page.getByTestId('user-text')).toHaveText(['First question, fixed mock:normal']);
  await expect(page.getByTestId('assistant-message')).toHaveCount(1);
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');

  await chat.assistant().getByTestId('regenerate').click();
  await expect(page.getByTestId('assistant-message')).toHaveCount(1);
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await expect(chat.assistant().getByTestId('answer')).toHaveText('Here is the answer: 42.');
});
