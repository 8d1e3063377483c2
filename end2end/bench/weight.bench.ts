import { expect, test, type Browser } from '@playwright/test';
import * as fs from 'fs';
import * as path from 'path';
import * as zlib from 'zlib';
import { watchBare, watchPensive } from './hydration';
import { atMost, BARE, BARE_SITE_DIR, info, OURS, SITE_DIR, writeResults, type Row } from './results';

// Page weight of a first visit, as the server sends it: every response's bytes
// on the wire (CDP Network.loadingFinished encodedDataLength: headers plus the
// body as encoded, so brotli or gzip when the server sent that), in a fresh
// browser context with the cache off. "Until interactive" counts what finished
// before the page was hydrated (Pensive: <body data-hydrated>; the bare app: its
// counter responds); "in all" waits for the network to go quiet.

/** The renderer module's files (scripts/build-renderer.sh), fetched by its worker. */
const RENDERER_MODULE = /\/pensive_render[^/]*$/;

interface Transfer {
  url: string;
  type: string;
  encoding: string;
  bytes: number;
  /** Page requests: CDP seconds (monotonic). */
  finishedAt: number;
  /** The worker's requests: wall-clock ms, NaN when Chromium gave no timing. */
  finishedAtEpochMs?: number;
}

async function firstVisit(browser: Browser, url: string, watch: () => void) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  const started = new Map<string, number>();
  const seen = new Map<string, { url: string; type: string; encoding: string }>();
  const transfers: Transfer[] = [];
  let acceptEncoding = '';
  cdp.on('Network.requestWillBeSent', (e) => started.set(e.requestId, e.timestamp));
  // The headers as sent (the network stack adds Accept-Encoding itself).
  cdp.on('Network.requestWillBeSentExtraInfo', (e) => {
    for (const [k, v] of Object.entries(e.headers)) if (k.toLowerCase() === 'accept-encoding') acceptEncoding = String(v);
  });
  cdp.on('Network.responseReceived', (e) => {
    const headers = Object.fromEntries(Object.entries(e.response.headers).map(([k, v]) => [k.toLowerCase(), String(v)]));
    seen.set(e.requestId, { url: e.response.url, type: e.type, encoding: headers['content-encoding'] ?? 'identity' });
  });
  cdp.on('Network.loadingFinished', (e) => {
    const response = seen.get(e.requestId);
    if (response) transfers.push({ ...response, bytes: e.encodedDataLength, finishedAt: e.timestamp });
  });
  // What the renderer's Web Worker fetches (its module) is not on the page's
  // CDP session: Playwright's own network events include dedicated workers'
  // requests, so those it saw that the page's session did not are the worker's.
  const seenByPlaywright: { url: string; bytes: number; encoding: string; finishedAtEpochMs: number }[] = [];
  page.on('requestfinished', (request) => {
    void (async () => {
      const sizes = await request.sizes();
      const headers = (await (await request.response())?.allHeaders()) ?? {};
      // When it finished, on the wall clock (startTime is epoch ms, the
      // rest relative to it; -1 when unknown).
      const timing = request.timing();
      seenByPlaywright.push({
        url: request.url(),
        bytes: sizes.responseBodySize + sizes.responseHeadersSize,
        encoding: headers['content-encoding'] ?? 'identity',
        finishedAtEpochMs: timing.responseEnd >= 0 ? timing.startTime + timing.responseEnd : NaN,
      });
    })().catch(() => {});
  });
  await page.addInitScript(watch);
  await page.goto(url);
  await page.waitForFunction(() => (window as any).__hydratedAt > 0, undefined, { timeout: 30_000 });
  const hydratedAt: number = await page.evaluate(() => (window as any).__hydratedAt);
  const timeOrigin: number = await page.evaluate(() => performance.timeOrigin);
  await page.waitForLoadState('networkidle');
  // The worker's requests, as those the page's session did not see (by URL,
  // each counted as often as it was fetched).
  const pageSaw = transfers.map((t) => t.url);
  for (const fetched of seenByPlaywright) {
    const at = pageSaw.indexOf(fetched.url);
    if (at >= 0) {
      pageSaw.splice(at, 1);
      continue;
    }
    transfers.push({
      url: fetched.url,
      type: 'Worker',
      encoding: fetched.encoding,
      bytes: fetched.bytes,
      finishedAt: NaN,
      finishedAtEpochMs: fetched.finishedAtEpochMs,
    });
  }
  // Pensive's renderer module, fetched right after hydration (0 for the bare app).
  const rendererAt: number = await page.evaluate(() => (window as any).__rendererAt ?? 0);
  await context.close();
  // CDP timestamps are seconds on a monotonic clock; the document's request
  // starts the navigation, hydratedAt is ms after navigation start.
  const navigationStart = Math.min(...started.values());
  const cutoff = navigationStart + hydratedAt / 1000;
  // Every fetch that finished before the page was interactive counts, the
  // worker's too (on the wall clock; one without a timing counts). The page
  // starts the renderer's worker only once it has marked itself hydrated
  // (src/app/mod.rs), so its fetches land after the mark, not by a rule here.
  const cutoffEpochMs = timeOrigin + hydratedAt;
  const initial = transfers.filter((t) =>
    t.finishedAtEpochMs === undefined
      ? t.finishedAt <= cutoff
      : !(t.finishedAtEpochMs > cutoffEpochMs),
  );
  const sum = (ts: Transfer[]) => ts.reduce((n, t) => n + t.bytes, 0);
  return {
    initial,
    all: transfers,
    initialBytes: sum(initial),
    allBytes: sum(transfers),
    acceptEncoding,
    rendererAfterHydrationMs: rendererAt > 0 ? rendererAt - hydratedAt : NaN,
  };
}

/** The name of a site file, hashed (`pensive.<hash>.wasm`) or not. */
function siteFile(dir: string, ext: string): string {
  const pattern = new RegExp(`^pensive(\\.[A-Za-z0-9_-]{22})?\\.${ext}$`);
  const name = fs.readdirSync(dir).find((f) => pattern.test(f));
  if (!name) throw new Error(`no pensive.*.${ext} in ${dir}`);
  return path.join(dir, name);
}

interface Sizes {
  raw: number;
  gzip: number;
  brotli: number;
}

/** Raw size and the precompressed copies the build wrote (what the server sends). */
function fileSizes(file: string): Sizes {
  const raw = fs.statSync(file).size;
  const copy = (suffix: string, make: (b: Buffer) => Buffer) =>
    fs.existsSync(file + suffix) ? fs.statSync(file + suffix).size : make(fs.readFileSync(file)).length;
  return {
    raw,
    gzip: copy('.gz', (b) => zlib.gzipSync(b, { level: 9 })),
    brotli: copy('.br', (b) =>
      zlib.brotliCompressSync(b, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } }),
    ),
  };
}

function bundle(siteDir: string) {
  const pkg = path.join(siteDir, 'pkg');
  return {
    wasm: fileSizes(siteFile(pkg, 'wasm')),
    js: fileSizes(siteFile(pkg, 'js')),
    css: fileSizes(siteFile(pkg, 'css')),
  };
}

const kb = (bytes: number) => bytes / 1024;

/** What kind of resource a transfer was, for the rows. */
function kind(t: Transfer): string {
  const file = new URL(t.url).pathname;
  if (file.endsWith('.wasm')) return 'WASM';
  if (file.endsWith('.js')) return 'JS';
  if (file.endsWith('.css')) return 'CSS';
  if (t.type === 'Document') return 'HTML';
  return `${t.type} ${file}`;
}

test('page weight: bytes over the wire on a first visit, against a bare Leptos app', async ({ browser }) => {
  const ours = await firstVisit(browser, `${OURS}/`, watchPensive);
  const bare = await firstVisit(browser, `${BARE}/`, watchBare);
  console.log(`Chromium sent Accept-Encoding: ${ours.acceptEncoding}`);
  const rows: Row[] = [];
  rows.push(atMost('Pensive first visit, over the wire until interactive', kb(ours.initialBytes), 'KB', 300));
  rows.push(info('Pensive first visit, over the wire in all (with the renderer module)', kb(ours.allBytes), 'KB'));
  rows.push(info('Pensive renderer module ready, after hydration', ours.rendererAfterHydrationMs, 'ms'));
  for (const t of ours.all) {
    const when = ours.initial.includes(t) ? 'before hydration' : t.type === 'Worker' ? 'fetched by the worker' : 'after hydration';
    rows.push(info(`Pensive ${kind(t)} (${t.encoding}, ${when})`, kb(t.bytes), 'KB'));
  }
  rows.push(info('bare Leptos first visit, over the wire until interactive', kb(bare.initialBytes), 'KB'));
  rows.push(info('bare Leptos first visit, over the wire in all', kb(bare.allBytes), 'KB'));
  for (const t of bare.all) rows.push(info(`bare Leptos ${kind(t)} (${t.encoding})`, kb(t.bytes), 'KB'));
  rows.push(atMost('Pensive / bare, over the wire until interactive', ours.initialBytes / bare.initialBytes, '×', 2.5));

  // The files themselves, and the copies a browser without brotli gets.
  const files = bundle(SITE_DIR);
  const bareFiles = bundle(BARE_SITE_DIR);
  for (const [name, b] of [['Pensive', files], ['bare Leptos', bareFiles]] as const) {
    for (const part of ['wasm', 'js', 'css'] as const) {
      rows.push(info(`${name} ${part.toUpperCase()} file raw`, kb(b[part].raw), 'KB'));
      rows.push(info(`${name} ${part.toUpperCase()} file .gz`, kb(b[part].gzip), 'KB'));
      rows.push(info(`${name} ${part.toUpperCase()} file .br`, kb(b[part].brotli), 'KB'));
    }
  }
  // The renderer's own module, loaded after hydration (scripts/build-renderer.sh).
  const pkg = path.join(SITE_DIR, 'pkg');
  for (const file of ['pensive_render_bg.wasm', 'pensive_render.js']) {
    const sizes = fileSizes(path.join(pkg, file));
    rows.push(info(`Pensive renderer module ${file} raw`, kb(sizes.raw), 'KB'));
    rows.push(info(`Pensive renderer module ${file} .br`, kb(sizes.brotli), 'KB'));
  }
  const gzipOnly = files.wasm.gzip + files.js.gzip + files.css.gzip;
  rows.push(info('Pensive WASM+JS+CSS for a browser without brotli (.gz)', kb(gzipOnly), 'KB'));
  // Measured, whatever the numbers: the bench fails only if it cannot measure.
  expect(ours.initial.some((t) => kind(t) === 'WASM')).toBe(true);
  // The renderer's module is counted, whoever fetched it (its Worker does).
  expect(ours.all.some((t) => RENDERER_MODULE.test(new URL(t.url).pathname) && kind(t) === 'WASM')).toBe(true);
  expect(bare.initial.some((t) => kind(t) === 'WASM')).toBe(true);
  writeResults('page-weight', 'Page weight (release build, first visit, bytes over the wire as served)', rows);
});
