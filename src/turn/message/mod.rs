//! The persisted conversation model (design §5) and its versioned envelope
//! (`envelope`: encoding, decoding and migrating stored records, the index
//! and Export all's files). Pure: the browser's storage module does the I/O
//! around `encode`/`decode`.

mod envelope;
pub mod versions;

use serde::{Deserialize, Serialize};

pub use envelope::{
    decode, decode_file, decode_index, encode, encode_all, encode_index, newer_index_version,
    newer_version, DecodeError,
};

use super::reducer::{Block, BlockState, Turn, TurnStatus};
use super::request::{ChatMessage, Role};
use versions::Versions;

/// Current schema version written by this build. 2: thinking blocks carry
/// their `headline` (the label naming them). 3: a question may carry the
/// other versions of its turn (`versions`); a build of schema 2 would drop
/// them on saving, so it must not read such a record. 4: a turn may hold
/// tool steps (`kind: "tool"`) and the provider's `continuity`; a build of
/// schema 3 cannot read those blocks and would lose the turn, so it sees
/// the record as written by a newer version and keeps it untouched.
pub const SCHEMA_VERSION: u32 = 4;

/// Version of the stored index (the conversation list). It followed
/// `SCHEMA_VERSION` up to 3; 4: the conversations themselves live in
/// IndexedDB and each line carries its record's size. A build that knows
/// only 3 looks for records in localStorage, finds none, and would write an
/// index that lists nothing: this version tells it to save nothing instead.
pub const INDEX_VERSION: u32 = 4;

/// One message of a stored conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "snake_case")]
// Most messages of a conversation are assistant turns: boxing the larger
// variant would add an allocation to nearly every message and save nothing.
#[allow(clippy::large_enum_variant)]
pub enum Message {
    User {
        content: String,
        /// The turn's other versions (Regenerate, Edit), when it has some.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        versions: Option<Versions>,
    },
    Assistant(Turn),
}

impl Message {
    /// A question with no other version.
    pub fn user(content: impl Into<String>) -> Self {
        Message::User {
            content: content.into(),
            versions: None,
        }
    }
}

/// Calls `change` on every assistant turn of `messages`, those of the
/// versions not shown included (storage tidies them all alike).
fn each_turn_mut(messages: &mut [Message], change: &mut impl FnMut(&mut Turn)) {
    for message in messages {
        match message {
            Message::Assistant(turn) => change(turn),
            Message::User {
                versions: Some(versions),
                ..
            } => {
                for version in &mut versions.others {
                    each_turn_mut(&mut version.after, change);
                }
            }
            Message::User { versions: None, .. } => {}
        }
    }
}

/// Brings every version list of `messages` into range (see `Versions::settled`).
fn settle_versions(messages: &mut [Message]) {
    for message in messages {
        if let Message::User { versions, .. } = message {
            *versions = versions.take().and_then(Versions::settled);
            for version in versions.iter_mut().flat_map(|v| &mut v.others) {
                settle_versions(&mut version.after);
            }
        }
    }
}

/// A stored conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Conversation {
    pub id: String,
    pub title: String,
    pub created_at: f64,
    pub updated_at: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The tool servers switched off for this conversation (the Tools
    /// control); a server not named here is on, new servers included.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools_off: Vec<String>,
    pub messages: Vec<Message>,
}

impl Conversation {
    pub fn new(id: String, now_ms: f64) -> Self {
        Self {
            id,
            title: String::new(),
            created_at: now_ms,
            updated_at: now_ms,
            model: None,
            tools_off: Vec::new(),
            messages: Vec::new(),
        }
    }

    /// The messages to send to the model: user text, and per assistant turn
    /// its answer text, tool calls and results (`replay`); thinking is never
    /// sent back (design §5), and continuity only to the model that wrote
    /// it. A question the server refused (too large, over a limit) is left
    /// out with its refusal: the model never saw it, and resending it would
    /// only be refused again.
    pub fn to_chat_messages(&self) -> Vec<ChatMessage> {
        self.to_chat_messages_for(self.model.as_deref())
    }

    /// `to_chat_messages`, for a request that goes to model `next` (the
    /// conversation's model, or the server's default when it names none):
    /// a turn written by `next` gets its continuity back; another model's
    /// tool rounds go as text (`replay`).
    pub fn to_chat_messages_for(&self, next: Option<&str>) -> Vec<ChatMessage> {
        let refused = |i: usize| matches!(self.messages.get(i + 1), Some(Message::Assistant(turn)) if turn.was_refused());
        let mut out = Vec::new();
        for (i, message) in self.messages.iter().enumerate() {
            match message {
                Message::User { .. } if refused(i) => {}
                Message::User { content, .. } => out.push(ChatMessage::user(content.clone())),
                Message::Assistant(turn) => {
                    let same_model =
                        next.is_some() && turn.model.as_ref().map(|m| m.id.as_str()) == next;
                    let from = out.len();
                    out.extend(super::replay::turn_messages(turn, same_model));
                    // Its effort words are the model's own: said only to it.
                    if same_model {
                        for m in out[from..].iter_mut().filter(|m| m.role == Role::Assistant) {
                            m.effort = turn.effort;
                        }
                    }
                }
            }
        }
        out
    }

    /// A copy fit for storage at client time `now_ms`: empty finished thinking
    /// blocks dropped, and a block still streaming given its elapsed time so far
    /// (a reload mid-turn shows it frozen at that point).
    pub fn for_storage(&self, now_ms: f64) -> Conversation {
        let mut copy = self.clone();
        each_turn_mut(&mut copy.messages, &mut |turn| {
            turn.blocks.retain(|b| {
                !matches!(b, Block::Thinking(t) if t.is_empty() && t.state != BlockState::Streaming)
            });
            for block in &mut turn.blocks {
                if let Block::Thinking(t) = block {
                    if t.state == BlockState::Streaming {
                        t.duration_ms = Some((now_ms - t.started_at_ms).max(0.0) as u64);
                    }
                }
            }
        });
        copy
    }

    /// A copy to leave the browser (an export): a live turn's way back to
    /// the server's run (its secret) stays here.
    pub fn for_export(&self) -> Conversation {
        let mut copy = self.clone();
        each_turn_mut(&mut copy.messages, &mut |turn| turn.run = None);
        copy
    }

    /// A copy without reasoning, for an export that leaves it out: every
    /// thinking block is removed (its text, headline and duration), in the
    /// versions not shown too, so no reasoning is left anywhere in the copy.
    /// Removed rather than kept empty: a record never holds an empty block
    /// (loading drops them), so the copy imports and saves back unchanged.
    /// Token counts (`usage`) stay: they are numbers, not reasoning. The
    /// provider's continuity is dropped whole (docs/history.md, "Exports").
    pub fn without_reasoning(&self) -> Conversation {
        let mut copy = self.clone();
        each_turn_mut(&mut copy.messages, &mut |turn| {
            turn.blocks.retain(|b| !matches!(b, Block::Thinking(_)));
            // Continuity goes too, all of it: most dialects' entries hold the
            // round's reasoning as text (chat `reasoning_content`, Ollama
            // `thinking`, Anthropic thinking blocks, Responses summaries,
            // OpenRouter details). The copy then continues as after a
            // switch of model (`replay`), with nothing of the provider's.
            turn.continuity.clear();
        });
        copy
    }

    /// Applied after loading: a turn saved mid-stream is shown as interrupted,
    /// frozen at the duration its last save recorded. Finished turns get the
    /// same tidying, so a loaded record never holds what `for_storage` would
    /// drop or rewrite (an empty thinking block, a block still streaming):
    /// saving what was loaded then changes nothing.
    ///
    /// A live turn the server runs for this page (`run`) stays live: the
    /// page attaches to it again (`Turn::follows_a_run`).
    fn settle_loaded_turns(&mut self) {
        settle_versions(&mut self.messages);
        each_turn_mut(&mut self.messages, &mut |turn| {
            if turn.follows_a_run() {
                return;
            }
            turn.run = None;
            if turn.status.is_live() {
                turn.status = TurnStatus::Stopped;
            }
            turn.blocks
                .retain(|b| !matches!(b, Block::Thinking(t) if t.is_empty()));
            for block in &mut turn.blocks {
                if let Block::Thinking(t) = block {
                    if t.state == BlockState::Streaming {
                        t.state = BlockState::Interrupted;
                    }
                }
            }
        });
    }
}

/// One line of the conversation list (the index), newest first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub id: String,
    pub title: String,
    pub updated_at: f64,
    /// The stored record's size in bytes (0 where an older index did not say).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub bytes: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Conversation {
    /// This conversation's line in the index.
    pub fn summary(&self) -> Summary {
        Summary {
            id: self.id.clone(),
            title: if self.title.trim().is_empty() {
                "New conversation".into()
            } else {
                self.title.clone()
            },
            updated_at: self.updated_at,
            bytes: 0,
        }
    }
}

/// Replaces (or adds) a conversation's line and keeps the list newest first.
pub fn upsert_summary(index: &mut Vec<Summary>, summary: Summary) {
    index.retain(|s| s.id != summary.id);
    index.push(summary);
    index.sort_by(|a, b| b.updated_at.total_cmp(&a.updated_at));
}

/// Test fixtures shared with the exports' tests.
#[cfg(test)]
pub(crate) mod fixtures {
    use crate::turn::reducer::Continuity;
    use serde_json::json;

    /// One word per readable reasoning field of [`every_dialects_continuity`]:
    /// none may be in an export without reasoning.
    pub const SENTINELS: [&str; 8] = [
        "zebrachat",
        "zebraollama",
        "zebraanthropic",
        "zebraresponsessummary",
        "zebraresponsestext",
        "zebraopenroutertext",
        "zebraopenroutersummary",
        "zebramistral",
    ];

    /// A continuity entry as each dialect stores it (the shapes the
    /// server's decoders and `turn_service::tool_round` write), with a
    /// sentinel word in every field a person could read as reasoning.
    pub fn every_dialects_continuity() -> Vec<Continuity> {
        let entries = [
            // Chat completions (DeepSeek, Kimi): the round's reasoning.
            json!({"reasoning_content": "zebrachat and zebramistral"}),
            // Ollama's native API.
            json!({"thinking": "zebraollama"}),
            // Anthropic: a signed thinking block, and a redacted one.
            json!({"anthropic_block": {"type": "thinking", "thinking": "zebraanthropic", "signature": "EqQBCgIYAhIM"}}),
            json!({"anthropic_block": {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va"}}),
            // Responses: a reasoning item, summary, text and encrypted.
            json!({"responses_item": {"type": "reasoning", "id": "rs_1",
                "summary": [{"type": "summary_text", "text": "zebraresponsessummary"}],
                "content": [{"type": "reasoning_text", "text": "zebraresponsestext"}],
                "encrypted_content": "gAAAAABo"}}),
            json!({"responses_item": {"type": "function_call", "id": "fc_1", "call_id": "call_1"}}),
            // Gemini: a call's thought signature.
            json!({"gemini_signature": {"call": "c1", "signature": "Eo0H"}}),
            // OpenRouter: reasoning details of every kind.
            json!({"reasoning_details": [
                {"type": "reasoning.text", "text": "zebraopenroutertext", "signature": "sig", "index": 0},
                {"type": "reasoning.summary", "summary": "zebraopenroutersummary", "index": 1},
                {"type": "reasoning.encrypted", "data": "c2VhbGVk", "index": 2}
            ]}),
        ];
        entries
            .into_iter()
            .map(|data| Continuity {
                after_blocks: 1,
                data,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::turn::event::{ErrorKind, TurnEvent};

    fn finished_turn() -> Turn {
        let mut turn = Turn::new(0.0);
        for event in [
            TurnEvent::ThinkingStart,
            TurnEvent::ThinkingDelta {
                text: "secret reasoning".into(),
            },
            TurnEvent::ThinkingEnd {
                duration_ms: 3000,
                opaque: false,
            },
            TurnEvent::AnswerDelta {
                text: "The answer.".into(),
            },
            TurnEvent::Done {
                finish_reason: None,
                output_limit: None,
            },
        ] {
            turn.apply(event, 0.0);
        }
        turn
    }

    fn conversation() -> Conversation {
        let mut c = Conversation::new("c1".into(), 1.0);
        c.title = "Sky".into();
        c.messages.push(Message::user("Why blue?"));
        c.messages.push(Message::Assistant(finished_turn()));
        c
    }

    #[test]
    fn encode_then_decode_gives_the_same_conversation() {
        let c = conversation();
        assert_eq!(decode(&encode(&c, 5.0)).unwrap(), c);
    }

    #[test]
    fn a_version_1_sample_decodes() {
        let raw = r#"{"version":1,"conversation":{"id":"a","title":"T","created_at":1,"updated_at":2,
          "messages":[{"role":"user","content":"hi"},
          {"role":"assistant","blocks":[{"kind":"thinking","text":"hm","duration_ms":1200,"opaque":false,"state":"done"},
          {"kind":"answer","text":"hello"}],"status":"done"}]}}"#;
        let c = decode(raw).unwrap();
        let Message::Assistant(turn) = &c.messages[1] else {
            panic!("assistant expected")
        };
        assert_eq!(turn.answer_text(), "hello");
    }

    #[test]
    fn thinking_is_never_sent_back_to_the_model() {
        let messages = conversation().to_chat_messages();
        assert_eq!(messages.len(), 2);
        assert_eq!(messages[1].role, crate::turn::Role::Assistant);
        assert_eq!(messages[1].content, "The answer.");
        assert!(messages.iter().all(|m| !m.content.contains("secret")));
    }

    #[test]
    fn a_question_the_server_refused_is_not_sent_again() {
        let mut c = conversation();
        let mut refused = Turn::new(0.0);
        refused.apply(
            TurnEvent::error(ErrorKind::BadRequest, "at most 64 KB"),
            1.0,
        );
        let mut failed_midway = Turn::new(0.0);
        failed_midway.apply(
            TurnEvent::AnswerDelta {
                text: "part".into(),
            },
            1.0,
        );
        failed_midway.apply(TurnEvent::error(ErrorKind::Network, "lost"), 2.0);
        c.messages.push(Message::user("huge paste"));
        c.messages.push(Message::Assistant(refused));
        c.messages.push(Message::user("next"));
        c.messages.push(Message::Assistant(failed_midway));
        let sent: Vec<_> = c
            .to_chat_messages()
            .into_iter()
            .map(|m| m.content)
            .collect();
        assert!(!sent.contains(&"huge paste".to_owned()), "{sent:?}");
        assert!(
            sent.contains(&"next".to_owned()),
            "a turn that started is kept: {sent:?}"
        );
        assert!(sent.contains(&"part".to_owned()));
    }

    #[test]
    fn a_turn_saved_mid_stream_loads_as_stopped_with_its_reasoning() {
        let mut c = Conversation::new("c".into(), 0.0);
        let mut turn = Turn::new(0.0);
        turn.apply(TurnEvent::ThinkingStart, 1000.0);
        turn.apply(
            TurnEvent::ThinkingDelta {
                text: "midway".into(),
            },
            2000.0,
        );
        c.messages.push(Message::Assistant(turn));
        let loaded = decode(&encode(&c, 7000.0)).unwrap();
        let Message::Assistant(turn) = &loaded.messages[0] else {
            panic!("assistant expected")
        };
        assert_eq!(turn.status, TurnStatus::Stopped);
        let Block::Thinking(t) = &turn.blocks[0] else {
            panic!("thinking expected")
        };
        assert_eq!(t.state, BlockState::Interrupted);
        assert_eq!(t.text, "midway");
        assert_eq!(t.duration_ms, Some(6000), "frozen at the last save");
    }

    #[test]
    fn empty_thinking_blocks_are_not_stored() {
        let mut c = Conversation::new("c".into(), 0.0);
        let mut turn = Turn::new(0.0);
        for event in [
            TurnEvent::ThinkingStart,
            TurnEvent::ThinkingDelta {
                text: "\n\n".into(),
            },
            TurnEvent::ThinkingEnd {
                duration_ms: 1,
                opaque: false,
            },
            TurnEvent::AnswerDelta { text: "hi".into() },
        ] {
            turn.apply(event, 0.0);
        }
        c.messages.push(Message::Assistant(turn));
        let loaded = decode(&encode(&c, 0.0)).unwrap();
        let Message::Assistant(turn) = &loaded.messages[0] else {
            panic!("assistant expected")
        };
        assert_eq!(turn.blocks.len(), 1);
    }

    #[test]
    fn an_older_builds_index_reads_and_this_builds_keeps_each_records_size() {
        // Schemas 1 to 3 wrote the list without sizes (records in localStorage).
        for version in 1..=3 {
            let old = format!(
                r#"{{"version":{version},"conversations":[{{"id":"c1","title":"Sky","updated_at":2.0}}]}}"#
            );
            let index = decode_index(&old).unwrap();
            assert_eq!(index[0].id, "c1");
            assert_eq!(index[0].bytes, 0, "an older index says no size");
        }
        let mut line = conversation().summary();
        line.bytes = 1_300_000;
        let raw = encode_index(std::slice::from_ref(&line));
        assert!(raw.starts_with(&format!(r#"{{"version":{INDEX_VERSION},"#)));
        assert_eq!(decode_index(&raw).unwrap(), vec![line]);
    }

    #[test]
    fn the_index_keeps_one_line_per_conversation_newest_first() {
        let mut index = Vec::new();
        let mut a = Conversation::new("a".into(), 1.0);
        a.title = "First".into();
        upsert_summary(&mut index, a.summary());
        let b = Conversation::new("b".into(), 2.0);
        upsert_summary(&mut index, b.summary());
        a.updated_at = 3.0;
        upsert_summary(&mut index, a.summary());
        let ids: Vec<&str> = index.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(ids, ["a", "b"]);
        assert_eq!(index[1].title, "New conversation");
        assert_eq!(decode_index(&encode_index(&index)).unwrap(), index);
        assert!(matches!(
            decode_index(r#"{"version":7,"conversations":[]}"#),
            Err(DecodeError::FutureVersion(7))
        ));
        assert!(decode_index("[]").is_err());
        assert!(matches!(
            decode_index("not json"),
            Err(DecodeError::Unreadable(_))
        ));
        assert!(matches!(
            decode_index(r#"{"conversations":[]}"#),
            Err(DecodeError::WrongShape(_))
        ));
        // Written by hand, the version last: still read.
        assert_eq!(
            decode_index(&format!(
                r#"{{"conversations":[],"version":{INDEX_VERSION}}}"#
            ))
            .unwrap(),
            vec![]
        );
    }

    /// Exactly what a version-1 build stored (no `headline` anywhere): the
    /// migration names each thinking block by its latest label, as the
    /// header shows it live.
    #[test]
    fn a_version_1_record_gets_its_blocks_headlines_from_their_text() {
        let raw = r#"{"version":1,"conversation":{"id":"1764460800000-1","title":"Convert 5 m to feet","created_at":1764460800000,"updated_at":1764460805123,"model":"mock-responses","messages":[{"role":"user","content":"Convert 5 m to feet"},{"role":"assistant","blocks":[{"kind":"thinking","text":"**Reading the question**\nThe user wants feet.\n<topic>Checking the units</topic>\nOne metre is 3.28 feet.\n<topic>Writing the answer</topic>\n","duration_ms":4200,"opaque":false,"state":"done"},{"kind":"answer","text":"About 16.4 feet."},{"kind":"thinking","text":"Double-checking the rounding.","duration_ms":800,"opaque":false,"state":"done"},{"kind":"thinking","text":"","duration_ms":5000,"opaque":true,"state":"done"},{"kind":"answer","text":" Yes."}],"status":"done","usage":{"input_tokens":12,"output_tokens":48,"reasoning_tokens":20},"finish_reason":"stop","ttft_ms":310}]}}"#;
        let c = decode(raw).unwrap();
        let Message::Assistant(turn) = &c.messages[1] else {
            panic!("assistant expected")
        };
        let headlines: Vec<Option<&str>> = turn
            .blocks
            .iter()
            .filter_map(|b| match b {
                Block::Thinking(t) => Some(t.headline.as_deref()),
                Block::Answer { .. } | Block::Tool(_) => None,
            })
            .collect();
        assert_eq!(headlines, [Some("Writing the answer"), None, None]);
        assert_eq!(turn.answer_text(), "About 16.4 feet. Yes.");
        // Saved again, it is a current record that keeps the headline.
        let saved = encode(&c, 0.0);
        assert!(saved.starts_with(r#"{"version":4,"#), "{saved}");
        assert!(
            saved.contains(r#""headline":"Writing the answer""#),
            "{saved}"
        );
        assert_eq!(decode(&saved).unwrap(), c);
    }

    #[test]
    fn a_headline_written_live_round_trips_through_version_2() {
        let mut turn = Turn::new(0.0);
        for event in [
            TurnEvent::ThinkingStart,
            TurnEvent::ThinkingDelta {
                text: "<topic>Checking the units</topic>
metres"
                    .into(),
            },
            TurnEvent::ThinkingEnd {
                duration_ms: 3000,
                opaque: false,
            },
            TurnEvent::AnswerDelta {
                text: "16.4".into(),
            },
            TurnEvent::Done {
                finish_reason: None,
                output_limit: None,
            },
        ] {
            turn.apply(event, 0.0);
        }
        let mut c = Conversation::new("c".into(), 0.0);
        c.messages.push(Message::Assistant(turn));
        let saved = encode(&c, 0.0);
        let value: serde_json::Value = serde_json::from_str(&saved).unwrap();
        assert_eq!(value["version"], SCHEMA_VERSION);
        assert_eq!(
            value["conversation"]["messages"][0]["blocks"][0]["headline"],
            "Checking the units"
        );
        let loaded = decode(&saved).unwrap();
        let Message::Assistant(turn) = &loaded.messages[0] else {
            panic!("assistant expected")
        };
        let Block::Thinking(t) = &turn.blocks[0] else {
            panic!("thinking expected")
        };
        assert_eq!(t.headline.as_deref(), Some("Checking the units"));
        // Version 2 on trusts what it stored: no headline means none, even if
        // the text would give one (the label was the block's when saved).
        let edited = saved.replace(r#""headline":"Checking the units","#, "");
        let Message::Assistant(turn) = &decode(&edited).unwrap().messages[0] else {
            panic!("assistant expected")
        };
        let Block::Thinking(t) = &turn.blocks[0] else {
            panic!("thinking expected")
        };
        assert_eq!(t.headline, None);
        // A version-1 record that already holds one keeps it.
        let v1 = r#"{"version":1,"conversation":{"id":"c","title":"","created_at":1,"updated_at":2,"messages":[{"role":"assistant","blocks":[{"kind":"thinking","text":"<topic>From text</topic>","headline":"Kept","state":"done"}],"status":"done"}]}}"#;
        let Message::Assistant(turn) = &decode(v1).unwrap().messages[0] else {
            panic!("assistant expected")
        };
        let Block::Thinking(t) = &turn.blocks[0] else {
            panic!("thinking expected")
        };
        assert_eq!(t.headline.as_deref(), Some("Kept"));
    }

    /// Found with the `storage` fuzz target: serde_json's default float parser
    /// is not exact, so a stored number came back one bit off and was saved
    /// differently (fixed by its `float_roundtrip` feature).
    #[test]
    fn stored_numbers_decode_to_exactly_what_was_saved() {
        let raw = r#"{"version":1,"conversation":{"id":"c","title":"","created_at":-1.5379804904826906e150,"updated_at":1.7000000000000002e12,"messages":[]}}"#;
        let loaded = decode(raw).unwrap();
        assert_eq!(loaded.created_at, -1.5379804904826906e150);
        assert_eq!(decode(&encode(&loaded, 0.0)).unwrap(), loaded);
    }

    /// Found with the `storage` fuzz target's property (what `decode` accepts
    /// saves back unchanged): a finished turn holding an empty thinking block
    /// or a block still streaming was loaded as is, then rewritten by `encode`
    /// (the block dropped, or given a duration counted from the epoch).
    #[test]
    fn a_loaded_record_saves_back_unchanged() {
        for (status, blocks) in [
            ("done", r#"[{"kind":"thinking","text":" ","state":"done"}]"#),
            (
                "done",
                r#"[{"kind":"thinking","text":"x","state":"streaming"},{"kind":"answer","text":"y"}]"#,
            ),
            (
                "stopped",
                r#"[{"kind":"thinking","text":"x","state":"streaming"}]"#,
            ),
        ] {
            let raw = format!(
                r#"{{"version":1,"conversation":{{"id":"c","title":"","created_at":1,"updated_at":2,
                  "messages":[{{"role":"assistant","blocks":{blocks},"status":"{status}"}}]}}}}"#
            );
            let loaded = decode(&raw).unwrap();
            assert_eq!(
                decode(&encode(&loaded, 1.7e12)).unwrap(),
                loaded,
                "{blocks}"
            );
            let Message::Assistant(turn) = &loaded.messages[0] else {
                panic!("assistant expected")
            };
            let expected = serde_json::from_value(serde_json::json!(status)).unwrap();
            assert_eq!(turn.status, expected, "a finished turn keeps its status");
            assert!(turn.blocks.iter().all(|b| match b {
                Block::Thinking(t) => !t.is_empty() && t.state == BlockState::Interrupted,
                Block::Answer { .. } | Block::Tool(_) => true,
            }));
        }
    }

    #[test]
    fn only_data_of_a_newer_schema_counts_as_another_builds() {
        let next = SCHEMA_VERSION + 1;
        let c = conversation();
        // The index counts its own versions: this build's is not another's.
        assert_eq!(newer_index_version(&encode_index(&[c.summary()])), None);
        assert_eq!(
            newer_index_version(&format!(r#"{{"version":{}}}"#, INDEX_VERSION + 1)),
            Some(INDEX_VERSION + 1)
        );
        for own in [
            encode(&c, 0.0),
            r#"{"version":1,"conversation":{}}"#.to_owned(),
            "{not json".to_owned(),
            r#"{"conversation":{}}"#.to_owned(),
            String::new(),
        ] {
            assert_eq!(newer_version(&own), None, "{own}");
        }
        for (raw, version) in [
            (format!(r#"{{"version":{next},"conversation":{{}}}}"#), next),
            (format!(r#"{{"version":{next}}}"#), next),
            (r#"{"version":99,"conversations":[]}"#.to_owned(), 99),
            // Written another way: spaces, another field first.
            (r#"{ "version" : 7, "conversation": {} }"#.to_owned(), 7),
            (r#"{"conversation":{},"version":7}"#.to_owned(), 7),
            (
                r#"{"version":99999999999,"conversation":{}}"#.to_owned(),
                u32::MAX,
            ),
        ] {
            assert_eq!(newer_version(&raw), Some(version), "{raw}");
        }
        // The cheap prefix read agrees with decoding.
        for raw in [
            format!(r#"{{"version":{next},"conversation":{{}}}}"#),
            format!(r#"{{"version":{SCHEMA_VERSION}0,"conversation":{{}}}}"#),
        ] {
            let decoded = decode(&raw);
            assert!(
                matches!(decoded, Err(DecodeError::FutureVersion(_))),
                "{raw}"
            );
        }
    }

    #[test]
    fn bad_records_are_classified() {
        assert!(matches!(
            decode("{not json"),
            Err(DecodeError::Unreadable(_))
        ));
        assert!(matches!(
            decode(r#"{"version":99,"conversation":{}}"#),
            Err(DecodeError::FutureVersion(99))
        ));
        assert!(matches!(
            decode(r#"{"version":1,"conversation":{"id":3}}"#),
            Err(DecodeError::WrongShape(_))
        ));
        assert!(matches!(
            decode(r#"[1,2]"#),
            Err(DecodeError::WrongShape(_))
        ));
        // A record of this version is read straight from its text: the same
        // classes.
        let current = format!(r#"{{"version":{SCHEMA_VERSION},"conversation":"#);
        assert!(matches!(
            decode(&format!(r#"{current}{{"id":3}}}}"#)),
            Err(DecodeError::WrongShape(_))
        ));
        assert!(matches!(
            decode(&format!(r#"{current}{{"id":"a","#)),
            Err(DecodeError::Unreadable(_))
        ));
    }

    /// A conversation whose first turn has a hidden version, each version
    /// with its own reasoning.
    fn with_a_hidden_version() -> Conversation {
        let mut c = conversation();
        assert!(c.start_version(0, "Why blue, really?".into()));
        c.messages.push(Message::Assistant(finished_turn()));
        c
    }

    fn thinking_blocks(messages: &[Message]) -> usize {
        let mut count = 0;
        let mut copy = messages.to_vec();
        each_turn_mut(&mut copy, &mut |turn| {
            count += turn
                .blocks
                .iter()
                .filter(|b| matches!(b, Block::Thinking(_)))
                .count();
        });
        count
    }

    #[test]
    fn without_reasoning_keeps_no_continuity_of_any_dialect() {
        // Continuity in the shown turn and in the hidden version's turn.
        let mut c = with_a_hidden_version();
        each_turn_mut(&mut c.messages, &mut |turn| {
            turn.continuity = fixtures::every_dialects_continuity();
        });
        let with = encode(&c, 0.0);
        for word in fixtures::SENTINELS {
            assert!(with.contains(word), "{word} is kept with reasoning");
        }
        let bare = c.without_reasoning();
        let json = encode(&bare, 0.0);
        for word in fixtures::SENTINELS {
            assert!(!json.contains(word), "{word} in {json}");
        }
        assert!(!json.contains("continuity"), "{json}");
        // Imported, it goes on as after a switch of model: nothing of the
        // provider's goes back, whatever model continues.
        let mut imported = decode(&json).unwrap();
        imported.model = Some("m".into());
        assert!(imported
            .to_chat_messages()
            .iter()
            .all(|m| m.continuity.is_empty()));
    }

    #[test]
    fn without_reasoning_removes_every_thinking_block_hidden_versions_included() {
        let c = with_a_hidden_version();
        assert_eq!(thinking_blocks(&c.messages), 2, "the before-state");
        let bare = c.without_reasoning();
        assert_eq!(thinking_blocks(&bare.messages), 0);
        let json = encode(&bare, 0.0);
        assert!(!json.contains("secret reasoning"), "{json}");
        assert!(!json.contains("thinking"), "{json}");
        // Everything else stays: both versions, the answers, the counts.
        assert_eq!(bare.version_position(0), c.version_position(0));
        assert!(json.contains("Why blue, really?") && json.contains("The answer."));
        // It imports, and saves back unchanged.
        let back = decode(&json).unwrap();
        assert_eq!(back, bare);
        assert_eq!(encode(&back, 0.0), json);
        assert_eq!(c.to_chat_messages(), bare.to_chat_messages());
    }

    #[test]
    fn an_export_of_all_reads_back_every_conversation_in_order() {
        let first = with_a_hidden_version();
        let mut second = conversation();
        second.id = "c2".into();
        second.title = "Second".into();
        let all = encode_all(&[first.clone(), second.clone()], 0.0);
        assert!(
            all.starts_with(r#"{"version":4,"conversations":[{"id":"c1","#),
            "{all}"
        );
        assert_eq!(newer_version(&all), None);
        assert_eq!(decode_file(&all).unwrap(), [first.clone(), second]);
        // A single conversation's file reads as a list of one.
        assert_eq!(decode_file(&encode(&first, 0.0)).unwrap(), [first]);
    }

    #[test]
    fn a_bad_export_of_all_is_refused_whole() {
        let good = serde_json::to_value(conversation()).unwrap();
        let file = |list: serde_json::Value| {
            serde_json::json!({ "version": SCHEMA_VERSION, "conversations": list }).to_string()
        };
        let one_bad = file(serde_json::json!([good, { "id": 5 }]));
        match decode_file(&one_bad) {
            Err(DecodeError::WrongShape(why)) => {
                assert!(why.starts_with("conversation 2 of 2:"), "{why}")
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            decode_file(&file(serde_json::json!([]))),
            Err(DecodeError::WrongShape(_))
        ));
        assert!(matches!(
            decode_file(&file(serde_json::json!({}))),
            Err(DecodeError::WrongShape(_))
        ));
        assert!(matches!(
            decode_file(r#"{"version":99,"conversations":[]}"#),
            Err(DecodeError::FutureVersion(99))
        ));
        // The index is not an export (one of the schema's own version: the
        // index's own versions run ahead of the records').
        let index = encode_index(&[conversation().summary()]).replacen(
            &INDEX_VERSION.to_string(),
            &SCHEMA_VERSION.to_string(),
            1,
        );
        assert!(matches!(
            decode_file(&index),
            Err(DecodeError::WrongShape(_))
        ));
    }

    /// An export of all written by a version-1 build reads with the same
    /// migrations as its records.
    #[test]
    fn an_older_export_of_all_is_migrated_conversation_by_conversation() {
        let raw = r#"{"version":1,"conversations":[{"id":"a","title":"T","created_at":1,"updated_at":2,
          "messages":[{"role":"assistant","blocks":[{"kind":"thinking","text":"<topic>Units</topic>","state":"done"}],"status":"done"}]}]}"#;
        let list = decode_file(raw).unwrap();
        let Message::Assistant(turn) = &list[0].messages[0] else {
            panic!("assistant expected")
        };
        let Block::Thinking(t) = &turn.blocks[0] else {
            panic!("thinking expected")
        };
        assert_eq!(t.headline.as_deref(), Some("Units"));
    }
}
