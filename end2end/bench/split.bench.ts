import { expect, test } from '@playwright/test';
import { ChatPage } from '../tests/fixtures/chat-page';
import { watchPensive } from './hydration';
import { OURS } from './results';

// The release build's code split (src/app/later.rs, scripts/build-release.sh),
// which only release builds have: the test suite runs debug builds, where the
// split's functions are plain ones. A first visit fetches each chunk once,
// after the page marked itself interactive, and a session that goes through
// both chunks works: the Tools panel, a turn sent and streamed, the page
// reloaded (history read back), a search and its result opened, the storage
// panel.

/** The split's files: the chunks and their loader (`<stem>.<build id>.<ext>`). */
const SPLIT_FILE = /\/pkg\/(split_\w+|chunk_\d+|__wasm_split)\.[A-Za-z0-9_-]{22}\.(wasm|js)$/;

test('the release build fetches its chunks once, after the page is interactive, and a session runs through them', async ({ page }) => {
  const chat = new ChatPage(page);
  // Each split file's request, and when its response ended (wall clock, ms).
  const fetched: { url: string; endedAt: number }[] = [];
  page.on('requestfinished', (request) => {
    const timing = request.timing();
    if (SPLIT_FILE.test(request.url())) fetched.push({ url: request.url(), endedAt: timing.startTime + timing.responseEnd });
  });
  await page.addInitScript(watchPensive);
  await chat.open(OURS);
  const hydratedAt: number = await page.evaluate(() => performance.timeOrigin + (window as any).__hydratedAt);
  // The two chunks and what they share (the loader is imported by the glue).
  await expect.poll(() => fetched.filter((f) => f.url.endsWith('.wasm')).length).toBeGreaterThanOrEqual(3);
  const chunks = fetched.filter((f) => f.url.endsWith('.wasm'));
  expect(new Set(chunks.map((f) => f.url)).size, 'each chunk fetched once').toBe(chunks.length);
  expect(chunks.map((f) => f.url.match(SPLIT_FILE)?.[1])).toEqual(expect.arrayContaining(['split_library', 'split_turn']));
  for (const chunk of chunks) expect(chunk.endedAt, `${chunk.url} after the page was interactive`).toBeGreaterThan(hydratedAt);

  // Once the chunks are in, a chunk's view is made at once, as in a build
  // that is not split: the Tools panel (in the model line's Suspense) opens
  // without taking its button off the page, so Escape closes it and the
  // focus goes back to the button.
  const toolsButton = page.getByTestId('tools-button');
  await toolsButton.click();
  await expect(page.getByTestId('tools-panel')).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('tools-panel')).toHaveCount(0);
  await expect(toolsButton).toBeFocused();

  // A turn, through the turn chunk (sending, streaming, the message views).
  await chat.send('Does the split hold?');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  // The answer's HTML comes from the renderer's worker, a moment after the turn ends.
  await expect(chat.assistant().getByTestId('answer')).toHaveText(/\S/);
  const answer = (await chat.assistant().getByTestId('answer').innerText()).trim();

  // Reloaded: history is read back by the turn chunk.
  await page.reload();
  await chat.hydrated();
  await expect(chat.assistant().getByTestId('answer')).toHaveText(answer);
  await expect(page.getByTestId('conversation-item')).toHaveCount(1);

  // The library chunk: search, open the result, the storage panel.
  await page.getByTestId('search-conversations').fill('split');
  await page.getByTestId('search-result').first().click();
  await expect(chat.assistant().getByTestId('answer')).toHaveText(answer);
  const panel = page.getByTestId('storage-panel');
  await panel.getByText('Storage', { exact: true }).click();
  await expect(panel.getByTestId('storage-row')).toHaveCount(1);
  await chat.expectNoConsoleErrors();
});
