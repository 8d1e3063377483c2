//! Text contrast of the design tokens in style/main.css stays ≥ 4.5:1 (WCAG AA)
//! in the light and the dark theme (DESIGN §4).

use std::collections::HashMap;

fn tokens(block: &str) -> HashMap<String, String> {
    block
        .lines()
        .filter_map(|l| {
            let l = l.trim().trim_end_matches(';');
            let (name, value) = l.split_once(':')?;
            let value = value.trim();
            (name.trim().starts_with("--") && value.starts_with('#') && value.len() == 7)
                .then(|| (name.trim().to_owned(), value.to_owned()))
        })
        .collect()
}

fn luminance(hex: &str) -> f64 {
    let channel = |i: usize| {
        let c = f64::from(u8::from_str_radix(&hex[i..i + 2], 16).expect("hex colour")) / 255.0;
        if c <= 0.03928 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5)
}

fn contrast(a: &str, b: &str) -> f64 {
    let (x, y) = (luminance(a), luminance(b));
    (x.max(y) + 0.05) / (x.min(y) + 0.05)
}

#[test]
fn every_text_token_has_at_least_4_5_to_1_on_every_surface_in_both_themes() {
    let css = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/style/main.css"))
        .expect("css");
    let light_start = css.find(":root {").expect("light tokens");
    let dark_start = css
        .find("@media (prefers-color-scheme: dark)")
        .expect("dark tokens");
    let light = tokens(&css[light_start..dark_start]);
    let mut dark = light.clone();
    dark.extend(tokens(
        &css[dark_start
            ..css[dark_start..]
                .find("}\n}")
                .map_or(css.len(), |e| dark_start + e)],
    ));
    for (theme, t) in [("light", &light), ("dark", &dark)] {
        for text in ["--text", "--text-muted", "--accent", "--danger"] {
            for surface in ["--bg", "--surface", "--surface-2"] {
                let ratio = contrast(&t[text], &t[surface]);
                assert!(ratio >= 4.5, "{theme}: {text} on {surface} is {ratio:.2}:1");
            }
        }
        let button = contrast(&t["--accent-text"], &t["--accent"]);
        assert!(button >= 4.5, "{theme}: button text {button:.2}:1");
    }
}
