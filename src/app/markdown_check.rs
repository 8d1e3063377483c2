//! The property `markdown.rs` promises, as a checker for its tests and its fuzz
//! target (built only for those): every tag in the rendered HTML is one the
//! writer emits, with known attributes and classes, every `href` passes the
//! link allow-list, and no anchor is nested in another.

use super::markdown::{url_allowed, LINK_SCHEMES};

const RENDERED_TAGS: &[&str] = &[
    "p",
    "a",
    "em",
    "strong",
    "del",
    "code",
    "pre",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "ul",
    "ol",
    "li",
    "blockquote",
    "hr",
    "br",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "sup",
    "div",
    "input",
];
const RENDERED_ATTRIBUTES: &[&str] = &[
    "href", "title", "class", "rel", "start", "disabled", "type", "checked",
];
/// Classes the writer may emit; code blocks add `language-<one plain word>`.
const RENDERED_CLASSES: &[&str] = &[
    "md-image",
    "footnote-reference",
    "footnote-definition",
    "footnote-definition-label",
];

/// The first way `html` breaks the property, if any.
pub fn inert_violation(html: &str) -> Option<String> {
    let mut rest = html;
    let mut anchor_depth = 0usize;
    while let Some(open) = rest.find('<') {
        let Some(close) = rest[open..].find('>').map(|i| open + i) else {
            return Some("an unclosed tag".into());
        };
        let tag = &rest[open + 1..close];
        rest = &rest[close + 1..];
        if tag.starts_with("a ") {
            anchor_depth += 1;
            if anchor_depth > 1 {
                return Some("an anchor inside an anchor".into());
            }
        } else if tag == "/a" {
            anchor_depth = anchor_depth.saturating_sub(1);
        }
        let tag = tag.trim_end_matches('/').trim_start_matches('/');
        let name_end = tag.find([' ', '/']).unwrap_or(tag.len());
        if !RENDERED_TAGS.contains(&&tag[..name_end]) {
            return Some(format!("tag <{tag}>"));
        }
        if let Some(violation) = attribute_violation(tag[name_end..].trim()) {
            return Some(violation);
        }
    }
    None
}

/// Attributes are `name="value"` pairs whose values never hold a raw quote.
fn attribute_violation(mut attributes: &str) -> Option<String> {
    while !attributes.is_empty() {
        let Some(eq) = attributes.find('=') else {
            return Some(format!("an attribute without a value: {attributes}"));
        };
        let name = attributes[..eq].trim();
        if !RENDERED_ATTRIBUTES.contains(&name) {
            return Some(format!("attribute {name}"));
        }
        let value_start = eq + 2;
        let Some(value_end) = attributes
            .get(value_start..)
            .and_then(|v| v.find('"'))
            .map(|i| value_start + i)
        else {
            return Some(format!("an unquoted value for {name}"));
        };
        let value = &attributes[value_start..value_end];
        if name == "href" {
            let href = value.replace("&amp;", "&");
            if !url_allowed(&href, &LINK_SCHEMES) {
                return Some(format!("href {href}"));
            }
        }
        if name == "class" {
            let language = value.strip_prefix("language-").is_some_and(|word| {
                !word.is_empty() && !word.contains(|c: char| c.is_whitespace() || c == '&')
            });
            if !language && !RENDERED_CLASSES.contains(&value) {
                return Some(format!("class {value:?}"));
            }
        }
        attributes = attributes[value_end + 1..].trim_start_matches('/').trim();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_what_it_must_and_accepts_the_writers_own_markup() {
        for active in [
            "<img src=\"x\">",
            "<a href=\"javascript:x\">",
            "<p onclick=\"x\">",
            "<td style=\"x\">",
            "<code class=\"language-x\tvisually-hidden\">",
            "<a href=\"#a\"><a href=\"#b\">",
            "<p",
        ] {
            assert!(inert_violation(active).is_some(), "{active}");
        }
        assert_eq!(
            inert_violation(
                "<p>ok <a href=\"https://e.com/?a=1&amp;b=2\" rel=\"noopener noreferrer\">x</a></p>"
            ),
            None
        );
    }
}
