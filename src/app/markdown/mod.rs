//! Markdown to safe HTML. pulldown-cmark parses and writes the HTML; this module
//! rewrites the event stream in between so that everything the writer can emit
//! is inert. Pure; runs on both sides.
//!
//! The writer only ever emits its own fixed tags, and the model's text reaches
//! the output escaped. What remains to control are the attributes that carry
//! model-chosen values, and those are handled event by event:
//! - raw HTML written by the model becomes text (shown, never parsed);
//! - link targets must be relative or http(s)/mailto, otherwise the link is
//!   dropped and its text kept; allowed links get `rel="noopener noreferrer"`;
//! - images are never loaded (a remote image would leak the reader's address
//!   and whatever the URL encodes, and the page's CSP blocks them anyway): an
//!   image becomes a link to it, labelled with its alt text;
//! - no anchor inside an anchor: inside a written link, nested links, images
//!   and footnote references are their text;
//! - a code block's language becomes a `language-…` class only if it is one
//!   plain word (a tab or entity in it would otherwise add classes of the app's);
//!   the block is written by `code_block.rs` (a header with the language's
//!   label and a copy button) with its lines highlighted by `highlight/`,
//!   which adds nothing but `hl-…` spans around escaped text;
//! - table alignment would be a `style` attribute, which the CSP refuses: dropped;
//! - footnotes carry no ids or links: a label would be an id in the page's
//!   namespace, the same label recurs across blocks and messages, and the
//!   streaming view renders pieces separately (so numbers would restart);
//!   a reference shows its label, a definition starts with it;
//! - heading ids and classes (unreachable with today's options) are cleared, so
//!   enabling an option later cannot open a hole here.
//!
//! - math (`$…$`, `$$…$$`, and `\(…\)`, `\[…\]` via `delimiters.rs`) becomes
//!   MathML that passes an allow-list of its own (`math/`), or
//!   its source as code; a closing `$` followed by a digit ends no formula
//!   ("$5-$10" is two prices), the rule Pandoc adds to pulldown-cmark's.
//!
//! Then, as the last pass over every fragment, ammonia (`sanitize.rs`) keeps
//! exactly the tags, attributes, classes and schemes written here: defence in
//! depth, so that a hole in this filter or in the MathML allow-list still lets
//! nothing run or load. On this module's own output it changes nothing a
//! browser would see.

// The renderer's safety property as a checker: for its tests and `make fuzz` only.
#[cfg(any(test, fuzzing))]
pub mod check;
pub mod code_block;
mod delimiters;
mod escape;
pub mod highlight;
mod math;
mod remend;
mod sanitize;
pub mod stream_render;
pub mod stream_split;

pub(crate) use sanitize::sanitize;

use std::ops::Range;

use pulldown_cmark::{
    html, Alignment, CodeBlockKind, CowStr, Event, LinkType, Options, Parser, Tag, TagEnd,
};
use pulldown_cmark_escape::{escape_href, escape_html};

use delimiters::Prepared;
use escape::escaped;
use highlight::LineHighlighter;

/// URL schemes a link may use. Anything else with a scheme (javascript:, data:,
/// vbscript:, file:, …) is refused; references without a scheme are relative.
pub(crate) const LINK_SCHEMES: [&str; 3] = ["http", "https", "mailto"];
/// Images become links; `mailto:` makes no sense for them.
const IMAGE_SCHEMES: [&str; 2] = ["http", "https"];

/// The markdown the renderer reads (the streaming view's cuts read the same).
pub(crate) const OPTIONS: Options = Options::ENABLE_TABLES
    .union(Options::ENABLE_STRIKETHROUGH)
    .union(Options::ENABLE_TASKLISTS)
    .union(Options::ENABLE_FOOTNOTES)
    .union(Options::ENABLE_MATH);

/// Deepest nesting of containers (block quotes, lists, list items, footnote
/// definitions) written as markup; deeper levels show as their text at this
/// depth. An HTML parse (the sanitizer's) is quadratic in nesting depth:
/// 20 000 `>` took 8 s in the browser and froze the tab, on every reload.
pub const MAX_CONTAINER_DEPTH: usize = 32;

/// Renders model-written markdown as inert HTML.
pub fn render_markdown(source: &str) -> String {
    // The last pass, always: defence in depth behind the event filter.
    sanitize(&render_events(source))
}

/// The HTML the filtered event stream writes, before the sanitizer's pass.
fn render_events(source: &str) -> String {
    let options = OPTIONS;
    let prepared = delimiters::prepare(source, options);
    let mut filter = EventFilter::default();
    let events = Parser::new_ext(&prepared.source, options)
        .into_offset_iter()
        .filter_map(|(event, range)| match event {
            Event::InlineMath(tex) => Some(math_event(&prepared, &tex, false, range)),
            Event::DisplayMath(tex) => Some(math_event(&prepared, &tex, true, range)),
            event => filter.apply(event),
        });
    let mut rendered = String::with_capacity(source.len() * 3 / 2);
    html::push_html(&mut rendered, events);
    rendered
}

/// A formula at `range` of the prepared source, as MathML (or its source as
/// code); an inline one whose closing `$` a digit follows, as the text it is.
fn math_event<'a>(
    prepared: &'a Prepared<'_>,
    tex: &str,
    display: bool,
    range: Range<usize>,
) -> Event<'a> {
    let source = &prepared.source;
    let written = prepared.converted_at(range.start);
    let price = !display
        && written.is_none()
        && source
            .as_bytes()
            .get(range.end)
            .is_some_and(u8::is_ascii_digit);
    if price {
        return Event::Text(CowStr::Borrowed(&source[range]));
    }
    let shown = match written {
        Some(written) => {
            let (open, close) = written.delimiters();
            format!("{open}{tex}{close}")
        }
        None => source[range].to_owned(),
    };
    Event::InlineHtml(math::render_math(tex, display, &shown).into())
}

/// Rewrites parser events so the HTML writer emits only inert markup. Keeps, per
/// open link or image, whether an `<a>` was written for it, so its end matches,
/// and whether one is open now, so none is written inside another (at most one
/// is ever open).
#[derive(Default)]
struct EventFilter {
    open_anchors: Vec<bool>,
    in_written_anchor: bool,
    /// The code block being read: its highlighter and its text so far.
    code: Option<(LineHighlighter, String)>,
    /// Containers open now, written or not (see `MAX_CONTAINER_DEPTH`).
    container_depth: usize,
}

impl EventFilter {
    /// A container within the depth cap, as written: footnote definitions
    /// carry no id (see the module's notes), the others as they are.
    fn written_container<'a>(&self, event: Event<'a>) -> Option<Event<'a>> {
        Some(match event {
            Event::Start(Tag::FootnoteDefinition(label)) => Event::Html(
                format!(
                    "<div class=\"footnote-definition\"><sup class=\"footnote-definition-label\">{}</sup>",
                    escaped(&label)
                )
                .into(),
            ),
            Event::End(TagEnd::FootnoteDefinition) => Event::Html(CowStr::Borrowed("</div>\n")),
            event => event,
        })
    }

    fn apply<'a>(&mut self, event: Event<'a>) -> Option<Event<'a>> {
        match event {
            // Containers past the cap are not written: their content stays,
            // at the deepest level written.
            Event::Start(
                Tag::BlockQuote(_) | Tag::List(_) | Tag::Item | Tag::FootnoteDefinition(_),
            ) => {
                self.container_depth += 1;
                if self.container_depth > MAX_CONTAINER_DEPTH {
                    return None;
                }
                self.written_container(event)
            }
            Event::End(
                TagEnd::BlockQuote(_) | TagEnd::List(_) | TagEnd::Item | TagEnd::FootnoteDefinition,
            ) => {
                let written = self.container_depth <= MAX_CONTAINER_DEPTH;
                self.container_depth = self.container_depth.saturating_sub(1);
                if written {
                    self.written_container(event)
                } else {
                    None
                }
            }
            // Raw HTML in a model's output is content, not markup: show it as text.
            Event::Html(raw) | Event::InlineHtml(raw) => Some(Event::Text(raw)),
            Event::Start(Tag::Link {
                link_type,
                dest_url,
                title,
                ..
            }) => {
                let allowed = !self.in_written_anchor
                    && (link_type == LinkType::Email || url_allowed(&dest_url, &LINK_SCHEMES));
                self.open_anchor(
                    allowed,
                    link_type == LinkType::Email,
                    &dest_url,
                    &title,
                    None,
                )
            }
            Event::Start(Tag::Image {
                dest_url, title, ..
            }) => {
                let allowed = !self.in_written_anchor && url_allowed(&dest_url, &IMAGE_SCHEMES);
                self.open_anchor(allowed, false, &dest_url, &title, Some("md-image"))
            }
            Event::End(TagEnd::Link | TagEnd::Image) => {
                let written = self.open_anchors.pop()?;
                written.then(|| {
                    self.in_written_anchor = false;
                    Event::InlineHtml(CowStr::Borrowed("</a>"))
                })
            }
            // A code block is written whole at its end, highlighted, inside
            // its header (label, copy button): `code_block.rs`.
            Event::Start(Tag::CodeBlock(kind)) => {
                let info = match &kind {
                    CodeBlockKind::Fenced(info) => info.as_ref(),
                    CodeBlockKind::Indented => "",
                };
                self.code = Some((LineHighlighter::for_info(info), String::new()));
                None
            }
            Event::Text(text) if self.code.is_some() => {
                if let Some((_, code)) = &mut self.code {
                    code.push_str(&text);
                }
                None
            }
            Event::End(TagEnd::CodeBlock) => {
                let (highlighter, code) = self.code.take()?;
                let mut html = String::with_capacity(code.len() * 2 + 200);
                code_block::block_html(highlighter, &code, &mut html);
                Some(Event::Html(html.into()))
            }
            Event::Start(Tag::Heading { level, .. }) => Some(Event::Start(Tag::Heading {
                level,
                id: None,
                classes: Vec::new(),
                attrs: Vec::new(),
            })),
            Event::Start(Tag::Table(alignments)) => Some(Event::Start(Tag::Table(vec![
                Alignment::None;
                alignments.len()
            ]))),
            Event::FootnoteReference(label) => Some(Event::InlineHtml(
                format!(
                    "<sup class=\"footnote-reference\">{}</sup>",
                    escaped(&label)
                )
                .into(),
            )),
            other => Some(other),
        }
    }

    /// Writes `<a …>` for an allowed target (our own markup, so it travels as
    /// HTML; every model-chosen value in it is escaped) or nothing, leaving the
    /// link's text as plain text.
    fn open_anchor<'a>(
        &mut self,
        allowed: bool,
        email: bool,
        url: &str,
        title: &str,
        class: Option<&str>,
    ) -> Option<Event<'a>> {
        self.open_anchors.push(allowed);
        if !allowed {
            return None;
        }
        self.in_written_anchor = true;
        let mut anchor = String::from("<a href=\"");
        if email {
            anchor.push_str("mailto:");
        }
        // Writing into a String cannot fail.
        let _ = escape_href(&mut anchor, &browser_url(url));
        if !title.is_empty() {
            anchor.push_str("\" title=\"");
            let _ = escape_html(&mut anchor, title);
        }
        if let Some(class) = class {
            anchor.push_str("\" class=\"");
            anchor.push_str(class);
        }
        anchor.push_str("\" rel=\"noopener noreferrer\">");
        Some(Event::InlineHtml(anchor.into()))
    }
}

/// `url` as a browser reads it: without tabs and newlines anywhere and without
/// controls and spaces before it. Links are checked and written in this form,
/// so the href on the page is the one that was checked (written as is, a tab
/// would be escaped to `%09`, which browsers keep).
fn browser_url(url: &str) -> String {
    let cleaned: String = url
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    cleaned.trim_start_matches(|c: char| c <= ' ').to_owned()
}

/// Whether a browser would resolve `url` to one of `schemes`, or to a relative
/// reference (read as `browser_url` does). Any colon before the first `/`, `?`
/// or `#` makes the prefix a scheme candidate, and only the listed ones pass:
/// stricter than the URL standard, never looser.
pub(crate) fn url_allowed(url: &str, schemes: &[&str]) -> bool {
    let cleaned = browser_url(url);
    match cleaned.find([':', '/', '?', '#']) {
        Some(at) if cleaned[at..].starts_with(':') => {
            let scheme = &cleaned[..at];
            schemes
                .iter()
                .any(|allowed| scheme.eq_ignore_ascii_case(allowed))
        }
        _ => true,
    }
}

/// The language of a fenced code block, for its `language-…` class: the info
/// string's first word if it is one plain word, else none. The writer splits only
/// on spaces, and the info string is entity-decoded, so a tab would smuggle in a
/// second class.
fn code_language(info: &str) -> CowStr<'static> {
    let word = info.split_ascii_whitespace().next().unwrap_or("");
    let plain = word
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'+' | b'#' | b'.' | b'-'));
    CowStr::from(if plain {
        word.to_owned()
    } else {
        String::new()
    })
}

/// Nesting: no input nests the HTML deeper than the cap.
#[cfg(test)]
mod depth_tests {
    use super::*;

    /// The deepest element nesting in `html` (void and self-closing tags aside).
    fn deepest(html: &str) -> usize {
        let (mut depth, mut deepest) = (0usize, 0usize);
        let mut rest = html;
        while let Some(at) = rest.find('<') {
            rest = &rest[at + 1..];
            let end = rest.find('>').unwrap_or(rest.len());
            let tag = &rest[..end];
            if tag.starts_with('/') {
                depth = depth.saturating_sub(1);
            } else if !tag.ends_with('/')
                && !matches!(
                    tag.split([' ', '/']).next(),
                    Some("br" | "hr" | "input" | "img")
                )
            {
                depth += 1;
                deepest = deepest.max(depth);
            }
        }
        deepest
    }

    #[test]
    fn nested_quotes_lists_and_items_stop_at_the_cap_and_keep_their_text() {
        for (what, source) in [
            ("quotes", format!("{} deep", ">".repeat(20_000))),
            ("spaced quotes", format!("{}deep", "> ".repeat(20_000))),
            ("lists", format!("{}deep", "- ".repeat(20_000))),
            ("ordered lists", format!("{}deep", "1. ".repeat(5_000))),
        ] {
            let html = render_markdown(&source);
            assert!(html.contains("deep"), "{what}: the text is kept");
            // What the sanitizer parses (its parse is the quadratic part):
            // each level is at most two elements (a list and its item).
            let written = render_events(&source);
            assert!(
                deepest(&written) <= 2 * MAX_CONTAINER_DEPTH + 4,
                "{what}: {} levels",
                deepest(&written)
            );
        }
        // Below the cap nothing changes.
        let shallow = render_markdown("> > > quoted thrice");
        assert_eq!(shallow.matches("<blockquote>").count(), 3, "{shallow}");
        let footnote = render_markdown("See[^n].\n\n[^n]: the note");
        assert!(footnote.contains("footnote-definition-label"), "{footnote}");
    }
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
    fn dangerous_links_lose_their_target_and_keep_their_text() {
        let html = render_markdown("[click](javascript:alert(1)) [ok](https://example.com)");
        assert!(!html.contains("javascript"));
        assert!(html.contains("click"));
        assert!(html.contains("<a href=\"https://example.com\" rel=\"noopener noreferrer\">ok</a>"));
    }

    #[test]
    fn link_schemes_are_read_the_way_browsers_read_them() {
        for hostile in [
            "[x](javascript:alert(1))",
            "[x](JaVaScRiPt:alert(1))",
            "[x](&#106;avascript:alert(1))",
            "[x](&#x6A;avascript&#58;alert(1))",
            "[x](<java\tscript:alert(1)>)",
            "[x](<java\nscript:alert(1)>)",
            "[x](<\u{1}javascript:alert(1)>)",
            "[x](vbscript:msgbox)",
            "[x](data:text/html;base64,PHNjcmlwdD4=)",
            "[x](file:///etc/passwd)",
            "<javascript:alert(1)>",
            "[x][r]\n\n[r]: javascript:alert(1)",
        ] {
            let html = render_markdown(hostile);
            assert!(!html.contains("<a"), "{hostile:?} rendered a link: {html}");
        }
        for (fine, href) in [
            (
                "[x](https://example.com/a?b=c#d)",
                "https://example.com/a?b=c#d",
            ),
            ("[x](HTTP://example.com)", "HTTP://example.com"),
            ("[x](mailto:me@example.com)", "mailto:me@example.com"),
            ("<me@example.com>", "mailto:me@example.com"),
            ("<https://example.com>", "https://example.com"),
            ("[x](/docs/page)", "/docs/page"),
            ("[x](#section)", "#section"),
            ("[x](page?q=a:b)", "page?q=a:b"),
        ] {
            let html = render_markdown(fine);
            assert!(
                html.contains(&format!("href=\"{href}\"")),
                "{fine:?} lost its link: {html}"
            );
        }
    }

    #[test]
    fn the_written_href_is_the_one_that_was_checked() {
        // A fuzz finding: the entity is a tab, which the check dropped but the
        // writer escaped to `%09`, so the page held a different (relative) URL.
        let html = render_markdown("![i](&Tab;https://e.com/i.png) [x](<\u{1} java\tscript:y>)");
        assert!(html.contains("<a href=\"https://e.com/i.png\""), "{html}");
        assert_eq!(html.matches("<a ").count(), 1, "{html}");
        assert_inert(&html);
    }

    #[test]
    fn link_attributes_cannot_be_broken_out_of() {
        let html = render_markdown(r#"[x](https://e.com/"onmouseover="alert(1) "t\"onclick=\"y")"#);
        assert!(!html.contains("\"onmouseover"), "{html}");
        assert!(!html.contains("\"onclick"), "{html}");
        assert!(html.contains("title=\"t&quot;onclick=&quot;y\""), "{html}");
    }

    #[test]
    fn images_are_never_loaded_but_become_labelled_links() {
        let html = render_markdown(
            "![a *cat*](https://example.com/cat.png) ![x](data:image/png;base64,AAAA)",
        );
        assert!(!html.contains("<img"), "{html}");
        assert!(html.contains(
            "<a href=\"https://example.com/cat.png\" class=\"md-image\" rel=\"noopener noreferrer\">a <em>cat</em></a>"
        ));
        assert!(!html.contains("data:"), "{html}");
        // Inside a link, an image is its alt text: no anchor in an anchor.
        let nested = render_markdown("[![logo](https://e.com/l.png)](https://e.com)");
        assert_eq!(nested.matches("<a ").count(), 1, "{nested}");
        assert!(nested.contains(">logo</a>"), "{nested}");
    }

    #[test]
    fn code_block_languages_cannot_add_classes() {
        for (hostile, opening) in [
            (
                "```x\tvisually-hidden\nsecret\n```",
                "<pre tabindex=\"0\"><code class=\"language-x\">secret",
            ),
            (
                "```x&#9;visually-hidden\nsecret\n```",
                "<pre tabindex=\"0\"><code class=\"language-x\">secret",
            ),
            (
                "```x&#10;copy-button\nsecret\n```",
                "<pre tabindex=\"0\"><code class=\"language-x\">secret",
            ),
            (
                "```\"onclick\nsecret\n```",
                "<pre tabindex=\"0\"><code>secret",
            ),
            (
                "```rust ignore\nfn x() {}\n```",
                "<pre tabindex=\"0\"><code class=\"language-rust\"><span class=\"hl-kw\">fn",
            ),
        ] {
            let html = render_markdown(hostile);
            assert!(html.contains(opening), "{hostile:?}: {html}");
            assert!(!html.contains("visually-hidden"), "{hostile:?}: {html}");
            assert_eq!(
                html.matches("copy-button").count(),
                0,
                "{hostile:?}: {html}"
            );
            assert_inert(&html);
        }
    }

    #[test]
    fn code_blocks_get_a_label_a_copy_button_and_highlighted_lines() {
        let html = render_markdown(
            "Three:\n\n```rust\nfn main() {}\n```\n\n```py\nx = \"<b>\"  # hi\n```\n\n```diff\n-a\n+b\n```\n",
        );
        let button =
            "<button type=\"button\" class=\"code-copy\" aria-label=\"Copy code\">Copy</button>";
        assert_eq!(html.matches(button).count(), 3, "{html}");
        for (label, class) in [("Rust", "rust"), ("Python", "py"), ("Diff", "diff")] {
            let head = format!(
                "<div class=\"code-block\"><div class=\"code-head\"><span class=\"code-lang\">{label}</span>{button}</div><pre tabindex=\"0\"><code class=\"language-{class}\">"
            );
            assert!(html.contains(&head), "{label}: {html}");
        }
        assert!(
            html.contains("<span class=\"hl-kw\">fn</span> <span class=\"hl-fn\">main</span>() {}\n</code></pre></div>"),
            "{html}"
        );
        assert!(
            html.contains("x = <span class=\"hl-str\">\"&lt;b&gt;\"</span>  <span class=\"hl-com\"># hi</span>\n"),
            "{html}"
        );
        assert!(
            html.contains("<span class=\"hl-del\">-a</span>\n<span class=\"hl-add\">+b</span>"),
            "{html}"
        );
        assert_inert(&html);
    }

    #[test]
    fn blocks_without_a_known_language_are_plain_with_a_button() {
        for (source, label) in [
            ("```\nfn x\n```\n", None),
            ("    fn x\n", None),
            ("```my-lang\nfn x\n```\n", Some("my-lang")),
            ("```x&lt;script&gt;\nfn x\n```\n", None),
        ] {
            let html = render_markdown(source);
            assert!(html.contains("class=\"code-copy\""), "{source:?}: {html}");
            assert!(
                html.contains(">fn x\n</code></pre></div>"),
                "{source:?}: {html}"
            );
            assert!(!html.contains("hl-"), "{source:?}: {html}");
            match label {
                Some(label) => assert!(
                    html.contains(&format!("<span class=\"code-lang\">{label}</span>")),
                    "{source:?}: {html}"
                ),
                None => assert!(!html.contains("code-lang"), "{source:?}: {html}"),
            }
            assert_inert(&html);
        }
    }

    #[test]
    fn links_never_nest_inside_written_links() {
        for nested in [
            "![[a](https://x.com)](https://y.com)",
            "[<https://a.com>](https://b.com)",
            "[see[^n]](https://b.com)\n\n[^n]: Note.",
        ] {
            let html = render_markdown(nested);
            let anchors = html.matches("<a ").count();
            assert!(anchors <= 1, "{nested:?}: {html}");
            assert_eq!(html.matches("</a>").count(), anchors, "{nested:?}: {html}");
        }
    }

    #[test]
    fn tables_carry_no_style_attributes() {
        let html = render_markdown("| a | b |\n|:--|--:|\n| 1 | 2 |\n");
        assert!(html.contains("<table>"));
        assert!(html.contains("<td>2</td>"), "{html}");
        assert!(!html.contains("style"), "{html}");
    }

    #[test]
    fn footnotes_show_their_labels_escaped_and_carry_no_ids() {
        let html = render_markdown(
            "See[^app].\n\n[^app]: A note.\n\nAnd[^\"x].\n\n[^\"x]: Q.\n\n[see[^n]](https://b.com)\n\n[^n]: N.\n",
        );
        assert!(
            html.contains("See<sup class=\"footnote-reference\">app</sup>."),
            "{html}"
        );
        assert!(html.contains("<div class=\"footnote-definition\"><sup class=\"footnote-definition-label\">app</sup>"), "{html}");
        // Text, so the quote ends nothing (the sanitizer writes text quotes bare).
        assert!(
            html.contains("<sup class=\"footnote-reference\">\"x</sup>"),
            "{html}"
        );
        assert!(!html.contains(" id="), "{html}");
        assert!(!html.contains("href=\"#"), "{html}");
        // A reference in a link's text is never a second anchor.
        assert!(html.matches("<a ").count() <= 1, "{html}");
    }

    #[test]
    fn task_lists_render_as_disabled_checkboxes() {
        let html = render_markdown("- [x] done\n- [ ] open\n");
        assert!(
            html.contains("<input disabled=\"\" type=\"checkbox\" checked=\"\">"),
            "{html}"
        );
    }

    /// Pieces that combine into links, images, raw HTML, entities, tables and
    /// footnotes in every order: the property below must hold for all of them.
    pub(super) const HOSTILE_PIECES: &[&str] = &[
        "[",
        "]",
        "(",
        ")",
        "<",
        ">",
        "!",
        "\"",
        "'",
        "`",
        "*",
        "|",
        ":--|",
        "\n",
        "\n\n",
        " ",
        "\t",
        "[^a]",
        "[^a]: ",
        "javascript:",
        "JAVASCRIPT&#58;",
        "&#106;",
        "java\tscript:",
        "data:text/html,",
        "vbscript:",
        "https://e.com/",
        "mailto:m@e.com",
        "//e.com",
        "#x",
        "<script>",
        "</script>",
        "<img src=x onerror=alert(1)>",
        "<a href=\"javascript:x\">",
        "onclick=",
        " style=\"x\"",
        "<svg onload=x>",
        "&lt;",
        "&amp;",
        "[r]: javascript:x",
        "[r]",
        "- [x] ",
        "```\n",
        "> ",
        "1. ",
        "```x\ty\n",
        "```x&#9;visually-hidden\n",
        "```rust\n",
        "![",
        "[<https://a>](https://b)",
        "# ",
        "$",
        "$$",
        "\\(",
        "\\)",
        "\\[",
        "\\]",
        "x^2",
        "\\frac{1}{3}",
        "\\text{<a href=x onclick=y>}",
        "\\href{javascript:alert(1)}{x}",
        "\\href{data:text/html,x}{y}",
        "\\url{javascript:x}",
        "\\htmlClass{copy-button}{x}",
        "\\style{color:red}{x}",
        "\\unicode{x3C}",
        "\\color{red}",
        "\\textbf{b}",
        "\\begin{cases}",
        "\\end{cases}",
        " & ",
        "\\\\",
        "{",
        "}",
        "5",
        // Raw HTML as a formula and in its text; links to trackers, data: images.
        "$<img src=x onerror=alert(1)>$",
        "\\text{<a href=\"javascript:x\">t</a>}",
        "\\href{https://t.invalid/x}{y}",
        "\\url{data:image/svg+xml,<svg onload=x>}",
        "\\htmlClass{code-copy}{x}",
        // Fence info strings that close the class, open a script or name a URL.
        "```\"><script>alert(1)</script>\n",
        "```data:text/html,<script>x</script>\n",
        "```js\" onclick=\"x\n",
        "```html\n",
        "~~~",
    ];

    /// Panics with the violation, so the property test shows the input.
    fn assert_inert(html: &str) {
        if let Some(violation) = crate::app::markdown::check::inert_violation(html) {
            panic!("{violation} in {html}");
        }
    }

    /// How a browser resolves each href in `html`: the scheme the WHATWG URL
    /// parser (the `url` crate, independent of `url_allowed`) gives it on a page.
    /// Only real tags count: text never holds a raw `<`, so a tag is `<…>`.
    fn href_schemes(html: &str) -> Vec<String> {
        let page = url::Url::parse("https://pensive.invalid/chat").expect("a valid base");
        html.split('<')
            .skip(1)
            .filter_map(|rest| rest.split('>').next())
            .filter_map(|tag| tag.split(" href=\"").nth(1))
            .map(|value| {
                let raw = &value[..value.find('"').unwrap_or(value.len())];
                let href = raw.replace("&amp;", "&").replace("&#x27;", "'");
                page.join(&href)
                    .map(|u| u.scheme().to_owned())
                    .unwrap_or_else(|_| "unparsable".into())
            })
            .collect()
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 2048, ..Default::default() })]
        #[test]
        fn every_href_resolves_to_an_allowed_scheme_in_a_browser(
            pieces in proptest::collection::vec(proptest::sample::select(HOSTILE_PIECES), 0..32)
        ) {
            let html = render_markdown(&pieces.concat());
            for scheme in href_schemes(&html) {
                proptest::prop_assert!(
                    ["http", "https", "mailto"].contains(&scheme.as_str()),
                    "scheme {scheme} in {html}"
                );
            }
        }

        #[test]
        fn any_mix_of_hostile_pieces_renders_inert(
            pieces in proptest::collection::vec(proptest::sample::select(HOSTILE_PIECES), 0..32)
        ) {
            assert_inert(&render_markdown(&pieces.concat()));
        }
    }

    #[test]
    fn all_four_delimiters_render_mathml() {
        for (source, display) in [
            ("Area $\\pi r^2$ here.", false),
            ("Area \\(\\pi r^2\\) here.", false),
            ("Area \\( \\pi r^2 \\) here.", false),
            ("$$\\pi r^2$$", true),
            ("\\[\\pi r^2\\]", true),
            ("\\[\n\\pi r^2\n\\]\n", true),
        ] {
            let html = render_markdown(source);
            let opening = if display {
                "<math display=\"block\">"
            } else {
                "<math>"
            };
            assert!(html.contains(opening), "{source:?}: {html}");
            assert!(html.contains("<mi>π</mi>"), "{source:?}: {html}");
            assert!(!html.contains("\\pi"), "{source:?}: {html}");
            assert_inert(&html);
        }
    }

    /// LaTeX's display style draws ∑, ∏ and ∫ large, ∑ and ∏ with their
    /// limits above and below, ∫ with them at its side, lim with its limit
    /// below; text style draws them text-sized with every limit at the side.
    /// MathML Core does the same from the markup: `display="block"` is display
    /// style, and its operator dictionary gives ∑ and ∏ `largeop` and
    /// `movablelimits`, ∫ `largeop` only. So the markup must hold each limit
    /// where LaTeX puts it (under/over for ∑ ∏ lim, sub/sup for ∫), lim's
    /// `movablelimits`, and nothing that turns the dictionary's values off. How
    /// large the browser draws them depends on the font (style/main.css).
    #[test]
    fn large_operators_keep_what_makes_them_large_in_display_style() {
        for (tex, operator) in [
            (
                r"\sum_{k=1}^{n} k^2",
                r#"<munderover><mo lspace="0">∑</mo><mrow><mi>k</mi><mo lspace="0" rspace="0">=</mo><mn>1</mn></mrow><mi>n</mi></munderover>"#,
            ),
            (
                r"\prod_{i=1}^{n} x_i",
                r#"<munderover><mo lspace="0">∏</mo><mrow><mi>i</mi><mo lspace="0" rspace="0">=</mo><mn>1</mn></mrow><mi>n</mi></munderover>"#,
            ),
            (
                r"\int_0^1 f(x)\,dx",
                r#"<msubsup><mo lspace="0">∫</mo><mn>0</mn><mn>1</mn></msubsup>"#,
            ),
            (
                r"\lim_{x \to 0} \frac{\sin x}{x}",
                r#"<munder><mo movablelimits="true" lspace="0" rspace="0.1667em">lim</mo><mrow><mi>x</mi><mo stretchy="false" lspace="0" rspace="0">→</mo><mn>0</mn></mrow></munder>"#,
            ),
        ] {
            for (source, opening) in [
                (format!("$${tex}$$"), "<math display=\"block\">"),
                (format!("Inline ${tex}$ here."), "<math>"),
            ] {
                let html = render_markdown(&source);
                assert!(
                    html.contains(&format!("{opening}{operator}")),
                    "{source}: {html}"
                );
                for off in [
                    "largeop=\"false\"",
                    "movablelimits=\"false\"",
                    "displaystyle",
                    "scriptlevel",
                    "mstyle",
                ] {
                    assert!(!html.contains(off), "{source}: {off} in {html}");
                }
            }
        }
    }

    #[test]
    fn markdown_inside_a_formula_stays_latex() {
        let html =
            render_markdown("Product \\(a*b*c\\) and \\[\\begin{matrix} a \\\\ b \\end{matrix}\\]");
        assert!(!html.contains("<em>"), "{html}");
        assert_eq!(html.matches("<mtr>").count(), 2, "{html}");
    }

    #[test]
    fn prices_and_shell_variables_stay_text() {
        for source in [
            "It costs $5 and $10.",
            "Between $5-$10 a month.",
            "From $1,000-$2,000.",
            "Pay $5–$10 today",
            "US$ 3 or 3 $",
            "Run `echo $HOME` or echo $HOME and $PATH",
            "$ 5 and 6 $",
            "Prices: $5, $6.50, $7",
        ] {
            let html = render_markdown(source);
            assert!(!html.contains("<math"), "{source:?}: {html}");
            assert!(!html.contains("math-error"), "{source:?}: {html}");
            assert!(html.contains('$'), "{source:?}: {html}");
        }
        // A formula after a price still renders, and the price is intact.
        let html = render_markdown("It costs $5-$10 and $x^2$ grows.");
        assert!(html.contains("$5-$10 and <math>"), "{html}");
        let html = render_markdown("Costs $5 and \\(x\\)5 more");
        assert!(html.contains("Costs $5 and <math>"), "{html}");
    }

    #[test]
    fn code_is_never_math() {
        let html = render_markdown("`$x$` and `\\(y\\)`\n\n```\n$$z$$\n\\[w\\]\n```\n");
        assert!(!html.contains("<math"), "{html}");
        assert!(html.contains("<code>$x$</code>"), "{html}");
        assert!(html.contains("<code>\\(y\\)</code>"), "{html}");
        assert!(html.contains("$$z$$\n\\[w\\]"), "{html}");
    }

    #[test]
    fn invalid_latex_shows_its_source_as_code_and_the_rest_renders() {
        let html = render_markdown("Bad $x^^2$ and \\(\\nope{x}\\), good $x$ and **bold**.");
        assert!(
            html.contains("<code class=\"math-error\">$x^^2$</code>"),
            "{html}"
        );
        assert!(
            html.contains("<code class=\"math-error\">\\(\\nope{x}\\)</code>"),
            "{html}"
        );
        assert!(html.contains("<math><mi>x</mi></math>"), "{html}");
        assert!(html.contains("<strong>bold</strong>"), "{html}");
        assert_inert(&html);
    }

    #[test]
    fn macros_and_deep_nesting_show_as_source() {
        let bomb = render_markdown("$\\def\\a{\\a\\a}\\a$");
        assert_eq!(
            bomb,
            "<p><code class=\"math-error\">$\\def\\a{\\a\\a}\\a$</code></p>\n"
        );
        let deep = format!("$${}x{}$$", "{".repeat(5000), "}".repeat(5000));
        let html = render_markdown(&deep);
        assert!(
            html.starts_with("<p><code class=\"math-error\">$${{{{"),
            "{}",
            &html[..80]
        );
        assert!(!html.contains("<math"));
    }

    #[test]
    fn an_unclosed_formula_shows_as_source_until_it_closes() {
        // As the streaming tail renders it: the text so far.
        let partial = "The result is \\[\n\\frac{a*b*}{2} \\\\ x_1 + x_2";
        let html = render_markdown(partial);
        assert!(!html.contains("<math"), "{html}");
        assert!(!html.contains("<em>"), "{html}");
        assert!(
            html.contains("\\[\n\\frac{a*b*}{2} \\\\ x_1 + x_2"),
            "{html}"
        );
        let inline = render_markdown("So $\\frac{1}{2");
        assert_eq!(inline, "<p>So $\\frac{1}{2</p>\n");
        // Closed, the same text is a formula.
        let html = render_markdown(&format!("{partial}\n\\]"));
        assert!(html.contains("<math display=\"block\">"), "{html}");
    }

    #[test]
    fn hostile_latex_produces_no_link_style_handler_or_foreign_class() {
        for tex in [
            "\\href{javascript:alert(1)}{x}",
            "\\href{data:text/html;base64,PHNjcmlwdD4=}{x}",
            "\\url{javascript:alert(1)}",
            "\\htmlClass{copy-button}{x}",
            "\\htmlId{x}{y}",
            "\\style{color:red}{x}",
            "\\unicode{x3C}",
            "\\text{<a href=\"javascript:x\" onclick=\"y\">}",
            "\\text{<script>alert(1)</script>}",
            "<img src=x onerror=alert(1)>",
            "\\color{red}{x}",
            "\\textsc{small caps}",
            "\\eqref{x}",
        ] {
            for source in [
                format!("${tex}$"),
                format!("\\({tex}\\)"),
                format!("\\[{tex}\\]"),
                format!("$${tex}$$"),
            ] {
                // Text never holds a raw `<`: these find tags only.
                let html = render_markdown(&source);
                for tag in ["<a ", "<script", "<img", "<svg", " style=", " href="] {
                    assert!(!html.contains(tag), "{source}: {tag} in {html}");
                }
                let handler = html
                    .split('<')
                    .filter_map(|rest| rest.split('>').next())
                    .any(|tag| tag.contains(" on"));
                assert!(!handler, "{source}: {html}");
                assert_inert(&html);
            }
        }
    }

    #[test]
    fn code_blocks_keep_their_content_escaped() {
        let html = render_markdown(
            "```html\n<b>x</b>\n```\n\n```js\n</span><script>alert(1)</script>\n```",
        );
        assert!(!html.contains("<b>") && !html.contains("<script"), "{html}");
        let text = highlight::HIGHLIGHT_CLASSES
            .iter()
            .fold(html.replace("</span>", ""), |text, class| {
                text.replace(&format!("<span class=\"{class}\">"), "")
            });
        assert!(text.contains("&lt;b&gt;x&lt;/b&gt;"), "{html}");
        assert!(
            text.contains("&lt;/span&gt;&lt;script&gt;alert(1)&lt;/script&gt;"),
            "{html}"
        );
        assert_inert(&html);
    }
}
