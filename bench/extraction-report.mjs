// Merges our figures (extraction-ours.json, written by `cargo bench --bench
// extraction`) and the peer's (extraction-peer.json, bench/peer/extract.mjs)
// into the results table <bench dir>/results/extraction.json.
//
// Usage: node bench/extraction-report.mjs [<bench dir>]
//   <bench dir> defaults to $PENSIVE_BENCH_DIR, else target/bench.

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const benchDir = process.argv[2] ?? process.env.PENSIVE_BENCH_DIR ?? join('target', 'bench');
const ours = JSON.parse(readFileSync(join(benchDir, 'extraction-ours.json'), 'utf8'));
const peer = JSON.parse(readFileSync(join(benchDir, 'extraction-peer.json'), 'utf8'));

/** Goals (issue 6): ≥ 50× the peer's throughput; per-chunk cost after 1 MB ≤ 1.2× after 1 KB. */
const PEER_FACTOR = 50;
const GROWTH_LIMIT = 1.2;

if (peer.bytes !== ours.input.bytes || peer.chunks !== ours.input.chunks) {
  throw new Error('the peer measured a different input: rerun bench/extraction.sh');
}

const round = (x, digits) => (x == null ? null : Number(x.toFixed(digits)));
const ratio = (a, b) => (a == null || b == null ? null : a / b);
const MB = (ours.input.bytes / 1e6).toFixed(0);
const inChunks = `${MB} MB in ${ours.input.chunks.toLocaleString('en')} chunks of 1–${ours.input.max_chunk} B`;

const rows = [];
const row = (metric, value, unit, goal = null, met = null) =>
  rows.push({ metric, value, unit, goal, met });

const oursMbps = ours.tag_extractor.mb_per_s;
const speedup = ratio(oursMbps, peer.mb_per_s);
row(`TagExtractor throughput, ${inChunks}`, round(oursMbps, 1), 'MB/s', `≥ ${PEER_FACTOR}× peer`, speedup == null ? null : speedup >= PEER_FACTOR);
row(`Peer: ai@${peer.version} extractReasoningMiddleware (Node ${peer.node}), same input and chunks`, round(peer.mb_per_s, 2), 'MB/s');
row('TagExtractor vs peer', round(speedup, 1), '×', `≥ ${PEER_FACTOR}×`, speedup == null ? null : speedup >= PEER_FACTOR);

for (const [dialect, figures] of Object.entries(ours.decode)) {
  const wireMb = (figures.wire_bytes / 1e6).toFixed(0);
  row(
    `Decode ${dialect} SSE: Framer + Decoder + Normalizer, ${wireMb} MB of wire bytes in reads of 1–${figures.max_read} B`,
    round(figures.mb_per_s, 1),
    'MB/s (wire)',
  );
}

const paths = [
  ['normalizer', 'Server Normalizer (answer text inside <think>)'],
  ['browser', 'Browser NdjsonFramer + Turn::apply (thinking_delta lines)'],
];
for (const [key, label] of paths) {
  // From windows timed in alternation (same load on both sides); criterion's
  // sequential medians are kept beside them in extraction-ours.json.
  const { after_1kb_ns: short, after_1mb_ns: long } = ours.per_chunk[key].paired;
  const growth = ratio(long, short);
  row(`${label}: per chunk after 1 KB`, round(short, 1), 'ns/chunk');
  row(`${label}: per chunk after 1 MB`, round(long, 1), 'ns/chunk');
  row(`${label}: after 1 MB / after 1 KB`, round(growth, 2), '×', `≤ ${GROWTH_LIMIT}`, growth == null ? null : growth <= GROWTH_LIMIT);
}

const results = { title: 'Tag extraction and decoding', rows };
mkdirSync(join(benchDir, 'results'), { recursive: true });
const out = join(benchDir, 'results', 'extraction.json');
writeFileSync(out, JSON.stringify(results, null, 2) + '\n');

for (const r of rows) {
  const verdict = r.met == null ? '' : r.met ? '  [met]' : '  [MISSED]';
  console.log(`${String(r.value).padStart(10)} ${r.unit.padEnd(12)} ${r.metric}${r.goal ? ` (goal ${r.goal})` : ''}${verdict}`);
}
console.log(`wrote ${out}`);
