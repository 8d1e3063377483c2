import { expect, test } from '@playwright/test';
import { atMost, info, OURS, writeResults, type Row } from './results';
import { perChunkRows, perEvent, sampleTurn, STREAM_TIMEOUT_MS, watchMainThread, type Field, type Sample } from './stream-sampling';

// Rendering cost while a long code block streams (mock:bench-code: an answer
// that is one fenced Rust block of 350 KB, in 7,500 chunks). An open fence
// must grow at a flat cost per chunk: its finished lines are added once, only
// the line being written is rendered again (src/app/markdown/stream_render.rs).
// Main-thread time per chunk is sampled as stream-sampling.ts describes.
const CODE_CHUNKS = 7_500;
/** Events before the first answer chunk (none: the answer starts the turn). */
const EVENTS_BEFORE_CODE = 0;
/** Main-thread time per chunk from chunk `from` to chunk `to` of the stream. */
function perChunk(samples: Sample[], from: number, to: number, field: Field = 'task') {
  return perEvent(samples, EVENTS_BEFORE_CODE + from, EVENTS_BEFORE_CODE + to, field);
}

test('rendering a 350 KB code block streamed in 7,500 chunks', async ({ page }) => {
  test.setTimeout(STREAM_TIMEOUT_MS + 60_000);
  await page.addInitScript(watchMainThread);
  await page.goto(`${OURS}/`);
  await expect(page.locator('body[data-hydrated="true"]')).toBeAttached({ timeout: 30_000 });
  // The renderer's module has loaded (src/app/lazy_renderer/mod.rs): its load is
  // not part of the stream's cost.
  await expect(page.locator('body[data-renderer="ready"]')).toBeAttached({ timeout: 30_000 });
  const readyAt = await page.evaluate(() => performance.now());

  const samples = await sampleTurn(page, 'Write the whole generated module. mock:bench-code');
  const last = samples[samples.length - 1];
  expect(last.status, 'the benchmark turn ended normally').toBe('done');
  expect(last.events).toBeGreaterThanOrEqual(EVENTS_BEFORE_CODE + CODE_CHUNKS);
  // The block is whole, once, and its code is all there.
  const code = page.getByTestId('answer').locator('.code-block pre > code');
  await expect(code).toHaveCount(1);
  const codeBytes = await code.evaluate((el) => el.textContent?.length ?? 0);
  expect(codeBytes).toBe(350 * 1024);

  const perf = await page.evaluate(() => (window as any).__pensivePerf as { longTasks: { start: number; duration: number }[]; frames: number[] });
  const firstEventAt = samples.find((s) => s.events > 0)?.now ?? samples[0].now;
  const endAt = last.now;
  const longTasks = perf.longTasks.filter((t) => t.start >= readyAt);
  const streamFrames = perf.frames.filter((t) => t >= firstEventAt && t <= endAt);
  let worstGap = 0;
  for (let i = 1; i < streamFrames.length; i++) worstGap = Math.max(worstGap, streamFrames[i] - streamFrames[i - 1]);

  const tenth = CODE_CHUNKS / 10;
  const first = perChunk(samples, 0, tenth);
  const lastTenth = perChunk(samples, CODE_CHUNKS - tenth, CODE_CHUNKS);
  const rows: Row[] = [
    info('main-thread time per code chunk, first 10%', first * 1000, 'µs'),
    info('main-thread time per code chunk, last 10%', lastTenth * 1000, 'µs'),
    atMost('code block: per-chunk time, last 10% / first 10%', lastTenth / first, '×', 1.3),
    atMost('code block: long tasks (> 50 ms) while it streams', longTasks.length, 'tasks', 0),
    info('longest task', Math.max(0, ...longTasks.map((t) => t.duration)), 'ms'),
    info('frame rate while streaming (rAF)', (streamFrames.length / (endAt - firstEventAt)) * 1000, 'fps'),
    info('longest gap between frames while streaming', worstGap, 'ms'),
    info('stream duration (first event → done)', (endAt - firstEventAt) / 1000, 's'),
    info('events applied', last.events, 'events'),
  ];
  rows.push(...perChunkRows(samples, EVENTS_BEFORE_CODE, CODE_CHUNKS, 'code'));
  const eventsAt = (t: number) => samples.find((s) => s.now >= t)?.events ?? last.events;
  console.log('long tasks (start ms, duration ms, events applied):', longTasks.map((t) => [Math.round(t.start), Math.round(t.duration), eventsAt(t.start)]));
  writeResults('code-block', 'Rendering a 350 KB code block in 7,500 chunks (mock:bench-code, release build)', rows);
});

// One long line in an open fence (mock:bench-long-line: 200 KB of minified
// JavaScript on one line, in 801 chunks of 256 bytes). The line being written
// is highlighted only while it is short; past that its growth is appended as
// text (src/app/markdown/stream_render.rs, LONG_LINE_BYTES), so a chunk costs
// the same at the end of the line as at its start, in the renderer's worker
// and on the page. Before, every frame highlighted and sanitized the whole
// line again: 31.6 s of CPU and 617 MB of HTML for this input.
const LONG_LINE_CHUNKS = 801;

test('rendering one 200 KB line of code streamed in 256-byte chunks', async ({ page }) => {
  test.setTimeout(STREAM_TIMEOUT_MS + 60_000);
  await page.addInitScript(watchMainThread);
  await page.goto(`${OURS}/`);
  await expect(page.locator('body[data-renderer="ready"]')).toBeAttached({ timeout: 30_000 });

  const samples = await sampleTurn(page, 'Minify it. mock:bench-long-line');
  const last = samples[samples.length - 1];
  expect(last.status, 'the benchmark turn ended normally').toBe('done');
  expect(last.events).toBeGreaterThanOrEqual(LONG_LINE_CHUNKS);
  const code = page.getByTestId('answer').locator('.code-block pre > code');
  await expect(code).toHaveCount(1);
  expect(await code.evaluate((el) => el.textContent?.length ?? 0)).toBe(200 * 1024 + 1);
  const htmlBytes: number = await page.evaluate(() => (window as any).__pensivePerf.streamHtmlBytes ?? 0);

  const tenth = LONG_LINE_CHUNKS / 10;
  // Chunks of the line itself: past its first 2 KB (highlighted while short).
  const from = 20;
  const per = (a: number, b: number, field: Field) => perEvent(samples, a, b, field) * 1000;
  const firstWorker = per(from, from + tenth, 'worker');
  const lastWorker = per(LONG_LINE_CHUNKS - tenth, LONG_LINE_CHUNKS, 'worker');
  const firstMain = per(from, from + tenth, 'task');
  const lastMain = per(LONG_LINE_CHUNKS - tenth, LONG_LINE_CHUNKS, 'task');
  const rows: Row[] = [
    info('renderer (worker) time per chunk, first 10% of the line', firstWorker, 'µs'),
    info('renderer (worker) time per chunk, last 10% of the line', lastWorker, 'µs'),
    atMost('long line: renderer time per chunk, last 10% / first 10%', lastWorker / firstWorker, '×', 1.5),
    info('main-thread time per chunk, first 10% of the line', firstMain, 'µs'),
    info('main-thread time per chunk, last 10% of the line', lastMain, 'µs'),
    atMost('long line: main-thread time per chunk, last 10% / first 10%', lastMain / firstMain, '×', 1.5),
    atMost('long line: HTML put on the page in all', htmlBytes / 1e6, 'MB', 5),
    info('stream duration (first event → done)', (last.now - (samples.find((s) => s.events > 0)?.now ?? samples[0].now)) / 1000, 's'),
  ];
  writeResults('long-line', 'One 200 KB line of code in 801 chunks of 256 bytes (mock:bench-long-line, release build)', rows);
});
