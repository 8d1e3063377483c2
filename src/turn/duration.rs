//! How the app writes a span of time, in one place so the live timer, the
//! folded header, the status line and the exported Markdown never disagree.
//! Pure: no clock is read here.

/// The ways a duration is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DurationStyle {
    /// A ticking clock: whole seconds elapsed, rounded down so it never runs
    /// ahead of time ("0s", "7s").
    Clock,
    /// A clock that stopped (Stop, a lost connection, the wait before hidden
    /// reasoning): the nearest whole second, "0s" included, as it read.
    Seconds,
    /// A finished thought: "12s", or "less than a second" under one.
    Short,
    /// The same, in words for the status line: "12 seconds", "1 second".
    Spoken,
    /// Tool time, short enough to need tenths: "0.3s", "4.1s".
    Tenths,
}

/// `ms` milliseconds written in `style`; a negative span (clocks that
/// disagree) counts as none.
pub fn format_duration(ms: f64, style: DurationStyle) -> String {
    let ms = ms.max(0.0);
    if style == DurationStyle::Tenths {
        return format!("{:.1}s", (ms / 100.0).round() / 10.0);
    }
    let words = matches!(style, DurationStyle::Short | DurationStyle::Spoken);
    if words && ms < 1000.0 {
        return "less than a second".into();
    }
    let seconds = match style {
        DurationStyle::Clock => (ms / 1000.0).floor(),
        _ => (ms / 1000.0).round(),
    } as u64;
    match (style, seconds) {
        (DurationStyle::Spoken, 1) => "1 second".into(),
        (DurationStyle::Spoken, n) => format!("{n} seconds"),
        (_, n) => format!("{n}s"),
    }
}

#[cfg(test)]
mod tests {
    use super::DurationStyle::{Clock, Seconds, Short, Spoken};
    use super::*;

    #[test]
    fn a_clock_shows_whole_seconds_elapsed_and_never_runs_ahead() {
        assert_eq!(format_duration(0.0, Clock), "0s");
        assert_eq!(format_duration(7_999.0, Clock), "7s");
        assert_eq!(format_duration(8_000.0, Clock), "8s");
        assert_eq!(format_duration(-40.0, Clock), "0s");
    }

    #[test]
    fn a_stopped_clock_shows_the_nearest_whole_second() {
        assert_eq!(format_duration(9_200.0, Seconds), "9s");
        assert_eq!(format_duration(9_600.0, Seconds), "10s");
        assert_eq!(format_duration(300.0, Seconds), "0s");
    }

    #[test]
    fn a_measured_span_rounds_and_says_when_it_was_under_a_second() {
        assert_eq!(format_duration(12_400.0, Short), "12s");
        assert_eq!(format_duration(12_500.0, Short), "13s");
        assert_eq!(format_duration(1_000.0, Short), "1s");
        assert_eq!(format_duration(999.0, Short), "less than a second");
        assert_eq!(format_duration(0.0, Short), "less than a second");
    }

    #[test]
    fn tool_time_shows_tenths() {
        use super::DurationStyle::Tenths;
        assert_eq!(format_duration(4_140.0, Tenths), "4.1s");
        assert_eq!(format_duration(260.0, Tenths), "0.3s");
        assert_eq!(format_duration(0.0, Tenths), "0.0s");
    }

    #[test]
    fn the_spoken_form_says_the_same_span_in_words() {
        assert_eq!(format_duration(12_400.0, Spoken), "12 seconds");
        assert_eq!(format_duration(1_400.0, Spoken), "1 second");
        // Under a second it agrees with the header, not "1 second".
        assert_eq!(format_duration(700.0, Spoken), "less than a second");
    }
}
