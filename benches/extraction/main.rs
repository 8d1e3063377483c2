//! Parser throughput and per-chunk cost (Pensive issue 6).
//!
//! Measures, with criterion: the `TagExtractor` over ~10 MB in ~1 M stream
//! chunks of 1–20 bytes; the same text as chat-completions and Anthropic SSE
//! through `Framer` → dialect `Decoder` → `Normalizer`; and the cost of 1000
//! small chunks after 1 KB vs after 1 MB of history, on the server
//! (`Normalizer`) and in the browser (`NdjsonFramer` + `Turn::apply`).
//!
//! Writes the input and its chunk lengths for the peer benchmark
//! (bench/peer/extract.mjs) and our figures to `<bench dir>/extraction-ours.json`;
//! bench/extraction.sh runs everything and writes the results table.
//! Run: `cargo bench --features ssr --bench extraction`.

mod corpus;
mod output;
mod per_chunk;
mod wire;

use std::hint::black_box;
use std::time::{Duration, SystemTime};

use criterion::{BatchSize, Criterion, SamplingMode, Throughput};
use pensive::server::normalizer::Normalizer;
use pensive::server::providers::delta::Delta;
use pensive::server::providers::wire::Dialect;
use pensive::server::tags::{TagExtractor, TagPart, TagSet, TurnSoFar};
use serde_json::json;

use corpus::{INPUT_BYTES, MAX_CHUNK, SEED};
use per_chunk::{Browser, LONG_HISTORY, SHORT_HISTORY, WINDOW};

/// Alternating window pairs timed for each growth ratio.
const PAIRS: usize = 400;
/// Network reads of the SSE streams are 1..=this many bytes, cut anywhere.
const MAX_READ: usize = 256;
/// The dialects measured (one with data-only events, one with event names).
const DIALECTS: [Dialect; 2] = [Dialect::Chat, Dialect::Anthropic];

/// Byte totals of one extraction, to check every path saw the same text.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Totals {
    reasoning: usize,
    answer: usize,
    tags: usize,
    blocks: usize,
}

fn extract(chunks: &[&str]) -> Totals {
    let mut extractor = TagExtractor::new(TagSet::default(), false);
    let mut totals = Totals::default();
    // Parts are collected the way the normalizer does: into one reused list.
    let mut parts = Vec::new();
    let mut count = |parts: &mut Vec<TagPart>| {
        for part in parts.drain(..) {
            match &part {
                TagPart::Reasoning(t) => totals.reasoning += t.len(),
                TagPart::Answer(t) => totals.answer += t.len(),
                TagPart::Open(t) => {
                    totals.blocks += 1;
                    totals.tags += t.len();
                }
                other => totals.tags += other.text().len(),
            }
        }
    };
    for chunk in chunks {
        extractor.push_into(chunk, TurnSoFar::default(), &mut parts);
        count(&mut parts);
    }
    parts.extend(extractor.finish(TurnSoFar::default()));
    count(&mut parts);
    totals
}

/// Thinking and answer bytes as the normalizer streams them, without a wire.
fn normalize(chunks: &[&str]) -> wire::Decoded {
    let mut normalizer = Normalizer::new(TagSet::default(), false);
    let mut seen = wire::Decoded::default();
    let mut events = Vec::new();
    for chunk in chunks {
        events.extend(normalizer.push(Delta::Answer((*chunk).to_owned()), 0));
    }
    events.extend(normalizer.finish(0));
    for event in events {
        seen.events += 1;
        match event {
            pensive::turn::TurnEvent::ThinkingDelta { text } => seen.thinking_bytes += text.len(),
            pensive::turn::TurnEvent::AnswerDelta { text } => seen.answer_bytes += text.len(),
            _ => {}
        }
    }
    seen
}

fn main() {
    let started = SystemTime::now();
    let mut criterion = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .configure_from_args();

    // The input, its stream chunks, and a reference extraction.
    let text = corpus::generate(SEED, INPUT_BYTES);
    let lengths = corpus::chunk_lengths(&text, SEED, MAX_CHUNK);
    let chunks = corpus::split(text.as_str(), &lengths);
    assert_eq!(chunks.concat(), text, "chunking loses nothing");
    let totals = extract(&chunks);
    assert_eq!(
        totals.reasoning + totals.answer + totals.tags,
        text.len(),
        "extraction is lossless"
    );
    let reference = normalize(&chunks);
    write_peer_input(&text, &lengths, &totals);

    let mut group = criterion.benchmark_group("extraction");
    group
        .sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .measurement_time(Duration::from_secs(4))
        .throughput(Throughput::Bytes(text.len() as u64));
    group.bench_function("tag_extractor", |b| b.iter(|| extract(black_box(&chunks))));
    group.finish();

    let mut wire_sizes = Vec::new();
    let mut group = criterion.benchmark_group("decode");
    group
        .sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .measurement_time(Duration::from_secs(8));
    for dialect in DIALECTS {
        let sse = wire::encode_sse(dialect, &chunks);
        let read_lengths = corpus::byte_chunk_lengths(sse.len(), SEED, MAX_READ);
        let reads = corpus::split(sse.as_slice(), &read_lengths);
        let decoded = wire::decode(dialect, &reads);
        assert_eq!(
            (decoded.thinking_bytes, decoded.answer_bytes),
            (reference.thinking_bytes, reference.answer_bytes),
            "{} decodes to the same text as the plain stream",
            dialect.name()
        );
        wire_sizes.push((dialect, sse.len(), reads.len()));
        group.throughput(Throughput::Bytes(sse.len() as u64));
        group.bench_function(dialect.name(), |b| {
            b.iter(|| wire::decode(dialect, black_box(&reads)))
        });
    }
    group.finish();

    let small = corpus::small_chunks(SEED, 4 * WINDOW);
    let (history, window) = small.split_at(3 * WINDOW);
    let mut group = criterion.benchmark_group("per_chunk_normalizer");
    group
        .sample_size(40)
        .measurement_time(Duration::from_secs(3))
        .throughput(Throughput::Elements(WINDOW as u64));
    for (id, bytes) in [("after_1KB", SHORT_HISTORY), ("after_1MB", LONG_HISTORY)] {
        let before = per_chunk::normalizer_after(bytes, history);
        group.bench_function(id, |b| {
            b.iter_batched(
                || (before.clone(), per_chunk::window_deltas(window)),
                // The state is returned so that dropping it is not timed.
                |(mut normalizer, deltas)| {
                    let events = per_chunk::normalizer_window(&mut normalizer, deltas);
                    (normalizer, events)
                },
                BatchSize::PerIteration,
            )
        });
    }
    group.finish();

    let lines = per_chunk::window_lines(window);
    let mut group = criterion.benchmark_group("per_chunk_browser");
    group
        .sample_size(40)
        .measurement_time(Duration::from_secs(3))
        .throughput(Throughput::Elements(WINDOW as u64));
    for (id, bytes) in [("after_1KB", SHORT_HISTORY), ("after_1MB", LONG_HISTORY)] {
        let before = Browser::after(bytes, history);
        group.bench_function(id, |b| {
            b.iter_batched(
                || before.fork(),
                |mut browser| {
                    let changes = browser.feed_all(&lines);
                    (browser, changes)
                },
                BatchSize::PerIteration,
            )
        });
    }
    group.finish();

    criterion.final_summary();

    // The growth ratios, from windows timed in alternation (see `per_chunk::paired`).
    let normalizers =
        [SHORT_HISTORY, LONG_HISTORY].map(|h| per_chunk::normalizer_after(h, history));
    let normalizer_window = |before: &Normalizer| {
        per_chunk::time_window(
            || (before.clone(), per_chunk::window_deltas(window)),
            |(mut normalizer, deltas)| {
                let events = per_chunk::normalizer_window(&mut normalizer, deltas);
                (normalizer, events)
            },
        )
    };
    let server = per_chunk::paired(
        PAIRS,
        || normalizer_window(&normalizers[0]),
        || normalizer_window(&normalizers[1]),
    );
    let browsers = [SHORT_HISTORY, LONG_HISTORY].map(|h| Browser::after(h, history));
    let browser_window = |before: &Browser| {
        per_chunk::time_window(
            || before.fork(),
            |mut browser| {
                let changes = browser.feed_all(&lines);
                (browser, changes)
            },
        )
    };
    let browser = per_chunk::paired(
        PAIRS,
        || browser_window(&browsers[0]),
        || browser_window(&browsers[1]),
    );
    for (name, paired) in [("normalizer", server), ("browser", browser)] {
        println!(
            "per chunk, {name}: {:.1} ns after 1 KB, {:.1} ns after 1 MB, ratio {:.3} ({} pairs)",
            paired.short_ns,
            paired.long_ns,
            paired.long_ns / paired.short_ns,
            paired.pairs
        );
    }
    write_ours(
        started,
        &text,
        chunks.len(),
        &totals,
        &wire_sizes,
        [server, browser],
    );
}

/// The exact input and chunk boundaries, for the peer (bench/peer/extract.mjs).
fn write_peer_input(text: &str, lengths: &[usize], totals: &Totals) {
    let dir = output::bench_dir();
    let lengths: Vec<u8> = lengths
        .iter()
        .map(|&len| u8::try_from(len).expect("chunks are at most MAX_CHUNK bytes"))
        .collect();
    let meta = json!({
        "seed": SEED,
        "bytes": text.len(),
        "chunks": lengths.len(),
        "max_chunk": MAX_CHUNK,
        "ours": {
            "reasoning_bytes": totals.reasoning,
            "answer_bytes": totals.answer,
            "tag_bytes": totals.tags,
            "blocks": totals.blocks,
        },
    });
    let written = output::write_bytes(&dir.join("extraction-input.bin"), text.as_bytes())
        .and_then(|()| output::write_bytes(&dir.join("extraction-chunks.bin"), &lengths))
        .and_then(|()| output::write_json(&dir.join("extraction-input.json"), &meta));
    if let Err(err) = written {
        panic!("cannot write the peer's input to {}: {err}", dir.display());
    }
}

/// Our figures, from criterion's estimates of this run.
fn write_ours(
    started: SystemTime,
    text: &str,
    chunk_count: usize,
    totals: &Totals,
    wire_sizes: &[(Dialect, usize, usize)],
    [server, browser]: [per_chunk::Paired; 2],
) {
    let mb_per_s = |bytes: usize, seconds: Option<f64>| seconds.map(|s| bytes as f64 / s / 1e6);
    let per_chunk_ns = |group: &str, id: &str| {
        output::median_seconds(group, id, started).map(|s| s * 1e9 / WINDOW as f64)
    };
    let per_chunk = |group: &str, paired: per_chunk::Paired| {
        json!({
            "paired": {
                "after_1kb_ns": paired.short_ns,
                "after_1mb_ns": paired.long_ns,
                "pairs": paired.pairs,
            },
            "criterion": {
                "after_1kb_ns": per_chunk_ns(group, "after_1KB"),
                "after_1mb_ns": per_chunk_ns(group, "after_1MB"),
            },
        })
    };
    let decode: serde_json::Map<String, serde_json::Value> = wire_sizes
        .iter()
        .map(|&(dialect, bytes, reads)| {
            let seconds = output::median_seconds("decode", dialect.name(), started);
            let figures = json!({
                "wire_bytes": bytes,
                "reads": reads,
                "max_read": MAX_READ,
                "mb_per_s": mb_per_s(bytes, seconds),
            });
            (dialect.name().to_owned(), figures)
        })
        .collect();
    let ours = json!({
        "input": {
            "bytes": text.len(),
            "chunks": chunk_count,
            "max_chunk": MAX_CHUNK,
            "reasoning_bytes": totals.reasoning,
            "answer_bytes": totals.answer,
        },
        "tag_extractor": {
            "mb_per_s": mb_per_s(text.len(), output::median_seconds("extraction", "tag_extractor", started)),
        },
        "decode": decode,
        "per_chunk": {
            "window_chunks": WINDOW,
            "normalizer": per_chunk("per_chunk_normalizer", server),
            "browser": per_chunk("per_chunk_browser", browser),
        },
    });
    let path = output::bench_dir().join("extraction-ours.json");
    match output::write_json(&path, &ours) {
        Ok(()) => println!("wrote {}", path.display()),
        Err(err) => panic!("cannot write {}: {err}", path.display()),
    }
}
