//! Signed-in browsers, one session each. A sign-in gets its own value,
//! `<id>.<expires>.<mac>`: a random id, when it stops being valid (Unix
//! seconds, 30 days on), and an HMAC-SHA256 of both and of the access token
//! under the server's key. The server stores nothing per session while it
//! is valid; signing out puts the id on a revocation list until the moment
//! it would have expired anyway, so a cookie captured earlier is refused
//! from then on.
//!
//! With `PENSIVE_COOKIE_SECRET` set, sessions outlive a restart and may be
//! shared by processes behind one proxy, so the list is kept in a file
//! (`PENSIVE_SESSIONS_FILE`, else the state directory) and read again when
//! another process changed it. Without it, the key is random per process:
//! a restart ends every session, and the list lives in memory.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use aws_lc_rs::hmac;

use crate::server::providers::secret::Secret;

/// How long a session lasts from its sign-in.
pub(crate) const SESSION_LIFETIME: Duration = Duration::from_secs(30 * 24 * 60 * 60);
/// What the MAC signs besides the session, so the value is useless elsewhere.
const CONTEXT: &[u8] = b"pensive session v2\0";
/// Bytes of a session id.
const ID_BYTES: usize = 16;

/// Where the revocation list lives when sessions outlive the process:
/// `PENSIVE_SESSIONS_FILE`, else `$XDG_STATE_HOME/pensive/revoked-sessions.json`,
/// else `$HOME/.local/state/pensive/revoked-sessions.json`.
pub fn default_path(get: impl Fn(&str) -> Option<String>) -> Option<PathBuf> {
    crate::server::config::state_file(get, "PENSIVE_SESSIONS_FILE", "revoked-sessions.json")
}

/// Issues and checks session values for one access token.
pub(crate) struct Sessions {
    key: hmac::Key,
    token: Secret,
    revoked: Mutex<Revoked>,
    /// The revocation list's file; `None` keeps it in memory.
    path: Option<PathBuf>,
}

/// Revoked ids and when each would have expired; the file's modification
/// time when it was last read.
#[derive(Default)]
struct Revoked {
    ids: HashMap<String, u64>,
    read_at: Option<SystemTime>,
}

/// A session value, read.
struct Parsed<'a> {
    id: &'a str,
    expires: u64,
}

impl Sessions {
    pub fn new(token: Secret, key: &[u8], path: Option<PathBuf>) -> Self {
        let sessions = Self {
            key: hmac::Key::new(hmac::HMAC_SHA256, key),
            token,
            revoked: Mutex::default(),
            path,
        };
        if let Ok(mut revoked) = sessions.revoked.lock() {
            sessions.reload(&mut revoked);
        }
        sessions
    }

    /// A new session's value.
    pub fn issue(&self) -> String {
        self.issue_at(unix_now())
    }

    fn issue_at(&self, now: u64) -> String {
        let mut id = [0u8; ID_BYTES];
        // Without a working random source every id would be the same
        // (guessable); refuse to sign in rather than issue one.
        if aws_lc_rs::rand::fill(&mut id).is_err() {
            return String::new();
        }
        let id = hex(&id);
        let expires = now + SESSION_LIFETIME.as_secs();
        format!("{id}.{expires}.{}", self.mac(&id, expires))
    }

    /// Whether `value` is a session this server issued, not expired and not
    /// signed out.
    pub(crate) fn is_valid(&self, value: &str) -> bool {
        self.is_valid_at(value, unix_now())
    }

    fn is_valid_at(&self, value: &str, now: u64) -> bool {
        let Some(session) = self.verified(value) else {
            return false;
        };
        if session.expires <= now {
            return false;
        }
        let Ok(mut revoked) = self.revoked.lock() else {
            return false;
        };
        self.reload(&mut revoked);
        !revoked.ids.contains_key(session.id)
    }

    /// Ends the session `value` names (nothing when it is not a valid one).
    pub(crate) fn revoke(&self, value: &str) {
        let Some(session) = self.verified(value) else {
            return;
        };
        let Ok(mut revoked) = self.revoked.lock() else {
            return;
        };
        self.reload(&mut revoked);
        revoked.ids.insert(session.id.to_owned(), session.expires);
        let now = unix_now();
        revoked.ids.retain(|_, expires| *expires > now);
        self.save(&mut revoked);
    }

    /// The id and expiry (unix seconds) of the valid session `value`.
    pub(crate) fn id_of(&self, value: &str) -> Option<(String, u64)> {
        self.verified(value)
            .map(|session| (session.id.to_owned(), session.expires))
    }

    /// Forgets revoked ids that have expired anyway.
    pub(crate) fn prune(&self) {
        if let Ok(mut revoked) = self.revoked.lock() {
            let now = unix_now();
            revoked.ids.retain(|_, expires| *expires > now);
        }
    }

    /// `value` split and its MAC checked (in constant time).
    fn verified<'a>(&self, value: &'a str) -> Option<Parsed<'a>> {
        let mut parts = value.split('.');
        let (id, expires, mac) = (parts.next()?, parts.next()?, parts.next()?);
        if parts.next().is_some() || id.len() != 2 * ID_BYTES {
            return None;
        }
        let expires: u64 = expires.parse().ok()?;
        let expected = self.mac(id, expires);
        aws_lc_rs::constant_time::verify_slices_are_equal(mac.as_bytes(), expected.as_bytes())
            .ok()?;
        Some(Parsed { id, expires })
    }

    fn mac(&self, id: &str, expires: u64) -> String {
        let mut context = hmac::Context::with_key(&self.key);
        context.update(CONTEXT);
        context.update(self.token.expose().as_bytes());
        context.update(b"\0");
        context.update(id.as_bytes());
        context.update(b".");
        context.update(expires.to_string().as_bytes());
        hex(context.sign().as_ref())
    }

    /// Reads the list again when its file changed since it was last read
    /// (another process signed someone out).
    fn reload(&self, revoked: &mut Revoked) {
        let Some(path) = &self.path else { return };
        let modified = std::fs::metadata(path).and_then(|m| m.modified()).ok();
        if modified.is_none() || modified == revoked.read_at {
            return;
        }
        match std::fs::read_to_string(path)
            .map_err(|e| e.to_string())
            .and_then(|text| {
                serde_json::from_str::<HashMap<String, u64>>(&text).map_err(|e| e.to_string())
            }) {
            Ok(ids) => revoked.ids.extend(ids),
            // Never fatal: what this process revoked stays revoked.
            Err(problem) => {
                tracing::warn!(path = %path.display(), "the revoked sessions cannot be read ({problem})")
            }
        }
        revoked.read_at = modified;
    }

    /// Writes the list (a temporary file renamed over the old one).
    fn save(&self, revoked: &mut Revoked) {
        let Some(path) = &self.path else { return };
        let write = || -> std::io::Result<()> {
            if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir)?;
            }
            let text = serde_json::to_string(&revoked.ids).map_err(std::io::Error::other)?;
            let partial = path.with_extension("json.partial");
            std::fs::write(&partial, text)?;
            std::fs::rename(&partial, path)
        };
        match write() {
            Ok(()) => revoked.read_at = std::fs::metadata(path).and_then(|m| m.modified()).ok(),
            Err(problem) => tracing::warn!(
                path = %path.display(),
                "cannot save the revoked sessions ({problem}): the session ends in this process only"
            ),
        }
    }
}

/// Signed-out sessions shared by replicas through Redis
/// (`PENSIVE_REDIS_URL`): one key per session, named by the sha256 of its
/// id, that expires when the session would have.
#[derive(Debug, Clone)]
pub(crate) struct SharedRevocations(crate::server::shared::SharedRedis);

impl SharedRevocations {
    pub(crate) fn new(redis: crate::server::shared::SharedRedis) -> Self {
        Self(redis)
    }

    fn key(id: &str) -> String {
        format!(
            "pensive:session:revoked:{}",
            crate::server::shared::sha256_hex(id)
        )
    }

    /// Session `id` (expiring at `expires`) is signed out on every replica.
    pub(crate) async fn revoke(&self, id: &str, expires: u64) {
        use redis::AsyncCommands;
        let options = redis::SetOptions::default()
            .with_expiration(redis::SetExpiry::EXAT(expires.max(unix_now() + 1)));
        let done: redis::RedisResult<()> = match self.0.conn().await {
            Ok(mut conn) => conn.set_options(Self::key(id), 1, options).await,
            Err(err) => Err(err),
        };
        if let Err(err) = done {
            tracing::warn!(%err, "cannot share a sign-out through Redis: it holds on this replica only");
        }
    }

    /// True when another replica signed session `id` out. A Redis that
    /// cannot answer leaves the decision to this replica's own list.
    pub(crate) async fn is_revoked(&self, id: &str) -> bool {
        use redis::AsyncCommands;
        let asked = tokio::time::timeout(crate::server::shared::QUICK, async {
            let mut conn = self.0.conn().await?;
            conn.exists(Self::key(id)).await
        });
        match asked.await {
            Ok(Ok(revoked)) => revoked,
            Ok(Err(err)) => {
                tracing::warn!(%err, "cannot read the shared sign-outs on Redis");
                false
            }
            Err(_) => {
                tracing::warn!("Redis did not answer in time for the shared sign-outs");
                false
            }
        }
    }
}

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sessions(path: Option<PathBuf>) -> Sessions {
        Sessions::new(Secret::from("a-token-of-twenty-chars"), &[7u8; 32], path)
    }

    #[test]
    fn each_sign_in_gets_its_own_value_and_sign_out_ends_only_that_one() {
        let sessions = sessions(None);
        let (a, b) = (sessions.issue(), sessions.issue());
        assert_ne!(a, b);
        assert!(!a.contains("a-token"), "the token is not in the value");
        assert!(sessions.is_valid(&a) && sessions.is_valid(&b));
        sessions.revoke(&a);
        assert!(!sessions.is_valid(&a), "signed out");
        assert!(sessions.is_valid(&b), "the other browser stays signed in");
    }

    #[test]
    fn a_forged_expired_or_foreign_value_is_refused() {
        let sessions = sessions(None);
        let now = unix_now();
        let value = sessions.issue_at(now);
        assert!(sessions.is_valid_at(&value, now));
        let expires = now + SESSION_LIFETIME.as_secs();
        assert!(!sessions.is_valid_at(&value, expires), "expired");
        // A later expiry written in by hand breaks the MAC.
        let stretched = value.replace(&expires.to_string(), &(expires + 1_000).to_string());
        assert!(!sessions.is_valid_at(&stretched, now));
        let mut flipped = value.clone().into_bytes();
        let last = flipped.len() - 1;
        flipped[last] = if flipped[last] == b'0' { b'1' } else { b'0' };
        assert!(!sessions.is_valid_at(&String::from_utf8(flipped).unwrap(), now));
        for junk in [
            "",
            "a.b.c",
            &format!("{value}.x"),
            "..",
            &value[..value.len() - 1],
        ] {
            assert!(!sessions.is_valid_at(junk, now), "{junk:?}");
        }
        // Another key or another token: nothing issued before is valid.
        let other_key = Sessions::new(Secret::from("a-token-of-twenty-chars"), &[8u8; 32], None);
        assert!(!other_key.is_valid_at(&value, now));
        let other_token = Sessions::new(Secret::from("another-token-entirely"), &[7u8; 32], None);
        assert!(!other_token.is_valid_at(&value, now));
    }

    #[test]
    fn a_sign_out_holds_across_a_restart_and_in_another_process() {
        let dir = std::env::temp_dir().join(format!("pensive-sessions-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let path = dir.join("state").join("revoked-sessions.json");
        let first = sessions(Some(path.clone()));
        let other_process = sessions(Some(path.clone()));
        let value = first.issue();
        assert!(other_process.is_valid(&value));
        first.revoke(&value);
        assert!(!other_process.is_valid(&value), "read again from the file");
        let restarted = sessions(Some(path.clone()));
        assert!(
            !restarted.is_valid(&value),
            "still signed out after a restart"
        );
        assert!(restarted.is_valid(&restarted.issue()));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
