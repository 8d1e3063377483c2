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
//!   expect there: a panic in debug builds, a dropped cell in release. So a
//!   separator in a group, after a switch, or followed by a script or prime
//!   makes the formula show as its source; before every other one go two
//!   empty groups per command or script in its cell (each takes at most two
//!   arguments; the few that take more are refused like switches), which a
//!   command short of arguments (`\frac 1 &`, `x^ &`) takes instead of the
//!   separator. An empty group renders as nothing.

use std::borrow::Cow;

use super::error::MathError;

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
    "color",
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
    /// The optional argument of `\sqrt` or an `\x…` arrow, closed by `]`.
    Bracket,
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
    /// Commands and scripts directly in an environment's body since its last
    /// separator: at most two pending arguments each.
    demand: usize,
}

/// `tex` if it may go to the converter, with the separator guard written in.
///
/// Nesting is counted as an upper bound, up to a constant factor, on the
/// converter's recursion: a level opens at `{`, `\left`, `\begin` and an
/// optional argument's `[`, and lasts until its close. Commands, `^`, `_` and
/// `[` in a row nest too without any brace (`\sqrt\sqrt\sqrt x`,
/// `\not\not\not=`): such a chain counts one level per token, and a level
/// opened right after a chain carries the chain inside it. The scan stops as
/// soon as a limit is passed.
pub(crate) fn check(tex: &str) -> Result<Cow<'_, str>, MathError> {
    if tex.len() > MAX_FORMULA_BYTES {
        return Err(MathError::TooLong);
    }
    let mut scan = Scan::default();
    let bytes = tex.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let start = i;
        i += 1;
        if bytes[start].is_ascii_whitespace() {
            continue;
        }
        // A rule after `\\` belongs to the row: what follows it is the test.
        // (Bytes: `start` may be inside a multi-byte character.)
        let rest = &bytes[start..];
        let rule = rest.starts_with(b"\\hline") || rest.starts_with(b"\\hdashline");
        if scan.after_separator && !rule {
            scan.after_separator = false;
            if postfix(rest) {
                return Err(MathError::Misplaced);
            }
        }
        let optional_argument = std::mem::take(&mut scan.optional_argument);
        match bytes[start] {
            b'\\' => {
                let letters = bytes[i..]
                    .iter()
                    .take_while(|b| b.is_ascii_alphabetic())
                    .count();
                if letters == 0 {
                    // A control symbol (`\{`, `\,`) takes no argument; `\\` is a separator.
                    if bytes.get(i) == Some(&b'\\') {
                        scan.separator(start)?;
                    }
                    i += 1;
                    scan.chain = 0;
                } else {
                    scan.control_word(&tex[i..i + letters])?;
                    i += letters;
                }
            }
            b'{' => scan.open(Opener::Brace),
            b'}' => scan.close(Opener::Brace)?,
            b'[' if optional_argument => scan.open(Opener::Bracket),
            b']' if scan.innermost(Opener::Bracket) => scan.close(Opener::Bracket)?,
            b'&' => scan.separator(start)?,
            b'^' | b'_' => {
                scan.demand();
                scan.chain += 1;
            }
            b'[' => scan.chain += 1,
            _ => scan.chain = 0,
        }
        if scan.depth + scan.chain > MAX_NESTING {
            return Err(MathError::TooDeep);
        }
    }
    if !scan.open.is_empty() {
        return Err(MathError::Unbalanced);
    }
    if scan.separators.is_empty() {
        return Ok(Cow::Borrowed(tex));
    }
    let groups: usize = scan.separators.iter().map(|(_, groups)| groups).sum();
    let mut guarded = String::with_capacity(tex.len() + 2 * groups);
    let mut copied = 0;
    for (at, groups) in scan.separators {
        guarded.push_str(&tex[copied..at]);
        for _ in 0..groups {
            guarded.push_str("{}");
        }
        copied = at;
    }
    guarded.push_str(&tex[copied..]);
    Ok(Cow::Owned(guarded))
}

/// The state of one scan.
#[derive(Default)]
struct Scan {
    open: Vec<Level>,
    /// Environments among `open`.
    environments: usize,
    /// The nesting the open levels add up to.
    depth: usize,
    /// Tokens in the current chain.
    chain: usize,
    /// Where each separator in an environment's body starts, and how many
    /// empty groups go before it.
    separators: Vec<(usize, usize)>,
    /// The last token was a separator: a script, prime or `\limits` next
    /// would take it as its base.
    after_separator: bool,
    /// The last token was a command whose `[` opens an optional argument.
    optional_argument: bool,
}

impl Scan {
    fn control_word(&mut self, name: &str) -> Result<(), MathError> {
        match name {
            "left" => self.open(Opener::Left),
            "begin" => self.open(Opener::Begin),
            "right" => self.close(Opener::Left)?,
            "end" => self.close(Opener::Begin)?,
            _ => {
                if SWITCHES.contains(&name) {
                    if let Some(level) = self.open.last_mut() {
                        if level.opener == Opener::Begin {
                            if level.separated {
                                return Err(MathError::Misplaced);
                            }
                            level.switched = true;
                        }
                    }
                }
                // `\sqrt[3]{x}`, `\xrightarrow[below]{above}` (not `\xi [0, 1)`).
                self.optional_argument = name == "sqrt"
                    || (name.starts_with('x')
                        && ["arrow", "harpoon", "mapsto", "equal", "tofrom"]
                            .iter()
                            .any(|kind| name.contains(kind)));
                self.demand();
                self.chain += 1;
            }
        }
        Ok(())
    }

    /// Opens a level, carrying the chain before it.
    fn open(&mut self, opener: Opener) {
        let added = self.chain + 1;
        self.open.push(Level {
            opener,
            added,
            switched: false,
            separated: false,
            demand: 0,
        });
        self.depth += added;
        self.environments += usize::from(opener == Opener::Begin);
        self.chain = 0;
    }

    /// Closes the innermost level, which must have been opened by `opener`.
    fn close(&mut self, opener: Opener) -> Result<(), MathError> {
        match self.open.pop() {
            Some(level) if level.opener == opener => {
                self.depth -= level.added;
                self.environments -= usize::from(opener == Opener::Begin);
                self.chain = 0;
                Ok(())
            }
            _ => Err(MathError::Unbalanced),
        }
    }

    /// A command or script: if directly in an environment's body, it may
    /// still want arguments when the next separator comes.
    fn demand(&mut self) {
        if let Some(level) = self.open.last_mut() {
            if level.opener == Opener::Begin {
                level.demand += 1;
            }
        }
    }

    fn innermost(&self, opener: Opener) -> bool {
        self.open.last().is_some_and(|level| level.opener == opener)
    }

    /// A separator at `at`: outside any environment the converter's own
    /// business; in one, fine directly in its body (and recorded for the
    /// guard), refused anywhere else.
    fn separator(&mut self, at: usize) -> Result<(), MathError> {
        self.chain = 0;
        if self.environments == 0 {
            return Ok(());
        }
        match self.open.last_mut() {
            Some(level) if level.opener == Opener::Begin && !level.switched => {
                level.separated = true;
                self.separators
                    .push((at, 2 * std::mem::take(&mut level.demand)));
                self.after_separator = true;
                Ok(())
            }
            _ => Err(MathError::Misplaced),
        }
    }
}

/// Whether `rest` starts with a token that attaches to the node before it.
fn postfix(rest: &[u8]) -> bool {
    rest.starts_with(b"^")
        || rest.starts_with(b"_")
        || rest.starts_with(b"'")
        || [&b"\\limits"[..], b"\\nolimits", b"\\displaylimits"]
            .iter()
            .any(|word| rest.starts_with(word))
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
            check(r"\begin{matrix} \frac 1 & x^ \\ \alpha & b \\ \frac\frac 1 2 & c \end{matrix}")
                .as_deref(),
            Ok(
                r"\begin{matrix} \frac 1 {}{}& x^ {}{}\\ \alpha {}{}& b \\ \frac\frac 1 2 {}{}{}{}& c \end{matrix}"
            )
        );
        // Commands inside a group cannot reach past it: nothing to guard.
        assert_eq!(
            check(r"\begin{matrix} {\frac{1}{2}} & b \end{matrix}").as_deref(),
            Ok(r"\begin{matrix} {\frac{1}{2}} & b \end{matrix}")
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
    fn multi_byte_text_after_a_separator_is_read_safely() {
        // A fuzz finding: the check after a separator sliced into a character.
        let tex = "\\begin{matrix} a &\u{2003}\u{fffd} b \\\\ \u{e9} \\end{matrix}";
        assert!(check(tex).is_ok());
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
            r"\begin{matrix} a & 'b \end{matrix}",
            r"\begin{matrix} a \\ ^2 b \end{matrix}",
            r"\begin{array}{c} a \\ \hline ^2 b \end{array}",
            r"\begin{matrix} a & \limits b \end{matrix}",
            r"\begin{matrix} \sqrt[a & b]{c} \end{matrix}",
            r"\begin{matrix} \xrightarrow[a \\ b]{c} \end{matrix}",
        ] {
            assert_eq!(check(misplaced), Err(MathError::Misplaced), "{misplaced}");
        }
        // A switch inside a group ends with it; one in an inner environment with it.
        for fine in [
            r"\begin{matrix} \xi \in [0, 1) & \sqrt[3]{x} \\ \xrightarrow[a]{b} & ] \end{matrix}",
            r"\begin{matrix} {\displaystyle \sum_i x} & y \end{matrix}",
            r"\begin{matrix} \begin{matrix} \scriptstyle a \end{matrix} & y \end{matrix}",
            r"\left( \begin{matrix} a & b \end{matrix} \right)",
        ] {
            assert!(check(fine).is_ok(), "{fine}");
        }
    }
}
