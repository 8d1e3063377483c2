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

  // Regenerate asks again: a new request with the same question goes out and
  // its new turn replaces the old one (marked first, so a button that did
  // nothing leaves the mark and fails here).
  const sent: string[] = [];
  page.on('request', (r) => {
    if (r.url().endsWith('/api/chat')) sent.push(r.postData() ?? '');
  });
  await chat.assistant().evaluate((el) => el.setAttribute('data-before-regenerate', ''));
  await chat.assistant().getByTestId('regenerate').click();
  await expect.poll(() => sent.length).toBe(1);
  expect(sent[0]).toContain('First question, fixed mock:normal');
  await expect(page.locator('[data-before-regenerate]')).toHaveCount(0);
  await expect(page.getByTestId('assistant-message')).toHaveCount(1);
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await expect(chat.assistant().getByTestId('answer')).toHaveText('Here is the answer: 42.');
});
