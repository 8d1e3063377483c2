import * as fs from 'fs';
import { expect, test, type Page } from '@playwright/test';
import { atMost, info, OURS, writeResults, type Row } from './results';

// History at scale (issue 22, docs/history.md): 100 conversations of 1 MB of
// reasoning each, stored through the app's own import (ten all-conversations
// files of ten, each one IndexedDB transaction), then a reload and a search.

const COUNT = 100;
const PER_FILE = 10;
const REASONING_BYTES = 1_000_000;
/** Only the oldest conversation has it, near the end of its reasoning: the search reads all 100. */
const RARE_WORD = 'quillwort';

/** Deterministic pseudo-random numbers (mulberry32), so every run stores the same text. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SYLLABLES = ['ka', 'ro', 'mi', 'te', 'su', 'la', 'ven', 'dor', 'pli', 'qua', 'ex', 'non', 'ti', 'ber', 'gra', 'sol'];
/** One word in eight ends in punctuation. */
const PUNCTUATION = ['', '', '', '', '', '', '', '', '', '', '', '', '', '', ',', '.'];

/**
 * About 1 MB of reasoning with the spread of real prose: 150,000 words drawn
 * from a vocabulary of 20,000 by Zipf's law, some with punctuation, so a
 * conversation has about 21,000 distinct words (a word list of about 210 KB,
 * more than English prose of that length has) and a word list is no toy.
 * Each conversation differs.
 */
function reasoningText(n: number): string {
  const next = random(n + 1);
  const words: string[] = ['The model weighs each step of the problem before it answers.'];
  let length = words[0].length;
  while (length < REASONING_BYTES) {
    const rank = Math.floor(Math.exp(next() * Math.log(20_000)));
    let word = '';
    for (let r = rank; ; r = Math.floor(r / SYLLABLES.length)) {
      word += SYLLABLES[r % SYLLABLES.length];
      if (r < SYLLABLES.length) break;
    }
    word += PUNCTUATION[Math.floor(next() * PUNCTUATION.length)];
    words.push(word);
    length += word.length + 1;
  }
  return words.join(' ').slice(0, REASONING_BYTES);
}

function exportFile(part: number): string {
  const conversations = Array.from({ length: PER_FILE }, (_, i) => {
    const n = part * PER_FILE + i;
    const reasoning = reasoningText(n);
    const tail = n === 0 ? ` Near the end, the ${RARE_WORD} settles it.` : ' Done.';
    return {
      id: `bench-${n}`,
      title: `Long conversation ${n + 1}`,
      created_at: 1_000 + n,
      updated_at: 1_000 + n,
      messages: [
        { role: 'user', content: `Question ${n + 1}` },
        {
          role: 'assistant',
          blocks: [
            { kind: 'thinking', text: reasoning + tail, duration_ms: 60_000, opaque: false, state: 'done' },
            { kind: 'answer', text: `Answer ${n + 1}.` },
          ],
          status: 'done',
        },
      ],
    };
  });
  return JSON.stringify({ version: 3, conversations });
}

/** Milliseconds from hydration to the list showing every conversation. */
function watchListReadiness() {
  const w = window as unknown as { __history: { hydrated?: number; listed?: number; painted: boolean[] } };
  w.__history = { painted: [] };
  const look = () => {
    const h = w.__history;
    if (h.hydrated === undefined && document.body?.dataset.hydrated === 'true') h.hydrated = performance.now();
    if (h.listed === undefined && document.querySelectorAll('[data-testid="conversation-item"]').length >= 100) h.listed = performance.now();
    const area = document.querySelector('[data-testid="conversation"]');
    if (area) h.painted.push((area.textContent ?? '').includes('Question 1'));
    if (h.listed === undefined || h.painted.length < 5) requestAnimationFrame(look);
  };
  requestAnimationFrame(look);
}

async function importAll(page: Page, dir: string): Promise<number> {
  const started = Date.now();
  // Playwright makes a test's output folder only when something asks it to.
  fs.mkdirSync(dir, { recursive: true });
  for (let part = 0; part < COUNT / PER_FILE; part++) {
    const path = `${dir}/history-${part}.json`;
    fs.writeFileSync(path, exportFile(part));
    await page.getByTestId('import-json').setInputFiles(path);
    const done = page.getByTestId('notice').filter({ hasText: `Imported ${PER_FILE} conversations.` });
    await expect(done).toHaveCount(1, { timeout: 60_000 });
    await done.getByRole('button', { name: 'Dismiss' }).click();
  }
  return Date.now() - started;
}

test('100 conversations of 1 MB of reasoning: saved, listed after a reload, searched', async ({ page }, testInfo) => {
  test.setTimeout(600_000);
  await page.goto(`${OURS}/`);
  await expect(page.locator('body[data-hydrated="true"]')).toBeAttached({ timeout: 30_000 });

  const importMs = await importAll(page, testInfo.outputDir);
  // Any notice left is a refusal (storage full, a failed save).
  const notices = await page.getByTestId('notice').count();
  const stored = await page.evaluate(async () => (await navigator.storage.estimate()).usage ?? 0);
  await expect(page.getByTestId('conversation-item')).toHaveCount(COUNT);

  // Show the oldest one, the reload's current conversation.
  await page.getByTestId('conversation-item').filter({ hasText: /^Long conversation 1Rename/ }).locator('.conversation-title').click();
  await expect(page.getByTestId('user-text')).toHaveText(['Question 1']);

  await page.addInitScript(watchListReadiness);
  await page.reload();
  await expect(page.getByTestId('conversation-item')).toHaveCount(COUNT, { timeout: 30_000 });
  await expect(page.getByTestId('user-text')).toHaveText(['Question 1']);
  const readiness = await page.evaluate(() => (window as any).__history as { hydrated: number; listed: number; painted: boolean[] });
  const listAfterHydrationMs = Math.max(0, readiness.listed - readiness.hydrated);
  const framesBeforeConversation = readiness.painted.findIndex((p) => p);

  // Search: the time from the last keystroke to the first result on screen
  // (the box waits 120 ms after typing stops, included).
  const box = page.getByRole('searchbox', { name: 'Search conversations' });
  await box.click();
  await page.evaluate(() => {
    const w = window as any;
    w.__search = {};
    const input = document.querySelector('[data-testid="search-conversations"]')!;
    input.addEventListener('input', () => (w.__search.typed = performance.now()));
    new MutationObserver(() => {
      if (w.__search.found === undefined && document.querySelector('[data-testid="search-result"]')) w.__search.found = performance.now();
    }).observe(document.body, { childList: true, subtree: true });
  });
  await box.fill(RARE_WORD);
  await expect(page.getByTestId('search-result')).toHaveCount(1, { timeout: 30_000 });
  const search = await page.evaluate(() => (window as any).__search as { typed: number; found: number });
  const firstResultMs = search.found - search.typed;
  // A word in every conversation: the first result comes from the newest.
  await box.fill('');
  await page.evaluate(() => ((window as any).__search = {}));
  await page.evaluate(() => {
    const w = window as any;
    const input = document.querySelector('[data-testid="search-conversations"]')!;
    input.addEventListener('input', () => (w.__search.typed = performance.now()), { once: true });
  });
  await box.fill('weighs');
  await expect(page.getByTestId('search-result').first()).toBeVisible();
  const common = await page.evaluate(() => {
    const w = window as any;
    return performance.now() - w.__search.typed;
  });

  const rows: Row[] = [
    atMost('history: notices while saving 100 conversations of 1 MB reasoning', notices, 'notices', 0),
    info('history: importing them (10 files of 10, each one transaction)', importMs / 1000, 's'),
    info('history: storage the browser reports in use', stored / 1e6, 'MB'),
    atMost('history: list ready after hydration, 100 MB stored', listAfterHydrationMs, 'ms', 500),
    atMost('history: frames after first paint before the current conversation shows', Math.max(0, framesBeforeConversation), 'frames', 0),
    atMost('search: first result, a word only in the oldest of 100 × 1 MB (reads all)', firstResultMs, 'ms', 300),
    info('search: first result for a word in every conversation (upper bound, measured after the result showed)', common, 'ms'),
  ];
  writeResults('history', 'History: 100 conversations of 1 MB of reasoning (IndexedDB, release build)', rows);
});
