//! A reader of one turn's log: what an HTTP response streams, for the page
//! that started the turn and for any that attaches later. First a heartbeat
//! naming the server's run and its time in the turn, then every line after
//! the number the reader already has, then the new ones as they come, with a
//! heartbeat whenever nothing else was said for a while, until the turn's
//! terminal line.

use std::sync::Arc;
use std::time::Duration;

use async_stream::stream;
use futures::Stream;

use super::run::Run;
use crate::turn::log_line::heartbeat_line;

/// How long a reader may hear nothing before a heartbeat: the page counts a
/// connection silent for several of these as dead and reconnects.
pub(crate) const HEARTBEAT: Duration = Duration::from_secs(10);

/// The log of `run` after line `after`, for a reader; `boot` names the
/// server's run in the first line.
pub(crate) fn follow(
    run: Arc<Run>,
    after: u64,
    boot: String,
    heartbeat: Duration,
) -> impl Stream<Item = String> + Send + 'static {
    stream! {
        let mut progress = run.watch();
        yield heartbeat_line(run.at_ms(), Some(&boot));
        let mut sent = after;
        loop {
            progress.borrow_and_update();
            let read = run.after(sent);
            sent += read.lines.len() as u64;
            if !read.lines.is_empty() {
                yield read.lines.concat();
            }
            if read.ended {
                break;
            }
            tokio::select! {
                changed = progress.changed() => {
                    if changed.is_err() {
                        break;
                    }
                }
                _ = tokio::time::sleep(heartbeat) => yield heartbeat_line(run.at_ms(), None),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use futures::StreamExt;

    use super::*;
    use crate::server::turn_service::runs::owner::Owner;
    use crate::turn::framer::NdjsonFramer;
    use crate::turn::log_line::LogLine;
    use crate::turn::TurnEvent;

    fn read_all(chunks: &[String]) -> Vec<LogLine> {
        let mut framer = NdjsonFramer::new();
        chunks
            .iter()
            .flat_map(|chunk| framer.push_lines(chunk.as_bytes()))
            .map(|line| line.expect("a valid line"))
            .collect()
    }

    fn delta(n: u32) -> TurnEvent {
        TurnEvent::ThinkingDelta {
            text: format!("{n} "),
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_late_reader_gets_what_it_missed_then_the_live_lines_then_the_end() {
        let run = Run::new("t".into(), Owner::new(None, None));
        for n in 1..=3 {
            run.append(&delta(n));
        }
        let mut reader = Box::pin(follow(run.clone(), 1, "boot-1".into(), HEARTBEAT));
        let mut got = vec![reader.next().await.expect("a heartbeat")];
        got.push(reader.next().await.expect("the lines after 1"));
        run.append(&delta(4));
        got.push(reader.next().await.expect("a live line"));
        tokio::time::advance(HEARTBEAT).await;
        got.push(reader.next().await.expect("a heartbeat while quiet"));
        run.append(&TurnEvent::Stopped);
        got.push(reader.next().await.expect("the end"));
        assert_eq!(reader.next().await, None);
        let lines = read_all(&got);
        assert!(matches!(
            &lines[0],
            LogLine::Heartbeat { boot: Some(boot), .. } if boot == "boot-1"
        ));
        let seqs: Vec<u64> = lines
            .iter()
            .filter_map(|line| match line {
                LogLine::Event { stamp, .. } => stamp.map(|s| s.seq),
                LogLine::Heartbeat { .. } => None,
            })
            .collect();
        assert_eq!(seqs, [2, 3, 4, 5], "no line twice, none missing");
        assert!(matches!(lines[4], LogLine::Heartbeat { boot: None, .. }));
    }

    #[tokio::test]
    async fn a_reader_of_a_finished_turn_gets_it_whole_and_ends() {
        let run = Run::new("t".into(), Owner::new(None, None));
        run.append(&delta(1));
        run.append(&TurnEvent::Done {
            finish_reason: None,
            output_limit: None,
        });
        let got: Vec<String> = follow(run, 0, "b".into(), HEARTBEAT).collect().await;
        let lines = read_all(&got);
        assert_eq!(lines.len(), 3, "{lines:?}");
    }
}
