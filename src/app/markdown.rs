//! Markdown to safe HTML: pulldown-cmark renders, raw HTML written by the model
//! is shown as text, and ammonia removes anything executable that remains
//! (javascript: links, event handlers). Pure; runs on both sides.

use pulldown_cmark::{html, Event, Options, Parser};

/// Renders model-written markdown as sanitized HTML.
pub fn render_markdown(source: &str) -> String {
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_FOOTNOTES;
    // Raw HTML in a model's output is content, not markup: show it as text.
    let events = Parser::new_ext(source, options).map(|event| match event {
        Event::Html(raw) | Event::InlineHtml(raw) => Event::Text(raw),
        other => other,
    });
    let mut rendered = String::with_capacity(source.len() * 3 / 2);
    html::push_html(&mut rendered, events);
    ammonia::Builder::default()
        .url_schemes(["http", "https", "mailto"].into_iter().collect())
        .clean(&rendered)
        .to_string()
}

/// Where the finished part of a growing markdown text ends: right after a
/// blank line outside any fenced code block, when the next line has started
/// and is not indented (so list continuations stay with their list). `from`
/// must be an earlier result (or 0): scanning starts there, so the cost is
/// proportional to the new text, not to everything before it.
pub fn stable_end(text: &str, from: usize) -> usize {
    let bytes = text.as_bytes();
    let mut fence: Option<(u8, usize)> = None;
    let mut stable = from;
    let mut line_start = from;
    let mut previous_blank = false;
    while let Some(offset) = text.get(line_start..).and_then(|rest| rest.find('\n')) {
        let line = &text[line_start..line_start + offset];
        let next = line_start + offset + 1;
        let trimmed = line.trim_start_matches(' ');
        let indent = line.len() - trimmed.len();
        let run_char = trimmed.bytes().next().filter(|c| *c == b'`' || *c == b'~');
        if let (Some(c), true) = (run_char, indent <= 3) {
            let run = trimmed.bytes().take_while(|b| *b == c).count();
            if run >= 3 {
                fence = match fence {
                    None => Some((c, run)),
                    Some((open, len))
                        if open == c && run >= len && trimmed[run..].trim().is_empty() =>
                    {
                        None
                    }
                    other => other,
                };
            }
        }
        let blank = line.trim().is_empty();
        if previous_blank && fence.is_none() && !blank && !line.starts_with([' ', '\t']) {
            stable = line_start;
        }
        previous_blank = blank && fence.is_none();
        line_start = next;
    }
    // A blank line just completed: stable once the next line shows it is not indented.
    if previous_blank
        && line_start < bytes.len()
        && !matches!(bytes[line_start], b' ' | b'\t' | b'\n')
    {
        stable = line_start;
    }
    stable
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_common_markdown() {
        let html = render_markdown("# Title\n\n**bold** and `code`\n\n- a\n- b\n");
        assert!(html.contains("<h1>Title</h1>"));
        assert!(html.contains("<strong>bold</strong>"));
        assert!(html.contains("<code>code</code>"));
        assert!(html.contains("<li>a</li>"));
    }

    #[test]
    fn raw_html_is_shown_as_text_not_markup() {
        let html = render_markdown("hello <script>alert(1)</script> <img src=x onerror=alert(1)>");
        assert!(!html.contains("<script"));
        assert!(!html.contains("<img"));
        assert!(html.contains("&lt;script&gt;"));
    }

    #[test]
    fn dangerous_links_lose_their_target() {
        let html = render_markdown("[click](javascript:alert(1)) [ok](https://example.com)");
        assert!(!html.contains("javascript:"));
        assert!(html.contains("href=\"https://example.com\""));
        assert!(html.contains("rel=\"noopener noreferrer\""));
    }

    #[test]
    fn stable_end_stops_after_finished_paragraphs_only() {
        let text = "First para.\n\nSecond para.\n\nThird, still stre";
        let end = stable_end(text, 0);
        assert_eq!(&text[..end], "First para.\n\nSecond para.\n\n");
        // Nothing new is finished: the same end, scanning only the tail.
        assert_eq!(stable_end(text, end), end);
    }

    #[test]
    fn stable_end_never_splits_inside_a_fence_or_before_an_indented_line() {
        let text = "```\ncode\n\nmore code\n```\n\nAfter";
        assert_eq!(
            &text[..stable_end(text, 0)],
            "```\ncode\n\nmore code\n```\n\n"
        );
        let list = "1. item\n\n   continued\n";
        assert_eq!(stable_end(list, 0), 0);
        assert_eq!(stable_end("a\n\n", 0), 0, "the next line has not started");
    }

    #[test]
    fn rendering_in_stable_pieces_equals_rendering_whole_for_paragraphs_and_code() {
        let text = "# Title\n\nSome **bold** text.\n\n```rust\nfn x() {}\n\n// gap\n```\n\n- a\n- b\n\nEnd.";
        let mut pieces = String::new();
        let mut from = 0;
        for cut in 1..=text.len() {
            if !text.is_char_boundary(cut) {
                continue;
            }
            let end = stable_end(&text[..cut], from);
            if end > from {
                pieces.push_str(&render_markdown(&text[from..end]));
                from = end;
            }
        }
        pieces.push_str(&render_markdown(&text[from..]));
        assert_eq!(pieces, render_markdown(text));
    }

    #[test]
    fn code_blocks_keep_their_content_escaped() {
        let html = render_markdown("```html\n<b>x</b>\n```");
        assert!(html.contains("&lt;b&gt;x&lt;/b&gt;"));
    }
}
