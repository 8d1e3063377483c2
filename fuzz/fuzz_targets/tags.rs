//! Fuzzes the inline-tag extractor: for any input and any chunking it must not
//! panic, must give back the input exactly (text + recognised tags), and must
//! decide the same parts as when the input arrives in one piece.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pensive::server::tags::{TagExtractor, TagPart, TagSet, TurnSoFar};

fn run(chunks: &[&str], start_in_thinking: bool) -> Vec<TagPart> {
    let mut x = TagExtractor::new(TagSet::default(), start_in_thinking);
    let mut parts = Vec::new();
    for chunk in chunks {
        parts.extend(x.push(chunk, TurnSoFar::default()));
    }
    parts.extend(x.finish(TurnSoFar::default()));
    // Merge adjacent text of the same kind: chunking may split text runs.
    let mut merged: Vec<TagPart> = Vec::new();
    for part in parts {
        match (merged.last_mut(), part) {
            (Some(TagPart::Answer(a)), TagPart::Answer(b)) => a.push_str(&b),
            (Some(TagPart::Reasoning(a)), TagPart::Reasoning(b)) => a.push_str(&b),
            (_, part) => merged.push(part),
        }
    }
    merged
}

fuzz_target!(|data: &[u8]| {
    let Some((&control, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let start_in_thinking = control & 1 == 1;
    let whole = run(&[text], start_in_thinking);
    let joined: String = whole.iter().map(TagPart::text).collect();
    assert_eq!(joined, text, "lossless");
    // Chunk at every char boundary chosen by the control byte's stride.
    let stride = usize::from(control >> 1).max(1);
    let mut chunks = Vec::new();
    let mut start = 0;
    for (n, (i, _)) in text.char_indices().enumerate().skip(1) {
        if n % stride == 0 {
            chunks.push(&text[start..i]);
            start = i;
        }
    }
    chunks.push(&text[start..]);
    assert_eq!(
        run(&chunks, start_in_thinking),
        whole,
        "chunking changes nothing"
    );
});
