import * as fs from 'fs';
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures/test';
import { ChatPage, MOCKED } from './fixtures/chat-page';
import { plantLocalStorage, storedRecords } from './fixtures/stored';

// History lives in IndexedDB (docs/history.md); localStorage keeps the list,
// the current id and a quick-restore copy for the first frame.

const V1_RECORD = JSON.stringify({
  version: 1,
  conversation: {
    id: 'from-v1', title: 'Saved by version 1', created_at: 1, updated_at: 2,
    messages: [
      { role: 'user', content: 'How far is the moon?' },
      {
        role: 'assistant',
        blocks: [
          { kind: 'thinking', text: '**Recalling the distance**\n\nAbout 384,400 km on average.', duration_ms: 3000, opaque: false, state: 'done' },
          { kind: 'answer', text: 'About **384,400 km**.' },
        ],
        status: 'done',
      },
    ],
  },
});
const V2_RECORD = JSON.stringify({
  version: 2,
  conversation: {
    id: 'from-v2', title: 'Saved by version 2', created_at: 3, updated_at: 4,
    messages: [
      { role: 'user', content: 'And the sun?' },
      {
        role: 'assistant',
        blocks: [
          { kind: 'thinking', text: 'One astronomical unit: 149.6 million km.', duration_ms: 2000, opaque: false, headline: 'Units', state: 'done' },
          { kind: 'answer', text: 'About 150 million km.' },
        ],
        status: 'done',
      },
    ],
  },
});
const V2_INDEX = JSON.stringify({
  version: 2,
  conversations: [
    { id: 'from-v2', title: 'Saved by version 2', updated_at: 4 },
    { id: 'from-v1', title: 'Saved by version 1', updated_at: 2 },
  ],
});

const legacyKeys = (page: Page) =>
  page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith('pensive.conversation.')));

test('records of versions 1 and 2 in localStorage move to IndexedDB on first load, losing nothing', async ({ page }) => {
  await plantLocalStorage(page, {
    'pensive.conversation.from-v1': V1_RECORD,
    'pensive.conversation.from-v2': V2_RECORD,
    'pensive.index': V2_INDEX,
    'pensive.current': 'from-v2',
  });
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  // The first frame after hydration shows the current one from its old record.
  await expect(page.getByTestId('user-text')).toHaveText(['And the sun?']);
  await expect(page.getByTestId('conversation-item')).toHaveText([/Saved by version 2/, /Saved by version 1/]);

  // Moved as written, and the old copies are gone only once they are.
  await expect.poll(() => legacyKeys(page)).toEqual([]);
  const records = await storedRecords(page);
  expect(records['from-v1']).toBe(V1_RECORD);
  expect(records['from-v2']).toBe(V2_RECORD);
  const index = JSON.parse((await page.evaluate(() => localStorage.getItem('pensive.index')))!);
  expect(index.version).toBe(4);
  expect(index.conversations.map((c: { id: string; bytes: number }) => [c.id, c.bytes])).toEqual([
    ['from-v2', V2_RECORD.length],
    ['from-v1', V1_RECORD.length],
  ]);
  await expect(page.getByTestId('notice')).toHaveCount(0);

  // After a reload, both open from IndexedDB with everything they had.
  await page.reload();
  await chat.hydrated();
  await expect(page.getByTestId('user-text')).toHaveText(['And the sun?']);
  await expect(chat.header(chat.thinking())).toContainText('Units');
  await page.getByTestId('conversation-item').filter({ hasText: 'Saved by version 1' }).locator('.conversation-title').click();
  await expect(page.getByTestId('user-text')).toHaveText(['How far is the moon?']);
  // Version 1 kept no headline: the move to version 2 found it in the text.
  await expect(chat.header(chat.thinking())).toContainText('Recalling the distance');
  await chat.header(chat.thinking()).click();
  await expect(chat.body(chat.thinking())).toContainText('About 384,400 km on average.');
  await expect(chat.assistant().getByTestId('answer')).toHaveText('About 384,400 km.');
  expect(await legacyKeys(page)).toEqual([]);
  await chat.expectNoConsoleErrors();
});

/** An all-conversations export of `count` conversations with `reasoningBytes` of reasoning each. */
function bigExport(count: number, reasoningBytes: number, tag: string): string {
  const filler = 'The model weighs each step of the problem before it answers. ';
  const reasoning = filler.repeat(Math.ceil(reasoningBytes / filler.length)).slice(0, reasoningBytes);
  const conversations = Array.from({ length: count }, (_, i) => ({
    id: `${tag}-${i}`,
    title: `${tag} conversation ${i + 1}`,
    created_at: 1_000 + i,
    updated_at: 1_000 + i,
    messages: [
      { role: 'user', content: `Question ${i + 1} of ${tag}` },
      {
        role: 'assistant',
        blocks: [
          { kind: 'thinking', text: `${reasoning} End of reasoning ${tag} ${i + 1}.`, duration_ms: 60_000, opaque: false, state: 'done' },
          { kind: 'answer', text: `Answer ${i + 1} of ${tag}.` },
        ],
        status: 'done',
      },
    ],
  }));
  return JSON.stringify({ version: 3, conversations });
}

async function importFile(page: Page, path: string, count: number) {
  await page.getByTestId('import-json').setInputFiles(path);
  await expect(page.getByTestId('notice').filter({ hasText: `Imported ${count} conversations.` })).toHaveCount(1);
  await page.getByTestId('notice').getByRole('button', { name: 'Dismiss' }).click();
}

test('fifty conversations of 1 MB of reasoning each are kept; a reload paints the current one in its first frame', async ({ page }, testInfo) => {
  test.setTimeout(180_000);
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  // 50 MB, in five files of ten (each import is one transaction).
  for (let part = 0; part < 5; part++) {
    const path = testInfo.outputPath(`big-${part}.json`);
    fs.writeFileSync(path, bigExport(10, 1_000_000, `p${part}`));
    await importFile(page, path, 10);
  }
  // No notice: nothing refused (the old localStorage held about four).
  await expect(page.getByTestId('notice')).toHaveCount(0);
  await expect(page.getByTestId('conversation-item')).toHaveCount(50);
  const records = await storedRecords(page);
  expect(Object.keys(records)).toHaveLength(50);
  const total = Object.values(records).reduce((n, r) => n + r.length, 0);
  expect(total).toBeGreaterThan(50_000_000);

  // Open one and talk in it: that is what the reload must show first.
  await page.getByTestId('conversation-item').filter({ hasText: 'p2 conversation 4' }).locator('.conversation-title').click();
  await expect(page.getByTestId('user-text')).toHaveText(['Question 4 of p2']);
  await chat.send('Still there after a reload? mock:normal');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');

  // Every frame from the document's first is recorded: whether the page has
  // painted anything, the welcome, and the text of the conversation area
  // (the snapshot's picture, then the app's own messages).
  await page.addInitScript(() => {
    type Frame = { painted: boolean; welcome: boolean; text: string };
    const frames: Frame[] = [];
    (window as unknown as { __frames: Frame[] }).__frames = frames;
    const shown = (el: Element | null) => !!el && el.checkVisibility({ visibilityProperty: true, opacityProperty: true }) && el.getBoundingClientRect().height > 0;
    const sample = () => {
      const area = document.querySelector('[data-testid="conversation"]');
      frames.push({
        painted: !!area,
        welcome: shown(document.querySelector('.empty-state')),
        text: [...(area?.querySelectorAll('#restore-snapshot, .message') ?? [])].filter(shown).map((e) => e.textContent).join(' '),
      });
      if (frames.length < 600) requestAnimationFrame(sample);
    };
    requestAnimationFrame(sample);
  });
  await page.reload();
  await chat.hydrated();
  await expect(page.getByTestId('user-text')).toHaveText(['Question 4 of p2', 'Still there after a reload? mock:normal']);
  const frames = await page.evaluate(() => (window as unknown as { __frames: { painted: boolean; welcome: boolean; text: string }[] }).__frames);
  const painted = frames.filter((f) => f.painted);
  expect(painted.length).toBeGreaterThan(0);
  expect(painted[0].text, 'the first painted frame').toContain('Still there after a reload?');
  expect(painted.filter((f) => f.welcome), 'frames showing the welcome').toEqual([]);
  await expect(page.getByTestId('conversation-item')).toHaveCount(50);
});

test('the storage panel shows what is stored, each conversation by size, whether it is kept, and frees room', async ({ page }, testInfo) => {
  // Counts the page's requests to keep its storage for good, and answers
  // them as a browser that grants it.
  await page.addInitScript(() => {
    const w = window as unknown as { __persistAsked: number };
    w.__persistAsked = 0;
    const storage = navigator.storage;
    storage.persist = async () => {
      w.__persistAsked += 1;
      return true;
    };
    storage.persisted = async () => w.__persistAsked > 0;
  });
  const persistAsked = () => page.evaluate(() => (window as unknown as { __persistAsked: number }).__persistAsked);
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  // Asked once the history is open, without a click.
  await expect.poll(persistAsked).toBeGreaterThan(0);
  const sizes = [200_000, 2_000_000, 20_000];
  const file = testInfo.outputPath('sized.json');
  const parts = sizes.map((bytes, i) => JSON.parse(bigExport(1, bytes, `size${i}`)).conversations[0]);
  fs.writeFileSync(file, JSON.stringify({ version: 3, conversations: parts }));
  await importFile(page, file, 3);

  const panel = page.getByTestId('storage-panel');
  await expect(panel.getByTestId('storage-row').first()).toBeHidden();
  await panel.getByText('Storage', { exact: true }).click();
  // Largest first, each with its size.
  await expect(panel.getByTestId('storage-row')).toHaveCount(3);
  await expect(panel.getByTestId('storage-row').first()).toContainText('size1 conversation 1');
  await expect(panel.getByTestId('storage-size')).toHaveText([/^2\.0 MB$/, /^20\d KB$/, /^2\d\.\d KB|^2\d KB$/]);
  await expect(panel.getByTestId('storage-usage')).toContainText(/^Conversations: 2\.\d MB as saved\. The browser reports .* in use for Pensive \(it may compress\), of about .* it allows\.$/);
  await expect(panel.getByTestId('storage-persisted')).toContainText(/Kept for good/);
  await expect(panel.getByTestId('storage-persisted')).not.toContainText(/Not kept for good/);

  // Deleting the largest from the panel frees its room.
  await panel.getByRole('button', { name: 'Delete “size1 conversation 1” to free room' }).click();
  await expect(panel.getByTestId('storage-row')).toHaveCount(2);
  await expect(page.getByTestId('conversation-item')).toHaveCount(2);
  await expect(panel.getByTestId('storage-usage')).toContainText(/^Conversations: 2\d\d KB as saved\./);
  await expect.poll(async () => Object.keys(await storedRecords(page)).sort()).toEqual(['size0-0', 'size2-0']);
});
