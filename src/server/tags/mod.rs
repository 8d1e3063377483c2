//! Inline reasoning tags in answer text (`<think>…</think>` and friends), per
//! design §3, split by job: the tag pairs a model uses (`sets`), matching one
//! tag at a position (`matcher`), the Markdown context that decides whether a
//! tag counts (`context`: line start, code fences, code spans) and the
//! streaming extractor that puts them together (`extractor`).
//!
//! Pure: no I/O, no clock. The normalizer turns the parts into `TurnEvent`s.

mod context;
mod extractor;
mod matcher;
mod sets;

pub use extractor::{TagExtractor, TagPart, TurnSoFar};
pub use sets::{TagError, TagSet};
