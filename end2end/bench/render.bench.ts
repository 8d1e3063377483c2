import { expect, test } from '@playwright/test';
import { atMost, info, OURS, writeResults, type Row } from './results';

// Rendering cost while a long reasoning stream arrives (mock:bench-render:
// 1 MB of reasoning in 20,000 chunks, then a 200 KB markdown answer). The page
// counts applied events in window.__pensivePerf.events (created here, before
// the app loads); CDP's Performance.getMetrics gives the main thread's
// cumulative task time. Sampling both every SAMPLE_MS and interpolating gives
// main-thread time per chunk for any range of chunks.
const REASONING_CHUNKS = 20_000;
/** Events before the first reasoning chunk (thinking_start). */
const EVENTS_BEFORE_REASONING = 1;
const SAMPLE_MS = 100;
const STREAM_TIMEOUT_MS = 240_000;

interface Sample {
  events: number;
  /** Main-thread task time so far (ms). */
  task: number;
  script: number;
  layout: number;
  style: number;
  /** The streaming view's own time so far (ms): in the renderer, and on the page. */
  render: number;
  page: number;
  status: string | null;
}

/** The task time at the moment `events` events had been applied (linear between samples). */
function taskAt(samples: Sample[], events: number, field: 'task' | 'script' | 'layout' | 'style' | 'render' | 'page' = 'task'): number {
  for (let i = 1; i < samples.length; i++) {
    const a = samples[i - 1];
    const b = samples[i];
    if (b.events >= events) {
      if (b.events === a.events) return b[field];
      const f = (events - a.events) / (b.events - a.events);
      return a[field] + f * (b[field] - a[field]);
    }
  }
  throw new Error(`never reached ${events} events`);
}

function perChunk(samples: Sample[], from: number, to: number, field: 'task' | 'script' | 'layout' | 'style' | 'render' | 'page' = 'task') {
  const a = EVENTS_BEFORE_REASONING + from;
  const b = EVENTS_BEFORE_REASONING + to;
  return (taskAt(samples, b, field) - taskAt(samples, a, field)) / (b - a);
}

test('rendering a 1 MB reasoning stream and a 200 KB answer', async ({ page }) => {
  test.setTimeout(STREAM_TIMEOUT_MS + 60_000);
  await page.addInitScript(() => {
    const perf = { events: 0, longTasks: [] as { start: number; duration: number }[], frames: [] as number[], saves: [] as [number, number, number][] };
    (window as any).__pensivePerf = perf;
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) perf.longTasks.push({ start: e.startTime, duration: e.duration });
    }).observe({ type: 'longtask', buffered: true });
    const frame = (t: number) => {
      perf.frames.push(t);
      requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
  });
  await page.goto(`${OURS}/`);
  await expect(page.locator('body[data-hydrated="true"]')).toBeAttached({ timeout: 30_000 });
  const hydratedAt = await page.evaluate(() => performance.now());

  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  const sample = async (): Promise<Sample & { now: number }> => {
    const [{ metrics }, state] = await Promise.all([
      cdp.send('Performance.getMetrics'),
      page.evaluate(() => ({
        events: (window as any).__pensivePerf.events as number,
        render: ((window as any).__pensivePerf.streamRenderMs as number) ?? 0,
        page: ((window as any).__pensivePerf.streamPageMs as number) ?? 0,
        now: performance.now(),
        status: document.querySelector('[data-testid="assistant-message"]')?.getAttribute('data-status') ?? null,
      })),
    ]);
    const metric = (name: string) => (metrics.find((m) => m.name === name)?.value ?? 0) * 1000;
    return {
      ...state,
      task: metric('TaskDuration'),
      script: metric('ScriptDuration'),
      layout: metric('LayoutDuration'),
      style: metric('RecalcStyleDuration'),
    };
  };

  const samples: (Sample & { now: number })[] = [await sample()];
  await page.getByTestId('composer').fill('Think about binary search at length. mock:bench-render');
  await page.getByTestId('composer').press('Enter');
  const deadline = Date.now() + STREAM_TIMEOUT_MS;
  for (;;) {
    // A sampling interval, not a wait for a condition: the loop ends on the turn's status.
    await page.waitForTimeout(SAMPLE_MS);
    const s = await sample();
    samples.push(s);
    if (s.status === 'done' || s.status === 'error' || s.status === 'stopped') break;
    if (Date.now() > deadline) throw new Error(`the stream did not finish in ${STREAM_TIMEOUT_MS} ms`);
  }
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
  for (let d = 0; d < 10; d++) {
    rows.push(info(`reasoning decile ${d + 1}: main-thread time per chunk`, perChunk(samples, d * tenth, (d + 1) * tenth) * 1000, 'µs'));
  }
  for (const field of ['script', 'style', 'layout'] as const) {
    rows.push(info(`${field} time per chunk, first 10%`, perChunk(samples, 0, tenth, field) * 1000, 'µs'));
    rows.push(info(`${field} time per chunk, last 10%`, perChunk(samples, REASONING_CHUNKS - tenth, REASONING_CHUNKS, field) * 1000, 'µs'));
  }
  // Of that, the streaming view's own frames (src/app/streaming_markdown.rs).
  for (const [field, what] of [['render', 'in the renderer'], ['page', 'applying them to the page']] as const) {
    rows.push(info(`streaming view ${what}, per chunk, first 10%`, perChunk(samples, 0, tenth, field) * 1000, 'µs'));
    rows.push(info(`streaming view ${what}, per chunk, last 10%`, perChunk(samples, REASONING_CHUNKS - tenth, REASONING_CHUNKS, field) * 1000, 'µs'));
  }
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
