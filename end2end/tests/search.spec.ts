import { expect, test } from './fixtures/test';
import * as fs from 'fs';
import type { Page, TestInfo } from '@playwright/test';
import { ChatPage, MOCKED } from './fixtures/chat-page';
import { storedRecords, storedTexts } from './fixtures/stored';

// Search (issue 22, item 3): the box above the list finds conversations by
// words in titles, questions, answers and reasoning; a result shows the
// snippet with the match marked and where it is; opening one shows that
// conversation scrolled to the match (a match in reasoning opens its
// Thinking block). Ctrl/Cmd+K focuses the box from anywhere.

/** A word found only near the end of the long conversation's reasoning. */
const WORD = 'zanzibarite';
const LONG_QUESTION = 'Which mineral fits all of these clues?';

type Message = Record<string, unknown>;

function question(content: string): Message {
  return { role: 'user', content };
}

function turn(reasoning: string, answer: string): Message {
  return {
    role: 'assistant',
    status: 'done',
    blocks: [
      { kind: 'thinking', text: reasoning, duration_ms: 42_000, opaque: false, state: 'done' },
      { kind: 'answer', text: answer },
    ],
  };
}

function conversation(id: string, title: string, updatedAt: number, messages: Message[]) {
  return { id, title, created_at: updatedAt, updated_at: updatedAt, messages };
}

/** About 1 MB of reasoning, with `WORD` in a paragraph near its end. */
function longReasoning(): string {
  const step = (i: number) => `Step ${i}: the model weighs candidate ${i} against the clues and sets it aside.\n\n`;
  let text = '';
  let i = 0;
  while (text.length < 1_000_000) text += step(i++);
  text += `At last the ${WORD} hypothesis fits every clue, including the green streak.\n\n`;
  for (let j = 0; j < 12; j++) text += step(i++);
  return text;
}

/** An answer of a few screens. */
function longAnswer(topic: string): string {
  return Array.from({ length: 30 }, (_, i) => `Paragraph ${i} about the ${topic}, long enough to fill a line or two of the page.`).join('\n\n');
}

/** An all-conversations export (src/turn/message/envelope.rs `encode_all`); its first is shown after import. */
function exportFile(): string {
  return JSON.stringify({
    version: 3,
    conversations: [
      conversation('groceries', 'Weekend groceries', 3_000, [
        question('What should I buy for the weekend?'),
        turn('They asked about shopping.', 'Bread, eggs and **apples**.'),
      ]),
      conversation('minerals', 'Mineral identification', 2_000, [
        question(LONG_QUESTION),
        turn(longReasoning(), 'It is most likely a rare **silicate**.'),
        // Later turns, so that the latest one is far below the match.
        question('Where is it found?'),
        turn('Thinking about deposits.', longAnswer('deposit')),
        question('How is it cut?'),
        turn('Thinking about cutting.', `${longAnswer('facet')}\n\nCut it **slowly**.`),
      ]),
      conversation('tea', 'Oolong brewing notes', 1_000, [
        question('How hot should the water be?'),
        turn('Lower than for black tea.', 'About 90 °C.'),
      ]),
    ],
  });
}

/** The mocked server's page with the three conversations of `exportFile` imported. */
async function openWithConversations(page: Page, testInfo: TestInfo): Promise<ChatPage> {
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  const file = testInfo.outputPath('search.json');
  fs.writeFileSync(file, exportFile());
  await page.getByTestId('import-json').setInputFiles(file);
  await expect(page.getByTestId('conversation-item')).toHaveCount(3);
  return chat;
}

/** The search highlight's text and where it is, or null while there is none. */
function highlighted(page: Page) {
  return page.evaluate(() => {
    const registry = (CSS as any).highlights;
    const highlight = registry?.get('pensive-search');
    if (!highlight) return null;
    const [range] = [...highlight] as Range[];
    const at = range.getBoundingClientRect();
    const inside = (el: Element | null | undefined) => {
      if (!el) return false;
      const box = el.getBoundingClientRect();
      return at.height > 0 && at.top >= box.top && at.bottom <= box.bottom;
    };
    const start = range.startContainer.parentElement;
    return {
      text: range.toString(),
      inConversationView: inside(document.querySelector('[data-testid="conversation"]')),
      inReasoningView: inside(start?.closest('.thinking-body')),
    };
  });
}

test('search finds a word near the end of 1 MB of reasoning and opens the conversation at it', async ({ page }, testInfo) => {
  test.setTimeout(90_000);
  const chat = await openWithConversations(page, testInfo);
  const items = page.getByTestId('conversation-item');
  // The first of the file is shown, not the long one.
  await expect(page.getByTestId('user-text')).toHaveText(['What should I buy for the weekend?']);

  const box = page.getByRole('searchbox', { name: 'Search conversations' });
  await expect(box).toHaveAttribute('data-testid', 'search-conversations');
  await expect(box).not.toBeFocused();
  await expect(page.locator('.search-shortcut')).toHaveText(/^(Ctrl K|\u2318K)$/);
  // From the conversation, not from a field: the page's own shortcut.
  await page.getByTestId('conversation').focus();
  await page.keyboard.press('Control+K');
  await expect(box).toBeFocused();

  const results = page.getByTestId('search-result');
  await expect(results).toHaveCount(0);
  await box.pressSequentially(WORD.toUpperCase());
  await expect(results).toHaveCount(1);
  // The results take the list's place.
  await expect(items).toHaveCount(0);
  const result = results.first();
  await expect(result).toHaveAttribute('data-part', 'reasoning');
  await expect(result).toContainText('Mineral identification');
  await expect(result).toContainText('in reasoning');
  await expect(result.locator('mark')).toHaveText(WORD);
  await expect(result.getByTestId('search-snippet')).toContainText(`At last the ${WORD} hypothesis fits every clue`);
  await expect(page.getByTestId('search-status')).toHaveText('');

  // Before opening: another conversation, no highlight.
  expect(await highlighted(page)).toBeNull();
  await result.getByRole('button').click();
  await expect(page.getByTestId('user-text').first()).toHaveText(LONG_QUESTION);
  const block = chat.thinking(chat.assistant(0));
  await expect(chat.header(block)).toHaveAttribute('aria-expanded', 'true');
  await expect
    .poll(() => highlighted(page), { timeout: 30_000 })
    .toEqual({ text: WORD, inConversationView: true, inReasoningView: true });
  // Opened at the match, not at the latest turn: the view does not follow.
  await expect(page.getByTestId('jump-to-latest')).toBeVisible();
  // Once the latest answer is formatted, the view is still at the match.
  await expect(chat.assistant().getByTestId('answer').locator('strong')).toHaveText('slowly');
  expect(await highlighted(page)).toEqual({ text: WORD, inConversationView: true, inReasoningView: true });
  await chat.expectNoConsoleErrors();
});

test('no match says so; Escape returns to the list; a title matches; Cmd+K works too', async ({ page }, testInfo) => {
  const chat = await openWithConversations(page, testInfo);
  const items = page.getByTestId('conversation-item');

  const box = page.getByRole('searchbox', { name: 'Search conversations' });
  const results = page.getByTestId('search-result');
  const status = page.getByTestId('search-status');
  await expect(box).not.toBeFocused();
  await page.keyboard.press('Meta+K');
  await expect(box).toBeFocused();

  await box.fill('qwertyuiop');
  await expect(status).toHaveText('No conversations match \u201cqwertyuiop\u201d.');
  await expect(results).toHaveCount(0);
  await expect(items).toHaveCount(0);

  // A newer query replaces the older one's answer.
  await box.fill('oolong');
  await expect(results).toHaveCount(1);
  await expect(status).toHaveText('');
  await expect(results.first()).toHaveAttribute('data-part', 'title');
  await expect(results.first()).toContainText('in the title');
  await expect(results.first().locator('mark')).toHaveText('Oolong');

  await box.press('Escape');
  await expect(box).toHaveValue('');
  await expect(results).toHaveCount(0);
  await expect(items).toHaveCount(3);

  // A word of a question, and of an answer; opening a result shows its conversation.
  await box.fill('water be');
  await expect(results).toHaveCount(1);
  await expect(results.first()).toHaveAttribute('data-part', 'question');
  await box.fill('apples');
  await expect(results).toHaveCount(1);
  await expect(results.first()).toHaveAttribute('data-part', 'answer');
  await box.fill('oolong');
  await expect(results.first()).toHaveAttribute('data-part', 'title');
  await expect(page.getByTestId('user-text')).not.toHaveText(['How hot should the water be?']);
  await results.first().getByRole('button').click();
  await expect(page.getByTestId('user-text')).toHaveText(['How hot should the water be?']);
  await chat.expectNoConsoleErrors();
});

test('at 375 px Ctrl+K opens the conversations menu and focuses the search box', async ({ page }, testInfo) => {
  const chat = await openWithConversations(page, testInfo);
  await page.setViewportSize({ width: 375, height: 740 });
  const box = page.getByRole('searchbox', { name: 'Search conversations' });
  const toggle = page.getByTestId('menu-toggle');
  await expect(toggle).toHaveAttribute('aria-expanded', 'false');
  await expect(box).toBeHidden();
  await page.keyboard.press('Control+K');
  await expect(toggle).toHaveAttribute('aria-expanded', 'true');
  await expect(box).toBeFocused();
  await box.fill('oolong');
  await expect(page.getByTestId('search-result')).toHaveCount(1);
  // Nothing sticks out sideways at phone width.
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
  // Opening a result closes the menu and shows the conversation.
  await page.getByTestId('search-result').getByRole('button').click();
  await expect(toggle).toHaveAttribute('aria-expanded', 'false');
  await expect(page.getByTestId('user-text')).toHaveText(['How hot should the water be?']);
  await chat.expectNoConsoleErrors();
});

test('keys typed right after Ctrl+K are all kept, even before the next frame is drawn', async ({ page }, testInfo) => {
  const chat = await openWithConversations(page, testInfo);
  const box = page.getByRole('searchbox', { name: 'Search conversations' });
  await box.fill('oolong');
  await page.getByTestId('conversation').focus();
  await expect(box).not.toBeFocused();

  // A quick typist's first key lands before the page draws its next frame:
  // frames wait until the key is in, then run.
  await page.evaluate(() => {
    const w = window as unknown as Record<string, unknown> & Window;
    const held: FrameRequestCallback[] = [];
    const real = window.requestAnimationFrame.bind(window);
    w.requestAnimationFrame = (callback: FrameRequestCallback) => (held.push(callback), 0);
    w.__releaseFrames = () => {
      w.requestAnimationFrame = real;
      for (const callback of held.splice(0)) callback(performance.now());
    };
  });
  await page.keyboard.press('Control+K');
  // The shortcut selects what the box held, so the first key replaces it.
  await page.keyboard.type('Z');
  await expect(box).toHaveValue('Z');
  await page.evaluate(() => (window as unknown as { __releaseFrames: () => void }).__releaseFrames());
  await page.keyboard.type('anzibarite');
  await expect(box).toHaveValue('Zanzibarite');
  await expect(page.getByTestId('search-result').first().locator('mark')).toHaveText(WORD);
  await chat.expectNoConsoleErrors();
});

test('a database the previous build wrote (no word lists) is upgraded in place: every conversation listed, found and kept', async ({ page }, testInfo) => {
  const chat = await openWithConversations(page, testInfo);
  // This build keeps a word list beside each conversation it stores.
  const lists = await storedTexts(page, 'words');
  expect(Object.keys(lists).sort()).toEqual(['groceries', 'minerals', 'tea']);
  expect(lists.minerals.startsWith('w1\n')).toBe(true);
  expect(lists.minerals).toContain(`\n${WORD}\n`);
  const records = await storedRecords(page);
  const texts = await storedTexts(page, 'search');
  // What a search reads first is a fraction of what it used to read.
  expect(lists.minerals.length).toBeLessThan(texts.minerals.length / 4);

  // What the previous build left: database version 1, its two stores, no
  // word lists (written from a page of the site where the app does not run).
  await page.goto(`${MOCKED}/pkg/render_worker.js`);
  await page.evaluate(
    ({ records, texts }) =>
      new Promise<void>((resolve, reject) => {
        const gone = indexedDB.deleteDatabase('pensive');
        gone.onerror = () => reject(gone.error);
        gone.onsuccess = () => {
          const open = indexedDB.open('pensive', 1);
          open.onupgradeneeded = () => {
            open.result.createObjectStore('conversations');
            open.result.createObjectStore('search');
          };
          open.onerror = () => reject(open.error);
          open.onsuccess = () => {
            const db = open.result;
            const tx = db.transaction(['conversations', 'search'], 'readwrite');
            for (const [id, record] of Object.entries(records)) tx.objectStore('conversations').put(record, id);
            for (const [id, text] of Object.entries(texts)) tx.objectStore('search').put(text, id);
            tx.oncomplete = () => (db.close(), resolve());
            tx.onabort = () => reject(tx.error);
          };
        };
      }),
    { records, texts },
  );
  expect(await storedTexts(page, 'words')).toEqual({});

  await chat.open(MOCKED);
  await expect(page.getByTestId('conversation-item')).toHaveCount(3);
  const box = page.getByRole('searchbox', { name: 'Search conversations' });
  await box.fill(WORD);
  const results = page.getByTestId('search-result');
  await expect(results).toHaveCount(1);
  await expect(results.first().locator('mark')).toHaveText(WORD);
  await box.fill('apples');
  await expect(results).toHaveCount(1);
  await expect(results.first()).toContainText('Weekend groceries');
  // Upgraded, nothing rewritten: the records are as the previous build left them.
  expect(await storedRecords(page)).toEqual(records);
  expect(await page.evaluate(() => indexedDB.databases().then((d) => d.find((x) => x.name === 'pensive')?.version))).toBe(2);
  await chat.expectNoConsoleErrors();
});
