//! Credentials out of text a provider wrote, before it is quoted to the user.
//! A gateway's error may echo what it was sent (`Invalid key sk-… `) or name
//! tokens of its own (`Authorization: Bearer …`). This removes anything
//! shaped like a token: what follows `Bearer` or `Basic`, and words that
//! start like a provider's key (`sk-`, `sk-ant-`, `gsk_`, `xai-`, `AIza`),
//! in any case.
//! The configured key, URL and host are removed by the server, which knows
//! them (`server::redact`); this rule also catches keys it never sent.
//!
//! Pure text: no I/O, shared by both builds.

/// What a removed credential reads as.
pub const REDACTED: &str = "[redacted]";

/// Characters a token is made of (base64, base64url, JWT dots, hex, `-`/`_`).
fn is_token_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '~' | '+' | '/' | '=')
}

/// The prefixes of providers' keys, each with the shortest run after it
/// that counts as a key (`sk-` alone, or a word such as `sk-learn`, stays):
/// OpenAI, DeepSeek and Anthropic (`sk-`, `sk-ant-`), Groq (`gsk_`), xAI
/// (`xai-`), and Google's API keys (`AIza` and 35 more characters; a word
/// such as "Aizawa" is far shorter).
const KEY_PREFIXES: [(&str, usize); 4] = [("sk-", 8), ("gsk_", 8), ("xai-", 8), ("aiza", 30)];

/// The HTTP authorization schemes whose credentials follow them.
const SCHEMES: [&str; 2] = ["bearer", "basic"];

/// Whether what follows `Bearer` is a token rather than a word ("Bearer
/// token", "Bearer authentication"): 8 characters or more with a digit, or
/// long enough that a word is unlikely; base64 padding (`=`) counts as a digit.
fn looks_like_token(token: &str) -> bool {
    token.len() >= 8
        && (token.bytes().any(|b| b.is_ascii_digit() || b == b'=') || token.len() >= 24)
}

/// `text` with every `Bearer <token>`, `Basic <credentials>` and key of a
/// known shape replaced by `[redacted]`.
pub fn credentials(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    // Whether the character before `rest` can start a word (a key glued to
    // a longer word, `task-sk-…`, is not cut in half: it is not a key).
    let mut at_boundary = true;
    while let Some(c) = rest.chars().next() {
        if at_boundary {
            if let Some((len, scheme)) = scheme_len(rest).or_else(|| key_len(rest).map(|n| (n, "")))
            {
                out.push_str(scheme);
                out.push_str(REDACTED);
                rest = &rest[len..];
                at_boundary = false;
                continue;
            }
        }
        out.push(c);
        at_boundary = !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_'));
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// Bytes of `Bearer <token>` (or `Basic <credentials>`) at the start of
/// `text`, if it starts so, and the scheme as it is kept ("Bearer ").
fn scheme_len(text: &str) -> Option<(usize, &'static str)> {
    let scheme = SCHEMES
        .into_iter()
        .find(|scheme| starts_with_ignore_case(text, scheme))?;
    let after = &text[scheme.len()..];
    let spaces = after.len() - after.trim_start_matches([' ', '\t']).len();
    let token = &after[spaces..][..token_len(&after[spaces..])];
    let kept = if scheme == "bearer" {
        "Bearer "
    } else {
        "Basic "
    };
    (spaces > 0 && looks_like_token(token)).then_some((scheme.len() + spaces + token.len(), kept))
}

/// Bytes of a provider's key at the start of `text`, if one starts there
/// (its prefix in any case).
fn key_len(text: &str) -> Option<usize> {
    KEY_PREFIXES.into_iter().find_map(|(prefix, min_tail)| {
        if !starts_with_ignore_case(text, prefix) {
            return None;
        }
        let len = token_len(&text[prefix.len()..]);
        (len >= min_tail).then_some(prefix.len() + len)
    })
}

/// Bytes of the token at the start of `text` (ASCII, so bytes are chars).
fn token_len(text: &str) -> usize {
    text.find(|c: char| !is_token_char(c)).unwrap_or(text.len())
}

fn starts_with_ignore_case(text: &str, prefix: &str) -> bool {
    text.get(..prefix.len())
        .is_some_and(|head| head.eq_ignore_ascii_case(prefix))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bearer_tokens_and_sk_keys_are_removed_and_the_words_around_them_kept() {
        assert_eq!(
            credentials("Invalid key sk-proj-abc123DEF456 for user"),
            "Invalid key [redacted] for user"
        );
        assert_eq!(
            credentials("send Authorization: Bearer eyJhbGci0.x-y_z= again"),
            "send Authorization: Bearer [redacted] again"
        );
        assert_eq!(
            credentials("header was bearer\tabc12345 (key=sk-ant-api03-AAAAAAAAAA)"),
            "header was Bearer [redacted] (key=[redacted])"
        );
    }

    #[test]
    fn every_providers_key_shape_is_removed_in_any_case() {
        assert_eq!(
            credentials("google said AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY!"),
            "google said [redacted]!"
        );
        assert_eq!(
            credentials("groq gsk_4f8a9b7c6d5e4f3a2b1c xai xai-9a8b7c6d5e4f3a2b"),
            "groq [redacted] xai [redacted]"
        );
        assert_eq!(
            credentials("KEY=SK-ANT-API03-ABCDEFGHIJKL;"),
            "KEY=[redacted];"
        );
        assert_eq!(
            credentials("Authorization: Basic dXNlcjpwYXNzd29yZA=="),
            "Authorization: Basic [redacted]"
        );
    }

    #[test]
    fn text_that_only_looks_close_is_left_alone() {
        for text in [
            "Use a Bearer token.",
            "Basic authentication failed",
            "Aizawa-sensei said so",
            "the gsk_ and xai- prefixes",
            "the sk- prefix",
            "pip install sk-learn",
            "task-sk-0123456789abc",
            "Überlastet: sk-",
            "",
        ] {
            assert_eq!(credentials(text), text);
        }
    }
}

#[cfg(test)]
mod properties {
    use super::*;
    use proptest::prelude::*;

    /// A key of one of the shapes, its prefix in any case.
    fn key() -> impl Strategy<Value = String> {
        let tail = "[A-Za-z0-9_-]{36,48}";
        (
            prop_oneof![
                Just("sk-"),
                Just("sk-ant-api03-"),
                Just("gsk_"),
                Just("xai-"),
                Just("AIza"),
                Just("Bearer "),
                Just("Basic "),
            ],
            any::<bool>(),
            tail,
        )
            .prop_map(|(prefix, upper, tail)| {
                let prefix = if upper {
                    prefix.to_ascii_uppercase()
                } else {
                    prefix.to_owned()
                };
                format!("{prefix}{tail}9")
            })
    }

    proptest! {
        /// Wherever a key stands (after any text ending in a separator,
        /// before any text starting with one), nothing of its secret part
        /// survives, and the text around it does.
        #[test]
        fn no_key_survives_wherever_it_stands(
            before in "[ -~]{0,40}[ :=(\"']",
            key in key(),
            after in "([ ,;)\"'!][ -~]{0,40})?",
        ) {
            let text = format!("{before}{key}{after}");
            let scrubbed = credentials(&text);
            let secret = &key[key.len() - 20..];
            prop_assert!(!scrubbed.contains(secret), "{text} -> {scrubbed}");
            prop_assert!(scrubbed.contains(REDACTED), "{text} -> {scrubbed}");
            prop_assert!(scrubbed.ends_with(&after), "{text} -> {scrubbed}");
        }
    }
}
