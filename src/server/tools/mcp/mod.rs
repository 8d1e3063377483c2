//! Tools from MCP servers: their configuration (`config`), one connection
//! (`session`, rmcp), the client (`client`) and the supervisor that restarts a server that stops
//! (`supervisor`), and the bound on a server's notifications (`guard`).

pub(crate) mod client;
pub mod config;
pub(crate) mod guard;
pub(crate) mod session;
pub(crate) mod supervisor;

pub use client::{connect, McpServer};
pub use config::{load, McpServerConfig, Transport};
