import { expect, test } from './fixtures/test';
import { ChatPage, MOCKED } from './fixtures/chat-page';
import type { Page } from '@playwright/test';
import { plantLocalStorage, putRecords, storedRecords } from './fixtures/stored';

// After a deploy, a tab opened on the new version may write history in a newer
// schema while a tab of the old version is still open. The old tab must leave
// that data exactly where and as it is (docs/security.md, "Stored history").

const FUTURE_RECORD = JSON.stringify({
  version: 99,
  conversation: { id: 'future', title: 'From the future', shape: 'unknown to this build' },
});
const FUTURE_INDEX = JSON.stringify({
  version: 99,
  conversations: [{ id: 'future', title: 'From the future', updated_at: 5 }],
  layout: 'unknown to this build',
});
const GOOD_RECORD = JSON.stringify({
  version: 2,
  conversation: {
    id: 'good', title: 'Readable one', created_at: 1, updated_at: 2,
    messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', blocks: [{ kind: 'answer', text: 'hello' }], status: 'done' }],
  },
});
const CURRENT_INDEX = JSON.stringify({
  version: 2,
  conversations: [
    { id: 'future', title: 'From the future', updated_at: 5 },
    { id: 'good', title: 'Readable one', updated_at: 2 },
  ],
});

/** Plants `entries` in localStorage once, before the app first loads. */
const storage = (page: Page) =>
  page.evaluate(() => Object.fromEntries(Object.keys(localStorage).map((k) => [k, localStorage.getItem(k)!])));

const backups = async (page: Page) => Object.keys(await storage(page)).filter((k) => k.startsWith('pensive.backup.'));

test('a conversation saved by a newer version is skipped with a notice and stays where it is, untouched', async ({ page }) => {
  await plantLocalStorage(page, {
    'pensive.index': CURRENT_INDEX,
    'pensive.conversation.good': GOOD_RECORD,
    'pensive.conversation.future': FUTURE_RECORD,
    'pensive.current': 'future',
  });
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  await expect(page.getByTestId('notice')).toContainText('saved by a newer version of Pensive (schema 99)');
  await expect(page.getByTestId('download-backup')).toHaveCount(0);
  await expect(page.getByTestId('user-message')).toHaveCount(0);

  // Opening it again says the same, and still opens nothing.
  await page.getByTestId('conversation-item').filter({ hasText: 'From the future' }).locator('.conversation-title').click();
  await expect(page.getByTestId('notice')).toHaveCount(1);
  await expect(page.getByTestId('user-message')).toHaveCount(0);

  // The rest of history works: a new conversation is saved beside it.
  await page.getByTestId('new-conversation').click();
  await chat.send('Still chatting mock:normal');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await expect(page.getByTestId('conversation-item')).toHaveCount(3);

  const stored = await storage(page);
  expect(stored['pensive.conversation.future']).toBe(FUTURE_RECORD);
  expect(await backups(page)).toEqual([]);
  // The index still lists it, so the newer version keeps finding it.
  const index = JSON.parse(stored['pensive.index']);
  expect(index.conversations.map((c: { id: string }) => c.id)).toContain('future');
  await chat.expectNoConsoleErrors();
});

test('an index saved by a newer version is left as it is: this tab lists what it can read, chats, and saves nothing', async ({ page }) => {
  const planted = {
    'pensive.index': FUTURE_INDEX,
    'pensive.conversation.good': GOOD_RECORD,
    'pensive.conversation.future': FUTURE_RECORD,
  };
  await plantLocalStorage(page, planted);
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  const notice = page.getByTestId('notice').filter({ hasText: 'saves nothing' });
  await expect(notice).toContainText('Your history was saved by a newer version of Pensive (schema 99)');
  await expect(notice).toContainText('Reload the page');
  await expect(page.getByTestId('conversation-item')).toHaveText([/Readable one/]);

  // Chatting still works; the save is refused with the same notice.
  await chat.send('Chat anyway mock:normal');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await expect(chat.assistant().getByTestId('answer')).toContainText('42');
  await expect(notice).toHaveCount(1);

  // Deleting is refused too: the readable record stays.
  await page.getByTestId('conversation-item').filter({ hasText: 'Readable one' }).getByTestId('delete').click();
  await expect(page.getByTestId('conversation-item').filter({ hasText: 'Readable one' })).toHaveCount(1);

  const stored = await storage(page);
  for (const [key, value] of Object.entries(planted)) expect(stored[key], key).toBe(value);
  const conversations = Object.keys(stored).filter((k) => k.startsWith('pensive.conversation.'));
  expect(conversations.sort()).toEqual(['pensive.conversation.future', 'pensive.conversation.good']);
  expect(await backups(page)).toEqual([]);
  await chat.expectNoConsoleErrors();
});

test('a newer tab that writes while a turn streams here: this tab overwrites neither the index nor the record', async ({ context }) => {
  const older = new ChatPage(await context.newPage());
  await older.open(MOCKED);
  await older.send('Long one mock:huge');
  await expect(older.header(older.thinking())).toHaveText(/^Thinking…/);
  const id = await older.page.evaluate(() => localStorage.getItem('pensive.current'));
  expect(id).toBeTruthy();

  // The newer version, in another tab of the same site, takes over this
  // conversation and the index.
  const newerRecord = JSON.stringify({ version: 99, conversation: { id, title: 'Upgraded' } });
  const newer = await context.newPage();
  await newer.goto(`${MOCKED}/favicon.svg`);
  await newer.evaluate(
    ([id, record, index]) => {
      localStorage.setItem(`pensive.conversation.${id}`, record);
      localStorage.setItem('pensive.index', index);
    },
    [id!, newerRecord, FUTURE_INDEX],
  );

  // Stopping saves the turn: refused, and said.
  await older.page.getByTestId('stop').click();
  await expect(older.assistant().getByTestId('turn-stopped')).toBeVisible();
  const stored = await storage(older.page);
  expect(stored[`pensive.conversation.${id}`]).toBe(newerRecord);
  expect(stored['pensive.index']).toBe(FUTURE_INDEX);
  expect(await backups(older.page)).toEqual([]);
  await expect(older.page.getByTestId('notice')).toContainText('saved by a newer version of Pensive (schema 99)');
  await older.expectNoConsoleErrors();
});

test('a record a newer version wrote in IndexedDB is never replaced: the save is refused, said, and the turn stays on screen', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  await chat.send('First mock:normal');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  const id = (await page.evaluate(() => localStorage.getItem('pensive.current')))!;
  await expect.poll(async () => Object.keys(await storedRecords(page))).toEqual([id]);

  // A newer version, in another tab, takes this conversation over.
  const newerRecord = JSON.stringify({ version: 99, conversation: { id, title: 'Upgraded' } });
  await putRecords(page, { [id]: newerRecord });
  await chat.send('Second mock:normal');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await expect(page.getByTestId('notice')).toContainText('saved by a newer version of Pensive (schema 99)');
  await expect(page.getByTestId('user-text')).toHaveText(['First mock:normal', 'Second mock:normal']);
  expect((await storedRecords(page))[id]).toBe(newerRecord);
  expect(await backups(page)).toEqual([]);
});
