//! The benchmark input: a deterministic ~10 MB model output with reasoning in
//! `<think>` blocks, answer prose, code fences holding literal tag text, inline
//! code and multibyte UTF-8, cut into stream chunks of 1–20 bytes by a
//! fixed-seed generator. The same bytes and cuts are written to disk for the
//! peer, so both sides parse exactly the same stream.

use std::fmt::Write as _;

/// Size of the generated text (MB = 10^6 bytes in every report).
pub const INPUT_BYTES: usize = 10_000_000;
/// Stream chunks are 1..=MAX_CHUNK bytes (cut back to a char boundary).
pub const MAX_CHUNK: usize = 20;
/// The generator seed: change it and every figure's input changes.
pub const SEED: u64 = 0x5EED_7A65_0000_0006;

/// splitmix64: tiny, fast, and identical on every platform, which is all a
/// benchmark input needs (no external crate, no version drift).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `low..=high` (the modulo bias is irrelevant here).
    pub fn range(&mut self, low: usize, high: usize) -> usize {
        low + (self.next_u64() % (high - low + 1) as u64) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.range(0, items.len() - 1)]
    }
}

/// Words of prose; a few are multibyte (2-, 3- and 4-byte UTF-8).
const WORDS: &[&str] = &[
    "the",
    "model",
    "answer",
    "so",
    "we",
    "check",
    "whether",
    "value",
    "is",
    "larger",
    "than",
    "zero",
    "then",
    "compute",
    "sum",
    "of",
    "each",
    "term",
    "and",
    "compare",
    "result",
    "with",
    "expected",
    "bound",
    "therefore",
    "consider",
    "case",
    "where",
    "input",
    "empty",
    "list",
    "string",
    "parser",
    "stream",
    "chunk",
    "token",
    "maybe",
    "wait",
    "actually",
    "right",
    "café",
    "naïve",
    "größer",
    "déjà",
    "straße",
    "λ",
    "→",
    "≤",
    "∑",
    "日本語",
    "思考",
    "答え",
    "🙂",
    "🚀",
    "½",
    "€",
];

/// Lines written inside fenced code: literal tag text that is not reasoning.
const CODE_LINES: &[&str] = &[
    "<think>this is an example, not reasoning</think>",
    "let tag = \"<think>\";",
    "if text.starts_with(\"</think>\") { close(); }",
    "<reasoning>also literal</reasoning>",
    "print('<think>' + plan + '</think>')",
    "# no tags on this line at all",
];

fn sentence(rng: &mut Rng, out: &mut String) {
    let words = rng.range(5, 16);
    for i in 0..words {
        if i > 0 {
            out.push(' ');
        }
        let word = rng.pick(WORDS);
        if i == 0 {
            // Capitalise ASCII words only: keeps the multibyte ones intact.
            let mut chars = word.chars();
            if let Some(first) = chars.next() {
                out.push(first.to_ascii_uppercase());
                out.push_str(chars.as_str());
            }
        } else {
            out.push_str(word);
        }
    }
    out.push_str(rng.pick(&[".", ".", ".", "?", "!", ":"]));
}

fn reasoning_block(rng: &mut Rng, out: &mut String) {
    out.push_str("<think>\n");
    for _ in 0..rng.range(3, 12) {
        for s in 0..rng.range(1, 3) {
            if s > 0 {
                out.push(' ');
            }
            sentence(rng, out);
        }
        out.push('\n');
    }
    out.push_str("</think>\n\n");
}

fn answer_section(rng: &mut Rng, out: &mut String) {
    for _ in 0..rng.range(1, 4) {
        for s in 0..rng.range(1, 5) {
            if s > 0 {
                out.push(' ');
            }
            match rng.range(0, 9) {
                // Tag text inside inline code and mid-line: literal text for Pensive.
                0 => out.push_str("Close the block with `</think>` on its own line."),
                1 => out.push_str("Some models wrap their plan in <think> tags mid-sentence."),
                _ => sentence(rng, out),
            }
        }
        out.push_str("\n\n");
    }
}

fn code_fence(rng: &mut Rng, out: &mut String) {
    let fence = rng.pick(&["```", "```xml", "~~~", "```python"]);
    let close = if fence.starts_with('~') { "~~~" } else { "```" };
    out.push_str(fence);
    out.push('\n');
    for _ in 0..rng.range(1, 8) {
        out.push_str(rng.pick(CODE_LINES));
        out.push('\n');
    }
    out.push_str(close);
    out.push_str("\n\n");
}

/// The text: by bytes about 60% reasoning, 30% answer prose, 10% code.
pub fn generate(seed: u64, size: usize) -> String {
    let mut rng = Rng::new(seed);
    let mut out = String::with_capacity(size + 4096);
    while out.len() < size {
        match rng.range(0, 9) {
            0..=3 => reasoning_block(&mut rng, &mut out),
            4..=7 => answer_section(&mut rng, &mut out),
            _ => code_fence(&mut rng, &mut out),
        }
    }
    let mut end = size;
    while !out.is_char_boundary(end) {
        end -= 1;
    }
    out.truncate(end);
    out
}

/// Chunk lengths of 1..=max bytes, each cut moved back to a char boundary
/// (or forward, if that would leave the chunk empty).
pub fn chunk_lengths(text: &str, seed: u64, max: usize) -> Vec<usize> {
    let mut rng = Rng::new(seed ^ 0xC4_0A_C5);
    let mut lengths = Vec::with_capacity(text.len() / (max / 2).max(1) + 1);
    let mut at = 0;
    while at < text.len() {
        let mut end = (at + rng.range(1, max)).min(text.len());
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        if end == at {
            end = at + 1;
            while !text.is_char_boundary(end) {
                end += 1;
            }
        }
        lengths.push(end - at);
        at = end;
    }
    lengths
}

/// Byte chunks of 1..=max anywhere, even inside a character (network reads).
pub fn byte_chunk_lengths(total: usize, seed: u64, max: usize) -> Vec<usize> {
    let mut rng = Rng::new(seed ^ 0x0B_17E5);
    let mut lengths = Vec::new();
    let mut at = 0;
    while at < total {
        let len = rng.range(1, max).min(total - at);
        lengths.push(len);
        at += len;
    }
    lengths
}

/// Slices `data` by consecutive lengths.
pub fn split<'a, T: ?Sized + Sliceable>(data: &'a T, lengths: &[usize]) -> Vec<&'a T> {
    let mut at = 0;
    lengths
        .iter()
        .map(|&len| {
            let piece = data.slice(at, at + len);
            at += len;
            piece
        })
        .collect()
}

/// `str` and `[u8]` both slice by byte range.
pub trait Sliceable {
    fn slice(&self, from: usize, to: usize) -> &Self;
}

impl Sliceable for str {
    fn slice(&self, from: usize, to: usize) -> &Self {
        &self[from..to]
    }
}

impl Sliceable for [u8] {
    fn slice(&self, from: usize, to: usize) -> &Self {
        &self[from..to]
    }
}

/// `count` reasoning chunks of about 10 bytes (whole words), for per-chunk runs.
pub fn small_chunks(seed: u64, count: usize) -> Vec<String> {
    let mut rng = Rng::new(seed);
    (0..count)
        .map(|_| {
            let mut chunk = String::new();
            while chunk.len() < 8 {
                let _ = write!(chunk, "{} ", rng.pick(WORDS));
            }
            chunk
        })
        .collect()
}
