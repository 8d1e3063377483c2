//! History on the server and in native tests: there is no browser storage,
//! so nothing is stored or read. Loading finds nothing, a save only puts
//! its line in the list in memory, and every other call does nothing.

use super::{Loaded, Notice, Saved, SearchHit, Usage};
use crate::turn::message::{upsert_summary, Conversation, Summary};

pub fn load_quick() -> Loaded {
    Loaded::default()
}

pub async fn settle() -> Loaded {
    Loaded::default()
}

pub async fn load(_id: &str) -> Result<Conversation, Notice> {
    Err(Notice::plain("History is only available in the browser."))
}

pub async fn load_every() -> (Vec<Conversation>, usize) {
    (Vec::new(), 0)
}

pub fn save(
    conversation: &Conversation,
    index: &mut Vec<Summary>,
    _now_ms: f64,
    _settled: impl FnOnce(Saved) + 'static,
) -> Result<usize, String> {
    let mut line = conversation.summary();
    line.bytes = 0;
    upsert_summary(index, line);
    Ok(0)
}

pub async fn save_all(
    _conversations: &[Conversation],
    _index: &mut Vec<Summary>,
    _now_ms: f64,
) -> Result<Saved, String> {
    Ok(Saved::Stored)
}

pub async fn delete(_id: &str) -> Result<(), String> {
    Ok(())
}

pub async fn is_stored(_id: &str) -> bool {
    false
}

pub fn set_current(_id: &str) {}

pub async fn forget_everything() -> Result<(), String> {
    Ok(())
}

pub fn clear_current() {}

pub fn listen(_changed: impl Fn() + Copy + 'static) {}

pub async fn usage() -> Usage {
    Usage::default()
}

pub async fn persist() -> bool {
    false
}

pub async fn search(_query: String, _found: impl FnMut(SearchHit), _cancelled: impl Fn() -> bool) {}
