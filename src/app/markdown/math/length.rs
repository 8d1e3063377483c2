//! A bound on every length the math renderer writes. LaTeX lets a formula ask
//! for any size (`\hspace{99999999em}`, `\genfrac(){9999em}{0}{1}{2}`,
//! `\mkern9999mu`), and the converter writes it as asked: a bar or gap wider
//! than the page that stays in history. Each length-valued attribute is held
//! to `MAX_EM` either way (a negative one pulls content over its neighbours);
//! a value that does not read as a length is dropped. Pure.

use std::borrow::Cow;

/// The largest length, in em, that reaches the page (`\qquad` is 2 em, the
/// tallest `\Bigg` delimiter about 2.5).
pub(super) const MAX_EM: f64 = 20.0;

/// Attributes whose value is a length (the allow-list's, and the MathML
/// length attributes it does not pass today, so that adding one to the list
/// cannot bring an unbounded length with it).
pub(super) const LENGTH_ATTRIBUTES: &[&str] = &[
    "width",
    "height",
    "depth",
    "lspace",
    "rspace",
    "linethickness",
    "minsize",
    "maxsize",
    "voffset",
    "mathsize",
];

/// Em per unit, for the units a length may carry (CSS: 1em = 16px = 12pt;
/// TeX's math unit is 1/18 em). An empty unit is a multiple (of the default
/// thickness or size), bounded like em; `%` is bounded as that multiple × 100.
const UNITS: &[(&str, f64)] = &[
    ("em", 1.0),
    ("rem", 1.0),
    ("ex", 0.5),
    ("px", 1.0 / 16.0),
    ("pt", 1.0 / 12.0),
    ("pc", 1.0),
    ("in", 6.0),
    ("cm", 6.0 / 2.54),
    ("mm", 0.6 / 2.54),
    ("mu", 1.0 / 18.0),
    ("%", 0.01),
    ("", 1.0),
];

/// The most that the explicit spaces and box sizes of one formula may add up
/// to along each axis, in em (`\qquad` is 2 em): each length is held to
/// [`MAX_EM`], but 60 bars of 20 em side by side still made one formula
/// 22,524 px wide. What a formula asks past this along an axis is written as
/// 0. (The stylesheet also bounds each formula's box: style/main.css.)
pub(super) const FORMULA_EM: f64 = 60.0;

/// What is left of one formula's lengths along each axis ([`FORMULA_EM`]).
#[derive(Debug, Clone, Copy)]
pub(super) struct FormulaBudget {
    across: f64,
    down: f64,
}

impl Default for FormulaBudget {
    fn default() -> Self {
        Self {
            across: FORMULA_EM,
            down: FORMULA_EM,
        }
    }
}

impl FormulaBudget {
    /// `value` of `attribute` as [`bounded`] writes it, and within what is
    /// left of the formula's budget along the attribute's axis (taken from
    /// it); `None` when it is not a plain number and unit.
    pub(super) fn take<'a>(&mut self, attribute: &str, value: &'a str) -> Option<Cow<'a, str>> {
        let value = bounded(value)?;
        let left = match attribute {
            // Explicit space (`\hspace`, `\quad`, `\mkern`…) and the box
            // sizes of `mpadded`, which add up as a formula goes on.
            "width" => &mut self.across,
            "height" | "depth" | "voffset" => &mut self.down,
            // An operator's spacing and a delimiter's size come from fixed
            // tables (a long formula has hundreds, side by side), a line's
            // thickness is one line: each bounded alone.
            _ => return Some(value),
        };
        let (em, unit) = length(&value)?;
        if em.abs() <= *left {
            *left -= em.abs();
            return Some(value);
        }
        let kept = *left;
        *left = 0.0;
        let unit = if unit.is_empty() { "" } else { "em" };
        Some(Cow::Owned(format!("{}{unit}", kept.copysign(em))))
    }
}

/// `value` within ±`MAX_EM` (unchanged when it already is, else the bound in
/// em with its sign), or `None` when it is not a plain number and unit.
pub(super) fn bounded(value: &str) -> Option<Cow<'_, str>> {
    let (em, unit) = length(value)?;
    if em.abs() <= MAX_EM {
        return Some(Cow::Borrowed(value));
    }
    let unit = if unit.is_empty() { "" } else { "em" };
    Some(Cow::Owned(format!("{}{unit}", MAX_EM.copysign(em))))
}

/// The length `value` is, in em, and its unit; `None`: not a finite length.
fn length(value: &str) -> Option<(f64, &str)> {
    let number_end = value
        .find(|c: char| !(c.is_ascii_digit() || matches!(c, '.' | '+' | '-')))
        .unwrap_or(value.len());
    let (number, unit) = value.split_at(number_end);
    let number: f64 = number.parse().ok()?;
    let (_, em_per_unit) = UNITS.iter().find(|(name, _)| *name == unit)?;
    let em = number * em_per_unit;
    em.is_finite().then_some((em, unit))
}

/// The length `value` is, in em (`None`: not a length); for tests.
#[cfg(test)]
pub(super) fn in_em(value: &str) -> Option<f64> {
    length(value).map(|(em, _)| em)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_formulas_lengths_share_a_budget_per_axis() {
        let mut budget = FormulaBudget::default();
        // Three bars of 20 em across fill it; the fourth gets nothing.
        for _ in 0..3 {
            assert_eq!(budget.take("width", "20em").as_deref(), Some("20em"));
        }
        assert_eq!(budget.take("width", "20em").as_deref(), Some("0em"));
        assert_eq!(budget.take("width", "-1em").as_deref(), Some("-0em"));
        // Down is its own budget; a part that does not fit is kept.
        assert_eq!(budget.take("height", "50em").as_deref(), Some("20em"));
        assert_eq!(budget.take("depth", "20em").as_deref(), Some("20em"));
        assert_eq!(budget.take("voffset", "30em").as_deref(), Some("20em"));
        assert_eq!(budget.take("height", "1.5em").as_deref(), Some("0em"));
        // Operator spacing, delimiter sizes and a thickness are bounded alone.
        for _ in 0..100 {
            assert_eq!(
                budget.take("lspace", "0.2222em").as_deref(),
                Some("0.2222em")
            );
            assert_eq!(
                budget.take("minsize", "2.470em").as_deref(),
                Some("2.470em")
            );
        }
        assert_eq!(
            budget.take("linethickness", "9999em").as_deref(),
            Some("20em")
        );
        assert_eq!(budget.take("width", "thick"), None);
    }

    #[test]
    fn lengths_within_the_bound_pass_as_written_and_others_are_held_to_it() {
        for ok in [
            "0",
            "1.2em",
            "0.16666667em",
            "-0.5em",
            "2.470em",
            "99.9px",
            "50%",
        ] {
            assert_eq!(bounded(ok).as_deref(), Some(ok));
        }
        assert_eq!(bounded("100000000em").as_deref(), Some("20em"));
        assert_eq!(bounded("-9999em").as_deref(), Some("-20em"));
        assert_eq!(bounded("555.5em").as_deref(), Some("20em"));
        assert_eq!(bounded("71992.8rem").as_deref(), Some("20em"));
        assert_eq!(bounded("9999ex").as_deref(), Some("20em"));
        assert_eq!(bounded("9999").as_deref(), Some("20"));
        for dropped in [
            "thickmathspace",
            "infinity",
            "1.2.3em",
            "1e9em",
            "em",
            "3vw",
            "",
        ] {
            assert_eq!(bounded(dropped), None, "{dropped}");
        }
    }
}
