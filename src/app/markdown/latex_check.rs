//! What a formula must pass before the LaTeX converter sees it, in one pass
//! over its bytes. Pure.
//!
//! - Its length, which bounds the work and the output of one formula.
//! - How deeply it nests: the converter recurses once per level, and the
//!   browser's stack is 1 MiB (a stack overflow there ends the page).
//! - Where its table separators are. The converter (math-core 0.7) reads a `&`
//!   or `\\` that is not directly in an environment's body, but nested in a
//!   group, in `\left…\right`, in a command's argument, or after a style switch
//!   (`\displaystyle`) or infix command (`\over`), into a node it does not
//!   expect there: a panic in debug builds, a dropped cell in release. So such
//!   a separator makes the formula show as its source, and before every other
//!   one two empty groups are written, which a command short of arguments
//!   (`\frac 1 &`, `x^ &`) takes instead of the separator. An empty group
//!   renders as nothing.

use std::borrow::Cow;

use super::math::MathError;

/// Longest formula converted. Models' formulas are a few hundred bytes.
pub(crate) const MAX_FORMULA_BYTES: usize = 4096;

/// Deepest nesting converted, as `check` counts it. Each counted level costs
/// the converter a few stack frames (measured: 1 MiB held about 400 nested
/// fractions, natively and in WASM, optimized; Cargo.toml optimizes the
/// converter in debug builds too), so this stays far below the browser's
/// 1 MiB stack, while real formulas rarely nest ten deep.
pub(crate) const MAX_NESTING: usize = 32;

/// Commands after which the rest of an environment's body is one nested node
/// in the converter (style switches, infix fractions), and the two whose
/// arguments do not fit the two-group guard.
const SWITCHES: &[&str] = &[
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
];

/// What opened a level that a later token closes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Opener {
    Brace,
    Left,
    Begin,
}

/// An open level: what opened it, how much it added to the nesting, and (for
/// an environment) whether a switch and a separator appeared directly in its
/// body. Both together are refused, in either order: an infix command takes
/// what came before it too.
struct Level {
    opener: Opener,
    added: usize,
    switched: bool,
    separated: bool,
}

/// `tex` if it may go to the converter, with the separator guard written in.
///
/// Nesting is counted as an upper bound, up to a constant factor, on the
/// converter's recursion: a level opens at `{`, `\left` and `\begin` and lasts
/// until its close. Commands, `^`, `_` and `[` in a row nest too without any
/// brace (`\sqrt\sqrt\sqrt x`, `\not\not\not=`, `\sqrt[\sqrt[`): such a chain
/// counts one level per token, and a level opened right after a chain carries
/// the chain inside it. The scan stops as soon as a limit is passed.
pub(crate) fn check(tex: &str) -> Result<Cow<'_, str>, MathError> {
    if tex.len() > MAX_FORMULA_BYTES {
        return Err(MathError::TooLong);
    }
    let bytes = tex.as_bytes();
    let mut open: Vec<Level> = Vec::new();
    let mut environments = 0usize;
    let mut depth = 0usize;
    let mut chain = 0usize;
    // Where a separator in an environment's body starts.
    let mut separators = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let start = i;
        i += 1;
        let opened = match bytes[start] {
            b'\\' => {
                let letters = bytes[i..]
                    .iter()
                    .take_while(|b| b.is_ascii_alphabetic())
                    .count();
                if letters == 0 {
                    // A control symbol (`\{`, `\,`) takes no argument; `\\` is a separator.
                    if bytes.get(i) == Some(&b'\\') && environments > 0 {
                        separator(&mut open, start, &mut separators)?;
                    }
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
                        let opener = if name == "right" {
                            Opener::Left
                        } else {
                            Opener::Begin
                        };
                        close(&mut open, &mut depth, opener)?;
                        environments -= usize::from(opener == Opener::Begin);
                        chain = 0;
                        None
                    }
                    _ => {
                        if let Some(level) = open.last_mut().filter(|_| SWITCHES.contains(&name)) {
                            if level.opener == Opener::Begin {
                                if level.separated {
                                    return Err(MathError::Misplaced);
                                }
                                level.switched = true;
                            }
                        }
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
            b'&' => {
                if environments > 0 {
                    separator(&mut open, start, &mut separators)?;
                }
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
        if let Some(opener) = opened {
            let added = chain + 1;
            open.push(Level {
                opener,
                added,
                switched: false,
                separated: false,
            });
            depth += added;
            environments += usize::from(opener == Opener::Begin);
            chain = 0;
        }
        if depth + chain > MAX_NESTING {
            return Err(MathError::TooDeep);
        }
    }
    if !open.is_empty() {
        return Err(MathError::Unbalanced);
    }
    if separators.is_empty() {
        return Ok(Cow::Borrowed(tex));
    }
    let mut guarded = String::with_capacity(tex.len() + 4 * separators.len());
    let mut copied = 0;
    for at in separators {
        guarded.push_str(&tex[copied..at]);
        guarded.push_str("{}{}");
        copied = at;
    }
    guarded.push_str(&tex[copied..]);
    Ok(Cow::Owned(guarded))
}

/// A separator at `at` inside an environment: fine directly in its body (and
/// recorded for the guard), refused anywhere else.
fn separator(open: &mut [Level], at: usize, separators: &mut Vec<usize>) -> Result<(), MathError> {
    match open.last_mut() {
        Some(level) if level.opener == Opener::Begin && !level.switched => {
            level.separated = true;
            separators.push(at);
            Ok(())
        }
        _ => Err(MathError::Misplaced),
    }
}

/// Closes the innermost level, which must have been opened by `opener`.
fn close(open: &mut Vec<Level>, depth: &mut usize, opener: Opener) -> Result<(), MathError> {
    match open.pop() {
        Some(level) if level.opener == opener => {
            *depth -= level.added;
            Ok(())
        }
        _ => Err(MathError::Unbalanced),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deep_nesting_is_refused() {
        // 5,000 nested braces are over the length limit already; 2,000 are not.
        let braces = format!("{}x{}", "{".repeat(5000), "}".repeat(5000));
        assert_eq!(check(&braces), Err(MathError::TooLong));
        let braces = format!("{}x{}", "{".repeat(2000), "}".repeat(2000));
        assert_eq!(check(&braces), Err(MathError::TooDeep));
        let over = MAX_NESTING + 1;
        for deep in [
            format!("{}x", r"\sqrt".repeat(over)),
            format!("{}=", r"\not".repeat(over)),
            format!("{}x{}", r"\left(".repeat(over), r"\right)".repeat(over)),
            format!(
                "{}x{}",
                r"\frac{".repeat(over / 2 + 1),
                "}{y}".repeat(over / 2 + 1)
            ),
            // A chain before a group carries into it.
            format!(
                "{}x{}",
                r"\not\not\not\not\not\not\not{".repeat(5),
                "}".repeat(5)
            ),
            format!(
                "{}x{}",
                r"\begin{matrix}".repeat(over),
                r"\end{matrix}".repeat(over)
            ),
        ] {
            assert_eq!(check(&deep), Err(MathError::TooDeep), "{deep}");
        }
    }

    #[test]
    fn overlong_and_unbalanced_input_is_refused() {
        let long = "x+".repeat(MAX_FORMULA_BYTES / 2 + 1);
        assert_eq!(check(&long), Err(MathError::TooLong));
        for unbalanced in [
            r"{x",
            r"x}",
            r"\left( x",
            r"x \right)",
            r"\begin{matrix} x",
            r"{\left(}\right)",
        ] {
            assert_eq!(
                check(unbalanced),
                Err(MathError::Unbalanced),
                "{unbalanced}"
            );
        }
        assert_eq!(
            check(r"\{ x \} \\ \left\{ y \right."),
            Ok(Cow::Borrowed(r"\{ x \} \\ \left\{ y \right."))
        );
    }

    #[test]
    fn separators_in_an_environments_body_get_the_guard() {
        assert_eq!(
            check(r"\begin{matrix} \frac 1 & x^ \\ \alpha & b \end{matrix}").as_deref(),
            Ok(r"\begin{matrix} \frac 1 {}{}& x^ {}{}\\ \alpha {}{}& b \end{matrix}")
        );
        // Outside an environment `&` is the converter's error and `\\` a no-op.
        assert_eq!(check(r"a & b \\ c").as_deref(), Ok(r"a & b \\ c"));
        // `\&` is a character, not a separator.
        assert_eq!(
            check(r"\begin{matrix} a \& b \end{matrix}").as_deref(),
            Ok(r"\begin{matrix} a \& b \end{matrix}")
        );
    }

    #[test]
    fn separators_nested_in_an_environment_are_refused() {
        for misplaced in [
            r"\begin{matrix} {a & b} \end{matrix}",
            r"\begin{matrix} \left( a \\ b \right) \end{matrix}",
            r"\begin{matrix} \text{a & b} \end{matrix}",
            r"\begin{matrix} \displaystyle \sum_i x & y \end{matrix}",
            r"\begin{matrix} a \over b \\ c \end{matrix}",
            r"\begin{matrix} a \\ c \over d \end{matrix}",
            r"\begin{matrix} \genfrac{}{}{}{}{}{} & b \end{matrix}",
        ] {
            assert_eq!(check(misplaced), Err(MathError::Misplaced), "{misplaced}");
        }
        // A switch inside a group ends with it; one in an inner environment with it.
        for fine in [
            r"\begin{matrix} {\displaystyle \sum_i x} & y \end{matrix}",
            r"\begin{matrix} \begin{matrix} \scriptstyle a \end{matrix} & y \end{matrix}",
            r"\left( \begin{matrix} a & b \end{matrix} \right)",
        ] {
            assert!(check(fine).is_ok(), "{fine}");
        }
    }
}
