import { expect, test } from '@playwright/test';
import { atMost, info, OURS, writeResults, type Row } from './results';
import { perChunkRows, perEvent, sampleTurn, STREAM_TIMEOUT_MS, taskAt, watchMainThread, type Field, type Sample } from './stream-sampling';

// Rendering cost while a long reasoning stream arrives (mock:bench-render:
// 1 MB of reasoning in 20,000 chunks, then a 200 KB markdown answer), sampled
// as stream-sampling.ts describes.
const REASONING_CHUNKS = 20_000;
/** Events before the first reasoning chunk (thinking_start). */
const EVENTS_BEFORE_REASONING = 1;
/** Main-thread time per chunk from chunk `from` to chunk `to` of the stream. */
function perChunk(samples: Sample[], from: number, to: number, field: Field = 'task') {
  return perEvent(samples, EVENTS_BEFORE_REASONING + from, EVENTS_BEFORE_REASONING + to, field);
}

test('rendering a 1 MB reasoning stream and a 200 KB answer', async ({ page }) => {
  test.setTimeout(STREAM_TIMEOUT_MS + 60_000);
  await page.addInitScript(watchMainThread);
  await page.goto(`${OURS}/`);
  await expect(page.locator('body[data-hydrated="true"]')).toBeAttached({ timeout: 30_000 });
  const hydratedAt = await page.evaluate(() => performance.now());

  const samples = await sampleTurn(page, 'Think about binary search at length. mock:bench-render');
  const last = samples[samples.length - 1];
  expect(last.status, 'the benchmark turn ended normally').toBe('done');
  expect(last.events).toBeGreaterThan(EVENTS_BEFORE_REASONING + REASONING_CHUNKS);

  const perf = await page.evaluate(() => (window as any).__pensivePerf as { longTasks: { start: number; duration: number }[]; frames: number[]; saves: [number, number, number][] });
  const firstEventAt = samples.find((s) => s.events > 0)?.now ?? samples[0].now;
  const endAt = last.now;
  const reasoningEndAt = samples.find((s) => s.events >= EVENTS_BEFORE_REASONING + REASONING_CHUNKS)?.now ?? endAt;
  const longTasks = perf.longTasks.filter((t) => t.start >= hydratedAt);
  const framesIn = (a: number, b: number) => perf.frames.filter((t) => t >= a && t <= b);
  const streamFrames = framesIn(firstEventAt, endAt);
  let worstGap = 0;
  for (let i = 1; i < streamFrames.length; i++) worstGap = Math.max(worstGap, streamFrames[i] - streamFrames[i - 1]);

  const tenth = REASONING_CHUNKS / 10;
  const first = perChunk(samples, 0, tenth);
  const lastTenth = perChunk(samples, REASONING_CHUNKS - tenth, REASONING_CHUNKS);
  const rows: Row[] = [
    info('main-thread time per reasoning chunk, first 10%', first * 1000, 'µs'),
    info('main-thread time per reasoning chunk, last 10%', lastTenth * 1000, 'µs'),
    atMost('per-chunk time, last 10% / first 10%', lastTenth / first, '×', 1.3),
    atMost('long tasks (> 50 ms) after hydration', longTasks.length, 'tasks', 0),
    info('longest task after hydration', Math.max(0, ...longTasks.map((t) => t.duration)), 'ms'),
    info('frame rate while streaming (rAF)', (streamFrames.length / (endAt - firstEventAt)) * 1000, 'fps'),
    info('frame rate while reasoning streams (rAF)', (framesIn(firstEventAt, reasoningEndAt).length / (reasoningEndAt - firstEventAt)) * 1000, 'fps'),
    info('longest gap between frames while streaming', worstGap, 'ms'),
    info('stream duration (first event → done)', (endAt - firstEventAt) / 1000, 's'),
    info('reasoning duration (first event → last reasoning chunk)', (reasoningEndAt - firstEventAt) / 1000, 's'),
    info('events applied', last.events, 'events'),
  ];
  // Per-chunk time decile by decile, and where the first and last 10% go.
  rows.push(...perChunkRows(samples, EVENTS_BEFORE_REASONING, REASONING_CHUNKS, 'reasoning'));
  // When the long tasks happened, by how many events the page had applied.
  const eventsAt = (t: number) => samples.find((s) => s.now >= t)?.events ?? last.events;
  const phase = (t: { start: number }) => {
    const e = eventsAt(t.start);
    return e <= EVENTS_BEFORE_REASONING + REASONING_CHUNKS ? 'reasoning' : e < last.events ? 'answer' : 'end';
  };
  for (const p of ['reasoning', 'answer', 'end']) {
    rows.push(info(`long tasks while ${p === 'end' ? 'finishing' : `the ${p} streams`}`, longTasks.filter((t) => phase(t) === p).length, 'tasks'));
  }
  console.log('long tasks (start ms, duration ms, events applied):', longTasks.map((t) => [Math.round(t.start), Math.round(t.duration), eventsAt(t.start)]));
  const answerStart = EVENTS_BEFORE_REASONING + REASONING_CHUNKS + 1;
  const answerTask = taskAt(samples, last.events) - taskAt(samples, answerStart);
  rows.push(info('main-thread time per answer chunk', (answerTask / (last.events - answerStart)) * 1000, 'µs'));
  // History saves (start ms, duration ms, bytes written), recorded by the page
  // (browser.rs record_save), and which long tasks contain one.
  const saves = perf.saves.map(([start, ms, bytes]) => ({ start, ms, bytes }));
  const biggest = saves.reduce((a, b) => (b.bytes > a.bytes ? b : a), { start: 0, ms: 0, bytes: 0 });
  const holdsSave = (t: { start: number; duration: number }) =>
    saves.some((s) => s.start >= t.start && s.start <= t.start + t.duration);
  rows.push(info('history saves during the turn', saves.length, 'saves'));
  rows.push(info('longest history save', Math.max(0, ...saves.map((s) => s.ms)), 'ms'));
  rows.push(info('history save of the largest record', biggest.ms, 'ms'));
  rows.push(info('largest record saved (UTF-8 JSON)', biggest.bytes / 1024, 'KB'));
  rows.push(info('history save time in all', saves.reduce((a, s) => a + s.ms, 0), 'ms'));
  rows.push(info('long tasks that contain a history save', longTasks.filter(holdsSave).length, 'tasks'));
  console.log('history saves (start ms, ms, bytes):', saves.map((s) => [Math.round(s.start), Math.round(s.ms * 10) / 10, s.bytes]));
  writeResults('rendering', 'Rendering a 1 MB reasoning stream (mock:bench-render, release build)', rows);
});
