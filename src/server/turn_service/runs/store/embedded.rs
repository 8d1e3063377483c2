//! The embedded store: a server's turns live in its memory alone
//! (`Registry`), so there is nothing to write beyond it, no other replica to
//! ask, and no lease to keep. The default, with nothing to install.

/// Nothing beyond this process.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Embedded;
