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
    fn code_blocks_keep_their_content_escaped() {
        let html = render_markdown("```html\n<b>x</b>\n```");
        assert!(html.contains("&lt;b&gt;x&lt;/b&gt;"));
    }
}
