//! Text contrast of the design tokens in style/main.css, in the light and the
//! dark theme. The README states one figure; end2end/tests/accessibility.spec.ts
//! measures it in the browser over every text the page shows. This test holds
//! the tokens to the same figure for every text token on every surface, so a
//! pairing no page state shows yet cannot fall below what the README promises.

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

/// The figure in the README's "text contrast ≥ X:1 in both themes".
fn readme_figure() -> f64 {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("README.md");
    let (_, rest) = readme
        .split_once("text contrast \u{2265} ")
        .expect("the README states a contrast figure");
    let (figure, rest) = rest.split_once(":1").expect("a ratio");
    assert!(
        rest.starts_with(" in both themes"),
        "the figure covers both themes"
    );
    figure.parse().expect("a number")
}

#[test]
fn every_text_token_meets_the_readme_figure_on_every_surface_in_both_themes() {
    let figure = readme_figure();
    // Never below WCAG AA (design §4), whatever the README says.
    assert!(figure >= 4.5, "README figure {figure} is below 4.5:1");
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
                assert!(
                    ratio >= figure,
                    "{theme}: {text} on {surface} is {ratio:.2}:1, below the README's {figure}:1"
                );
            }
        }
        // A search match: the results' <mark> (and the highlight in the
        // conversation, style/main.css writes the same colours out).
        let mark = contrast(&t["--mark-text"], &t["--mark-bg"]);
        assert!(
            mark >= figure,
            "{theme}: a search match {mark:.2}:1, below the README's {figure}:1"
        );
        let button = contrast(&t["--accent-text"], &t["--accent"]);
        assert!(
            button >= figure,
            "{theme}: button text {button:.2}:1, below the README's {figure}:1"
        );
    }
}

#[test]
fn every_code_token_colour_is_readable_on_every_surface_in_both_themes() {
    let css = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/style/main.css"))
        .expect("css");
    let dark_start = css
        .find("@media (prefers-color-scheme: dark)")
        .expect("dark tokens");
    let light = tokens(&css[css.find(":root {").expect("light tokens")..dark_start]);
    let dark_end = css[dark_start..]
        .find("}\n}")
        .map_or(css.len(), |e| dark_start + e);
    let dark = tokens(&css[dark_start..dark_end]);
    for (theme, t) in [("light", &light), ("dark", &dark)] {
        let code: Vec<_> = t.keys().filter(|k| k.starts_with("--code-")).collect();
        assert!(code.len() >= 8, "{theme}: code tokens {code:?}");
        for token in code {
            // Code sits on --surface-2; reasoning and answers on the others.
            for surface in ["--bg", "--surface", "--surface-2"] {
                let ratio = contrast(&t[token], &t[surface]);
                assert!(
                    ratio >= 4.5,
                    "{theme}: {token} on {surface} is {ratio:.2}:1"
                );
            }
        }
    }
}
