//! Server-only code: configuration, the router, providers, the reasoning
//! normalizer, the turn service, the mock upstream and the scripted model.
//! Compiled only with the `ssr` feature.

pub mod active_turns;
pub mod answer_now;
pub mod config;
pub mod continuation;
pub mod hidden_thinking;
pub mod http;
pub mod limits;
pub mod mock;
pub mod normalizer;
pub mod parse;
pub mod providers;
pub mod redact;
pub mod tags;
pub mod tool_decisions;
pub mod tool_round;
pub mod tools;
pub mod turn_log;
pub mod turn_service;

pub use config::AppConfig;
pub use turn_service::TurnService;
