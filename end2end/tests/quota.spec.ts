import * as fs from 'fs';
import type { Page } from '@playwright/test';
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

/** The text of the file a notice offers ("Download it"), from its data: link. */
async function offeredFile(page: Page): Promise<string> {
  const href = await page.getByTestId('download-backup').getAttribute('href');
  expect(href).toMatch(/^data:application\/json/);
  return decodeURIComponent(href!.slice(href!.indexOf(',') + 1));
}

test('a save the quota aborts after the put was accepted keeps the turn: opening another conversation offers it as a file, which imports once there is room', async ({ page }, testInfo) => {
  // The real path: Chromium's quota for this origin, set small through CDP
  // (it must be set before the origin first writes: later changes are not
  // seen). IndexedDB accepts a put past it and aborts the transaction with
  // QuotaExceededError when it commits; nothing in the page is replaced.
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Storage.overrideQuotaForOrigin', { origin: MOCKED, quotaSize: 250_000 });
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  await chat.send('Saved before the quota mock:normal');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await page.getByTestId('new-conversation').click();
  await chat.send('Then the disk filled mock:normal');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await expect.poll(() => storedText(page)).toContain('Then the disk filled');

  // Larger than the room left (its record and search text: about 350 KB).
  await chat.send(`Refused by the quota ${'filler '.repeat(25_000)}mock:normal`);
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await expect(page.getByTestId('notice')).toContainText('storage is full');
  expect(await storedText(page)).not.toContain('Refused by the quota');
  // Before the switch, nothing is offered: the turn is still on screen.
  await expect(page.getByTestId('download-backup')).toHaveCount(0);

  await page.getByTestId('conversation-item').filter({ hasText: 'Saved before the quota' }).locator('.conversation-title').click();
  await expect(page.getByTestId('user-text')).toHaveText(['Saved before the quota mock:normal']);
  await expect(page.getByTestId('notice').filter({ hasText: 'could not be saved and is no longer on screen' })).toHaveCount(1);
  const file = await offeredFile(page);
  expect(file).toContain('Refused by the quota filler filler');
  expect(file).toContain('Then the disk filled mock:normal');

  // Room again: the offered file imports, whole.
  await cdp.send('Storage.overrideQuotaForOrigin', { origin: MOCKED });
  const path = testInfo.outputPath('recovered.json');
  fs.writeFileSync(path, file);
  await page.getByTestId('import-json').setInputFiles(path);
  const recovered = ['Then the disk filled mock:normal', /^Refused by the quota filler/];
  await expect(page.getByTestId('user-text')).toHaveText(recovered);
  await expect.poll(() => storedText(page)).toContain('Refused by the quota filler');
  await page.reload();
  await chat.hydrated();
  await expect(page.getByTestId('user-text')).toHaveText(recovered);
});

test('a list localStorage cannot hold is reported, and the saved conversation is listed and found after a reload', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  await chat.send('Listed first mock:normal');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await page.getByTestId('new-conversation').click();
  // localStorage full for the list: setItem throws QuotaExceededError, as a
  // browser's full localStorage does (synchronously; the page frees other
  // keys such as the quick-restore copy when it can, so a real fill is undone).
  await page.evaluate(() => {
    const original = Storage.prototype.setItem;
    Storage.prototype.setItem = function (key: string, value: string) {
      if (key === 'pensive.index') throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
      return original.call(this, key, value);
    };
  });
  await chat.send('Stored but unlisted mock:normal');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await expect(page.getByTestId('notice')).toContainText('the list of conversations could not be updated');
  await expect.poll(() => storedText(page)).toContain('Stored but unlisted');
  expect(await page.evaluate(() => localStorage.getItem('pensive.index'))).not.toContain('Stored but unlisted');

  await page.reload();
  await chat.hydrated();
  await expect(page.getByTestId('conversation-item').filter({ hasText: 'Stored but unlisted' })).toHaveCount(1);
  await page.getByTestId('search-conversations').fill('unlisted');
  await expect(page.getByTestId('search-result').filter({ hasText: 'Stored but unlisted' }).filter({ hasText: 'in the title' })).toHaveCount(1);
});
