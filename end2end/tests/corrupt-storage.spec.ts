import { expect, test } from './fixtures/test';
import { ChatPage, MOCKED } from './fixtures/chat-page';
import { plantLocalStorage, storedRecords, UNREADABLE_RECORD } from './fixtures/stored';

test('unreadable saved data is kept in a backup, the user is told, and the rest loads; newer data stays in place', async ({ page }) => {
  const good = {
    version: 1,
    conversation: {
      id: 'good', title: 'Readable one', created_at: 1, updated_at: 2,
      messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', blocks: [{ kind: 'answer', text: 'hello' }], status: 'done' }],
    },
  };
  await plantLocalStorage(page, {
    'pensive.conversation.good': JSON.stringify(good),
    'pensive.conversation.broken': UNREADABLE_RECORD,
    'pensive.conversation.future': JSON.stringify({ version: 99, conversation: {} }),
    'pensive.current': 'broken',
  });
  const chat = new ChatPage(page);
  await page.goto(`${MOCKED}/`);
  await chat.hydrated();
  await expect(page.getByTestId('notice').first()).toContainText('could not be opened');
  await expect(page.getByTestId('download-backup')).toHaveCount(1);
  await expect(page.getByTestId('download-backup')).toHaveAttribute('href', /^data:application\/json/);
  // A newer version's record is not unreadable: another build's, left as it is.
  await expect(page.getByTestId('notice').filter({ hasText: 'newer version' })).toHaveCount(1);
  await expect(page.getByTestId('conversation-item')).toHaveCount(1);
  await expect(page.getByTestId('conversation-item')).toContainText('Readable one');
  const keys = await page.evaluate(() => Object.keys(localStorage));
  const backups = keys.filter((k) => k.startsWith('pensive.backup.'));
  expect(backups.length).toBe(1);
  const kept = await page.evaluate((k) => k.map((key) => localStorage.getItem(key)), backups);
  expect(kept.join('\n')).toContain('this is not json');
  expect(keys).not.toContain('pensive.conversation.broken');
  // The readable one moved to IndexedDB, as it was written; its old copy is gone.
  expect(keys).not.toContain('pensive.conversation.good');
  expect((await storedRecords(page)).good).toBe(JSON.stringify(good));
  expect(await page.evaluate(() => localStorage.getItem('pensive.conversation.future'))).toBe(
    JSON.stringify({ version: 99, conversation: {} }),
  );
});
