//! Who may attach to a turn, stop it or read its log: the browser that
//! started it. It proves it with the per-turn secret the page made and kept
//! with the turn (only its sha256 is held here) and, behind an access token,
//! with the signed-in session that started it as well. Both are kept as
//! their sha256 only, here and in the shared record of a turn (`store`).

use aws_lc_rs::constant_time::verify_slices_are_equal;
use aws_lc_rs::digest::{digest, SHA256};

/// The starter of one turn.
#[derive(Debug)]
pub(crate) struct Owner {
    /// sha256 of the session that started the turn (`None`: no access token).
    session: Option<Vec<u8>>,
    /// sha256 of the page's secret (`None`: the request carried none, and
    /// nobody may attach).
    secret: Option<Vec<u8>>,
}

/// Shortest secret taken: 128 bits in hex, as the page makes them.
const MIN_SECRET_CHARS: usize = 32;
/// Longest secret taken (a request is bounded, a hash of a novel is not needed).
const MAX_SECRET_CHARS: usize = 256;

impl Owner {
    pub(crate) fn new(session: Option<&str>, secret: Option<&str>) -> Self {
        Self {
            session: session.map(hash),
            secret: secret.filter(|s| usable(s)).map(hash),
        }
    }

    /// The owner a shared record names: the hashes in hex, empty for none.
    pub(crate) fn from_hex(session: &str, secret: &str) -> Self {
        Self {
            session: unhex(session),
            secret: unhex(secret),
        }
    }

    /// The session's and the secret's hashes in hex (empty for none), for a
    /// shared record.
    pub(crate) fn to_hex(&self) -> (String, String) {
        let hex = |bytes: &Option<Vec<u8>>| {
            bytes
                .iter()
                .flatten()
                .map(|b| format!("{b:02x}"))
                .collect::<String>()
        };
        (hex(&self.session), hex(&self.secret))
    }

    /// True when `session` and `secret` are the starter's.
    pub(crate) fn admits(&self, session: Option<&str>, secret: &str) -> bool {
        let Some(kept) = &self.secret else {
            return false;
        };
        let secret_matches = verify_slices_are_equal(kept, &hash(secret)).is_ok();
        let session_matches = match &self.session {
            Some(kept) => session.is_some_and(|s| verify_slices_are_equal(kept, &hash(s)).is_ok()),
            None => true,
        };
        secret_matches && session_matches
    }
}

fn usable(secret: &str) -> bool {
    (MIN_SECRET_CHARS..=MAX_SECRET_CHARS).contains(&secret.len())
}

fn hash(secret: &str) -> Vec<u8> {
    digest(&SHA256, secret.as_bytes()).as_ref().to_vec()
}

/// Bytes of `hex`; `None` for an empty or unreadable one (which admits nobody).
fn unhex(hex: &str) -> Option<Vec<u8>> {
    if hex.is_empty() || !hex.len().is_multiple_of(2) {
        return None;
    }
    (0..hex.len())
        .step_by(2)
        .map(|at| u8::from_str_radix(hex.get(at..at + 2)?, 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &str = "0123456789abcdef0123456789abcdef";

    #[test]
    fn only_the_starters_secret_and_session_attach() {
        let open = Owner::new(None, Some(SECRET));
        assert!(open.admits(None, SECRET));
        assert!(open.admits(Some("any session"), SECRET));
        assert!(!open.admits(None, "0123456789abcdef0123456789abcdeX"));
        assert!(!open.admits(None, ""));
        let signed_in = Owner::new(Some("s-1"), Some(SECRET));
        assert!(signed_in.admits(Some("s-1"), SECRET));
        assert!(!signed_in.admits(Some("s-2"), SECRET));
        assert!(!signed_in.admits(None, SECRET));
    }

    #[test]
    fn an_owner_read_back_from_its_hashes_admits_the_same_callers() {
        for owner in [
            Owner::new(None, Some(SECRET)),
            Owner::new(Some("s-1"), Some(SECRET)),
        ] {
            let (session, secret) = owner.to_hex();
            assert!(!secret.contains(SECRET) && !session.contains("s-1"));
            let back = Owner::from_hex(&session, &secret);
            for caller in [None, Some("s-1"), Some("s-2")] {
                assert_eq!(back.admits(caller, SECRET), owner.admits(caller, SECRET));
            }
            assert!(!back.admits(Some("s-1"), "0123456789abcdef0123456789abcdeX"));
        }
        assert!(!Owner::from_hex("", "").admits(None, SECRET));
    }

    #[test]
    fn a_turn_started_without_a_usable_secret_admits_nobody() {
        for secret in [None, Some(""), Some("short")] {
            let owner = Owner::new(None, secret);
            assert!(
                !owner.admits(None, secret.unwrap_or_default()),
                "{secret:?}"
            );
        }
    }
}
