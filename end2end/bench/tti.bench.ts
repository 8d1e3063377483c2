import { expect, test, type Browser } from '@playwright/test';
import { watchBare, watchPensive } from './hydration';
import { BARE, info, median, OURS, writeResults, type Row } from './results';

// Time to interactive on loopback: navigation start → hydrated, each load in a
// fresh browser context (empty HTTP cache, so the WASM is fetched and
// compiled every time). One warm-up load each, then LOADS measured loads.
const LOADS = 11;

async function loadOnce(browser: Browser, url: string, watch: () => void) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.addInitScript(watch);
  await page.goto(url);
  await page.waitForFunction(() => (window as any).__hydratedAt > 0, undefined, { timeout: 30_000 });
  const timing = await page.evaluate(() => {
    const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
    return {
      hydrated: (window as any).__hydratedAt as number,
      domContentLoaded: nav.domContentLoadedEventEnd,
      load: nav.loadEventEnd,
    };
  });
  await context.close();
  return timing;
}

async function measure(browser: Browser, url: string, watch: () => void) {
  await loadOnce(browser, url, watch);
  const runs = [];
  for (let i = 0; i < LOADS; i++) runs.push(await loadOnce(browser, url, watch));
  return {
    hydrated: runs.map((r) => r.hydrated),
    domContentLoaded: median(runs.map((r) => r.domContentLoaded)),
  };
}

test('time to interactive: the chat page against a bare Leptos app', async ({ browser }) => {
  const ours = await measure(browser, `${OURS}/`, watchPensive);
  const bare = await measure(browser, `${BARE}/`, watchBare);
  expect(ours.hydrated).toHaveLength(LOADS);
  expect(bare.hydrated).toHaveLength(LOADS);
  const rows: Row[] = [
    info(`Pensive chat page: navigation → hydrated, median of ${LOADS}`, median(ours.hydrated), 'ms'),
    info('Pensive: fastest load', Math.min(...ours.hydrated), 'ms'),
    info('Pensive: slowest load', Math.max(...ours.hydrated), 'ms'),
    info('Pensive: DOMContentLoaded, median', ours.domContentLoaded, 'ms'),
    info(`bare Leptos counter: navigation → counter responds, median of ${LOADS}`, median(bare.hydrated), 'ms'),
    info('bare Leptos: fastest load', Math.min(...bare.hydrated), 'ms'),
    info('bare Leptos: slowest load', Math.max(...bare.hydrated), 'ms'),
    info('bare Leptos: DOMContentLoaded, median', bare.domContentLoaded, 'ms'),
    info('Pensive / bare, medians', median(ours.hydrated) / median(bare.hydrated), '×'),
  ];
  writeResults('time-to-interactive', 'Time to interactive (release build, loopback, fresh context per load)', rows);
});
