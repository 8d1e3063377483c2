import { expect, test } from '@playwright/test';
import * as fs from 'fs';
import * as path from 'path';
import * as zlib from 'zlib';
import { atMost, BARE_SITE_DIR, info, SITE_DIR, writeResults, type Row } from './results';

// Page weight: what a first visit downloads, compressed as a server or CDN
// would precompress static files (gzip -9, brotli quality 11).
interface Sizes {
  raw: number;
  gzip: number;
  brotli: number;
}

function sizes(file: string): Sizes {
  const bytes = fs.readFileSync(file);
  return {
    raw: bytes.length,
    gzip: zlib.gzipSync(bytes, { level: 9 }).length,
    brotli: zlib.brotliCompressSync(bytes, {
      params: {
        [zlib.constants.BROTLI_PARAM_QUALITY]: 11,
        [zlib.constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
      },
    }).length,
  };
}

function bundle(siteDir: string) {
  const pkg = path.join(siteDir, 'pkg');
  return {
    wasm: sizes(path.join(pkg, 'pensive.wasm')),
    js: sizes(path.join(pkg, 'pensive.js')),
    css: sizes(path.join(pkg, 'pensive.css')),
  };
}

const kb = (bytes: number) => bytes / 1024;

test('page weight of the release bundle, against a bare Leptos app', () => {
  const ours = bundle(SITE_DIR);
  const bare = bundle(BARE_SITE_DIR);
  const rows: Row[] = [];
  for (const [name, b] of [['Pensive', ours], ['bare Leptos', bare]] as const) {
    for (const part of ['wasm', 'js', 'css'] as const) {
      rows.push(info(`${name} ${part.toUpperCase()} raw`, kb(b[part].raw), 'KB'));
      rows.push(info(`${name} ${part.toUpperCase()} gzip`, kb(b[part].gzip), 'KB'));
      rows.push(info(`${name} ${part.toUpperCase()} brotli`, kb(b[part].brotli), 'KB'));
    }
  }
  const oursGzip = ours.wasm.gzip + ours.js.gzip;
  const bareGzip = bare.wasm.gzip + bare.js.gzip;
  rows.push(atMost('Pensive WASM+JS gzip', kb(oursGzip), 'KB', 300));
  rows.push(info('Pensive WASM+JS brotli', kb(ours.wasm.brotli + ours.js.brotli), 'KB'));
  rows.push(info('bare Leptos WASM+JS gzip', kb(bareGzip), 'KB'));
  rows.push(info('bare Leptos WASM+JS brotli', kb(bare.wasm.brotli + bare.js.brotli), 'KB'));
  rows.push(atMost('Pensive / bare WASM+JS gzip', oursGzip / bareGzip, '×', 2.5));
  rows.push(info('Pensive / bare WASM+JS brotli', (ours.wasm.brotli + ours.js.brotli) / (bare.wasm.brotli + bare.js.brotli), '×'));
  // Measured, whatever the numbers: the bench fails only if it cannot measure.
  expect(oursGzip).toBeGreaterThan(0);
  expect(bareGzip).toBeGreaterThan(0);
  writeResults('page-weight', 'Page weight (release build; gzip -9, brotli 11)', rows);
});
