//! One formula, LaTeX to MathML: the browser lays MathML out natively, so math
//! needs no script, font download or style attribute. Pure; runs on both sides.
//!
//! The converter is math-core, chosen by measurement (2026-12-01) over
//! pulldown-latex 0.8 and latex2mathml 0.2, each wired in here in turn:
//! - release WASM (`cargo leptos build --release`, 1,165,327 B, gzip 457,302 B
//!   before): math-core +139.3 KB (gzip +61.1 KB), pulldown-latex +155.7 KB
//!   (gzip +61.8 KB), latex2mathml +64.7 KB (gzip +24.4 KB);
//! - time per typical formula (four, from `\frac{1}{3}` to the quadratic
//!   formula): in V8's WASM math-core 4.2 µs, pulldown-latex 10.9 µs,
//!   latex2mathml 4.5 µs; native release 1.9, 5.8 and 2.0 µs;
//! - coverage and output: latex2mathml lacks `cases`, `aligned`, `\dfrac` and
//!   writes a raw `<` for `x < 0`; pulldown-latex writes a raw `<` too and
//!   needs its own stylesheet; math-core escapes, writes MathML Core, and
//!   covers all of these.
//!
//! math-core knows no user macros (`\def`, `\newcommand` are errors), so
//! nothing expands (pulldown-latex expands `\def` up to 64 deep and 1 MB). What
//! remains to bound is the input, which `latex_check.rs` checks before the
//! converter sees it (length, nesting, table separators); the converter's
//! output then goes through the MathML allow-list (`mathml.rs`), which holds
//! every length to a bound (`length.rs`). A formula that fails any step
//! shows as its source, as code ([`MathError`] says why), and the rest of
//! the message is untouched.

mod error;
mod latex_check;
mod length;
pub(super) mod mathml;

use std::sync::OnceLock;

use math_core::{LatexToMathML, MathCoreConfig, MathDisplay};

pub(crate) use error::MathError;
use latex_check::check;
use mathml::allow_listed;

use super::escape::escaped;

/// `tex` as safe MathML, or, if it cannot be, `source` (the formula with its
/// delimiters, as written) as escaped text in `<code class="math-error">`.
pub(crate) fn render_math(tex: &str, display: bool, source: &str) -> String {
    to_mathml(tex, display)
        .unwrap_or_else(|_| format!("<code class=\"math-error\">{}</code>", escaped(source)))
}

/// `tex` converted and allow-listed.
pub(crate) fn to_mathml(tex: &str, display: bool) -> Result<String, MathError> {
    let tex = check(tex)?;
    let display = if display {
        MathDisplay::Block
    } else {
        MathDisplay::Inline
    };
    let converted = converter()
        .convert_with_local_state(&tex, display)
        .map_err(|_| MathError::Invalid)?;
    allow_listed(&converted.mathml).ok_or(MathError::Unexpected)
}

/// One converter for the process: its configuration is fixed (no macros, no
/// annotation, unknown commands are errors).
fn converter() -> &'static LatexToMathML {
    static CONVERTER: OnceLock<LatexToMathML> = OnceLock::new();
    // `new` fails only on bad configured macros, and there are none.
    CONVERTER.get_or_init(|| LatexToMathML::new(MathCoreConfig::default()).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::latex_check::{MAX_FORMULA_BYTES, MAX_NESTING};
    use super::*;

    #[test]
    fn typical_formulas_become_mathml() {
        for (tex, expected) in [
            (r"\frac{1}{3}", "<mfrac><mn>1</mn><mn>3</mn></mfrac>"),
            (r"x^2", "<msup><mi>x</mi><mn>2</mn></msup>"),
            (r"\sqrt{2}", "<msqrt><mn>2</mn></msqrt>"),
            (r"\alpha + \beta", "<mi>α</mi>"),
            ("α + β ≤ γ", "<mi>α</mi>"),
            (r"\int_0^1 f(x)\,dx", "<msubsup>"),
            (r"\sum_{k=1}^{n} k", "<munderover>"),
            (r"\begin{pmatrix} a & b \\ c & d \end{pmatrix}", "<mtable"),
            (r"\text{if } x > 0", "<mtext>if\u{a0}</mtext>"),
        ] {
            let mathml = to_mathml(tex, false).unwrap_or_else(|e| panic!("{tex}: {e:?}"));
            assert!(mathml.starts_with("<math>"), "{tex}: {mathml}");
            assert!(mathml.contains(expected), "{tex}: {mathml}");
        }
        let block = to_mathml(r"E = mc^2", true).expect("converts");
        assert!(block.starts_with("<math display=\"block\">"), "{block}");
    }

    #[test]
    fn cases_keep_their_left_alignment_as_a_class() {
        let mathml = to_mathml(
            r"f(x) = \begin{cases} 1 & x > 0 \\ 0 & \text{else} \end{cases}",
            true,
        )
        .expect("converts");
        assert!(mathml.contains("<mtd class=\"math-left"), "{mathml}");
        assert!(!mathml.contains(" style="), "{mathml}");
    }

    #[test]
    fn invalid_latex_shows_its_source_as_code() {
        for tex in [
            r"\frac{1}{",
            r"\notacommand{x}",
            r"x^^2",
            r"\begin{foo}x\end{foo}",
            r"}{",
        ] {
            assert!(to_mathml(tex, false).is_err(), "{tex}");
        }
        assert_eq!(
            render_math(r"\frac{1}{<b>", false, r"$\frac{1}{<b>$"),
            "<code class=\"math-error\">$\\frac{1}{&lt;b&gt;$</code>"
        );
    }

    #[test]
    fn macros_are_not_expanded_at_all() {
        // The converter has no user macros: a definition is an unknown command,
        // so a self-doubling macro is an error after reading 15 bytes.
        for tex in [
            r"\def\a{\a\a}\a",
            r"\gdef\a{\a\a}\a",
            r"\edef\a{\a\a}\a",
            r"\newcommand{\a}{\a\a}\a",
            r"\renewcommand{\a}{\a\a}\a",
            r"\let\a\relax\a",
            r"\def\a{x}\def\b{\a\a\a\a\a\a\a\a\a\a}\def\c{\b\b\b\b\b\b\b\b\b\b}\c",
        ] {
            assert_eq!(to_mathml(tex, false), Err(MathError::Invalid), "{tex}");
        }
    }

    #[test]
    fn limits_are_checked_before_the_converter_runs() {
        // Only the checker gives these errors: the converter never saw the input.
        let braces = format!("{}x{}", "{".repeat(2000), "}".repeat(2000));
        assert_eq!(to_mathml(&braces, true), Err(MathError::TooDeep));
        let long = "x+".repeat(MAX_FORMULA_BYTES);
        assert_eq!(to_mathml(&long, true), Err(MathError::TooLong));
        let misplaced = r"\begin{matrix} {a & b} \end{matrix}";
        assert_eq!(to_mathml(misplaced, true), Err(MathError::Misplaced));
    }

    /// A table separator the converter would take as a command's argument, or
    /// nested after a switch, panics in debug builds (where these tests run):
    /// each of these must come back as MathML or an error, never a panic.
    #[test]
    fn separators_never_reach_the_converter_where_it_panics() {
        let commands = [
            "frac",
            "dfrac",
            "tfrac",
            "cfrac",
            "binom",
            "dbinom",
            "tbinom",
            "overset",
            "underset",
            "stackrel",
            "sqrt",
            "hat",
            "vec",
            "mathbf",
            "mathrm",
            "text",
            "operatorname",
            "xrightarrow",
            "overbrace",
            "underbrace",
            "boxed",
            "cancel",
            "displaystyle",
            "textstyle",
            "scriptstyle",
            "scriptscriptstyle",
            "over",
            "atop",
            "choose",
            "brace",
            "brack",
            "genfrac",
            "prescript",
            "color",
            "left",
            "not",
        ];
        let mut rendered = 0;
        for command in commands {
            for separator in ["&", "\\\\"] {
                for form in [
                    format!("\\begin{{matrix}} \\{command} {separator} b \\end{{matrix}}"),
                    format!("\\begin{{matrix}} \\{command}{{a}} {separator} b \\end{{matrix}}"),
                    format!("\\begin{{matrix}} \\{command} 1 {separator} b \\end{{matrix}}"),
                    format!("\\begin{{matrix}} x^ {separator} \\{command} \\end{{matrix}}"),
                    format!("\\begin{{cases}} {{\\{command} {separator} b}} \\end{{cases}}"),
                    format!("\\begin{{matrix}} a {separator} '\\{command} {separator} ^2 \\end{{matrix}}"),
                ] {
                    rendered += usize::from(to_mathml(&form, true).is_ok());
                }
            }
        }
        // Many are fine LaTeX and render (128 of 360 when this was written).
        assert!(rendered > 100, "{rendered}");
    }

    /// Formulas just inside the limits, converted on a quarter of the browser's
    /// stack: if the limits were too loose for the converter's recursion, this
    /// thread would overflow and the test fail.
    #[test]
    fn formulas_at_the_limits_convert_on_a_quarter_of_the_browsers_stack() {
        let at_limit = [
            format!("{}x{}", "{".repeat(MAX_NESTING), "}".repeat(MAX_NESTING)),
            format!("{}x", r"\sqrt ".repeat(MAX_NESTING)),
            format!("{}x", r"\hat ".repeat(MAX_NESTING)),
            format!(
                "{}x{}",
                r"\frac{".repeat(MAX_NESTING / 2),
                "}{y}".repeat(MAX_NESTING / 2)
            ),
            format!(
                "{}x{}",
                r"\left(".repeat(MAX_NESTING),
                r"\right)".repeat(MAX_NESTING)
            ),
            format!(
                "{}x{}",
                r"\sqrt[".repeat(MAX_NESTING / 2),
                "]{y}".repeat(MAX_NESTING / 2)
            ),
            format!(
                "{}x{}",
                r"\not\not\not\not\not\not\not{".repeat(4),
                "}".repeat(4)
            ),
            format!(
                "{}x{}",
                r"x^{".repeat(MAX_NESTING / 2),
                "}".repeat(MAX_NESTING / 2)
            ),
            "x+".repeat(MAX_FORMULA_BYTES / 2),
        ];
        for tex in &at_limit {
            assert!(check(tex).is_ok(), "{tex}");
        }
        let converted = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(move || {
                at_limit
                    .iter()
                    .filter(|tex| to_mathml(tex, true).is_ok())
                    .count()
            })
            .expect("a thread")
            .join()
            .expect("no overflow");
        assert_eq!(converted, 9, "every formula at the limits converts");
    }

    #[test]
    fn hostile_commands_never_produce_links_styles_or_foreign_classes() {
        for tex in [
            r"\href{javascript:alert(1)}{x}",
            r"\href{data:text/html,<script>alert(1)</script>}{x}",
            r"\url{javascript:alert(1)}",
            r"\htmlClass{copy-button}{x}",
            r"\htmlId{app}{x}",
            r"\htmlStyle{color:red}{x}",
            r"\style{color:red}{x}",
            r"\unicode{x3C}script\unicode{x3E}",
            r"\text{<a href='javascript:x' onclick=y>}",
            r"\text{<script>alert(1)</script>}",
            r"<img src=x onerror=alert(1)>",
            r"\color{red}{x} \colorbox{red}{y}",
            r"\textbf{b} \textsc{c} \textsf{d} \texttt{e}",
            r"\eqref{x} \label{y} \tag{1}",
            r"\begin{align} a &= b \label{z} \end{align}",
            r"\mathrm{\href{javascript:x}{y}}",
        ] {
            // A refused formula shows its source as text: only tags count.
            let html = render_math(tex, true, tex);
            for tag in html
                .split('<')
                .skip(1)
                .filter_map(|rest| rest.split('>').next())
            {
                for banned in ["href", " style=", " on", " id="] {
                    assert!(!tag.contains(banned), "{tex}: <{tag}> in {html}");
                }
                let name = tag.split([' ', '/']).next().unwrap_or(tag);
                assert!(
                    !["a", "script", "img", "svg"].contains(&name),
                    "{tex}: {html}"
                );
            }
            if let Some(violation) = crate::app::markdown::check::inert_violation(&html) {
                panic!("{tex}: {violation} in {html}");
            }
        }
    }

    /// LaTeX pieces that nest, align, script, switch style, link and style,
    /// most of them balanced so that many mixes get past the checks.
    const LATEX_PIECES: &[&str] = &[
        "&",
        "&",
        r"\\",
        r"\\",
        r"\hline",
        "{x}",
        "{",
        "}",
        "[",
        "]",
        "^",
        "_",
        "^{2}",
        "'",
        r"\frac",
        r"\frac{1}{2}",
        r"\sqrt",
        r"\sqrt[3]",
        r"\xrightarrow[a]{b}",
        r"\left( x \right)",
        r"\left(",
        r"\right)",
        r"\displaystyle",
        r"\over",
        r"\limits",
        r"\sum",
        r"\not",
        r"\text{a}",
        r"\operatorname{f}",
        r"\color{red}",
        r"\href{javascript:x}{y}",
        r"\unicode{x3C}",
        r"\begin{matrix} x & y \end{matrix}",
        "<",
        "x",
        "1",
        " ",
        "=",
        "-",
    ];

    /// What the pieces are written into.
    const ENVIRONMENTS: &[(&str, &str)] = &[
        ("", ""),
        (r"\begin{matrix}", r"\end{matrix}"),
        (r"\begin{cases}", r"\end{cases}"),
        (r"\begin{aligned}", r"\end{aligned}"),
        (r"\begin{array}{c|c}", r"\end{array}"),
    ];

    /// LaTeX commands that take a length, `SIZE` standing for it.
    const SIZED: &[&str] = &[
        r"\hspace{SIZE}",
        r"\hspace*{SIZE}",
        r"\hskip SIZE",
        r"\kern SIZE",
        r"\kern{SIZE}",
        r"\mkern SIZE",
        r"\mskip SIZE",
        r"\mspace{SIZE}",
        r"\genfrac(){SIZE}{0}{1}{2}",
        r"\genfrac[]{SIZE}{}{a}{b}",
        r"\rule{SIZE}{SIZE}",
        r"\rule[SIZE]{1em}{SIZE}",
        r"\raisebox{SIZE}{x}",
        r"{a \above SIZE b}",
        r"\hphantom{x}\vphantom{x}",
        r"\Bigg(x\Bigg)",
    ];

    /// The units a length may be written in (and none).
    const UNITS: &[&str] = &[
        "em", "ex", "mu", "pt", "px", "pc", "in", "cm", "mm", "sp", "bp", "dd", "",
    ];

    /// The sum of the lengths of `names` in `mathml`, in em.
    fn total_em(mathml: &str, names: &[&str]) -> f64 {
        length_attributes(mathml)
            .iter()
            .filter(|(name, _)| names.contains(&name.as_str()))
            .filter_map(|(_, value)| super::length::in_em(value))
            .map(f64::abs)
            .sum()
    }

    #[test]
    fn one_formulas_spaces_are_bounded_as_a_whole() {
        use super::length::FORMULA_EM;
        // Sixty spaces of 20 em side by side (each within the per-length
        // bound): 1,200 em asked, at most the budget written.
        let spaces = r"\hspace{20em}".repeat(60);
        for display in [true, false] {
            let mathml = to_mathml(&spaces, display).expect("converts");
            let across = total_em(&mathml, &["width"]);
            assert!(
                (FORMULA_EM - 1.0..=FORMULA_EM).contains(&across),
                "{across}: {mathml}"
            );
        }
        // Each formula has a budget of its own.
        let again = to_mathml(r"\hspace{20em}", true).expect("converts");
        assert_eq!(total_em(&again, &["width"]), 20.0, "{again}");
        // A long formula keeps every operator's spacing as the converter wrote it.
        let long = r"a+b=c-d\cdot ".repeat(100);
        let raw = converter()
            .convert_with_local_state(&long, MathDisplay::Inline)
            .expect("converts")
            .mathml;
        let spacing = |mathml: &str| {
            length_attributes(mathml)
                .into_iter()
                .filter(|(name, _)| name == "lspace" || name == "rspace")
                .collect::<Vec<_>>()
        };
        let written = to_mathml(&long, false).expect("converts");
        assert_eq!(spacing(&written), spacing(&raw));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 2048, ..Default::default() })]
        /// Whatever size a formula asks for, no length the renderer writes
        /// is beyond `MAX_EM` either way, and every one reads as a length.
        #[test]
        fn no_length_in_the_mathml_exceeds_the_bound(
            sized in proptest::collection::vec(
                (
                    proptest::sample::select(SIZED),
                    -1e9f64..1e9,
                    proptest::sample::select(UNITS),
                ),
                1..4,
            ),
            display in proptest::bool::ANY,
        ) {
            let tex: String = sized
                .iter()
                .map(|(command, size, unit)| command.replace("SIZE", &format!("{size:.2}{unit}")))
                .collect();
            if let Ok(mathml) = to_mathml(&tex, display) {
                for (name, value) in length_attributes(&mathml) {
                    let em = super::length::in_em(&value);
                    proptest::prop_assert!(
                        em.is_some_and(|em| em.abs() <= super::length::MAX_EM),
                        "{name}=\"{value}\" from {tex}: {mathml}"
                    );
                }
            }
        }
    }

    /// Every (name, value) of a length-valued attribute in `mathml`.
    fn length_attributes(mathml: &str) -> Vec<(String, String)> {
        let mut found = Vec::new();
        for name in super::length::LENGTH_ATTRIBUTES {
            let needle = format!(" {name}=\"");
            for (at, _) in mathml.match_indices(&needle) {
                let value = &mathml[at + needle.len()..];
                let value = value.split('"').next().unwrap_or("");
                found.push(((*name).to_owned(), value.to_owned()));
            }
        }
        found
    }

    #[test]
    fn the_issues_page_wide_bars_are_held_to_the_bound() {
        for tex in [
            r"\hspace{99999999em}",
            r"\genfrac(){9999em}{0}{1}{2}",
            r"\mkern9999mu",
        ] {
            let mathml = to_mathml(tex, false).expect("converts");
            let lengths = length_attributes(&mathml);
            assert_eq!(lengths.len(), 1, "{tex}: {mathml}");
            assert!(
                lengths.iter().all(|(_, value)| value == "20em"),
                "{tex}: {mathml}"
            );
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 4096, ..Default::default() })]
        /// Any mix converts or is refused: never a panic (these tests run with
        /// the converter's debug assertions on), never anything but inert MathML.
        #[test]
        fn any_mix_of_latex_pieces_converts_inertly_or_is_refused(
            (open, close) in proptest::sample::select(ENVIRONMENTS),
            pieces in proptest::collection::vec(proptest::sample::select(LATEX_PIECES), 0..16),
            display in proptest::bool::ANY,
        ) {
            let tex = format!("{open}{}{close}", pieces.concat());
            if let Ok(mathml) = to_mathml(&tex, display) {
                let violation = crate::app::markdown::check::inert_violation(&mathml);
                proptest::prop_assert!(violation.is_none(), "{violation:?} in {mathml}");
            }
        }
    }
}
