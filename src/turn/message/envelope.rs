//! How a conversation is stored: the versioned envelope around a record, the
//! index's and Export all's envelopes, the check that leaves a newer build's
//! data alone, and the migrations that read every older version. Pure.

use serde::{Deserialize, Serialize};

use super::{Conversation, Summary, INDEX_VERSION, SCHEMA_VERSION};
use crate::turn::headline::headline_of;

/// The stored envelope: `{"version": 1, "conversation": {...}}`.
#[derive(Serialize, Deserialize)]
struct Envelope<T> {
    version: u32,
    conversation: T,
}

/// An export of several conversations (Export all):
/// `{"version": 3, "conversations": [{...}, ...]}`, each conversation as the
/// single envelope holds it. Distinct from the index, whose lines lack
/// `messages` (an index given to import is refused as the wrong shape).
#[derive(Serialize)]
struct AllEnvelope<T> {
    version: u32,
    conversations: Vec<T>,
}

/// Why a stored record could not be read. The caller keeps the raw text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    #[error("the saved data is not readable JSON: {0}")]
    Unreadable(String),
    #[error("the saved data comes from a newer version of Pensive (schema {0})")]
    FutureVersion(u32),
    #[error("the saved data has an unexpected shape: {0}")]
    WrongShape(String),
}

/// The stored index: `{"version": 1, "conversations": [...]}`.
#[derive(Serialize, Deserialize)]
struct IndexEnvelope {
    version: u32,
    conversations: Vec<Summary>,
}

/// Serializes the index.
pub fn encode_index(index: &[Summary]) -> String {
    serde_json::to_string(&IndexEnvelope {
        version: INDEX_VERSION,
        conversations: index.to_vec(),
    })
    .unwrap_or_default()
}

/// Reads the index (newest first), parsing its text once: the version is
/// read off its start (`declared_version`), then the index itself.
pub fn decode_index(raw: &str) -> Result<Vec<Summary>, DecodeError> {
    match declared_version(raw) {
        Some(v) if v > u64::from(INDEX_VERSION) => {
            return Err(DecodeError::FutureVersion(
                u32::try_from(v).unwrap_or(u32::MAX),
            ))
        }
        Some(_) => {}
        None => return Err(unversioned(raw)),
    }
    let mut envelope: IndexEnvelope = typed(raw)?;
    envelope
        .conversations
        .sort_by(|a, b| b.updated_at.total_cmp(&a.updated_at));
    Ok(envelope.conversations)
}

/// Why text that declares no version cannot be read: it is not JSON at all,
/// or JSON that names no version.
fn unversioned(raw: &str) -> DecodeError {
    match crate::turn::json::read::<serde::de::IgnoredAny>(raw) {
        Err(e) => DecodeError::Unreadable(e.to_string()),
        Ok(_) => DecodeError::WrongShape("no version field".into()),
    }
}

/// The schema version a stored record or index declares, when it is newer
/// than this build's: another build's data, which this one must leave exactly
/// as it is (neither rewrite nor move it). `None` for data of a known version
/// and for unreadable data (that is this build's to quarantine).
pub fn newer_version(raw: &str) -> Option<u32> {
    newer_than(raw, SCHEMA_VERSION)
}

/// [`newer_version`] for the stored index, whose versions run on their own.
pub fn newer_index_version(raw: &str) -> Option<u32> {
    newer_than(raw, INDEX_VERSION)
}

fn newer_than(raw: &str, known: u32) -> Option<u32> {
    let declared = declared_version(raw)?;
    (declared > u64::from(known)).then(|| u32::try_from(declared).unwrap_or(u32::MAX))
}

/// The version a record or index declares, `None` when it names none.
fn declared_version(raw: &str) -> Option<u64> {
    // Every build writes `{"version":N,` first (the envelopes' field order);
    // reading just that keeps the check before each save cheap.
    match raw.strip_prefix(r#"{"version":"#) {
        Some(rest) => {
            let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
            match rest.as_bytes().get(digits) {
                Some(b',' | b'}') if digits > 0 => rest[..digits].parse::<u64>().ok(),
                _ => version_field(raw),
            }
        }
        None => version_field(raw),
    }
}

/// The `version` field of any JSON object, however it is written.
fn version_field(raw: &str) -> Option<u64> {
    #[derive(Deserialize)]
    struct Versioned {
        version: u64,
    }
    crate::turn::json::read::<Versioned>(raw)
        .ok()
        .map(|v| v.version)
}

/// Serializes a conversation in the current schema at client time `now_ms`.
pub fn encode(conversation: &Conversation, now_ms: f64) -> String {
    let envelope = Envelope {
        version: SCHEMA_VERSION,
        conversation: conversation.for_storage(now_ms),
    };
    // Plain data (strings, numbers, enums): serialization cannot fail.
    serde_json::to_string(&envelope).unwrap_or_default()
}

/// One migration step: turns a record of version `N` into version `N + 1`.
type Migration = fn(serde_json::Value) -> Result<serde_json::Value, DecodeError>;

/// `MIGRATIONS[i]` upgrades version `i + 1` to `i + 2`. A schema change adds
/// one here, with a stored sample of the old version in the tests.
const MIGRATIONS: &[Migration] = &[headlines_from_text, Ok, Ok];

/// (2 -> 3 is `Ok`: a record of version 2 is one whose turns each have one
/// version, which version 3 writes the same way. 3 -> 4 is `Ok` too: a
/// record of version 3 is one without tool steps.)
///
/// 1 -> 2: version 1 never wrote a thinking block's `headline`; derive it from
/// the stored text, exactly as the reducer derives it while a block streams.
/// A headline already present (no build wrote one, but a hand-made record
/// may hold it) is kept. Anything of the wrong shape is left for the typed
/// read to report.
fn headlines_from_text(mut value: serde_json::Value) -> Result<serde_json::Value, DecodeError> {
    let messages = value
        .pointer_mut("/conversation/messages")
        .and_then(serde_json::Value::as_array_mut);
    let blocks = messages
        .into_iter()
        .flatten()
        .filter_map(|m| {
            m.get_mut("blocks")
                .and_then(serde_json::Value::as_array_mut)
        })
        .flatten()
        .filter_map(serde_json::Value::as_object_mut);
    for block in blocks {
        let thinking = block.get("kind").and_then(serde_json::Value::as_str) == Some("thinking");
        if !thinking || block.get("headline").is_some_and(|h| !h.is_null()) {
            continue;
        }
        if let Some(headline) = block
            .get("text")
            .and_then(serde_json::Value::as_str)
            .and_then(headline_of)
        {
            block.insert("headline".into(), serde_json::json!(headline));
        }
    }
    Ok(value)
}

/// Brings a record of `version` up to `SCHEMA_VERSION`, one step at a time.
fn migrate(mut value: serde_json::Value, version: u32) -> Result<serde_json::Value, DecodeError> {
    if version == 0 {
        return Err(DecodeError::WrongShape("version 0 never existed".into()));
    }
    for step in MIGRATIONS.iter().skip(version as usize - 1) {
        value = step(value)?;
    }
    if let Some(v) = value.get_mut("version") {
        *v = serde_json::json!(SCHEMA_VERSION);
    }
    Ok(value)
}

/// Reads a stored conversation of any known version.
pub fn decode(raw: &str) -> Result<Conversation, DecodeError> {
    // A record of this version (nearly all of them) is read straight from
    // its text, without a `Value` tree in between; older ones are migrated.
    if declared_version(raw) == Some(u64::from(SCHEMA_VERSION)) {
        return typed::<Envelope<Conversation>>(raw).map(settled);
    }
    let value: serde_json::Value =
        crate::turn::json::read(raw).map_err(|e| DecodeError::Unreadable(e.to_string()))?;
    let version = known_version(&value)?;
    decode_value(value, version)
}

/// Serializes several conversations (Export all) in the current schema at
/// client time `now_ms`, each as `encode` would store it.
pub fn encode_all(conversations: &[Conversation], now_ms: f64) -> String {
    let envelope = AllEnvelope {
        version: SCHEMA_VERSION,
        conversations: conversations
            .iter()
            .map(|c| c.for_storage(now_ms))
            .collect(),
    };
    serde_json::to_string(&envelope).unwrap_or_default()
}

/// Reads an exported file: one conversation (`encode`) or several
/// (`encode_all`), in the file's order. All or nothing: one conversation that
/// does not read refuses the whole file, naming which one, so an import of a
/// bad file changes nothing. A file of none is refused too.
pub fn decode_file(raw: &str) -> Result<Vec<Conversation>, DecodeError> {
    let mut value: serde_json::Value =
        crate::turn::json::read(raw).map_err(|e| DecodeError::Unreadable(e.to_string()))?;
    let version = known_version(&value)?;
    // A hand-made file holding both reads as the single envelope it also is.
    let many = value.get("conversation").is_none();
    let Some(list) = value.get_mut("conversations").filter(|_| many) else {
        return decode_value(value, version).map(|c| vec![c]);
    };
    let serde_json::Value::Array(list) = list.take() else {
        return Err(DecodeError::WrongShape(
            "\"conversations\" is not a list".into(),
        ));
    };
    if list.is_empty() {
        return Err(DecodeError::WrongShape("it holds no conversations".into()));
    }
    let count = list.len();
    list.into_iter()
        .enumerate()
        .map(|(at, conversation)| {
            // Each one as the single envelope of the file's version: the
            // same migrations and tidying as a record of that version.
            let single = serde_json::json!({ "version": version, "conversation": conversation });
            decode_value(single, version).map_err(|e| match e {
                DecodeError::WrongShape(why) => {
                    DecodeError::WrongShape(format!("conversation {} of {count}: {why}", at + 1))
                }
                other => other,
            })
        })
        .collect()
}

/// The `version` of a record or file, when this build can read it.
fn known_version(value: &serde_json::Value) -> Result<u32, DecodeError> {
    let version = value
        .get("version")
        .and_then(serde_json::Value::as_u64)
        .ok_or_else(|| DecodeError::WrongShape("no version field".into()))?;
    let version = u32::try_from(version).map_err(|_| DecodeError::FutureVersion(u32::MAX))?;
    if version > SCHEMA_VERSION {
        return Err(DecodeError::FutureVersion(version));
    }
    Ok(version)
}

/// Reads a single envelope of a known `version`.
fn decode_value(value: serde_json::Value, version: u32) -> Result<Conversation, DecodeError> {
    let value = migrate(value, version)?;
    // Written out and read back (only migrated records and imports come
    // here): `from_value` would be one more copy of every stored type's
    // reader in the browser bundle (crate::turn::json).
    typed::<Envelope<Conversation>>(&value.to_string()).map(settled)
}

/// The typed read of a whole record or index: JSON that does not parse is
/// unreadable, JSON of the wrong shape is that.
fn typed<T: serde::de::DeserializeOwned>(raw: &str) -> Result<T, DecodeError> {
    crate::turn::json::read(raw).map_err(|e| match e.classify() {
        serde_json::error::Category::Data => DecodeError::WrongShape(e.to_string()),
        _ => DecodeError::Unreadable(e.to_string()),
    })
}

/// A conversation as read, its unfinished turns settled.
fn settled(envelope: Envelope<Conversation>) -> Conversation {
    let mut conversation = envelope.conversation;
    conversation.settle_loaded_turns();
    conversation
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_known_version_has_a_migration_path_to_the_current_one() {
        assert_eq!(MIGRATIONS.len() as u32, SCHEMA_VERSION - 1);
        let v1 = serde_json::json!({"version": 1, "conversation": {}});
        assert_eq!(
            migrate(v1.clone(), 1).unwrap(),
            serde_json::json!({"version": SCHEMA_VERSION, "conversation": {}})
        );
        assert!(migrate(v1, 0).is_err());
    }
}
