import { expect, type Page } from '@playwright/test';
import { info, type Row } from './results';

// Main-thread time per streamed chunk, shared by the rendering benchmarks
// (render.bench.ts, code.bench.ts). The page counts applied events in
// window.__pensivePerf.events (created by `watchMainThread` before the app
// loads); CDP's Performance.getMetrics gives the main thread's cumulative task
// time. Sampling both every SAMPLE_MS and interpolating gives main-thread time
// per chunk for any range of chunks.
const SAMPLE_MS = 100;
export const STREAM_TIMEOUT_MS = 240_000;

export type Field = 'task' | 'script' | 'layout' | 'style' | 'render' | 'page' | 'worker';

export interface Sample {
  events: number;
  /** Main-thread task time so far (ms). */
  task: number;
  script: number;
  layout: number;
  style: number;
  /** The streaming view's own main-thread time so far (ms): asking the renderer, and applying its frames. */
  render: number;
  page: number;
  /** The renderer's time so far in its Web Worker (ms), off the main thread. */
  worker: number;
  now: number;
  status: string | null;
}

/** Init script: the counters the app writes to, long tasks and animation frames. */
export function watchMainThread() {
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
}

/** `field` at the moment `events` events had been applied (linear between samples). */
export function taskAt(samples: Sample[], events: number, field: Field = 'task'): number {
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

/** Mean `field` per event from event `from` to event `to`. */
export function perEvent(samples: Sample[], from: number, to: number, field: Field = 'task'): number {
  return (taskAt(samples, to, field) - taskAt(samples, from, field)) / (to - from);
}

/**
 * The per-chunk breakdown both streaming benches report for a stream of
 * `chunks` chunks after `before` other events: main-thread time decile by
 * decile (`<label> decile N: …`), then where the first and last 10% go
 * (script, style, layout, and the streaming view's own share).
 */
export function perChunkRows(samples: Sample[], before: number, chunks: number, label: string): Row[] {
  const perChunk = (from: number, to: number, field: Field = 'task') => perEvent(samples, before + from, before + to, field);
  const tenth = chunks / 10;
  const rows: Row[] = [];
  for (let d = 0; d < 10; d++) {
    rows.push(info(`${label} decile ${d + 1}: main-thread time per chunk`, perChunk(d * tenth, (d + 1) * tenth) * 1000, 'µs'));
  }
  for (const field of ['script', 'style', 'layout'] as const) {
    rows.push(info(`${field} time per chunk, first 10%`, perChunk(0, tenth, field) * 1000, 'µs'));
    rows.push(info(`${field} time per chunk, last 10%`, perChunk(chunks - tenth, chunks, field) * 1000, 'µs'));
  }
  // Of that, the streaming view's own frames (src/app/streaming_markdown/).
  for (const [field, what] of [
    ['render', 'asking the renderer (main thread)'],
    ['page', 'applying its frames to the page (main thread)'],
    ['worker', 'in the renderer (its worker, off the main thread)'],
  ] as const) {
    rows.push(info(`streaming view ${what}, per chunk, first 10%`, perChunk(0, tenth, field) * 1000, 'µs'));
    rows.push(info(`streaming view ${what}, per chunk, last 10%`, perChunk(chunks - tenth, chunks, field) * 1000, 'µs'));
  }
  return rows;
}

/** Sends `prompt` and samples the page every SAMPLE_MS until the turn ends. */
export async function sampleTurn(page: Page, prompt: string): Promise<Sample[]> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  const sample = async (): Promise<Sample> => {
    const [{ metrics }, state] = await Promise.all([
      cdp.send('Performance.getMetrics'),
      page.evaluate(() => ({
        events: (window as any).__pensivePerf.events as number,
        render: ((window as any).__pensivePerf.streamRenderMs as number) ?? 0,
        page: ((window as any).__pensivePerf.streamPageMs as number) ?? 0,
        worker: ((window as any).__pensivePerf.streamWorkerMs as number) ?? 0,
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
  await page.getByTestId('composer').fill(prompt);
  await page.getByTestId('composer').press('Enter');
  const deadline = Date.now() + STREAM_TIMEOUT_MS;
  for (;;) {
    // A sampling interval, not a wait for a condition: the loop ends on the turn's status.
    await page.waitForTimeout(SAMPLE_MS);
    const s = await sample();
    samples.push(s);
    if (s.status === 'done' || s.status === 'error' || s.status === 'stopped') break;
    expect(Date.now() < deadline, `the stream did not finish in ${STREAM_TIMEOUT_MS} ms`).toBe(true);
  }
  return samples;
}
