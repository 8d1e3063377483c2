//! The HTTP host: everything between a socket and the turn service. The
//! router (pages, server functions, static files), the serve loop with its
//! connection, header, body and write limits, and the guards every request
//! passes: who the client is, same-origin, access control with its sign-in
//! sessions, the Content-Security-Policy and the body cap. Nothing here knows
//! what a turn says; it only decides who may ask and how long they may take.

pub mod access;
pub(crate) mod address_slots;
pub(crate) mod body_deadline;
pub(crate) mod body_limit;
pub(crate) mod client;
pub(crate) mod csp;
pub(crate) mod pruning;
pub mod router;
pub(crate) mod same_origin;
pub mod serve;
pub(crate) mod sessions;
pub(crate) mod static_files;
pub(crate) mod unreadable_request;
pub(crate) mod write_stall;
