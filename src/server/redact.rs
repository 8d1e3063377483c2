//! The configured provider's secrets out of what a turn sends the browser. A
//! provider's error text is quoted to the user, and a gateway may echo what
//! it was sent: the key, the URL it was called at, its host. Every `error`
//! event of a turn passes through `Redactor::event` with its model's
//! `UpstreamModel`, whatever path the text came by (an HTTP error body, an
//! error inside the stream, a malformed line). Tokens of other shapes
//! (`Bearer …`, `sk-…`) are removed where provider text is quoted
//! (`turn::scrub`).

use crate::server::providers::wire::UpstreamModel;
use crate::turn::scrub::REDACTED;
use crate::turn::TurnEvent;

/// What the provider's address reads as.
const ADDRESS: &str = "[provider address]";

/// Shorter keys are not searched for: they would cut ordinary words apart
/// (such a key is no secret worth the name).
const MIN_KEY_CHARS: usize = 4;

/// The strings one model's provider must never be quoted with.
#[derive(Debug, Default)]
pub(crate) struct Redactor {
    /// (secret, what it becomes), longest first, so a URL goes before the
    /// host inside it.
    needles: Vec<(String, &'static str)>,
}

impl Redactor {
    /// The key, base URL, credentials in the URL, host with and without port.
    pub(crate) fn for_upstream(model: &UpstreamModel) -> Self {
        let mut needles = Vec::new();
        if let Some(key) = &model.api_key {
            let key = key.expose().trim();
            if key.chars().count() >= MIN_KEY_CHARS {
                needles.push((key.to_owned(), REDACTED));
            }
        }
        let url = model.base_url.trim().trim_end_matches('/');
        if !url.is_empty() {
            needles.push((url.to_owned(), ADDRESS));
            let (scheme, without_scheme) = url.split_once("://").unwrap_or(("", url));
            needles.push((without_scheme.to_owned(), ADDRESS));
            let (authority, path) = without_scheme
                .find('/')
                .map_or((without_scheme, ""), |at| without_scheme.split_at(at));
            let (userinfo, host_port) = match authority.rsplit_once('@') {
                Some((userinfo, host_port)) => (Some(userinfo), host_port),
                None => (None, authority),
            };
            // The URL as a gateway would quote it: without the credentials.
            needles.push((format!("{scheme}://{host_port}{path}"), ADDRESS));
            needles.push((format!("{host_port}{path}"), ADDRESS));
            if let Some(userinfo) = userinfo {
                needles.push((userinfo.to_owned(), REDACTED));
                if let Some((_, password)) = userinfo.split_once(':') {
                    needles.push((password.to_owned(), REDACTED));
                }
            }
            needles.push((host_port.to_owned(), ADDRESS));
            needles.push((host_of(host_port).to_owned(), ADDRESS));
        }
        needles.retain(|(needle, _)| !needle.is_empty());
        needles.sort_by_key(|(needle, _)| std::cmp::Reverse(needle.len()));
        needles.dedup();
        Self { needles }
    }

    /// `text` with each secret replaced (ASCII case ignored: hosts and
    /// schemes come back in any case).
    pub fn text(&self, text: &str) -> String {
        self.needles
            .iter()
            .fold(text.to_owned(), |text, (needle, mark)| {
                replace_ignoring_ascii_case(&text, needle, mark)
            })
    }

    /// `event`, its message redacted when it is an error.
    pub fn event(&self, event: TurnEvent) -> TurnEvent {
        match event {
            TurnEvent::Error { kind, message } => TurnEvent::Error {
                kind,
                message: self.text(&message),
            },
            other => other,
        }
    }
}

/// The host of `host:port` (`[v6]:port` keeps its brackets off).
fn host_of(host_port: &str) -> &str {
    if let Some(rest) = host_port.strip_prefix('[') {
        return rest.split(']').next().unwrap_or(rest);
    }
    match host_port.rsplit_once(':') {
        Some((host, port)) if port.bytes().all(|b| b.is_ascii_digit()) => host,
        _ => host_port,
    }
}

/// Every occurrence of `needle` in `text`, compared without ASCII case,
/// replaced by `with`. ASCII lowercasing keeps every byte offset, so the
/// offsets found in the lowered copy are the original's.
fn replace_ignoring_ascii_case(text: &str, needle: &str, with: &str) -> String {
    let lowered = text.to_ascii_lowercase();
    let needle = needle.to_ascii_lowercase();
    let mut out = String::with_capacity(text.len());
    let mut from = 0;
    while let Some(found) = lowered[from..].find(&needle) {
        let at = from + found;
        out.push_str(&text[from..at]);
        out.push_str(with);
        from = at + needle.len();
    }
    out.push_str(&text[from..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::turn::ErrorKind;

    fn upstream(base_url: &str, key: Option<&str>) -> UpstreamModel {
        UpstreamModel {
            base_url: base_url.into(),
            api_key: key.map(Into::into),
            ..UpstreamModel::default()
        }
    }

    #[test]
    fn the_configured_key_url_and_host_never_survive_in_an_error() {
        let redactor = Redactor::for_upstream(&upstream(
            "http://gw-user:gw-pass@10.1.2.3:8000/v1/",
            Some("plain-key-without-a-prefix"),
        ));
        let event = redactor.event(TurnEvent::Error {
            kind: ErrorKind::Auth,
            message: "Rejected (401): Invalid key plain-key-without-a-prefix for upstream \
                      HTTP://10.1.2.3:8000/V1/chat/completions (host 10.1.2.3, \
                      10.1.2.3:8000, user gw-user:gw-pass, pass gw-pass)"
                .into(),
        });
        let TurnEvent::Error { message, .. } = event else {
            panic!("still an error");
        };
        for secret in ["plain-key", "10.1.2.3", "8000", "gw-user", "gw-pass"] {
            assert!(!message.contains(secret), "{secret} in {message}");
        }
        assert!(
            message.starts_with("Rejected (401): Invalid key [redacted] for upstream [provider address]/chat/completions"),
            "{message}"
        );
    }

    #[test]
    fn other_events_and_text_without_secrets_are_unchanged() {
        let redactor =
            Redactor::for_upstream(&upstream("https://api.example.com", Some("k-123456")));
        let answer = TurnEvent::AnswerDelta {
            text: "api.example.com k-123456".into(),
        };
        assert_eq!(redactor.event(answer.clone()), answer);
        assert_eq!(redactor.text("Überlastet — 😀"), "Überlastet — 😀");
        assert_eq!(
            Redactor::for_upstream(&upstream("", Some("ab"))).text("ab"),
            "ab"
        );
    }
}
