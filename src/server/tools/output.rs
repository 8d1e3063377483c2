//! What of a tool's output reaches the model and the page: at most
//! `MAX_OUTPUT_BYTES`, cut at a char boundary, with a marker saying how much
//! was cut (design §6: 64 KB).

/// Most bytes of a tool's output sent on.
pub const MAX_OUTPUT_BYTES: usize = 64 * 1024;

/// `text` within `max` bytes, marker included, and how many bytes were cut.
pub(crate) fn cap_output(text: String, max: usize) -> (String, u64) {
    if text.len() <= max {
        return (text, 0);
    }
    // The marker's length depends on the number it names: reserve room for
    // the widest (a usize), so the result never exceeds `max`.
    let reserve = marker(usize::MAX).len();
    let mut end = max.saturating_sub(reserve);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let cut = text.len() - end;
    let mut kept = text;
    kept.truncate(end);
    kept.push_str(&marker(cut));
    (kept, cut as u64)
}

fn marker(cut: usize) -> String {
    format!("\n[\u{2026} {cut} more bytes of output were cut]")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_output_passes_whole() {
        assert_eq!(cap_output("42".into(), 10), ("42".into(), 0));
    }

    #[test]
    fn long_output_is_cut_within_the_cap_and_says_how_much() {
        let text = "é".repeat(100_000); // 200,000 bytes
        let (kept, cut) = cap_output(text.clone(), MAX_OUTPUT_BYTES);
        assert!(kept.len() <= MAX_OUTPUT_BYTES, "{}", kept.len());
        assert!(kept.ends_with(&format!("{cut} more bytes of output were cut]")));
        let body = kept.split("\n[\u{2026}").next().unwrap_or_default();
        assert_eq!(
            body.len() as u64 + cut,
            text.len() as u64,
            "nothing unaccounted"
        );
    }
}
