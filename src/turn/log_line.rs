//! A turn's log on the wire (design §2): every `TurnEvent` line carries its
//! sequence number in the turn (`seq`, from 1) and the server's time since
//! the turn began (`at_ms`), and a reader of the log also gets heartbeat
//! lines (`{"type":"heartbeat","at_ms":…}`) while nothing else is said.
//! Pure: the server writes these lines, the browser reads them.
//!
//! The event's own fields stay as they were, so a reader that knows nothing
//! of the log reads the same `TurnEvent`s.

use serde::Deserialize;

use super::event::TurnEvent;

/// Where one event stands in its turn's log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    /// 1 for the turn's first event, then one more for each.
    pub seq: u64,
    /// Server milliseconds since the turn began.
    pub at_ms: u64,
}

/// One line of a turn's log as a reader gets it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LogLine {
    /// An event; `stamp` is `None` for a line without one (a refusal made
    /// before the turn had a log).
    Event {
        stamp: Option<Stamp>,
        event: TurnEvent,
    },
    /// The server is there: its time in the turn now, and (on a reader's
    /// first line) which run of the server holds the turn.
    Heartbeat { at_ms: u64, boot: Option<String> },
}

/// `event` as a log line: its JSON with `seq` and `at_ms` first.
pub fn event_line(stamp: Stamp, event: &TurnEvent) -> String {
    // A TurnEvent holds only strings, integers and enums: serialization
    // cannot fail, and it always writes an object (`{"type":…}`).
    let json = serde_json::to_string(event).unwrap_or_else(|_| {
        r#"{"type":"error","kind":"internal","message":"unserializable event"}"#.to_owned()
    });
    let fields = json.strip_prefix('{').unwrap_or(&json);
    format!(
        "{{\"seq\":{},\"at_ms\":{},{fields}\n",
        stamp.seq, stamp.at_ms
    )
}

/// A heartbeat line at `at_ms` of the turn, naming the server's run `boot`
/// when given.
pub fn heartbeat_line(at_ms: u64, boot: Option<&str>) -> String {
    let boot = boot
        .and_then(|boot| serde_json::to_string(boot).ok())
        .map(|boot| format!(",\"boot\":{boot}"))
        .unwrap_or_default();
    format!("{{\"type\":\"heartbeat\",\"at_ms\":{at_ms}{boot}}}\n")
}

/// The fields every line may have beside the event's own.
#[derive(Deserialize)]
struct Head {
    #[serde(default)]
    seq: Option<u64>,
    #[serde(default)]
    at_ms: Option<u64>,
    #[serde(default, rename = "type")]
    kind: Option<String>,
    #[serde(default)]
    boot: Option<String>,
}

/// Reads one line (without its `\n`). Two passes: the small head, then the
/// event, which skips the head's fields as it skips any field it does not know.
pub fn decode(raw: &[u8]) -> Result<LogLine, serde_json::Error> {
    let head: Head = serde_json::from_slice(raw)?;
    if head.kind.as_deref() == Some("heartbeat") {
        return Ok(LogLine::Heartbeat {
            at_ms: head.at_ms.unwrap_or(0),
            boot: head.boot,
        });
    }
    let event = serde_json::from_slice(raw)?;
    let stamp = match (head.seq, head.at_ms) {
        (Some(seq), Some(at_ms)) => Some(Stamp { seq, at_ms }),
        _ => None,
    };
    Ok(LogLine::Event { stamp, event })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::turn::event::Usage;

    fn read(line: &str) -> LogLine {
        decode(line.trim_end().as_bytes()).expect("a valid line")
    }

    #[test]
    fn an_event_line_carries_its_stamp_and_reads_back_whole() {
        let events = [
            TurnEvent::ThinkingStart,
            TurnEvent::ThinkingDelta {
                text: "a \"quoted\"\nline ∝ 🌈".into(),
            },
            TurnEvent::Usage(Usage {
                input_tokens: Some(3),
                output_tokens: None,
                reasoning_tokens: Some(2),
            }),
            TurnEvent::Stopped,
        ];
        for (n, event) in events.into_iter().enumerate() {
            let stamp = Stamp {
                seq: n as u64 + 1,
                at_ms: 1000 * n as u64,
            };
            let line = event_line(stamp, &event);
            assert!(line.starts_with(&format!("{{\"seq\":{},", n + 1)), "{line}");
            assert!(line.ends_with("}\n"), "{line}");
            assert_eq!(
                read(&line),
                LogLine::Event {
                    stamp: Some(stamp),
                    event: event.clone()
                }
            );
            // A reader that knows only events reads the same event.
            let plain: TurnEvent = serde_json::from_str(&line).expect("an event");
            assert_eq!(plain, event);
        }
    }

    #[test]
    fn a_heartbeat_is_not_an_event_and_names_the_servers_run_when_asked() {
        assert_eq!(
            read(&heartbeat_line(1500, Some("b\"1"))),
            LogLine::Heartbeat {
                at_ms: 1500,
                boot: Some("b\"1".into())
            }
        );
        assert_eq!(
            read(&heartbeat_line(7, None)),
            LogLine::Heartbeat {
                at_ms: 7,
                boot: None
            }
        );
    }

    #[test]
    fn a_line_without_a_stamp_is_an_event_without_one_and_junk_is_an_error() {
        assert_eq!(
            read(r#"{"type":"answer_delta","text":"hi"}"#),
            LogLine::Event {
                stamp: None,
                event: TurnEvent::AnswerDelta { text: "hi".into() }
            }
        );
        assert!(decode(br#"{"seq":1,"at_ms":2,"type":"nonsense"}"#).is_err());
        assert!(decode(b"not json").is_err());
    }
}
