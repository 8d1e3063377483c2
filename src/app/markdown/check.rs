//! The property the renderer (`markdown/mod.rs`) promises, as a checker for its tests and its fuzz
//! target (built only for those): every tag in the rendered HTML is one the
//! writer emits, with known attributes and classes, every `href` passes the
//! link allow-list, and no anchor is nested in another. MathML elements carry
//! only presentation attributes with plain values and the layout classes the
//! math allow-list maps styles to: never a link, an id, a style or a handler.
//! Code blocks add spans with the highlighter's classes and one button of
//! fixed type and name, which does nothing by itself.

use super::code_block::{CHROME_CLASSES, COPY_LABEL};
use super::highlight::HIGHLIGHT_CLASSES;
use super::{url_allowed, LINK_SCHEMES};

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
    "span",
    "button",
];
const RENDERED_ATTRIBUTES: &[&str] = &[
    "href",
    "title",
    "class",
    "rel",
    "start",
    "disabled",
    "type",
    "checked",
    "aria-label",
    "tabindex",
];
/// Classes the writer may emit; code blocks add `language-<one plain word>`,
/// their chrome's classes (`CHROME_CLASSES`) and the highlighter's
/// (`HIGHLIGHT_CLASSES`).
const RENDERED_CLASSES: &[&str] = &[
    "md-image",
    "footnote-reference",
    "footnote-definition",
    "footnote-definition-label",
    "math-error",
];
/// MathML elements the math renderer may emit.
const MATH_TAGS: &[&str] = &[
    "math",
    "mrow",
    "mi",
    "mn",
    "mo",
    "mtext",
    "mspace",
    "msub",
    "msup",
    "msubsup",
    "munder",
    "mover",
    "munderover",
    "mmultiscripts",
    "mprescripts",
    "mfrac",
    "msqrt",
    "mroot",
    "mtable",
    "mtr",
    "mtd",
    "mpadded",
    "mphantom",
    "menclose",
    "merror",
];
/// Their attributes: presentation only.
const MATH_ATTRIBUTES: &[&str] = &[
    "display",
    "displaystyle",
    "scriptlevel",
    "mathvariant",
    "stretchy",
    "movablelimits",
    "form",
    "symmetric",
    "largeop",
    "lspace",
    "rspace",
    "accent",
    "accentunder",
    "linethickness",
    "width",
    "height",
    "depth",
    "minsize",
    "maxsize",
    "notation",
    "class",
];
/// Layout classes on MathML elements, any several of them.
const MATH_CLASSES: &[&str] = &[
    "math-left",
    "math-right",
    "math-pl0",
    "math-pr0",
    "math-pl1",
    "math-pt0",
    "math-pb0",
    "math-bt",
    "math-bt-dashed",
    "math-br",
    "math-br-dashed",
    "math-bl",
    "math-bl-dashed",
    "math-w100",
    "math-w50",
    "math-w7",
];

/// The first way `html` breaks the property, if any.
pub fn inert_violation(html: &str) -> Option<String> {
    let mut rest = html;
    let mut anchor_depth = 0usize;
    // MathML never contains HTML (math-core puts `<a>`, `<b>` in `<mtext>`).
    let mut in_math = false;
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
        let closing = tag.starts_with('/');
        let tag = tag.trim_end_matches('/').trim_start_matches('/');
        let name_end = tag.find([' ', '/']).unwrap_or(tag.len());
        let name = &tag[..name_end];
        if name == "math" {
            in_math = !closing;
        } else if in_math && !MATH_TAGS.contains(&name) {
            return Some(format!("<{name}> inside <math>"));
        }
        let violation = if MATH_TAGS.contains(&name) {
            math_attribute_violation(tag[name_end..].trim())
        } else if RENDERED_TAGS.contains(&name) {
            attribute_violation(tag[name_end..].trim())
        } else {
            return Some(format!("tag <{tag}>"));
        };
        if violation.is_some() {
            return violation;
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
            let known = [RENDERED_CLASSES, CHROME_CLASSES, HIGHLIGHT_CLASSES]
                .iter()
                .any(|classes| classes.contains(&value));
            if !language && !known {
                return Some(format!("class {value:?}"));
            }
        }
        // Fixed values: the copy button's name, a button that submits nothing.
        let fixed = match name {
            "aria-label" => Some(&[COPY_LABEL][..]),
            "type" => Some(&["checkbox", "button"][..]),
            // A code block is reached by Tab, never ordered before others.
            "tabindex" => Some(&["0"][..]),
            _ => None,
        };
        if fixed.is_some_and(|values| !values.contains(&value)) {
            return Some(format!("{name}={value:?}"));
        }
        attributes = attributes[value_end + 1..].trim_start_matches('/').trim();
    }
    None
}

/// MathML attributes: known names, values of letters, digits, `.`, `-`, `%`
/// and spaces (no URL, no entity, no quote), classes from `MATH_CLASSES`.
fn math_attribute_violation(mut attributes: &str) -> Option<String> {
    while !attributes.is_empty() {
        let Some((name, rest)) = attributes.split_once("=\"") else {
            return Some(format!("a math attribute not name=\"value\": {attributes}"));
        };
        let Some((value, rest)) = rest.split_once('"') else {
            return Some(format!("an unterminated value for {name}"));
        };
        if !MATH_ATTRIBUTES.contains(&name) {
            return Some(format!("math attribute {name}"));
        }
        let plain = value
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'%' | b' '));
        if !plain {
            return Some(format!("math attribute value {name}={value:?}"));
        }
        if name == "class" {
            if let Some(class) = value.split(' ').find(|c| !MATH_CLASSES.contains(c)) {
                return Some(format!("math class {class:?}"));
            }
        }
        attributes = rest.trim_start_matches('/').trim();
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
            "<math><mi href=\"javascript:x\">",
            "<math style=\"color:red\">",
            "<mtd class=\"math-left copy-button\">",
            "<mi mathvariant=\"a&quot;\">",
            "<math><mtext><a href=\"https://e.com\" rel=\"noopener noreferrer\">x</a></mtext></math>",
            "<math><mtext><b>x</b></mtext></math>",
            "<math><annotation-xml encoding=\"text/html\">",
            "<mi onclick=\"x\">",
            "<mi id=\"app\">",
            "<code class=\"math-error copy-button\">",
            "<span class=\"hl-kw hl-str\">",
            "<span class=\"copy-button\">",
            "<span onclick=\"x\">",
            "<button type=\"submit\">",
            "<button aria-label=\"x\">",
            "<button class=\"code-copy\" formaction=\"https://e.com\">",
        ] {
            assert!(inert_violation(active).is_some(), "{active}");
        }
        assert_eq!(
            inert_violation(
                "<p>ok <a href=\"https://e.com/?a=1&amp;b=2\" rel=\"noopener noreferrer\">x</a></p>"
            ),
            None
        );
        assert_eq!(
            inert_violation(
                "<div class=\"code-block\"><div class=\"code-head\"><span class=\"code-lang\">Rust</span><button type=\"button\" class=\"code-copy\" aria-label=\"Copy code\">Copy</button></div><pre tabindex=\"0\"><code class=\"language-rust\"><span class=\"hl-kw\">fn</span> x\n</code></pre></div>"
            ),
            None
        );
        assert_eq!(
            inert_violation(
                "<p><math display=\"block\"><mtable><mtr><mtd class=\"math-left math-pr0\"><mspace width=\"0.1667em\"/><mi>x</mi></mtd></mtr></mtable></math> <code class=\"math-error\">$x$</code></p>"
            ),
            None
        );
    }
}
