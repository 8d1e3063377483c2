//! Credentials out of text a provider wrote, before it is quoted to the user.
//! A gateway's error may echo what it was sent (`Invalid key sk-… `) or name
//! tokens of its own (`Authorization: Bearer …`). This removes anything
//! shaped like a token: what follows `Bearer`, and words that start `sk-`.
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

/// Shortest run after `sk-` that counts as a key (`sk-` alone, or a word
/// such as `sk-learn`, stays).
const MIN_SK_TAIL: usize = 8;

/// Whether what follows `Bearer` is a token rather than a word ("Bearer
/// token", "Bearer authentication"): 8 characters or more with a digit, or
/// long enough that a word is unlikely.
fn looks_like_token(token: &str) -> bool {
    token.len() >= 8 && (token.bytes().any(|b| b.is_ascii_digit()) || token.len() >= 24)
}

/// `text` with every `Bearer <token>` and `sk-…` key replaced by `[redacted]`.
pub fn credentials(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    // Whether the character before `rest` can start a word (a key glued to
    // a longer word, `task-sk-…`, is not cut in half: it is not a key).
    let mut at_boundary = true;
    while let Some(c) = rest.chars().next() {
        if at_boundary {
            if let Some(len) = bearer_len(rest).or_else(|| sk_key_len(rest)) {
                let kept = if starts_with_ignore_case(rest, "bearer") {
                    "Bearer "
                } else {
                    ""
                };
                out.push_str(kept);
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

/// Bytes of `Bearer <token>` at the start of `text`, if it starts so.
fn bearer_len(text: &str) -> Option<usize> {
    if !starts_with_ignore_case(text, "bearer") {
        return None;
    }
    let after = &text["bearer".len()..];
    let spaces = after.len() - after.trim_start_matches([' ', '\t']).len();
    let token = &after[spaces..][..token_len(&after[spaces..])];
    (spaces > 0 && looks_like_token(token)).then_some("bearer".len() + spaces + token.len())
}

/// Bytes of an `sk-` key at the start of `text`, if one starts there.
fn sk_key_len(text: &str) -> Option<usize> {
    let tail = text.strip_prefix("sk-")?;
    let len = token_len(tail);
    (len >= MIN_SK_TAIL).then_some(3 + len)
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
    fn text_that_only_looks_close_is_left_alone() {
        for text in [
            "Use a Bearer token.",
            "Bearer authentication failed",
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
