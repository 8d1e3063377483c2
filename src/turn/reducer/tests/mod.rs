//! The reducer's tests, in one place: each file is one subject of the
//! reducer, driven through `Turn::apply` as the page and the server drive
//! it. Pure and native (`cargo test --lib --no-default-features turn::`).

mod answer_now;
mod changes;
mod continue_answer;
mod fold;
mod outcome;
mod tool_steps;
