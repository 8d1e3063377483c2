//! What each dialect's tool loop must send back, as each provider refuses
//! it: one file per dialect, each rule with the source of its 400 body.

mod anthropic;
mod chat;
mod gemini;
mod responses;

pub(super) use anthropic::check as check_anthropic;
pub(super) use chat::check_chat;
pub(super) use gemini::check as check_gemini;
pub(super) use responses::check as check_responses;
