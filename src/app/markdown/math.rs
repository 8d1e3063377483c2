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
//! remains to bound is the input: its length, and how deeply it nests, because
//! the converter recurses once per level and the browser's stack is 1 MiB. Both
//! are checked here, before the converter sees the formula; its output then
//! goes through the MathML allow-list (`mathml.rs`). A formula that fails any
//! step shows as its source, as code, and the rest of the message is untouched.

use std::sync::OnceLock;

use math_core::{LatexToMathML, MathCoreConfig, MathDisplay};

use super::escaped;
use super::mathml::allow_listed;

/// Longest formula converted. Models' formulas are a few hundred bytes; this
/// bounds the work and the output of one formula (and so of one frame).
pub(crate) const MAX_FORMULA_BYTES: usize = 4096;

/// Deepest nesting converted, as `nesting_estimate` counts it. Each counted
/// level costs the converter a few stack frames (measured: 1 MiB held about
/// 400 nested fractions, natively and in WASM, optimized; Cargo.toml optimizes
/// the converter in debug builds too), so this stays far below the browser's
/// 1 MiB stack, while real formulas rarely nest ten deep.
pub(crate) const MAX_NESTING: usize = 32;

/// Why a formula shows as its source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MathError {
    /// Longer than `MAX_FORMULA_BYTES`.
    TooLong,
    /// Nests deeper than `MAX_NESTING`.
    TooDeep,
    /// A group, `\left` or `\begin` that is never closed, or a close with no open.
    Unbalanced,
    /// The converter refused it (unknown command, bad syntax, …).
    Invalid,
    /// The converter wrote something the allow-list does not accept.
    Unexpected,
}

/// `tex` as safe MathML, or, if it cannot be, `source` (the formula with its
/// delimiters, as written) as escaped text in `<code class="math-error">`.
pub(crate) fn render_math(tex: &str, display: bool, source: &str) -> String {
    to_mathml(tex, display)
        .unwrap_or_else(|_| format!("<code class=\"math-error\">{}</code>", escaped(source)))
}

/// `tex` converted and allow-listed.
pub(crate) fn to_mathml(tex: &str, display: bool) -> Result<String, MathError> {
    within_limits(tex)?;
    let display = if display {
        MathDisplay::Block
    } else {
        MathDisplay::Inline
    };
    let converted = converter()
        .convert_with_local_state(tex, display)
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

/// Checks length and nesting before any conversion.
pub(crate) fn within_limits(tex: &str) -> Result<(), MathError> {
    if tex.len() > MAX_FORMULA_BYTES {
        return Err(MathError::TooLong);
    }
    if nesting_estimate(tex)? > MAX_NESTING {
        return Err(MathError::TooDeep);
    }
    Ok(())
}

/// What opened a level that a later token closes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Opener {
    Brace,
    Left,
    Begin,
}

/// An upper bound, up to a constant factor, on how deep the converter will
/// recurse for `tex`, in one pass. A level opens at `{`, `\left` and `\begin`
/// and lasts until its close. Commands, `^`, `_` and `[` in a row nest too
/// without any brace (`\sqrt\sqrt\sqrt x`, `\not\not\not=`, `\sqrt[\sqrt[`):
/// such a chain counts one level per token, and a level opened right after a
/// chain carries the chain inside it. Stops early once past `MAX_NESTING`.
fn nesting_estimate(tex: &str) -> Result<usize, MathError> {
    let bytes = tex.as_bytes();
    // Open levels: what opened each, and how much it added to `depth`.
    let mut open: Vec<(Opener, usize)> = Vec::new();
    let mut depth = 0usize;
    let mut chain = 0usize;
    let mut deepest = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        let byte = bytes[i];
        i += 1;
        let opened = match byte {
            b'\\' => {
                let letters = bytes[i..]
                    .iter()
                    .take_while(|b| b.is_ascii_alphabetic())
                    .count();
                if letters == 0 {
                    // A control symbol (`\{`, `\\`, `\,`) takes no argument.
                    i += 1;
                    chain = 0;
                    continue;
                }
                let name = &tex[i..i + letters];
                i += letters;
                match name {
                    "left" => Some(Opener::Left),
                    "begin" => Some(Opener::Begin),
                    "right" | "end" => {
                        let kind = if name == "right" {
                            Opener::Left
                        } else {
                            Opener::Begin
                        };
                        close(&mut open, &mut depth, kind)?;
                        chain = 0;
                        None
                    }
                    _ => {
                        chain += 1;
                        None
                    }
                }
            }
            b'{' => Some(Opener::Brace),
            b'}' => {
                close(&mut open, &mut depth, Opener::Brace)?;
                chain = 0;
                None
            }
            b'^' | b'_' | b'[' => {
                chain += 1;
                None
            }
            b' ' | b'\t' | b'\n' | b'\r' => None,
            _ => {
                chain = 0;
                None
            }
        };
        if let Some(kind) = opened {
            let added = chain + 1;
            open.push((kind, added));
            depth += added;
            chain = 0;
        }
        deepest = deepest.max(depth + chain);
        if deepest > MAX_NESTING {
            return Ok(deepest);
        }
    }
    if open.is_empty() {
        Ok(deepest)
    } else {
        Err(MathError::Unbalanced)
    }
}

/// Closes the innermost level, which must be of `kind`.
fn close(
    open: &mut Vec<(Opener, usize)>,
    depth: &mut usize,
    kind: Opener,
) -> Result<(), MathError> {
    match open.pop() {
        Some((opened, added)) if opened == kind => {
            *depth -= added;
            Ok(())
        }
        _ => Err(MathError::Unbalanced),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typical_formulas_become_mathml() {
        for (tex, expected) in [
            (r"\frac{1}{3}", "<mfrac><mn>1</mn><mn>3</mn></mfrac>"),
            (r"x^2", "<msup><mi>x</mi><mn>2</mn></msup>"),
            (r"\sqrt{2}", "<msqrt><mn>2</mn></msqrt>"),
            (r"\alpha + \beta", "<mi>α</mi>"),
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
    fn deep_nesting_is_refused_before_the_converter_runs() {
        // 5,000 nested braces are over the length limit already; 2,000 are not.
        let braces = format!("{}x{}", "{".repeat(5000), "}".repeat(5000));
        assert_eq!(within_limits(&braces), Err(MathError::TooLong));
        let braces = format!("{}x{}", "{".repeat(2000), "}".repeat(2000));
        assert_eq!(within_limits(&braces), Err(MathError::TooDeep));
        for chain in [
            format!("{}x", r"\sqrt".repeat(MAX_NESTING + 1)),
            format!("{}=", r"\not".repeat(MAX_NESTING + 1)),
            format!(
                "{}x{}",
                r"\left(".repeat(MAX_NESTING + 1),
                r"\right)".repeat(MAX_NESTING + 1)
            ),
            format!(
                "{}x{}",
                r"\frac{".repeat(MAX_NESTING / 2 + 1),
                "}{y}".repeat(MAX_NESTING / 2 + 1)
            ),
            // A chain before a group carries into it.
            format!(
                "{}x{}",
                r"\not\not\not\not\not\not\not{".repeat(5),
                "}".repeat(5)
            ),
            format!(
                "{}x{}",
                r"\begin{matrix}".repeat(MAX_NESTING + 1),
                r"\end{matrix}".repeat(MAX_NESTING + 1)
            ),
        ] {
            assert_eq!(within_limits(&chain), Err(MathError::TooDeep), "{chain}");
            assert_eq!(to_mathml(&chain, true), Err(MathError::TooDeep));
        }
    }

    #[test]
    fn overlong_and_unbalanced_input_is_refused_before_the_converter_runs() {
        let long = "x+".repeat(MAX_FORMULA_BYTES / 2 + 1);
        assert_eq!(within_limits(&long), Err(MathError::TooLong));
        for unbalanced in [
            r"{x",
            r"x}",
            r"\left( x",
            r"x \right)",
            r"\begin{matrix} x",
            r"{\left(}\right)",
        ] {
            assert_eq!(
                within_limits(unbalanced),
                Err(MathError::Unbalanced),
                "{unbalanced}"
            );
        }
        assert_eq!(within_limits(r"\{ x \} \\ \left\{ y \right."), Ok(()));
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
            assert_eq!(within_limits(tex), Ok(()), "{tex}");
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
            if let Some(violation) = crate::app::markdown_check::inert_violation(&html) {
                panic!("{tex}: {violation} in {html}");
            }
        }
    }
}
