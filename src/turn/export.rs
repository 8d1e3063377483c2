//! Exporting a conversation: Markdown for reading (thinking as `<details>`),
//! and the versioned JSON envelope for import. Pure.

use super::headline::strip_topics;
use super::message::{Conversation, Message};
use super::reducer::{Block, BlockState};

/// The conversation as Markdown; each thinking block is a `<details>` whose
/// summary says how long the model thought and, like the page's header, names
/// the block by its headline.
pub fn to_markdown(conversation: &Conversation) -> String {
    let mut out = String::new();
    let title = if conversation.title.trim().is_empty() {
        "Conversation"
    } else {
        conversation.title.trim()
    };
    out.push_str(&format!("# {title}\n\n"));
    for message in &conversation.messages {
        match message {
            Message::User { content } => {
                out.push_str("**You:**\n\n");
                out.push_str(content.trim_end());
                out.push_str("\n\n");
            }
            Message::Assistant(turn) => {
                out.push_str("**Assistant:**\n\n");
                for block in &turn.blocks {
                    match block {
                        Block::Thinking(t) if t.is_empty() => {}
                        Block::Thinking(t) => {
                            out.push_str(&format!(
                                "<details><summary>{}</summary>\n\n",
                                summary(t)
                            ));
                            // As the page shows it: labels are in the summary.
                            let text = strip_topics(&t.text);
                            if !text.trim().is_empty() {
                                out.push_str(text.trim());
                                out.push_str("\n\n");
                            }
                            out.push_str("</details>\n\n");
                        }
                        Block::Answer { text } => {
                            out.push_str(text.trim());
                            out.push_str("\n\n");
                        }
                    }
                }
                if let Some(error) = &turn.error {
                    out.push_str(&format!("> Error: {}\n\n", error.message));
                }
            }
        }
    }
    out
}

fn summary(t: &super::reducer::Thinking) -> String {
    let seconds = |ms: u64| (ms as f64 / 1000.0).round() as u64;
    let base = match (t.state, t.duration_ms) {
        (BlockState::Interrupted, Some(ms)) => format!("Stopped after {}s", seconds(ms)),
        (_, Some(ms)) if ms < 1000 => "Thought for less than a second".into(),
        (_, Some(ms)) => format!("Thought for {}s", seconds(ms)),
        (_, None) => "Thought".into(),
    };
    let base = if t.opaque {
        format!("{base} · reasoning hidden by the provider")
    } else {
        base
    };
    match t.headline.as_deref().map(str::trim) {
        // The label is model text inside raw HTML: escaped, so it stays text.
        Some(h) if !h.is_empty() => format!("{base} · {}", escape_html(h)),
        _ => base,
    }
}

fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            _ => out.push(c),
        }
    }
    out
}

/// A file name for an export: the title's letters and digits.
pub fn file_name(conversation: &Conversation, extension: &str) -> String {
    let stem: String = conversation
        .title
        .chars()
        .map(|c| {
            if c.is_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect::<String>()
        .split('-')
        .filter(|p| !p.is_empty())
        .take(8)
        .collect::<Vec<_>>()
        .join("-");
    let stem = if stem.is_empty() {
        "conversation".into()
    } else {
        stem
    };
    format!("pensive-{stem}.{extension}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::turn::message::{decode, encode};
    use crate::turn::reducer::Turn;
    use crate::turn::TurnEvent;

    fn conversation() -> Conversation {
        let mut turn = Turn::new(0.0);
        for e in [
            TurnEvent::ThinkingStart,
            TurnEvent::ThinkingDelta {
                text: "Rayleigh.".into(),
            },
            TurnEvent::ThinkingEnd {
                duration_ms: 12_300,
                opaque: false,
            },
            TurnEvent::AnswerDelta {
                text: "Blue scatters.".into(),
            },
            TurnEvent::Done {
                finish_reason: None,
            },
        ] {
            turn.apply(e, 0.0);
        }
        let mut c = Conversation::new("c".into(), 1.0);
        c.title = "Why is the sky blue?".into();
        c.messages.push(Message::User {
            content: "Why is the sky blue?".into(),
        });
        c.messages.push(Message::Assistant(turn));
        c
    }

    #[test]
    fn markdown_puts_thinking_in_details_with_its_duration() {
        let md = to_markdown(&conversation());
        assert!(md.starts_with("# Why is the sky blue?\n"));
        assert!(
            md.contains("<details><summary>Thought for 12s</summary>\n\nRayleigh.\n\n</details>")
        );
        assert!(md.contains("Blue scatters."));
        assert!(md.find("Rayleigh").unwrap() < md.find("Blue scatters").unwrap());
    }

    #[test]
    fn the_summary_names_the_block_by_its_headline_as_text() {
        let mut c = conversation();
        if let Message::Assistant(turn) = &mut c.messages[1] {
            if let Block::Thinking(t) = &mut turn.blocks[0] {
                t.headline = Some("Checking <b>units</b> & more".into());
                t.text = "<topic>Checking units</topic>\nRayleigh.".into();
            }
        }
        let md = to_markdown(&c);
        assert!(
            md.contains(
                "<summary>Thought for 12s · Checking &lt;b&gt;units&lt;/b&gt; &amp; more</summary>"
            ),
            "{md}"
        );
        assert!(md.contains("</summary>\n\nRayleigh.\n\n</details>"), "{md}");
        // The JSON export keeps it as it is.
        let back = decode(&encode(&c, 0.0)).unwrap();
        assert_eq!(back, c);
        let Message::Assistant(turn) = &back.messages[1] else {
            panic!("assistant expected")
        };
        let Block::Thinking(t) = &turn.blocks[0] else {
            panic!("thinking expected")
        };
        assert_eq!(t.headline.as_deref(), Some("Checking <b>units</b> & more"));
    }

    #[test]
    fn json_export_round_trips() {
        let c = conversation();
        assert_eq!(decode(&encode(&c, 0.0)).unwrap(), c);
    }

    #[test]
    fn file_names_are_safe() {
        assert_eq!(
            file_name(&conversation(), "md"),
            "pensive-why-is-the-sky-blue.md"
        );
        assert_eq!(
            file_name(&Conversation::new("x".into(), 0.0), "json"),
            "pensive-conversation.json"
        );
    }
}
