//! Exporting a conversation: Markdown for reading (thinking as `<details>`),
//! and the versioned JSON envelope for import. Pure.
//!
//! The Markdown is opened later in viewers that render raw HTML (editors'
//! previews, note apps, a browser with an extension), so nothing the model or
//! an imported file wrote may reach it as HTML: every piece of text goes
//! through [`inert_markdown`], and the only tags in an export are its own
//! `<details>` and `<summary>`. The JSON export keeps the text as it is.

mod inert;

pub use inert::inert_markdown;

use super::block_label::{ended_label, source_note};
use super::headline::strip_topics;
use super::message::{Conversation, Message};
use super::reducer::Block;
use super::turn_footer::{cut_note, model_line};
use super::versions::VersionPosition;

/// The largest file an import reads (20 MiB): far above any real conversation
/// (a long one with heavy reasoning is a few MB), and refused by its size
/// before it is read, so a huge file cannot fill the tab's memory.
pub const MAX_IMPORT_BYTES: u64 = 20 * 1024 * 1024;

/// `Err` (a message for the user) when a file of `size` bytes is too large to
/// import. Takes the browser's `File.size`, a float.
pub fn check_import_size(size: f64) -> Result<(), String> {
    if size > MAX_IMPORT_BYTES as f64 {
        // Rounded up, so that a file just over the limit does not read as 20.0.
        let mb = |bytes: f64| (bytes / (1024.0 * 1024.0) * 10.0).ceil() / 10.0;
        return Err(format!(
            "That file is {:.1} MB; an import can be at most {:.0} MB.",
            mb(size),
            mb(MAX_IMPORT_BYTES as f64)
        ));
    }
    Ok(())
}

/// Most messages one imported conversation may hold (1,000 turns). Every
/// message is laid out when the conversation opens: 10,000 turns froze a
/// reload for about 23 s, so a file beyond this is refused rather than
/// stored where every later visit would pay for it.
pub const MAX_IMPORT_MESSAGES: usize = 2_000;
/// Longest title an import may carry (a title is shown in the list, and the
/// list is kept in localStorage, whose few MB a crafted title could fill).
pub const MAX_IMPORT_TITLE_CHARS: usize = 500;
/// Most conversations one file may import.
pub const MAX_IMPORT_CONVERSATIONS: usize = 1_000;

/// `Err` (a message for the user) when decoded `conversations` go past what
/// an import may hold; nothing is stored then.
pub fn check_import(conversations: &[Conversation]) -> Result<(), String> {
    let count = conversations.len();
    if count > MAX_IMPORT_CONVERSATIONS {
        return Err(format!(
            "That file holds {} conversations; an import can hold at most {}.",
            super::turn_footer::thousands(count as u64),
            super::turn_footer::thousands(MAX_IMPORT_CONVERSATIONS as u64)
        ));
    }
    let which = |at: usize| {
        if count == 1 {
            "That conversation".to_owned()
        } else {
            format!("Conversation {} of {count}", at + 1)
        }
    };
    for (at, conversation) in conversations.iter().enumerate() {
        let messages = conversation.messages.len();
        if messages > MAX_IMPORT_MESSAGES {
            return Err(format!(
                "{} has {} messages; an import can hold at most {} per conversation.",
                which(at),
                super::turn_footer::thousands(messages as u64),
                super::turn_footer::thousands(MAX_IMPORT_MESSAGES as u64)
            ));
        }
        let title = conversation.title.chars().count();
        if title > MAX_IMPORT_TITLE_CHARS {
            return Err(format!(
                "{} has a title of {} characters; an import can carry at most {}.",
                which(at),
                super::turn_footer::thousands(title as u64),
                MAX_IMPORT_TITLE_CHARS
            ));
        }
    }
    Ok(())
}

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
    // Escaped as the line it is: on its own, `title` could read as a fence.
    out.push_str(&inert_markdown(&format!("# {}", one_line(title))));
    out.push_str("\n\n");
    for (at, message) in conversation.messages.iter().enumerate() {
        match message {
            Message::User { content, .. } => {
                out.push_str("**You:**\n\n");
                out.push_str(&inert_markdown(content.trim()));
                out.push_str("\n\n");
                // The shown version only; the JSON export keeps every one.
                if let Some(position) = conversation.version_position(at) {
                    out.push_str(&version_note(position));
                }
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
                                out.push_str(&inert_markdown(text.trim()));
                                out.push_str("\n\n");
                            }
                            out.push_str("</details>\n\n");
                        }
                        Block::Answer { text } => {
                            out.push_str(&inert_markdown(text.trim()));
                            out.push_str("\n\n");
                        }
                        Block::Tool(step) => out.push_str(&tool_details(step)),
                    }
                }
                if let Some(error) = &turn.error {
                    let line = format!("> Error: {}", one_line(&error.message));
                    out.push_str(&inert_markdown(&line));
                    out.push_str("\n\n");
                }
                if let Some(note) = cut_note(turn.finish_reason.as_deref(), turn.output_limit) {
                    out.push_str(&inert_markdown(&format!("> {note}")));
                    out.push_str("\n\n");
                }
                if let Some(line) = model_line(
                    turn.model.as_ref(),
                    turn.effort,
                    turn.answered_by.as_deref(),
                ) {
                    out.push_str(&inert_markdown(&format!("*{}*", one_line(&line))));
                    out.push_str("\n\n");
                }
            }
        }
    }
    out
}

/// A tool step as a `<details>`: its tool, server, state and duration in
/// the summary, its arguments and result as fenced text inside (a fence
/// longer than any backtick run in them, so nothing in a result can close
/// it or become markup).
fn tool_details(step: &crate::turn::reducer::ToolStep) -> String {
    let mut summary = format!(
        "Tool {} ({}) \u{b7} {}",
        step.tool_name(),
        step.server,
        step.state.label()
    );
    if let Some(ms) = step.duration_ms {
        summary.push_str(&format!(
            " \u{b7} {}",
            crate::turn::duration::format_duration(
                ms as f64,
                crate::turn::duration::DurationStyle::Tenths
            )
        ));
    }
    // Names and servers are a tool server's text inside raw HTML: escaped,
    // and on one line (a blank line would end the HTML block and let what
    // follows become Markdown: a live link or image).
    let mut out = format!(
        "<details><summary>{}</summary>\n\n",
        escape_html(&one_line(&summary))
    );
    out.push_str("Arguments:\n\n");
    out.push_str(&fenced(&step.arguments));
    if let Some(output) = &step.output {
        out.push_str("Result:\n\n");
        out.push_str(&fenced(output));
    }
    out.push_str("</details>\n\n");
    out
}

/// `text` in a fence no backtick run inside it can close.
fn fenced(text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    format!("{fence}text\n{}\n{fence}\n\n", text.trim_end())
}

/// Conversations as one Markdown file: each under its own title heading, as
/// [`to_markdown`] writes it, the next after a rule. Without reasoning the
/// thinking blocks are left out, so there is no `<details>` at all. One
/// conversation gives exactly what [`to_markdown`] does.
pub fn to_markdown_all(conversations: &[Conversation], with_reasoning: bool) -> String {
    conversations
        .iter()
        .map(|c| {
            if with_reasoning {
                to_markdown(c)
            } else {
                to_markdown(&c.without_reasoning())
            }
        })
        .collect::<Vec<_>>()
        // Every piece ends with a blank line, so the rule cannot turn the
        // line before it into a heading; and no construct stays open across
        // it (`inert_markdown` closes a fence left open).
        .join("---\n\n")
}

/// Says which version of a turn the export holds, and that others exist.
fn version_note(position: VersionPosition) -> String {
    let others = match position.count - 1 {
        1 => "the other version is".to_owned(),
        n => format!("the {n} other versions are"),
    };
    format!(
        "*Version {} of {} of this turn, as shown in Pensive; {others} in the JSON export.*\n\n",
        position.shown + 1,
        position.count,
    )
}

fn summary(t: &super::reducer::Thinking) -> String {
    let meta = t.meta();
    let mut base = ended_label(&meta);
    if let Some(note) = source_note(&meta) {
        base = format!("{base} · {note}");
    }
    match t.headline.as_deref().map(str::trim) {
        // The label is model text inside raw HTML: escaped, so it stays text,
        // and on one line, so it cannot end the HTML block it sits in.
        Some(h) if !h.is_empty() => format!("{base} · {}", escape_html(&one_line(h))),
        _ => base,
    }
}

/// Line breaks (and other control characters) as spaces, for text that must
/// stay on its line: the title's heading, the summary's HTML line.
fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
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

/// The name of an export's file: the conversation's ([`file_name`]), or
/// `pensive-all-conversations` for all of them (`one` is `None`), marked
/// `-without-reasoning` when it leaves reasoning out.
pub fn export_file_name(
    one: Option<&Conversation>,
    with_reasoning: bool,
    extension: &str,
) -> String {
    let suffix = if with_reasoning {
        ""
    } else {
        "-without-reasoning"
    };
    let stem = match one {
        Some(c) => file_name(c, "").trim_end_matches('.').to_owned(),
        None => "pensive-all-conversations".to_owned(),
    };
    format!("{stem}{suffix}.{extension}")
}

#[cfg(test)]
mod tests {
    use pulldown_cmark::{Event, Parser, Tag, TagEnd};

    use super::inert::{DIALECTS, GITHUB};
    use super::*;
    use crate::turn::message::{decode, encode};

    #[test]
    fn an_import_past_its_caps_is_refused_naming_the_cap() {
        let conversation = |messages: usize, title: &str| {
            let mut c = Conversation::new("c".into(), 0.0);
            c.title = title.into();
            c.messages = (0..messages).map(|_| Message::user("hi")).collect();
            c
        };
        assert_eq!(
            check_import(&[conversation(MAX_IMPORT_MESSAGES, "ok")]),
            Ok(())
        );
        assert_eq!(
            check_import(&[conversation(MAX_IMPORT_MESSAGES + 1, "ok")]),
            Err("That conversation has 2,001 messages; an import can hold at most 2,000 per conversation.".into())
        );
        let long_title = "t".repeat(MAX_IMPORT_TITLE_CHARS + 1);
        let refused = check_import(&[conversation(1, "ok"), conversation(1, &long_title)]);
        assert_eq!(
            refused,
            Err("Conversation 2 of 2 has a title of 501 characters; an import can carry at most 500.".into())
        );
        let many: Vec<Conversation> = (0..=MAX_IMPORT_CONVERSATIONS)
            .map(|_| conversation(1, "ok"))
            .collect();
        assert!(check_import(&many).is_err_and(|e| e.contains("at most 1,000")));
    }
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
                output_limit: None,
            },
        ] {
            turn.apply(e, 0.0);
        }
        let mut c = Conversation::new("c".into(), 1.0);
        c.title = "Why is the sky blue?".into();
        c.messages.push(Message::user("Why is the sky blue?"));
        c.messages.push(Message::Assistant(turn));
        c
    }

    #[test]
    fn both_exports_say_who_answered_and_that_the_answer_was_cut() {
        let mut c = conversation();
        if let Some(Message::Assistant(turn)) = c.messages.last_mut() {
            turn.finish_reason = Some("length".into());
            turn.output_limit = Some(16_000);
            turn.effort = Some(crate::turn::Effort::Low);
            turn.model = Some(crate::turn::reducer::TurnModel {
                id: "q".into(),
                label: "qwen3-32b".into(),
            });
        }
        let md = to_markdown(&c);
        assert!(
            md.contains("> Cut off at the length limit (16,000 tokens)"),
            "{md}"
        );
        assert!(md.contains("*qwen3-32b \u{b7} low effort*"), "{md}");
        let json = encode(&c, 2.0);
        assert!(json.contains(r#""finish_reason":"length""#), "{json}");
        assert!(json.contains(r#""output_limit":16000"#), "{json}");
        assert!(
            json.contains(r#""model":{"id":"q","label":"qwen3-32b"}"#),
            "{json}"
        );
        let back = decode(&json).expect("reads back");
        assert_eq!(back.messages, c.messages);
        assert!(!to_markdown(&conversation()).contains("Cut off"));
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
    fn markdown_writes_the_shown_version_and_notes_the_others() {
        let mut c = conversation();
        assert!(!to_markdown(&c).contains("Version"));
        assert!(c.start_version(0, "Why is the sky blue, really?".into()));
        let answer = c.messages.get(1).cloned();
        c.messages.extend(answer);
        assert!(c.show_version(0, 0));
        let md = to_markdown(&c);
        assert!(md.contains("Why is the sky blue?\n\n*Version 1 of 2 of this turn, as shown in Pensive; the other version is in the JSON export.*"), "{md}");
        assert!(md.contains("Blue scatters."), "{md}");
        assert!(!md.contains("really"), "only the shown version: {md}");
        assert!(c.start_version(0, "Third".into()));
        let md = to_markdown(&c);
        assert!(md.contains("*Version 3 of 3 of this turn, as shown in Pensive; the 2 other versions are in the JSON export.*"), "{md}");
        assert!(!md.contains("Blue scatters."), "{md}");
        // The JSON export keeps every version.
        let json = encode(&c, 0.0);
        for text in [
            "Why is the sky blue?",
            "really?",
            "Third",
            "Blue scatters.",
            "Rayleigh.",
        ] {
            assert!(json.contains(text), "{text}: {json}");
        }
        assert_eq!(encode(&decode(&json).unwrap(), 0.0), json);
    }

    const HOSTILE: &str = "Careful <script>alert('script')</script> and \
<img src=x onerror=\"alert('img')\"> and <iframe src=\"https://evil.example/\"></iframe>\n\n\
<!-- a comment --> <svg onload=alert(1)> <a href=\"javascript:alert(1)\">x</a> \
<javascript:alert('autolink')> </details></summary>\n\n\
<div>\n\n*block*\n\n</div>";

    /// Every piece of raw HTML a viewer would pass through when rendering
    /// `md`, read as plain CommonMark, as GitHub's dialect, and with math.
    fn raw_html(md: &str) -> Vec<String> {
        DIALECTS
            .into_iter()
            .flat_map(|options| {
                Parser::new_ext(md, options)
                    .filter_map(|event| match event {
                        Event::Html(html) | Event::InlineHtml(html) => Some(html.to_string()),
                        _ => None,
                    })
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    /// The export's own tags are the only HTML in it.
    fn assert_only_own_html(md: &str) {
        for html in raw_html(md) {
            let html = html.trim_end();
            let own = html == "</details>"
                || html
                    .strip_prefix("<details><summary>")
                    .and_then(|rest| rest.strip_suffix("</summary>"))
                    .is_some_and(|label| !label.contains('<'));
            assert!(own, "model HTML reached the export: {html:?}\n{md}");
        }
    }

    fn hostile_conversation() -> Conversation {
        let mut c = conversation();
        c.title = "<img src=x onerror=alert('title')>".into();
        c.messages[0] = Message::user(HOSTILE);
        if let Message::Assistant(turn) = &mut c.messages[1] {
            if let Block::Thinking(t) = &mut turn.blocks[0] {
                t.text = format!("<topic>x</topic>{HOSTILE}");
                t.headline = Some(
                    "</summary><script>alert('label')</script>\n\n<img src=x onerror=alert(2)>"
                        .into(),
                );
            }
            turn.blocks.truncate(1);
            turn.blocks.extend([Block::Answer {
                text: HOSTILE.into(),
            }]);
        }
        c
    }

    #[test]
    fn model_html_in_the_markdown_export_is_text_not_html() {
        let c = hostile_conversation();
        let md = to_markdown(&c);
        assert_only_own_html(&md);
        // It still reads as what was written.
        assert!(
            md.contains("Careful &lt;script>alert('script')&lt;/script>"),
            "{md}"
        );
        assert!(
            md.contains("# &lt;img src=x onerror=alert('title')>\n"),
            "{md}"
        );
        assert!(
            md.contains("<summary>Thought for 12s · &lt;/summary&gt;&lt;script&gt;alert('label')&lt;/script&gt;  &lt;img src=x onerror=alert(2)&gt;</summary>"),
            "{md}"
        );
        // Rendered by a viewer that passes HTML through, nothing runs or loads.
        let mut html = String::new();
        pulldown_cmark::html::push_html(&mut html, Parser::new_ext(&md, GITHUB));
        for tag in ["<script", "<img", "<iframe", "<svg", "<a ", "<!--", "<div"] {
            assert!(!html.contains(tag), "{tag} in {html}");
        }
        // The JSON export keeps every character as it was.
        let json = encode(&c, 0.0);
        assert_eq!(decode(&json).unwrap(), c);
        assert!(json.contains("<script>alert('script')</script>"), "{json}");
    }

    #[test]
    fn a_tool_name_with_blank_lines_stays_inside_its_summary() {
        let mut c = conversation();
        if let Message::Assistant(turn) = &mut c.messages[1] {
            let hostile = "x\n\n[live](https://evil.example) ![i](https://evil.example/i.png)\n\n";
            let mut called = crate::turn::reducer::Turn::new(0.0);
            called.apply(
                crate::turn::TurnEvent::ToolCallStart {
                    id: "c".into(),
                    name: format!("srv__{hostile}"),
                    server: format!("srv{hostile}"),
                },
                0.0,
            );
            turn.blocks.extend(
                called
                    .blocks
                    .into_iter()
                    .filter(|b| matches!(b, Block::Tool(_))),
            );
        }
        let md = to_markdown(&c);
        assert_only_own_html(&md);
        let mut html = String::new();
        pulldown_cmark::html::push_html(&mut html, Parser::new_ext(&md, GITHUB));
        for tag in ["<a ", "<img"] {
            assert!(!html.contains(tag), "{tag} in {html}");
        }
        assert!(md.contains("<summary>Tool x  [live]"), "{md}");
    }

    #[test]
    fn code_keeps_its_html_as_typed() {
        let text = "Use `<b>` like this:\n\n```html\n<b>bold</b> <script>x()</script>\n```\n\n    <i>indented</i>\n\nBut <b>not here</b>, and 1 < 2.";
        let md = inert_markdown(text);
        assert_eq!(
            md,
            "Use `<b>` like this:\n\n```html\n<b>bold</b> <script>x()</script>\n```\n\n    <i>indented</i>\n\nBut &lt;b>not here&lt;/b>, and 1 < 2."
        );
        assert!(raw_html(&md).is_empty(), "{md}");
    }

    #[test]
    fn a_fence_left_open_is_closed_so_the_next_piece_stays_in_place() {
        // Left open, the first answer's fence would pair with the second's
        // opening fence, and the second's code would be read as Markdown.
        let mut c = conversation();
        if let Message::Assistant(turn) = &mut c.messages[1] {
            turn.blocks = vec![
                Block::Answer {
                    text: "Start:\n\n````js\nlet open = 1;".into(),
                },
                Block::Answer {
                    text: "```\n<img src=x onerror=alert(1)>\n```".into(),
                },
            ];
        }
        let md = to_markdown(&c);
        assert!(md.contains("let open = 1;\n````\n\n```\n<img"), "{md}");
        assert_only_own_html(&md);
        assert_eq!(inert_markdown("```\ncode\n```"), "```\ncode\n```");
        assert_eq!(inert_markdown("~~~\ncode\n~~~~"), "~~~\ncode\n~~~~");
        assert_eq!(inert_markdown("~~~~\ncode\n~~~"), "~~~~\ncode\n~~~\n~~~~");
        assert_eq!(
            inert_markdown("```\ncode\n    ```"),
            "```\ncode\n    ```\n```"
        );
    }

    /// Code spans pair differently in GitHub's table rows than in plain
    /// CommonMark: HTML one dialect sees as code, the other reads as HTML.
    #[test]
    fn code_only_one_dialect_sees_is_escaped() {
        for text in [
            "| a | b |\n|---|---|\n| ` | `<img src=x onerror=alert(1)>` |",
            "| a |\n|---|\n| `x|<img src=x onerror=alert(1)>` |",
            "[^1]: note\n\n    <img src=x onerror=alert(1)>",
        ] {
            let md = inert_markdown(text);
            assert!(
                raw_html(&md).is_empty(),
                "{text:?} -> {md:?}: {:?}",
                raw_html(&md)
            );
        }
    }

    proptest::proptest! {
        /// Whatever the model writes, built from the pieces that change how
        /// Markdown is read, the export's own tags are its only HTML.
        #[test]
        fn no_model_text_reaches_the_export_as_html(
            pieces in proptest::collection::vec(
                proptest::sample::select(vec![
                    "<script>x()</script>", "<img src=x onerror=y()>", "<iframe>", "</details>",
                    "<!--", "-->", "<?php", "<![CDATA[", "<x:y>", "<a:b>", "`", "``", "```", "~~~",
                    "\n", "\n\n", "    ", " ", "> ", "- ", "1. ", "|", "|---|", "[^1]: ", "$",
                    "$$", "\\", "<", "/", "a", "*", "_", "[x](", ")", "<details>", "\t",
                    "<pre>", "</pre>", "<style>", "# ", "***", "\\`", "&lt;", "<https://x>",
                ]),
                0..40,
            ),
            split in 0usize..40,
        ) {
            let text: String = pieces.concat();
            let (first, second) = text.split_at(text.char_indices().nth(split).map_or(text.len(), |(i, _)| i));
            let mut c = conversation();
            c.title = first.into();
            c.messages[0] = Message::user(second);
            if let Message::Assistant(turn) = &mut c.messages[1] {
                if let Block::Thinking(t) = &mut turn.blocks[0] {
                    t.text = second.into();
                    t.headline = Some(text.clone());
                }
                turn.blocks.push(Block::Answer { text: first.into() });
                turn.blocks.push(Block::Answer { text: text.clone() });
            }
            assert_only_own_html(&to_markdown(&c));
        }
    }

    #[test]
    fn an_import_over_20_mb_is_refused_by_its_size() {
        let limit = 20.0 * 1024.0 * 1024.0;
        assert_eq!(check_import_size(0.0), Ok(()));
        assert_eq!(check_import_size(limit), Ok(()));
        let refused = check_import_size(limit + 1.0).unwrap_err();
        assert_eq!(
            refused,
            "That file is 20.1 MB; an import can be at most 20 MB."
        );
        assert!(check_import_size(1e12).is_err());
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

    #[test]
    fn markdown_without_reasoning_holds_no_continuity_text() {
        use crate::turn::message::fixtures::{every_dialects_continuity, SENTINELS};
        let mut c = conversation();
        if let Message::Assistant(turn) = &mut c.messages[1] {
            turn.continuity = every_dialects_continuity();
        }
        let without = to_markdown_all(std::slice::from_ref(&c), false);
        for word in SENTINELS {
            assert!(!without.contains(word), "{word} in {without}");
        }
        assert!(without.contains("Blue scatters."), "{without}");
    }

    #[test]
    fn markdown_without_reasoning_has_no_details_in_any_version() {
        let mut c = conversation();
        let answer = c.messages[1].clone();
        assert!(c.start_version(0, "Why is the sky blue, really?".into()));
        c.messages.push(answer);
        let with = to_markdown_all(std::slice::from_ref(&c), true);
        assert_eq!(with, to_markdown(&c));
        assert!(
            with.contains("<details>") && with.contains("Rayleigh."),
            "{with}"
        );
        let without = to_markdown_all(std::slice::from_ref(&c), false);
        assert!(!without.contains("<details>"), "{without}");
        assert!(!without.contains("Rayleigh"), "{without}");
        assert!(!without.contains("Thought for"), "{without}");
        // The rest reads as before: the answer and the note on the versions.
        assert!(without.contains("Blue scatters."), "{without}");
        assert!(
            without.contains("*Version 2 of 2 of this turn"),
            "{without}"
        );
        assert_only_own_html(&without);
    }

    #[test]
    fn markdown_of_all_puts_each_conversation_under_its_own_heading() {
        let first = conversation();
        let mut second = conversation();
        second.title = "Second".into();
        if let Message::Assistant(turn) = &mut second.messages[1] {
            // A fence left open must not swallow the rule or the next title.
            turn.blocks.push(Block::Answer {
                text: "```\nopen".into(),
            });
        }
        let third = Conversation::new("x".into(), 0.0);
        let md = to_markdown_all(&[first, second, third], true);
        let headings: Vec<String> = Parser::new_ext(&md, GITHUB)
            .scan(false, |inside, event| {
                Some(match event {
                    Event::Start(Tag::Heading { .. }) => {
                        *inside = true;
                        None
                    }
                    Event::End(TagEnd::Heading(_)) => {
                        *inside = false;
                        None
                    }
                    Event::Text(text) if *inside => Some(text.to_string()),
                    _ => None,
                })
            })
            .flatten()
            .collect();
        assert_eq!(
            headings,
            ["Why is the sky blue?", "Second", "Conversation"],
            "{md}"
        );
        let rules = Parser::new_ext(&md, GITHUB)
            .filter(|e| matches!(e, Event::Rule))
            .count();
        assert_eq!(rules, 2, "{md}");
        assert_eq!(md.matches("<details>").count(), 2, "{md}");
        assert_only_own_html(&md);
    }

    #[test]
    fn export_file_names_say_what_the_file_holds() {
        let c = conversation();
        assert_eq!(
            export_file_name(Some(&c), true, "md"),
            "pensive-why-is-the-sky-blue.md"
        );
        assert_eq!(
            export_file_name(Some(&c), false, "json"),
            "pensive-why-is-the-sky-blue-without-reasoning.json"
        );
        assert_eq!(
            export_file_name(None, true, "json"),
            "pensive-all-conversations.json"
        );
        assert_eq!(
            export_file_name(None, false, "md"),
            "pensive-all-conversations-without-reasoning.md"
        );
    }
}
