//! Server-only code, compiled only with the `ssr` feature.
//!
//! # Layout
//!
//! A request comes in through the HTTP host, becomes a turn, goes to a
//! provider and comes back as a stream of `TurnEvent`s. The wings, from the
//! socket down:
//!
//! - **HTTP host** (`http`): the axum router, the serve loop and the guards
//!   every request passes: client key, same-origin, access control with its
//!   sign-in sessions, CSP, body cap and deadline, connection and write
//!   limits, static files. It decides who may ask, never what a turn says.
//! - **Turn service and tool loop** (`turn_service`, with `limits`,
//!   `hidden_thinking` and `redact` beside it): runs one turn. It picks the
//!   model, opens the upstream stream, feeds the normalizer, runs tool rounds
//!   until the model answers (with the user's decisions, Answer now and
//!   Continue, all under `turn_service/`), and applies the per-client
//!   limits, the kill switch and secret redaction on the way out.
//! - **Providers** (`providers`): one folder per wire dialect (OpenAI chat,
//!   Responses, Anthropic, Gemini, Ollama), turning a `ChatRequest` into the
//!   provider's request and its byte stream into dialect-neutral deltas. The
//!   lowest layer: it uses `turn` and nothing else of the crate.
//! - **Reasoning tags and normalizer** (`tags`, `normalizer`, `parse`): pure
//!   code that finds inline `<think>` tags in answer text and turns deltas
//!   into the `TurnEvent` stream under the wire's rules; `parse` replays a
//!   recorded stream through them for `pensive parse`.
//! - **Configuration** (`config`): the environment and the optional TOML file
//!   of models, read once at start. Secrets stay here and in the providers.
//! - **Tools and MCP** (`tools`): the built-in tools, MCP servers under their
//!   own names, running one call under a deadline and capping its output.
//! - **Mock upstream** (`mock`): the scripted demo model and a stand-in
//!   server speaking every dialect, for tests, benchmarks and
//!   `pensive mock-upstream`.

pub mod config;
pub(crate) mod hidden_thinking;
pub mod http;
pub mod limits;
pub mod mock;
pub mod normalizer;
pub mod parse;
pub mod providers;
pub(crate) mod redact;
pub(crate) mod shared;
pub mod tags;
pub mod tools;
pub mod turn_service;

pub use config::AppConfig;
pub use turn_service::TurnService;
