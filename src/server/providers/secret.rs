//! `Secret`: a string that must never be printed (API keys, the access token,
//! the cookie secret). Its `Debug` says only that something is there, and it
//! has no `Display` or `Serialize`, so the value leaves it only through an
//! explicit `expose()` at the one place that sends it (an auth header, an
//! HMAC key).

/// A secret string; `Debug` prints `Secret([redacted])`.
#[derive(Clone, PartialEq, Eq, Default)]
pub struct Secret(String);

impl Secret {
    /// The value itself, for the single place that must send or use it.
    pub(crate) fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret([redacted])")
    }
}

impl From<String> for Secret {
    fn from(value: String) -> Self {
        Self(value)
    }
}

impl From<&str> for Secret {
    fn from(value: &str) -> Self {
        Self(value.to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_output_never_holds_the_value() {
        let secret = Secret::from("sk-SENTINEL-debug");
        let printed = format!("{secret:?} {:?} {:#?}", Some(&secret), vec![secret.clone()]);
        assert!(!printed.contains("SENTINEL"), "{printed}");
        assert!(printed.contains("redacted"), "{printed}");
        assert_eq!(secret.expose(), "sk-SENTINEL-debug");
    }
}
