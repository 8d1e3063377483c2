//! The MathML allow-list: rewrites what the LaTeX converter wrote so that only
//! MathML elements we know, with attributes we know and values of a plain
//! character set, reach the page. Pure; runs on both sides.
//!
//! The converter is a third-party crate fed model-written LaTeX, so its output
//! is treated like the model's: it is read tag by tag and written anew, never
//! passed through. Anything unexpected (an element outside the list, a tag that
//! does not parse, an unbalanced end tag, a stray `<`) fails the whole formula,
//! which then shows as its source. Nothing here ever writes a link, an `id`, an
//! event handler or a `style` attribute:
//! - `style` (which the page's CSP refuses anyway) is read declaration by
//!   declaration and only the table layouts the converter uses (cell alignment,
//!   padding, rules) become classes of our own, styled in `style/main.css`;
//! - the HTML the converter puts inside `<mtext>` for `\textbf`, `\href` and
//!   the like (`<b>`, `<a href>`, `<span style>`) is dropped, its text kept;
//! - every length (`width`, `lspace`, `linethickness`, …) is held to ±20 em
//!   (`length.rs`), whatever size the LaTeX asked for.

use super::length::{FormulaBudget, LENGTH_ATTRIBUTES};

/// MathML elements that pass, with their attributes filtered (also the
/// sanitizer's MathML elements, `sanitize.rs`).
pub(in crate::app::markdown) const ELEMENTS: &[&str] = &[
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

/// Text-level HTML the converter nests in `<mtext>`: dropped, content kept.
const UNWRAPPED: &[&str] = &["a", "b", "i", "em", "code", "s", "u", "span"];

/// Presentation attributes that pass, with values of `plain_value` only (also
/// the sanitizer's, on every MathML element).
pub(in crate::app::markdown) const ATTRIBUTES: &[&str] = &[
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
];

/// `style` declarations (property, value) the converter writes for tables, and
/// the class each becomes. Every other declaration is dropped. The classes are
/// the only ones the sanitizer lets MathML elements keep.
pub(in crate::app::markdown) const STYLE_CLASSES: &[(&str, &str, &str)] = &[
    ("text-align", "left", "math-left"),
    ("text-align", "right", "math-right"),
    ("padding-left", "0", "math-pl0"),
    ("padding-right", "0", "math-pr0"),
    ("padding-left", "1em", "math-pl1"),
    ("padding-top", "0", "math-pt0"),
    ("padding-bottom", "0", "math-pb0"),
    ("border-top", "0.05em solid currentcolor", "math-bt"),
    ("border-top", "0.05em dashed currentcolor", "math-bt-dashed"),
    ("border-right", "0.05em solid currentcolor", "math-br"),
    (
        "border-right",
        "0.05em dashed currentcolor",
        "math-br-dashed",
    ),
    ("border-left", "0.05em solid currentcolor", "math-bl"),
    (
        "border-left",
        "0.05em dashed currentcolor",
        "math-bl-dashed",
    ),
    ("width", "100%", "math-w100"),
    // The side columns that keep a numbered equation centred.
    ("width", "50%", "math-w50"),
    ("width", "7.5%", "math-w7"),
];

/// Deepest element nesting accepted in the converter's output: a last guard
/// behind the input limits in `latex_check.rs`.
const MAX_DEPTH: usize = 256;

/// `raw` rewritten to allow-listed MathML, or `None` if anything in it is not
/// what the converter is known to write.
pub(super) fn allow_listed(raw: &str) -> Option<String> {
    let mut out = String::with_capacity(raw.len());
    // Open elements: the name and whether it was written (false: unwrapped).
    let mut open: Vec<(&str, bool)> = Vec::new();
    // One formula: its lengths share one budget per axis.
    let mut budget = FormulaBudget::default();
    let mut rest = raw;
    while let Some(lt) = rest.find('<') {
        push_text(&mut out, &rest[..lt])?;
        let gt = lt + rest[lt..].find('>')?;
        let tag = &rest[lt + 1..gt];
        rest = &rest[gt + 1..];
        if let Some(name) = tag.strip_prefix('/') {
            let (expected, written) = open.pop()?;
            if name != expected {
                return None;
            }
            if written {
                out.push_str("</");
                out.push_str(name);
                out.push('>');
            }
            continue;
        }
        let (tag, self_closing) = match tag.strip_suffix('/') {
            Some(tag) => (tag, true),
            None => (tag, false),
        };
        let name_end = tag.find(' ').unwrap_or(tag.len());
        let (name, attributes) = tag.split_at(name_end);
        let written = if ELEMENTS.contains(&name) {
            out.push('<');
            out.push_str(name);
            push_attributes(&mut out, attributes, &mut budget)?;
            out.push_str(if self_closing { "/>" } else { ">" });
            true
        } else if UNWRAPPED.contains(&name) {
            // Its attributes (href, style, class) go with it; they must still parse.
            parse_attributes(attributes)?;
            false
        } else {
            return None;
        };
        if !self_closing {
            open.push((name, written));
            if open.len() > MAX_DEPTH {
                return None;
            }
        }
    }
    push_text(&mut out, rest)?;
    open.is_empty().then_some(out)
}

/// Copies text, which must hold no `>`; `&` passes only as a character reference.
fn push_text(out: &mut String, text: &str) -> Option<()> {
    if text.contains('>') {
        return None;
    }
    let mut rest = text;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        let reference = &rest[amp + 1..];
        let end = reference.find(';').filter(|end| {
            (1..=32).contains(end)
                && reference[..*end]
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'#')
        })?;
        out.push_str(&rest[amp..amp + end + 2]);
        rest = &reference[end + 1..];
    }
    out.push_str(rest);
    Some(())
}

/// Writes the allowed attributes of an element; `style` becomes classes.
fn push_attributes(out: &mut String, attributes: &str, budget: &mut FormulaBudget) -> Option<()> {
    let mut classes: Vec<&str> = Vec::new();
    for (name, value) in parse_attributes(attributes)? {
        if name == "style" {
            classes.extend(value.split(';').filter_map(style_class));
        } else if ATTRIBUTES.contains(&name) && plain_value(value) {
            let value = if LENGTH_ATTRIBUTES.contains(&name) {
                // A length past the bound, or past what is left of the
                // formula's, is held to it; one that does not read as a
                // length is dropped.
                match budget.take(name, value) {
                    Some(value) => value,
                    None => continue,
                }
            } else {
                value.into()
            };
            out.push(' ');
            out.push_str(name);
            out.push_str("=\"");
            out.push_str(&value);
            out.push('"');
        }
        // Anything else (class, id, href, xmlns, on…) is dropped.
    }
    if !classes.is_empty() {
        classes.dedup();
        out.push_str(" class=\"");
        out.push_str(&classes.join(" "));
        out.push('"');
    }
    Some(())
}

/// The class for one `style` declaration, if it is one we map.
fn style_class(declaration: &str) -> Option<&'static str> {
    let (property, value) = declaration.split_once(':')?;
    let (property, value) = (property.trim(), value.trim());
    STYLE_CLASSES
        .iter()
        .find(|(p, v, _)| *p == property && *v == value)
        .map(|(_, _, class)| *class)
}

/// ` name="value"` pairs; `None` if the text is anything else.
fn parse_attributes(mut text: &str) -> Option<Vec<(&str, &str)>> {
    let mut pairs = Vec::new();
    loop {
        text = text.trim_start_matches(' ');
        if text.is_empty() {
            return Some(pairs);
        }
        let eq = text.find("=\"")?;
        let name = &text[..eq];
        if name.is_empty() || !name.bytes().all(|b| b.is_ascii_lowercase() || b == b'-') {
            return None;
        }
        let value_start = eq + 2;
        let value_end = value_start + text[value_start..].find('"')?;
        pairs.push((name, &text[value_start..value_end]));
        text = &text[value_end + 1..];
    }
}

/// Values like `true`, `0.1667em`, `double-struck`, `50%`: nothing that could
/// end the attribute, name a URL or hold an entity.
pub(in crate::app::markdown) fn plain_value(value: &str) -> bool {
    value.len() <= 64
        && value
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'%' | b' '))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passes_the_converters_presentation_markup() {
        let raw = "<math display=\"block\"><mfrac><mn>1</mn><mi mathvariant=\"normal\">x</mi></mfrac><mspace width=\"0.1667em\"/><mo stretchy=\"false\" lspace=\"0\">&lt;</mo></math>";
        assert_eq!(allow_listed(raw).as_deref(), Some(raw));
    }

    #[test]
    fn styles_become_our_classes_and_nothing_else_survives() {
        let raw = "<math><mtable><mtr><mtd style=\"text-align: left;justify-items: start;padding-right: 0;\"><mi>a</mi></mtd><mtd style=\"color:#ff0000;background:url(x)\"><mi>b</mi></mtd></mtr></mtable></math>";
        assert_eq!(
            allow_listed(raw).as_deref(),
            Some("<math><mtable><mtr><mtd class=\"math-left math-pr0\"><mi>a</mi></mtd><mtd><mi>b</mi></mtd></mtr></mtable></math>")
        );
    }

    #[test]
    fn links_ids_classes_and_handlers_are_dropped() {
        let raw = "<math><mtext><a href=\"javascript:alert(1)\">x</a></mtext><mtd id=\"app\" class=\"copy-button\" onclick=\"y\" xmlns=\"z\"></mtd><mtext><span style=\"font-variant-caps: small-caps\">s</span><b>b</b></mtext></math>";
        assert_eq!(
            allow_listed(raw).as_deref(),
            Some("<math><mtext>x</mtext><mtd></mtd><mtext>sb</mtext></math>")
        );
    }

    #[test]
    fn anything_unexpected_fails_the_formula() {
        for raw in [
            "<math><script>x</script></math>",
            "<math><mi>x</mo></math>",
            "<math><mi>x</mi>",
            "<math><mo><</mo></math>",
            "<math><mi>a>b</mi></math>",
            "<math><mi onclick=x>a</mi></math>",
            "<math><mi>&amp</mi></math>",
            "<math><svg></svg></math>",
            "<math><mi>x</mi></math></math>",
        ] {
            assert_eq!(allow_listed(raw), None, "{raw}");
        }
    }

    #[test]
    fn attribute_values_outside_the_plain_set_are_dropped() {
        let raw = "<math><mi mathvariant=\"a&quot;b\" width=\"url(javascript:x)\">x</mi></math>";
        assert_eq!(
            allow_listed(raw).as_deref(),
            Some("<math><mi>x</mi></math>")
        );
    }

    #[test]
    fn nesting_beyond_the_guard_fails() {
        let deep = format!(
            "<math>{}{}</math>",
            "<mrow>".repeat(300),
            "</mrow>".repeat(300)
        );
        assert_eq!(allow_listed(&deep), None);
        let fine = format!(
            "<math>{}{}</math>",
            "<mrow>".repeat(200),
            "</mrow>".repeat(200)
        );
        assert!(allow_listed(&fine).is_some());
    }
}
