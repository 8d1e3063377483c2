import { expect, test } from './fixtures/test';
import { ChatPage, MOCKED } from './fixtures/chat-page';

test('a full storage is reported and the last good state stays readable', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  await chat.send('Saved fine mock:normal');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');

  // From now on the browser refuses to store more.
  await page.evaluate(() => {
    const original = Storage.prototype.setItem;
    Storage.prototype.setItem = function (key: string, value: string) {
      if (key.startsWith('pensive.conversation.')) {
        throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
      }
      return original.call(this, key, value);
    };
  });
  await chat.send('This one cannot be saved mock:normal');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await expect(page.getByTestId('notice')).toContainText('storage is full');

  await page.reload();
  await chat.hydrated();
  await expect(page.getByTestId('user-text')).toHaveText(['Saved fine mock:normal']);
  await expect(chat.assistant().getByTestId('answer')).toHaveText('Here is the answer: 42.');
});
