//! Server-only code: configuration, the router, providers, the reasoning
//! normalizer, the turn service, the mock upstream and the scripted model.
//! Compiled only with the `ssr` feature.

pub mod access;
pub mod active_turns;
pub mod address_slots;
pub mod answer_now;
pub mod body_deadline;
pub mod body_limit;
pub mod client;
pub mod config;
pub mod continuation;
pub mod csp;
pub mod hidden_thinking;
pub mod limits;
pub mod mock;
pub mod normalizer;
pub mod parse;
pub mod providers;
pub mod pruning;
pub mod redact;
pub mod router;
pub mod same_origin;
pub mod serve;
pub mod sessions;
pub mod static_files;
pub mod tags;
pub mod tool_decisions;
pub mod tool_round;
pub mod tools;
pub mod turn_log;
pub mod turn_service;
pub mod write_stall;

pub use config::AppConfig;
pub use turn_service::TurnService;
