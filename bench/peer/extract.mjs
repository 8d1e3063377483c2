// Peer benchmark: the Vercel AI SDK's extractReasoningMiddleware on exactly the
// input and chunk boundaries Pensive's benchmark wrote (benches/extraction).
//
// A mock language model streams the chunks as text-delta parts from a
// pull-based ReadableStream (one part per pull, as a network-fed stream
// delivers them; a stream filled up front makes Node's queue quadratic), the
// middleware is applied with wrapLanguageModel, and the wrapped stream is
// drained. Reported: input bytes / wall time of the fastest timed run.
//
// Usage: node extract.mjs [--dir <bench dir>] [--runs N]
//   <bench dir> defaults to $PENSIVE_BENCH_DIR, else ../../target/bench.
//   Writes <bench dir>/extraction-peer.json.

import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { createRequire } from 'node:module';
import { extractReasoningMiddleware, wrapLanguageModel } from 'ai';

const here = dirname(fileURLToPath(import.meta.url));
const args = parseArgs(process.argv.slice(2));
const benchDir = args.dir ?? process.env.PENSIVE_BENCH_DIR ?? join(here, '..', '..', 'target', 'bench');
const runs = Number(args.runs ?? 2);
const TAG = 'think';

function parseArgs(argv) {
  const out = {};
  for (let i = 0; i < argv.length; i += 2) {
    if (!argv[i].startsWith('--') || argv[i + 1] === undefined) {
      throw new Error(`usage: node extract.mjs [--dir <bench dir>] [--runs N] (bad: ${argv[i]})`);
    }
    out[argv[i].slice(2)] = argv[i + 1];
  }
  return out;
}

/** The input cut into strings at the recorded byte lengths (all on char boundaries). */
function loadChunks() {
  const bytes = readFileSync(join(benchDir, 'extraction-input.bin'));
  const lengths = readFileSync(join(benchDir, 'extraction-chunks.bin'));
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const chunks = new Array(lengths.length);
  let at = 0;
  for (let i = 0; i < lengths.length; i++) {
    chunks[i] = decoder.decode(bytes.subarray(at, at + lengths[i]));
    at += lengths[i];
  }
  if (at !== bytes.length) {
    throw new Error(`chunk lengths add up to ${at}, input has ${bytes.length} bytes`);
  }
  return { bytes: bytes.length, chunks, text: decoder.decode(bytes) };
}

/** A LanguageModelV3 whose doStream plays `chunks` as text-delta parts, one per pull. */
function mockModel(chunks) {
  return {
    specificationVersion: 'v3',
    provider: 'bench',
    modelId: 'recorded',
    supportedUrls: {},
    async doGenerate() {
      throw new Error('the benchmark only streams');
    },
    async doStream() {
      const head = [
        { type: 'stream-start', warnings: [] },
        { type: 'text-start', id: 'text-0' },
      ];
      const tail = [
        { type: 'text-end', id: 'text-0' },
        {
          type: 'finish',
          finishReason: { unified: 'stop', raw: 'stop' },
          usage: { inputTokens: {}, outputTokens: {} },
        },
      ];
      let i = 0;
      let h = 0;
      let t = 0;
      const stream = new ReadableStream(
        {
          pull(controller) {
            if (h < head.length) {
              controller.enqueue(head[h++]);
            } else if (i < chunks.length) {
              controller.enqueue({ type: 'text-delta', id: 'text-0', delta: chunks[i++] });
            } else if (t < tail.length) {
              controller.enqueue(tail[t++]);
            } else {
              controller.close();
            }
          },
        },
        { highWaterMark: 1 },
      );
      return { stream };
    },
  };
}

/** Streams `chunks` through the middleware; returns the time and what came out. */
async function run(chunks) {
  const model = wrapLanguageModel({
    model: mockModel(chunks),
    middleware: extractReasoningMiddleware({ tagName: TAG }),
  });
  const seen = { reasoningChars: 0, textChars: 0, reasoningEnds: 0, last: '' };
  const start = performance.now();
  const { stream } = await model.doStream({ prompt: [] });
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (value.type === 'reasoning-delta') {
      seen.reasoningChars += value.delta.length;
      seen.last = 'reasoning';
    } else if (value.type === 'text-delta') {
      seen.textChars += value.delta.length;
      seen.last = 'text';
    } else if (value.type === 'reasoning-end') {
      seen.reasoningEnds += 1;
      seen.last = 'reasoning-end';
    }
  }
  return { seconds: (performance.now() - start) / 1000, seen };
}

/**
 * The middleware drops each tag it switches on and may add a separator
 * ("\n") at each switch; everything else must come out as reasoning or text.
 */
function check(text, seen) {
  const closes = seen.reasoningEnds;
  const opens = closes + (seen.last === 'reasoning' ? 1 : 0);
  const tagChars = opens * `<${TAG}>`.length + closes * `</${TAG}>`.length;
  const extra = seen.reasoningChars + seen.textChars + tagChars - text.length;
  const separatorsAtMost = opens + closes;
  // A partial tag at the very end stays buffered (never flushed): allow its length.
  const ok =
    seen.reasoningChars > 0 && seen.textChars > 0 && extra <= separatorsAtMost && extra >= -`</${TAG}>`.length;
  return { ok, opens, closes, extra };
}

const input = loadChunks();
const version = createRequire(import.meta.url)('ai/package.json').version;
console.log(`peer: ai@${version} extractReasoningMiddleware, ${input.bytes} bytes in ${input.chunks.length} chunks`);

// Warm the JIT on a prefix before timing.
await run(input.chunks.slice(0, 50_000));

const timings = [];
let verdict;
let seen;
for (let r = 0; r < runs; r++) {
  const result = await run(input.chunks);
  timings.push(result.seconds);
  seen = result.seen;
  verdict = check(input.text, seen);
  const mbps = input.bytes / result.seconds / 1e6;
  console.log(`  run ${r + 1}: ${result.seconds.toFixed(2)} s, ${mbps.toFixed(2)} MB/s`);
}
if (!verdict.ok) {
  console.error('peer output does not add up:', { seen, verdict, inputChars: input.text.length });
  process.exit(1);
}
const best = Math.min(...timings);
const report = {
  package: 'ai',
  version,
  node: process.version,
  bytes: input.bytes,
  chunks: input.chunks.length,
  runs: timings,
  best_seconds: best,
  mb_per_s: input.bytes / best / 1e6,
  output: {
    input_chars: input.text.length,
    reasoning_chars: seen.reasoningChars,
    text_chars: seen.textChars,
    reasoning_blocks: verdict.closes,
  },
};
const out = join(benchDir, 'extraction-peer.json');
writeFileSync(out, JSON.stringify(report, null, 2) + '\n');
console.log(`peer: ${report.mb_per_s.toFixed(2)} MB/s (fastest of ${runs}); wrote ${out}`);
