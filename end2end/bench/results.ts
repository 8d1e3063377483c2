import * as fs from 'fs';
import * as path from 'path';

/** One measured number; `goal` and `met` are null where there is no goal. */
export interface Row {
  metric: string;
  value: number;
  unit: string;
  goal: string | null;
  met: boolean | null;
}

/** Where bench/browser.sh collects the results (target/bench/results). */
export const RESULTS_DIR = path.resolve(__dirname, '../../target/bench/results');
/** The release builds bench/browser.sh prepared. */
export const SITE_DIR = path.resolve(__dirname, '../../target/bench/site');
export const BARE_SITE_DIR = path.resolve(__dirname, '../../target/bench/bare-site');

export const OURS = 'http://127.0.0.1:7001';
export const BARE = 'http://127.0.0.1:7011';

/** A row without a goal. */
export function info(metric: string, value: number, unit: string): Row {
  return { metric, value: round(value), unit, goal: null, met: null };
}

/** A row with an upper bound as its goal. */
export function atMost(metric: string, value: number, unit: string, limit: number, limitText?: string): Row {
  return { metric, value: round(value), unit, goal: `≤ ${limitText ?? limit}`, met: value <= limit };
}

export function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Writes target/bench/results/<name>.json and prints the rows. */
export function writeResults(name: string, title: string, rows: Row[]) {
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  fs.writeFileSync(path.join(RESULTS_DIR, `${name}.json`), JSON.stringify({ title, rows }, null, 2) + '\n');
  console.log(`\n${title}`);
  for (const r of rows) {
    const goal = r.goal ? `  (goal ${r.goal}: ${r.met ? 'met' : 'NOT met'})` : '';
    console.log(`  ${r.metric}: ${r.value} ${r.unit}${goal}`);
  }
}
