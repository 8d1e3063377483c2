import { expect, test } from '@playwright/test';
import { atMost, info, OURS, writeResults, type Row } from './results';

// Rendering cost while a long code block streams (mock:bench-code: an answer
// that is one fenced Rust block of 350 KB, in 7,500 chunks). An open fence
// must grow at a flat cost per chunk: its finished lines are added once, only
// the line being written is rendered again (src/app/markdown/stream_render.rs).
// As render.bench.ts does: the page counts applied events in
// window.__pensivePerf.events (created here, before the app loads), CDP's
// Performance.getMetrics gives the main thread's cumulative task time, and
// sampling both every SAMPLE_MS and interpolating gives main-thread time per
// chunk for any range of chunks.
const CODE_CHUNKS = 7_500;
/** Events before the first answer chunk (none: the answer starts the turn). */
const EVENTS_BEFORE_CODE = 0;
const SAMPLE_MS = 100;
const STREAM_TIMEOUT_MS = 240_000;

type Field = 'task' | 'script' | 'layout' | 'style' | 'render' | 'page';

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
  now: number;
  status: string | null;
}

/** The task time at the moment `events` events had been applied (linear between samples). */
function taskAt(samples: Sample[], events: number, field: Field = 'task'): number {
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

function perChunk(samples: Sample[], from: number, to: number, field: Field = 'task') {
  const a = EVENTS_BEFORE_CODE + from;
  const b = EVENTS_BEFORE_CODE + to;
  return (taskAt(samples, b, field) - taskAt(samples, a, field)) / (b - a);
}

test('rendering a 350 KB code block streamed in 7,500 chunks', async ({ page }) => {
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
  // The renderer's module has loaded (src/app/lazy_renderer.rs): its load is
  // not part of the stream's cost.
  await expect(page.locator('body[data-renderer="ready"]')).toBeAttached({ timeout: 30_000 });
  const readyAt = await page.evaluate(() => performance.now());

  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  const sample = async (): Promise<Sample> => {
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

  const samples: Sample[] = [await sample()];
  await page.getByTestId('composer').fill('Write the whole generated module. mock:bench-code');
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
  for (let d = 0; d < 10; d++) {
    rows.push(info(`code decile ${d + 1}: main-thread time per chunk`, perChunk(samples, d * tenth, (d + 1) * tenth) * 1000, 'µs'));
  }
  for (const field of ['script', 'style', 'layout'] as const) {
    rows.push(info(`${field} time per chunk, first 10%`, perChunk(samples, 0, tenth, field) * 1000, 'µs'));
    rows.push(info(`${field} time per chunk, last 10%`, perChunk(samples, CODE_CHUNKS - tenth, CODE_CHUNKS, field) * 1000, 'µs'));
  }
  // Of that, the streaming view's own frames (src/app/streaming_markdown.rs).
  for (const [field, what] of [['render', 'in the renderer'], ['page', 'applying them to the page']] as const) {
    rows.push(info(`streaming view ${what}, per chunk, first 10%`, perChunk(samples, 0, tenth, field) * 1000, 'µs'));
    rows.push(info(`streaming view ${what}, per chunk, last 10%`, perChunk(samples, CODE_CHUNKS - tenth, CODE_CHUNKS, field) * 1000, 'µs'));
  }
  const eventsAt = (t: number) => samples.find((s) => s.now >= t)?.events ?? last.events;
  console.log('long tasks (start ms, duration ms, events applied):', longTasks.map((t) => [Math.round(t.start), Math.round(t.duration), eventsAt(t.start)]));
  writeResults('code-block', 'Rendering a 350 KB code block in 7,500 chunks (mock:bench-code, release build)', rows);
});
