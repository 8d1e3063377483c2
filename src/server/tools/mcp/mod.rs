//! Tools from MCP servers: their configuration (`config`) and the client
//! (`client`, rmcp).

pub mod client;
pub mod config;

pub use client::{connect, McpServer};
pub use config::{load, McpServerConfig, Transport};
