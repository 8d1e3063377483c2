//! Everything that stands in for a real model: the scripted demo model
//! (`scripted`, also the `demo` provider), the scenarios the mock upstream
//! plays (`scenarios`), each dialect's stream writer (`encoders`) and the
//! mock upstream server itself (`upstream`), which speaks every dialect for
//! tests, benchmarks and `pensive mock-upstream`.

pub mod encoders;
pub mod scenarios;
pub mod scripted;
pub mod tool_scripts;
pub mod upstream;
