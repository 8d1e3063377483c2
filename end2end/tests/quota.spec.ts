import { expect, test } from './fixtures/test';
import { ChatPage, MOCKED } from './fixtures/chat-page';
import { storedText } from './fixtures/stored';

test('a full storage is reported, the turn stays on screen, and the last good state stays readable', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  await chat.send('Saved fine mock:normal');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await expect.poll(() => storedText(page)).toContain('Here is the answer: **42**.');

  // From now on the disk is full: IndexedDB refuses every write, and so does
  // localStorage for the quick-restore copy.
  await page.evaluate(() => {
    const full = () => new DOMException('The quota has been exceeded.', 'QuotaExceededError');
    IDBObjectStore.prototype.put = function () {
      throw full();
    };
    const original = Storage.prototype.setItem;
    Storage.prototype.setItem = function (key: string, value: string) {
      if (key === 'pensive.quick') throw full();
      return original.call(this, key, value);
    };
  });
  await chat.send('This one cannot be saved mock:normal');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  const notice = page.getByTestId('notice');
  await expect(notice).toContainText('storage is full');
  await expect(notice).toContainText('kept in this tab only');
  // Kept in memory: the turn is still on screen, whole.
  await expect(page.getByTestId('user-text')).toHaveText(['Saved fine mock:normal', 'This one cannot be saved mock:normal']);
  expect(await storedText(page)).not.toContain('This one cannot be saved');

  await page.reload();
  await chat.hydrated();
  await expect(page.getByTestId('user-text')).toHaveText(['Saved fine mock:normal']);
  await expect(chat.assistant().getByTestId('answer')).toHaveText('Here is the answer: 42.');
});
