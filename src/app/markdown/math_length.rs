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
