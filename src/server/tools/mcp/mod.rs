//! Tools from MCP servers: their configuration (`config`), one connection
//! (`session`, rmcp), the client (`client`) and the supervisor that restarts a server that stops
//! (`supervisor`) and lists it again when it says its tools changed
//! (`relist`), the bound on a server's notifications (`guard`), on one
//! message (`oversized`) and on its stderr (`stderr`).

pub(crate) mod client;
pub mod config;
pub(crate) mod guard;
pub mod oversized;
mod relist;
pub(crate) mod session;
pub(crate) mod stderr;
pub(crate) mod supervisor;

pub use client::{connect, McpServer};
pub use config::{load, McpServerConfig, Transport};
