//! The mock upstream's parts: each dialect's stream writer (`encoders`).
//! Test and benchmark support; nothing here is on a real turn's path.

pub mod encoders;
