//! Why a formula shows as its source: each step of the math pipeline (the
//! input check, the converter, the MathML allow-list) fails with one of
//! these. A module of its own so that every step can name it without
//! depending on the pipeline that calls it.

/// Why a formula shows as its source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MathError {
    /// Longer than `MAX_FORMULA_BYTES`.
    TooLong,
    /// Nests deeper than `MAX_NESTING`.
    TooDeep,
    /// A group, `\left` or `\begin` that is never closed, or a close with no open.
    Unbalanced,
    /// A table separator where the converter cannot take it (`latex_check`).
    Misplaced,
    /// The converter refused it (unknown command, bad syntax, …).
    Invalid,
    /// The converter wrote something the allow-list does not accept.
    Unexpected,
}
