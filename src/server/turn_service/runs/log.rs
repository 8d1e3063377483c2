//! One turn's log: its events as the lines a reader gets (`turn::log_line`),
//! numbered from 1, with the bytes they hold counted. Appending and reading
//! what came after a number cost what is appended or read, never what came
//! before.

use std::sync::Arc;

use crate::turn::log_line::{event_line, Stamp};
use crate::turn::TurnEvent;

/// A turn's lines, in order; line `n` has `seq` n + 1.
#[derive(Debug, Default)]
pub(crate) struct RunLog {
    lines: Vec<Arc<str>>,
    bytes: usize,
    ended: bool,
}

impl RunLog {
    /// Adds `event` at `at_ms` of the turn; returns the bytes it added.
    /// Nothing is added after the terminal event.
    pub(crate) fn append(&mut self, event: &TurnEvent, at_ms: u64) -> usize {
        if self.ended {
            return 0;
        }
        let stamp = Stamp {
            seq: self.lines.len() as u64 + 1,
            at_ms,
        };
        let line: Arc<str> = event_line(stamp, event).into();
        let added = line.len();
        self.lines.push(line);
        self.bytes += added;
        self.ended = event.is_terminal();
        added
    }

    /// The lines after `seq` (all of them after 0).
    pub(crate) fn after(&self, seq: u64) -> &[Arc<str>] {
        let from = usize::try_from(seq).unwrap_or(usize::MAX);
        self.lines.get(from..).unwrap_or_default()
    }

    /// The last line's number (0 before the first).
    pub(crate) fn last_seq(&self) -> u64 {
        self.lines.len() as u64
    }

    pub(crate) fn bytes(&self) -> usize {
        self.bytes
    }

    /// True once the terminal event is in.
    pub(crate) fn has_ended(&self) -> bool {
        self.ended
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::turn::log_line::{decode, LogLine};

    fn seqs(lines: &[Arc<str>]) -> Vec<u64> {
        lines
            .iter()
            .map(|line| match decode(line.trim_end().as_bytes()) {
                Ok(LogLine::Event {
                    stamp: Some(stamp), ..
                }) => stamp.seq,
                other => panic!("not a stamped event: {other:?}"),
            })
            .collect()
    }

    #[test]
    fn lines_are_numbered_in_order_and_read_from_after_any_number() {
        let mut log = RunLog::default();
        for n in 0..5 {
            log.append(
                &TurnEvent::ThinkingDelta {
                    text: format!("part {n}"),
                },
                n * 10,
            );
        }
        assert_eq!(seqs(log.after(0)), [1, 2, 3, 4, 5]);
        assert_eq!(seqs(log.after(3)), [4, 5]);
        assert!(log.after(5).is_empty());
        assert!(log.after(99).is_empty());
        assert_eq!(log.last_seq(), 5);
        assert_eq!(
            log.bytes(),
            log.after(0).iter().map(|l| l.len()).sum::<usize>()
        );
    }

    #[test]
    fn nothing_is_added_after_the_terminal_event() {
        let mut log = RunLog::default();
        log.append(&TurnEvent::AnswerDelta { text: "a".into() }, 1);
        assert!(!log.has_ended());
        log.append(&TurnEvent::Stopped, 2);
        assert!(log.has_ended());
        assert_eq!(
            log.append(&TurnEvent::AnswerDelta { text: "b".into() }, 3),
            0
        );
        assert_eq!(log.last_seq(), 2);
    }
}
