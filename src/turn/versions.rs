//! Versions of a turn: Regenerate, Edit and Retry ask a question again
//! without throwing away what was asked and answered before. Pure: no I/O.
//!
//! A conversation's `messages` are always the path shown, so everything that
//! reads them (the request for the next turn, the view, the exports) sees the
//! shown version of each turn and nothing else. The other versions of a turn
//! hang off its question (`Message::User`'s `versions`): each is the question
//! as it was asked then, with everything that followed it — its answer *and
//! the later turns*, as they stood when that version was last shown. So a
//! version owns the rest of the conversation after it (a branch, as ChatGPT
//! keeps edits): switching versions swaps that rest, and a later turn's
//! context is always the versions shown before it. Nothing is ever dropped.

pub use super::message::versions::{Version, VersionPosition, Versions};
use super::message::{Conversation, Message};

impl Conversation {
    /// Which version of the turn asked at `at` is shown, when it has several.
    pub fn version_position(&self, at: usize) -> Option<VersionPosition> {
        match self.messages.get(at) {
            Some(Message::User {
                versions: Some(v), ..
            }) => v.position(),
            _ => None,
        }
    }

    /// Asks the turn whose question is at `at` again, as `content` (the same
    /// text for Regenerate and Retry, new text for Edit): the version shown
    /// until now — its question, answer and every later message — is kept,
    /// and the new one (the question alone, its answer to come) is shown, as
    /// the last version. `false`, and nothing changed, when `at` is not a
    /// question.
    pub fn start_version(&mut self, at: usize, content: String) -> bool {
        let Some((current, mut versions)) = self.take_turn(at) else {
            return false;
        };
        let shown = versions.shown.min(versions.others.len());
        versions.others.insert(shown, current);
        versions.shown = versions.others.len();
        self.put_turn(
            Version {
                content,
                after: Vec::new(),
            },
            versions,
        );
        true
    }

    /// Shows version `target` (counted from 0) of the turn asked at `at`, with
    /// the later messages that version had; the version shown until now keeps
    /// its own. `false`, and nothing changed, when there is no such version.
    pub fn show_version(&mut self, at: usize, target: usize) -> bool {
        let Some(position) = self.version_position(at) else {
            return false;
        };
        if target >= position.count || target == position.shown {
            return false;
        }
        let Some((current, mut versions)) = self.take_turn(at) else {
            return false;
        };
        versions.others.insert(position.shown, current);
        let next = versions.others.remove(target);
        versions.shown = target;
        self.put_turn(next, versions);
        true
    }

    /// Removes the turn asked at `at` and everything after it, as the shown
    /// version and the others.
    fn take_turn(&mut self, at: usize) -> Option<(Version, Versions)> {
        if !matches!(self.messages.get(at), Some(Message::User { .. })) {
            return None;
        }
        let mut after = self.messages.split_off(at);
        let Message::User { content, versions } = after.remove(0) else {
            // Checked just above: the message at `at` is a question.
            return None;
        };
        let versions = versions.unwrap_or(Versions {
            shown: 0,
            others: Vec::new(),
        });
        Some((Version { content, after }, versions))
    }

    /// Appends `shown` (its question, then what followed it), keeping the
    /// other versions on its question.
    fn put_turn(&mut self, shown: Version, versions: Versions) {
        self.messages.push(Message::User {
            content: shown.content,
            versions: versions.settled(),
        });
        self.messages.extend(shown.after);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::turn::message::{decode, encode};
    use crate::turn::reducer::Turn;
    use crate::turn::{ChatMessage, Role, TurnEvent};

    fn answered(text: &str) -> Message {
        let mut turn = Turn::new(0.0);
        turn.apply(TurnEvent::ThinkingStart, 0.0);
        turn.apply(
            TurnEvent::ThinkingDelta {
                text: format!("reasoning for {text}"),
            },
            0.0,
        );
        turn.apply(
            TurnEvent::ThinkingEnd {
                duration_ms: 1000,
                opaque: false,
            },
            0.0,
        );
        turn.apply(TurnEvent::AnswerDelta { text: text.into() }, 0.0);
        turn.apply(
            TurnEvent::Done {
                finish_reason: None,
                output_limit: None,
            },
            0.0,
        );
        Message::Assistant(turn)
    }

    /// "Q1" answered "A1", then "Q2" answered "A2".
    fn two_turns() -> Conversation {
        let mut c = Conversation::new("c".into(), 0.0);
        c.messages = vec![
            Message::user("Q1"),
            answered("A1"),
            Message::user("Q2"),
            answered("A2"),
        ];
        c
    }

    /// The path shown, as (role, text) pairs.
    fn shown(c: &Conversation) -> Vec<String> {
        c.messages
            .iter()
            .map(|m| match m {
                Message::User { content, .. } => content.clone(),
                Message::Assistant(turn) => turn.answer_text(),
            })
            .collect()
    }

    fn sent(c: &Conversation) -> Vec<String> {
        c.to_chat_messages()
            .into_iter()
            .map(|ChatMessage { content, .. }| content)
            .collect()
    }

    #[test]
    fn regenerate_keeps_the_earlier_answer_as_a_version() {
        let mut c = two_turns();
        assert_eq!(c.version_position(2), None);
        assert!(c.start_version(2, "Q2".into()));
        // The new version: the question alone, its answer to come.
        assert_eq!(shown(&c), ["Q1", "A1", "Q2"]);
        assert_eq!(
            c.version_position(2),
            Some(VersionPosition { shown: 1, count: 2 })
        );
        c.messages.push(answered("A2 again"));
        assert_eq!(shown(&c), ["Q1", "A1", "Q2", "A2 again"]);
        // The first answer is still there, one step back.
        assert!(c.show_version(2, 0));
        assert_eq!(shown(&c), ["Q1", "A1", "Q2", "A2"]);
        assert_eq!(
            c.version_position(2).map(|p| p.label()).as_deref(),
            Some("1 / 2")
        );
    }

    #[test]
    fn edit_keeps_the_earlier_question_and_answer() {
        let mut c = two_turns();
        assert!(c.start_version(2, "Q2, fixed".into()));
        c.messages.push(answered("A2'"));
        assert_eq!(shown(&c), ["Q1", "A1", "Q2, fixed", "A2'"]);
        assert!(c.show_version(2, 0));
        assert_eq!(shown(&c), ["Q1", "A1", "Q2", "A2"]);
    }

    #[test]
    fn each_version_keeps_the_later_turns_it_had() {
        let mut c = two_turns();
        // Editing the first question: the second turn stays with the first version.
        assert!(c.start_version(0, "Q1'".into()));
        c.messages.push(answered("A1'"));
        assert_eq!(shown(&c), ["Q1'", "A1'"]);
        c.messages.push(Message::user("Q3"));
        c.messages.push(answered("A3"));
        assert!(c.show_version(0, 0));
        assert_eq!(shown(&c), ["Q1", "A1", "Q2", "A2"]);
        assert!(c.show_version(0, 1));
        assert_eq!(shown(&c), ["Q1'", "A1'", "Q3", "A3"]);
    }

    #[test]
    fn the_next_request_follows_the_versions_shown() {
        let mut c = two_turns();
        assert!(c.start_version(0, "Q1'".into()));
        c.messages.push(answered("A1'"));
        assert_eq!(sent(&c), ["Q1'", "A1'"]);
        assert!(c.show_version(0, 0));
        assert_eq!(sent(&c), ["Q1", "A1", "Q2", "A2"]);
        assert!(c.to_chat_messages().iter().all(|m| m.role != Role::System));
    }

    #[test]
    fn a_third_version_is_counted_and_reached_both_ways() {
        let mut c = two_turns();
        assert!(c.start_version(2, "Q2".into()));
        c.messages.push(answered("second"));
        assert!(c.start_version(2, "Q2".into()));
        c.messages.push(answered("third"));
        let position = c.version_position(2);
        assert_eq!(position, Some(VersionPosition { shown: 2, count: 3 }));
        assert_eq!(position.and_then(|p| p.next()), None);
        assert_eq!(position.and_then(|p| p.previous()), Some(1));
        assert!(c.show_version(2, 0));
        assert_eq!(shown(&c)[3], "A2");
        assert!(c.show_version(2, 1));
        assert_eq!(shown(&c)[3], "second");
        assert!(c.show_version(2, 2));
        assert_eq!(shown(&c)[3], "third");
        // Asking again from an earlier version adds the new one last.
        assert!(c.show_version(2, 0));
        assert!(c.start_version(2, "Q2".into()));
        c.messages.push(answered("fourth"));
        assert_eq!(
            c.version_position(2),
            Some(VersionPosition { shown: 3, count: 4 })
        );
        let answers: Vec<String> = (0..4)
            .map(|v| {
                c.show_version(2, v);
                shown(&c)[3].clone()
            })
            .collect();
        assert_eq!(answers, ["A2", "second", "third", "fourth"]);
    }

    #[test]
    fn switching_to_no_such_version_changes_nothing() {
        let mut c = two_turns();
        let before = c.clone();
        assert!(!c.show_version(2, 1), "a turn with one version");
        assert!(!c.show_version(1, 0), "not a question");
        assert!(!c.start_version(1, "x".into()), "not a question");
        assert!(!c.start_version(9, "x".into()), "past the end");
        assert_eq!(c, before);
        assert!(c.start_version(2, "Q2".into()));
        let before = c.clone();
        assert!(!c.show_version(2, 2), "past the last version");
        assert!(!c.show_version(2, 1), "the version shown");
        assert_eq!(c, before);
    }

    #[test]
    fn versions_round_trip_through_storage_and_the_shown_one_stays_shown() {
        let mut c = two_turns();
        assert!(c.start_version(0, "Q1'".into()));
        c.messages.push(answered("A1'"));
        assert!(c.start_version(0, "Q1''".into()));
        c.messages.push(answered("A1''"));
        assert!(c.show_version(0, 1));
        let saved = encode(&c, 0.0);
        let loaded = decode(&saved).unwrap();
        assert_eq!(loaded, c);
        assert_eq!(shown(&loaded), ["Q1'", "A1'"]);
        assert_eq!(
            loaded.version_position(0),
            Some(VersionPosition { shown: 1, count: 3 })
        );
        // A record with versions is stored as the schema that has them.
        let value: serde_json::Value = serde_json::from_str(&saved).unwrap();
        assert_eq!(value["version"], crate::turn::message::SCHEMA_VERSION);
        assert_eq!(value["conversation"]["messages"][0]["versions"]["shown"], 1);
        // Their reasoning is tidied like the shown turns' (never sent back).
        assert!(!sent(&loaded).iter().any(|m| m.contains("reasoning")));
    }

    #[test]
    fn a_record_without_versions_is_stored_as_it_was() {
        let raw = r#"{"version":2,"conversation":{"id":"a","title":"T","created_at":1.0,"updated_at":2.0,"messages":[{"role":"user","content":"hi"},{"role":"assistant","blocks":[{"kind":"answer","text":"hello"}],"status":"done"}]}}"#;
        let c = decode(raw).unwrap();
        assert_eq!(c.version_position(0), None);
        let saved = encode(&c, 0.0);
        assert_eq!(saved, raw.replacen(r#""version":2"#, r#""version":4"#, 1));
    }

    #[test]
    fn a_hand_made_shown_index_is_brought_into_range_and_an_empty_list_dropped() {
        let raw = r#"{"version":3,"conversation":{"id":"a","title":"","created_at":1,"updated_at":2,"messages":[
          {"role":"user","content":"new","versions":{"shown":7,"others":[{"content":"old","after":[{"role":"assistant","blocks":[{"kind":"answer","text":"kept"}],"status":"done"}]}]}},
          {"role":"user","content":"x","versions":{"shown":0,"others":[]}}]}}"#;
        let mut c = decode(raw).unwrap();
        assert_eq!(
            c.version_position(0),
            Some(VersionPosition { shown: 1, count: 2 })
        );
        assert!(matches!(
            &c.messages[1],
            Message::User { versions: None, .. }
        ));
        assert_eq!(decode(&encode(&c, 0.0)).unwrap(), c, "saves back unchanged");
        assert!(c.show_version(0, 0));
        assert_eq!(shown(&c), ["old", "kept"]);
    }

    #[test]
    fn a_hidden_turn_saved_mid_stream_loads_stopped_like_a_shown_one() {
        let mut c = Conversation::new("c".into(), 0.0);
        c.messages.push(Message::user("Q"));
        let mut live = Turn::new(0.0);
        live.apply(TurnEvent::ThinkingStart, 0.0);
        live.apply(
            TurnEvent::ThinkingDelta {
                text: "midway".into(),
            },
            0.0,
        );
        c.messages.push(Message::Assistant(live));
        assert!(c.start_version(0, "Q".into()));
        let mut loaded = decode(&encode(&c, 5000.0)).unwrap();
        assert!(loaded.show_version(0, 0));
        let Some(Message::Assistant(turn)) = loaded.messages.get(1) else {
            panic!("assistant expected")
        };
        assert_eq!(turn.status, crate::turn::reducer::TurnStatus::Stopped);
        assert_eq!(turn.reasoning_text(), "midway");
    }

    /// Versions inside versions (a branch hidden while it had versions of
    /// its own) nest in the stored JSON; 20 levels still load.
    #[test]
    fn nested_versions_load() {
        let mut c = Conversation::new("c".into(), 0.0);
        for level in 0..20 {
            c.messages.push(Message::user(format!("Q{level}")));
            c.messages.push(answered(&format!("A{level}")));
        }
        // From the last turn back to the first, each asked again: each new
        // version hides the branch that holds the later turns' versions.
        for at in (0..20).rev().map(|l| l * 2) {
            assert!(c.start_version(at, format!("again {at}")));
            c.messages.push(answered("new"));
        }
        assert_eq!(shown(&c), ["again 0", "new"]);
        let saved = encode(&c, 0.0);
        // How deep the JSON goes (no text here holds a bracket): serde_json
        // reads up to 128 levels, docs/decisions.md counts on 5 per level.
        let depth = saved
            .chars()
            .scan(0i32, |d, ch| {
                *d += match ch {
                    '{' | '[' => 1,
                    '}' | ']' => -1,
                    _ => 0,
                };
                Some(*d)
            })
            .max();
        assert!(depth.is_some_and(|d| (100..128).contains(&d)), "{depth:?}");
        let mut loaded = decode(&saved).unwrap();
        assert_eq!(loaded, c);
        // Down the first versions, every original turn is still there.
        for at in (0..20).map(|l| l * 2) {
            assert!(loaded.show_version(at, 0));
        }
        let originals: Vec<String> = (0..20)
            .flat_map(|l| [format!("Q{l}"), format!("A{l}")])
            .collect();
        assert_eq!(shown(&loaded), originals);
    }
}
