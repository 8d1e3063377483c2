//! The last pass over every HTML fragment the renderer writes: ammonia parses it
//! with html5ever, as a browser would, and keeps only the elements, attributes,
//! classes and URL schemes the renderer itself emits. Pure; runs on both sides.
//!
//! Defence in depth: the event filter (`markdown.rs`) and the MathML allow-list
//! (`math/mathml.rs`) already make the output inert, so on the renderer's own output
//! this pass changes nothing a browser would see (the tests below hold it to
//! that, token by token). It is here for the day one of them has a hole: then
//! a script, a handler, a `style`, an id, a foreign class or a script URL still
//! never reaches the page. MathML elements and attributes come from the lists
//! in `math/mathml.rs`, so the two cannot drift apart; `markdown/check.rs` keeps lists
//! of its own on purpose, as an independent judge of both.
//!
//! html5ever keeps MathML in the MathML namespace, and ammonia removes any
//! element that switches namespace where a browser would not (`<svg>` or HTML
//! inside `<math>` except in `mi`/`mo`/`mn`/`ms`/`mtext`, the mXSS family):
//! checked by the tests below; such an element goes with its content. Its
//! lists name elements, not places: an HTML element allowed elsewhere (`<a>`)
//! stays inside `<mtext>`, where a browser puts it too, with allowed attributes
//! only. It never re-emits a fragment byte for byte:
//! `<br />` comes back `<br>`, `<mspace/>` as `<mspace></mspace>`, `&quot;` in
//! text as `"`, a no-break space as `&nbsp;`; a browser builds the same DOM.
//! It closes what is left open, so every fragment passed in must be whole.
//!
//! Cost (2026-12-01, native release build, CPU time of the thread on this
//! 2-core machine while other builds ran): about 50 µs per KB of HTML out,
//! linear in size, four times what rendering that HTML took. A typical answer
//! (prose, four formulas, a list, a Python block, a table: 828 B of Markdown,
//! 2.8 KB of HTML) renders in 32 µs and passes in 125 µs; ten of them (28 KB)
//! in 0.34 ms and 1.4 ms. The streaming view re-renders only a bounded tail,
//! so per chunk this is bounded too.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use ammonia::{Builder, UrlRelative};

use super::math::mathml;
use super::{code_block, highlight, LINK_SCHEMES};

/// HTML elements the renderer writes and the attributes each may carry, besides
/// `class` (`CLASSES`) and the fixed values in `FIXED_VALUES`. `rel` is not
/// here: ammonia writes it on every link (`link_rel`).
const HTML_ELEMENTS: &[(&str, &[&str])] = &[
    ("p", &[]),
    ("a", &["href", "title"]),
    ("em", &[]),
    ("strong", &[]),
    ("del", &[]),
    ("code", &["class"]),
    ("pre", &[]),
    ("h1", &[]),
    ("h2", &[]),
    ("h3", &[]),
    ("h4", &[]),
    ("h5", &[]),
    ("h6", &[]),
    ("ul", &[]),
    ("ol", &["start"]),
    ("li", &[]),
    ("blockquote", &[]),
    ("hr", &[]),
    ("br", &[]),
    ("table", &[]),
    ("thead", &[]),
    ("tbody", &[]),
    ("tr", &[]),
    ("th", &[]),
    ("td", &[]),
    ("sup", &[]),
    ("div", &[]),
    ("span", &[]),
    ("input", &["disabled", "checked"]),
    ("button", &[]),
];

/// Attributes that pass with one value only (compared ignoring ASCII case).
const FIXED_VALUES: &[(&str, &str, &str)] = &[
    ("input", "type", "checkbox"),
    ("button", "type", "button"),
    ("button", "aria-label", code_block::COPY_LABEL),
    // A code block scrolls sideways on a narrow screen: a keyboard reaches
    // it (axe's scrollable-region-focusable).
    ("pre", "tabindex", "0"),
];

/// Classes each element may keep; any other class is removed. `code` is not
/// here: its language class is one plain word (`code_class`). The code block's
/// highlighted spans add `highlight::HIGHLIGHT_CLASSES` to `span`.
const CLASSES: &[(&str, &[&str])] = &[
    ("a", &["md-image"]),
    ("div", &["footnote-definition", "code-block", "code-head"]),
    ("sup", &["footnote-reference", "footnote-definition-label"]),
    ("span", &["code-lang"]),
    ("button", &["code-copy"]),
];

/// Classes of a `code` element other than `language-…`.
const CODE_CLASSES: &[&str] = &["math-error"];

/// `html` with everything the renderer never emits removed.
pub(crate) fn sanitize(html: &str) -> String {
    builder().clean(html).to_string()
}

/// One sanitizer for the process: its configuration is fixed.
fn builder() -> &'static Builder<'static> {
    static BUILDER: OnceLock<Builder<'static>> = OnceLock::new();
    BUILDER.get_or_init(configured)
}

/// The allow-list as ammonia takes it.
fn configured() -> Builder<'static> {
    let math = mathml::ELEMENTS.iter().copied();
    let tags: HashSet<&str> = HTML_ELEMENTS
        .iter()
        .map(|(tag, _)| *tag)
        .chain(math)
        .collect();
    let mut attributes: HashMap<&str, HashSet<&str>> = HTML_ELEMENTS
        .iter()
        .map(|(tag, names)| (*tag, names.iter().copied().collect()))
        .collect();
    let mut classes: HashMap<&str, HashSet<&str>> = CLASSES
        .iter()
        .map(|(tag, names)| (*tag, names.iter().copied().collect()))
        .collect();
    classes
        .entry("span")
        .or_default()
        .extend(highlight::HIGHLIGHT_CLASSES);
    let math_classes: HashSet<&str> = mathml::STYLE_CLASSES.iter().map(|(_, _, c)| *c).collect();
    for element in mathml::ELEMENTS {
        attributes.insert(element, mathml::ATTRIBUTES.iter().copied().collect());
        classes.insert(element, math_classes.clone());
    }
    let mut values: HashMap<&str, HashMap<&str, HashSet<&str>>> = HashMap::new();
    for (tag, name, value) in FIXED_VALUES {
        values
            .entry(tag)
            .or_default()
            .entry(name)
            .or_default()
            .insert(value);
    }
    let mut builder = Builder::empty();
    builder
        .tags(tags)
        .tag_attributes(attributes)
        .tag_attribute_values(values)
        .generic_attributes(HashSet::new())
        .allowed_classes(classes)
        .url_schemes(LINK_SCHEMES.into_iter().collect())
        .url_relative(UrlRelative::PassThrough)
        .link_rel(Some("noopener noreferrer"))
        .strip_comments(true)
        .id_prefix(None)
        .attribute_filter(attribute_value);
    builder
}

/// Values for attributes whose names passed: a code block's classes, and the
/// plain values `math/mathml.rs` lets MathML attributes have.
fn attribute_value<'a>(element: &str, attribute: &str, value: &'a str) -> Option<Cow<'a, str>> {
    if element == "code" && attribute == "class" {
        return code_class(value);
    }
    if mathml::ELEMENTS.contains(&element) && !mathml::plain_value(value) {
        return None;
    }
    Some(Cow::Borrowed(value))
}

/// The classes of a `code` element that the renderer writes (`math-error`, or
/// `language-` and one plain word, as `code_language` in `markdown.rs` makes
/// it), or none if no class is left.
fn code_class(value: &str) -> Option<Cow<'_, str>> {
    let allowed = |class: &&str| {
        CODE_CLASSES.contains(class)
            || class.strip_prefix("language-").is_some_and(|word| {
                !word.is_empty()
                    && word.bytes().all(|b| {
                        b.is_ascii_alphanumeric() || matches!(b, b'_' | b'+' | b'#' | b'.' | b'-')
                    })
            })
    };
    let kept = value
        .split_ascii_whitespace()
        .filter(allowed)
        .collect::<Vec<_>>()
        .join(" ");
    match kept.as_str() {
        "" => None,
        same if same == value => Some(Cow::Borrowed(value)),
        _ => Some(Cow::Owned(kept)),
    }
}

#[cfg(test)]
mod tests {
    use super::super::render_events;
    use super::super::tests::HOSTILE_PIECES;
    use super::*;
    use crate::app::markdown::check::inert_violation;

    /// One thing an HTML parser reads: an element's start (name, attributes with
    /// values decoded), its end, or text (decoded). Two fragments with the same
    /// tokens build the same DOM.
    #[derive(Debug, PartialEq)]
    enum Token {
        Start(String, Vec<(String, String)>),
        End(String),
        Text(String),
    }

    /// HTML elements that never have an end tag.
    const VOID: &[&str] = &["br", "hr", "input", "img", "wbr"];

    /// `html` as tokens. Only for well-formed fragments as the renderer and
    /// html5ever write them: text never holds a raw `<`, values are double-quoted.
    fn tokens(html: &str) -> Vec<Token> {
        let mut out = Vec::new();
        let mut rest = html;
        let mut text = String::new();
        while let Some(lt) = rest.find('<') {
            text.push_str(&decoded(&rest[..lt]));
            rest = &rest[lt + 1..];
            if !text.is_empty() {
                out.push(Token::Text(std::mem::take(&mut text)));
            }
            if let Some(end) = rest.strip_prefix('/') {
                let gt = end.find('>').expect("an end tag closes");
                out.push(Token::End(end[..gt].to_owned()));
                rest = &end[gt + 1..];
                continue;
            }
            let name_end = rest.find([' ', '/', '>']).expect("a start tag closes");
            let name = rest[..name_end].to_owned();
            rest = &rest[name_end..];
            let mut attributes = Vec::new();
            let self_closing = loop {
                rest = rest.trim_start_matches(' ');
                if let Some(after) = rest.strip_prefix("/>") {
                    rest = after;
                    break true;
                }
                if let Some(after) = rest.strip_prefix('>') {
                    rest = after;
                    break false;
                }
                let eq = rest.find("=\"").expect("attributes are name=\"value\"");
                let value_end = eq + 2 + rest[eq + 2..].find('"').expect("a closing quote");
                attributes.push((rest[..eq].to_owned(), decoded(&rest[eq + 2..value_end])));
                rest = &rest[value_end + 1..];
            };
            let void = VOID.contains(&name.as_str());
            out.push(Token::Start(name.clone(), attributes));
            if self_closing && !void {
                out.push(Token::End(name));
            }
        }
        text.push_str(&decoded(rest));
        if !text.is_empty() {
            out.push(Token::Text(text));
        }
        out
    }

    /// Text or an attribute value with its character references resolved, and
    /// without NUL, which a browser's parser drops from text in the body.
    fn decoded(text: &str) -> String {
        let text = text.replace('\0', "");
        let text = text.as_str();
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(amp) = rest.find('&') {
            out.push_str(&rest[..amp]);
            let semi = rest[amp..].find(';').expect("a reference ends") + amp;
            let reference = &rest[amp + 1..semi];
            let c = match reference {
                "amp" => '&',
                "lt" => '<',
                "gt" => '>',
                "quot" => '"',
                "nbsp" => '\u{a0}',
                numeric => {
                    let code = match numeric.strip_prefix("#x").or(numeric.strip_prefix("#X")) {
                        Some(hex) => u32::from_str_radix(hex, 16),
                        None => numeric.trim_start_matches('#').parse(),
                    };
                    code.ok()
                        .and_then(char::from_u32)
                        .unwrap_or_else(|| panic!("an unknown reference &{reference}; in {text}"))
                }
            };
            out.push(c);
            rest = &rest[semi + 1..];
        }
        out.push_str(rest);
        out
    }

    /// Panics unless the pass leaves `html` as a browser would build it.
    fn assert_unchanged(source: &str) {
        let html = render_events(source);
        let cleaned = sanitize(&html);
        assert_eq!(
            tokens(&cleaned),
            tokens(&html),
            "{source:?}\nbefore: {html}\nafter:  {cleaned}"
        );
    }

    /// Formulas of the math tests (`math/mod.rs`, `markdown.rs`, the `math` scenario):
    /// every element, attribute and layout class the converter writes for them.
    const FORMULAS: &[&str] = &[
        r"\frac{1}{3}",
        r"x^2",
        r"\sqrt{2}",
        r"\sqrt[3]{x}",
        r"\alpha + \beta",
        "α + β ≤ γ",
        r"\int_0^1 f(x)\,dx",
        r"\sum_{k=1}^{n} k",
        r"\prod_{i=1}^{n} x_i",
        r"\begin{pmatrix} a & b \\ c & d \end{pmatrix}",
        r"\text{if } x > 0",
        r"E = mc^2",
        r"f(x) = \begin{cases} 1 & x > 0 \\ 0 & \text{else} \end{cases}",
        r"ax^2 + bx + c = 0",
        r"a \neq 0",
        r"x = \frac{-b \pm \sqrt{b^2 - 4ac}}{2a}",
        r"\Delta = b^2 - 4ac",
        r"n = \begin{cases} 2 & \Delta > 0 \\ 1 & \Delta = 0 \\ 0 & \Delta < 0 \end{cases}",
        r"\pi r^2",
        r"\begin{matrix} a \\ b \end{matrix}",
        r"\begin{aligned} a &= b \\ c &= d \end{aligned}",
        r"\begin{array}{c|c} a & b \\ \hline c & d \end{array}",
        r"\begin{align} a &= b \label{z} \end{align}",
        r"\left( \frac{a}{b} \right)",
        r"\xrightarrow[a]{b}",
        r"\overbrace{a+b}^{n} \underbrace{c}_{m}",
        r"\hat{x} \vec{v} \bar{y} \tilde{z}",
        r"\mathbb{R} \mathbf{v} \mathcal{F} \mathrm{d}",
        r"\displaystyle \sum_k \scriptstyle x",
        r"\binom{n}{k} \dbinom{a}{b}",
        r"\lim_{x \to 0} \frac{\sin x}{x}",
        r"\operatorname{f}(x) \quad \qquad x \; y \! z",
        r"\color{red}{x}",
        r"\textbf{b} \textsc{c}",
        r"\prescript{a}{b}{X}",
        r"x \lt y \gt z \& w",
        r"\{ a \}",
    ];

    /// Code in the languages the highlighter knows, with the constructs it
    /// marks: every `hl-…` class, the label and the copy button.
    const CODE: &[(&str, &str)] = &[
        ("rust", "/// Doc\n#[derive(Debug)]\nfn main<'a>() -> Option<&'a str> { let x = 0x1F; println!(\"{x} <b>\"); None } // c\n/* open\nclose */"),
        ("python", "@cache\ndef f(x: int) -> None:\n    \"\"\"doc\n    more\"\"\"\n    return True if x > 1.5e3 else f'{x}' # hi"),
        ("js", "const a = `t ${b} <i>`; // c\nfunction f(x) { return x === null ? /re/g : 'q'; }"),
        ("ts", "interface A { b: string }\nexport type C = A & { d?: number };"),
        ("json", "{\"key\": [1, -2.5e3, true, null, \"<s>\"]}"),
        ("bash", "#!/bin/sh\nexport A=\"$HOME\" && echo ${A:-x} 'q' | grep -v \"b\" # c"),
        ("console", "$ ls -la\ntotal 0"),
        ("c", "#include <stdio.h>\nint main(void) { char *s = \"x\"; return 0; }"),
        ("c++", "template <typename T> class V : public std::vector<T> { /* c */ };"),
        ("go", "package main\nfunc main() { fmt.Println(`raw`, 'r', 1_000) }"),
        ("java", "@Override public static void main(String[] a) { int x = 1; }"),
        ("sql", "SELECT a, COUNT(*) FROM t WHERE b = 'x' -- c\nGROUP BY a;"),
        ("html", "<!DOCTYPE html>\n<a href=\"javascript:x\" onclick='y'>&amp; t</a><!-- c -->\n<script>alert(1)</script>"),
        ("css", "a:hover > .b, #c { color: #fff; background: url(javascript:x); } /* c */\n@media (x) { p { margin: 0 } }"),
        ("yaml", "key: &anchor value # c\nlist:\n  - 'a'\n  - *anchor\ntext: |\n  block"),
        ("toml", "[table]\nkey = \"v\" # c\nn = 1_000\ndate = 1979-05-27"),
        ("diff", "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new\n same"),
        ("unknown-lang", "plain <text>"),
    ];

    #[test]
    fn the_renderers_own_output_passes_unchanged() {
        let mut corpus: Vec<String> = [
            "# Title\n\n**bold** and `code`\n\n- a\n- b\n",
            "## H2\n### H3\n#### H4\n##### H5\n###### H6\n\nSetext\n===\n",
            "*em* _em_ ~~gone~~ **strong** `x < y && \"q\"` it's & <tag> &copy; &#9731;\n",
            "line one  \nline two\\\nline three\n\n---\n\n> quoted\n> > nested\n",
            "3. three\n4. four\n\n- [x] done\n- [ ] open\n\n1. a\n   - b\n",
            "[ok](https://example.com/a?b=c&d='e'#f \"Title > \\\"q\\\"\") [rel](/docs) [frag](#x) [q](?a=1)",
            "[x](HTTP://example.com) [m](mailto:me@example.com) <me@example.com> <https://a.com/x>",
            "![logo](https://e.com/l.png \"T\") [![logo](https://e.com/l.png)](https://e.com)",
            "[click](javascript:alert(1)) ![t](data:image/png;base64,AA==) [x](vbscript:m)",
            "![[a](https://x.com)](https://y.com) [<https://a.com>](https://b.com)",
            "hello <script>alert(1)</script> <img src=x onerror=alert(1)>\n\n<div onclick=x>block</div>\n",
            "| a | b | c |\n|:--|--:|:-:|\n| 1 | **2** | `3` |\n| x |\n",
            "See[^app].\n\n[^app]: A note\n    with two lines.\n\nAnd[^\"x].\n\n[^\"x]: Q.\n\n[see[^n]](https://b.com)\n\n[^n]: N.\n",
            "```rust\nfn x() -> &'static str { \"<b>\" }\n```\n\n```\nplain\n```\n\n    indented\n",
            "```x\tvisually-hidden\nsecret\n```\n\n```x&#9;y\ns\n```\n\n```\"onclick\ns\n```\n\n```c++\nint\n```\n\n```c#\nx\n```\n",
            "```\"><script>alert(1)</script>\nx\n```\n\n```data:text/html,<script>x</script>\ny\n```\n",
            "~~~python title=\"a.py\"\nprint('<hi>')\n~~~\n",
            "Area $\\pi r^2$ costs $5-$10.\n\n\\[\n\\frac{a}{b}\n\\]\n\nNever closed \\( x *y*\n\nThen \\(x^2\\) and $$\\sum_k k$$ and `\\(code\\)`.\n\nBad $x^^2$.",
            "Bad $x^^2$ and \\(\\nope{x}\\), good $x$ and **bold**.",
            "$\\def\\a{\\a\\a}\\a$",
            "Product \\(a*b*c\\) and \\[\\begin{matrix} a \\\\ b \\end{matrix}\\]",
            "- item with $x$\n- [x] and \\(y\\)\n\n> $$z$$\n\n| $a$ | \\(b\\) |\n|--|--|\n| $c$ | d |\n",
            "Text\u{a0}with no-break\u{a0}spaces and \u{0} a NUL.",
        ]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
        for tex in FORMULAS {
            corpus.push(format!(
                "Inline ${tex}$ and \\({tex}\\).\n\n$${tex}$$\n\n\\[\n{tex}\n\\]\n"
            ));
        }
        for (language, code) in CODE {
            corpus.push(format!("```{language}\n{code}\n```\n"));
        }
        for source in &corpus {
            assert_unchanged(source);
        }
    }

    #[test]
    fn the_code_blocks_chrome_classes_are_all_allowed_and_no_more() {
        let chrome: HashSet<&str> = CLASSES
            .iter()
            .filter(|(tag, _)| ["div", "span", "button"].contains(tag))
            .flat_map(|(_, names)| names.iter().copied())
            .filter(|class| *class != "footnote-definition")
            .collect();
        let expected: HashSet<&str> = code_block::CHROME_CLASSES.iter().copied().collect();
        assert_eq!(chrome, expected);
    }

    #[test]
    fn mathml_survives_in_the_mathml_namespace() {
        // ammonia removes an element whose namespace changes where a browser's
        // would not (`check_expected_namespace`), and a MathML name in the HTML
        // namespace is such an element: every formula coming through whole is
        // every element parsed as MathML.
        for tex in FORMULAS {
            for display in [false, true] {
                let mathml = super::super::math::to_mathml(tex, display)
                    .unwrap_or_else(|e| panic!("{tex}: {e:?}"));
                let html = format!("<p>{mathml}</p>");
                let cleaned = sanitize(&html);
                assert_eq!(tokens(&cleaned), tokens(&html), "{tex}: {cleaned}");
                assert!(cleaned.contains("<math"), "{tex}: {cleaned}");
            }
        }
        // The same names outside `<math>` are HTML elements: removed, with
        // their content, as every element in an unexpected namespace is.
        assert_eq!(
            sanitize("<p><mi>x</mi><mfrac><mn>1</mn></mfrac></p>"),
            "<p></p>"
        );
    }

    /// Inputs the event filter would never let through, and what must be left.
    #[test]
    fn what_a_hole_in_the_filter_would_let_through_is_removed() {
        for (hostile, expected) in [
            ("<p>a<script>alert(1)</script>b</p>", "<p>ab</p>"),
            ("<img src=x onerror=alert(1)>", ""),
            (
                "<p onclick=\"x\" style=\"color:red\" id=\"app\" class=\"copy-button\" lang=\"x\" title=\"t\">p</p>",
                "<p>p</p>",
            ),
            (
                "<a href=\"javascript:alert(1)\" onmouseover=\"x\">a</a>",
                "<a rel=\"noopener noreferrer\">a</a>",
            ),
            (
                "<a href=\"JaVa&#x09;ScRiPt:alert(1)\">a</a><a href=\"data:text/html,<script>x</script>\">b</a><a href=\"vbscript:x\">c</a>",
                "<a rel=\"noopener noreferrer\">a</a><a rel=\"noopener noreferrer\">b</a><a rel=\"noopener noreferrer\">c</a>",
            ),
            (
                "<a href=\"https://e.com\" rel=\"opener\" target=\"_top\" class=\"md-image copy-button\">a</a>",
                "<a href=\"https://e.com\" class=\"md-image\" rel=\"noopener noreferrer\">a</a>",
            ),
            (
                "<code class=\"language-x copy-button language-a&quot;b\">x</code>",
                "<code class=\"language-x\">x</code>",
            ),
            (
                "<code class=\"copy-button\">x</code>",
                "<code>x</code>",
            ),
            (
                "<input type=\"text\" formaction=\"javascript:x\" disabled=\"\"><input type=\"image\" src=\"https://t.invalid/p\">",
                "<input disabled=\"\"><input>",
            ),
            ("<p>a<!-- <img src=x onerror=alert(1)> -->b</p>", "<p>ab</p>"),
            (
                "<iframe src=\"https://t.invalid\"></iframe><object data=\"x\"></object><embed src=\"x\"><form action=\"x\"><button formaction=\"x\">b</button></form>",
                "<button>b</button>",
            ),
            (
                "<button type=\"submit\" aria-label=\"Pay now\" onclick=\"x\" class=\"code-copy app\" popovertarget=\"y\">b</button>",
                "<button class=\"code-copy\">b</button>",
            ),
            (
                "<span class=\"hl-kw code-lang app\" style=\"x\">k</span><div class=\"code-block hl-kw\">d</div>",
                "<span class=\"hl-kw code-lang\">k</span><div class=\"code-block\">d</div>",
            ),
            ("<style>p{color:red}</style><p>x</p>", "<p>x</p>"),
            (
                "<math><mtext><a href=\"javascript:alert(1)\">x</a></mtext></math>",
                // An HTML element in a text integration point is where a browser
                // puts it: it stays, without its target.
                "<math><mtext><a rel=\"noopener noreferrer\">x</a></mtext></math>",
            ),
            ("<math><style>mi{color:red}</style><mi>x</mi></math>", "<math><mi>x</mi></math>"),
            (
                "<math><maction actiontype=\"statusline\"><mi>x</mi><mtext>y</mtext></maction></math>",
                "<math><mi>x</mi><mtext>y</mtext></math>",
            ),
            (
                "<math href=\"javascript:x\"><mi xlink:href=\"javascript:y\" xmlns:xlink=\"http://www.w3.org/1999/xlink\" onclick=\"z\" id=\"app\" style=\"color:red\">x</mi></math>",
                "<math><mi>x</mi></math>",
            ),
            (
                "<math><mi mathvariant=\"a&quot;b\" width=\"url(javascript:x)\" class=\"math-left copy-button\">x</mi></math>",
                "<math><mi class=\"math-left\">x</mi></math>",
            ),
            (
                "<math><mi><mglyph><style><img src=x onerror=alert(1)></style></mglyph></mi></math>",
                "<math><mi></mi></math>",
            ),
            (
                "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>",
                "<math><mtext><table></table></mtext></math>",
            ),
            (
                "<math><annotation-xml encoding=\"text/html\"><img src=x onerror=alert(1)></annotation-xml></math>",
                "<math></math>",
            ),
            ("<math><semantics><annotation-xml encoding=\"application/xhtml+xml\"><style><img src=x onerror=alert(1)>", "<math></math>"),
            (
                // SVG's own `a` goes with the element that changed namespace.
                "<svg><style><img src=x onerror=alert(1)></style></svg><svg onload=\"alert(1)\"><a xlink:href=\"javascript:x\">s</a></svg>",
                "",
            ),
            (
                "<svg><foreignObject><p onclick=\"x\">f</p></foreignObject></svg>",
                "",
            ),
            (
                // `</p>` leaves SVG, so the style is HTML's (raw text) and goes.
                "<svg></p><style><a id=\"</style><img src=1 onerror=alert(1)>\">",
                "<p></p>\"&gt;",
            ),
            (
                "<math><mtext><h1>t</h1><svg><mtext><style><img src=x onerror=alert(1)></style></mtext></svg></mtext></math>",
                "<math><mtext><h1>t</h1></mtext></math>",
            ),
            ("<div id=\"app\" class=\"footnote-definition app\">d</div>", "<div class=\"footnote-definition\">d</div>"),
        ] {
            let cleaned = sanitize(hostile);
            assert_eq!(cleaned, expected, "{hostile}");
        }
    }

    /// What matters of the output above, read by the independent checker: no
    /// element, attribute, class or URL outside the renderer's own set.
    #[test]
    fn hostile_html_comes_out_inert() {
        for hostile in [
            "<script>alert(1)</script><img src=x onerror=alert(1)><svg onload=alert(1)>",
            "<a href=\"javascript:alert(1)\"><a href=\"data:text/html,x\">x</a></a>",
            "<math><mi><mglyph><style><img src=x onerror=alert(1)>",
            "<math><maction><a href=\"javascript:x\" id=\"y\">z",
            "<p style=\"x\" class=\"copy-button\"><code class=\"language-a\tb\">c</code></p>",
            "<svg><foreignObject><math><iframe><!--</iframe><img src onerror=alert(1)>-->",
            "<noscript><p title=\"</noscript><img src=x onerror=alert(1)>\">",
            "<xmp><img src=x onerror=alert(1)></xmp><textarea><img src=x onerror=alert(1)></textarea>",
            "<template><img src=x onerror=alert(1)></template><details open ontoggle=alert(1)>",
            "<base href=\"https://t.invalid/\"><meta http-equiv=\"refresh\" content=\"0;url=javascript:x\"><link rel=\"stylesheet\" href=\"x\">",
        ] {
            let cleaned = sanitize(hostile);
            if let Some(violation) = inert_violation(&cleaned) {
                panic!("{violation} in {cleaned} from {hostile}");
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 1024, ..Default::default() })]
        /// The allow-list equals the emit set: for any mix of the pieces the
        /// renderer's own property tests use (links, raw HTML, tables, code,
        /// footnotes, formulas, hostile LaTeX), the pass changes nothing.
        #[test]
        fn any_mix_of_hostile_pieces_passes_unchanged(
            pieces in proptest::collection::vec(proptest::sample::select(HOSTILE_PIECES), 0..32)
        ) {
            let source = pieces.concat();
            let html = render_events(&source);
            let cleaned = sanitize(&html);
            proptest::prop_assert_eq!(tokens(&cleaned), tokens(&html), "{:?}", source);
        }
    }
}
