//! The tag pairs a model writes its reasoning in (`think`, `<|begin_of_thought|>`,
//! …): the default list and parsing a configured one. Only what a pair looks
//! like lives here; finding one in text is the matcher's job.

/// The default tag list: bare names and the literal opening tokens of the
/// special pairs.
pub(crate) const DEFAULT_TAGS: &[&str] = &[
    "think",
    "thinking",
    "thought",
    "reasoning",
    "reason",
    "<|begin_of_thought|>",
    "\u{25c1}think\u{25b7}",
];

/// How a pair is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Pair {
    /// `<name attr…>` … `</name >`, name case-insensitive (ASCII lowercase here).
    Named(String),
    /// Literal tokens, matched exactly.
    Literal { open: String, close: String },
}

/// The tag pairs a model uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TagSet {
    pub(super) pairs: Vec<Pair>,
}

impl Default for TagSet {
    fn default() -> Self {
        Self::parse(DEFAULT_TAGS.iter().copied()).unwrap_or(TagSet { pairs: Vec::new() })
    }
}

/// A tag list entry that is neither a name nor a known special token.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown tag {0:?}: use a bare name (think) or the opening token of a special pair (<|begin_of_thought|>, \u{25c1}think\u{25b7})")]
pub struct TagError(pub String);

impl TagSet {
    /// Builds a set from bare names (`think`) or special opening tokens.
    pub fn parse<'a>(entries: impl IntoIterator<Item = &'a str>) -> Result<Self, TagError> {
        let mut pairs = Vec::new();
        for entry in entries {
            let entry = entry.trim();
            if entry.is_empty() {
                continue;
            }
            let pair = match entry {
                "<|begin_of_thought|>" => Pair::Literal {
                    open: entry.into(),
                    close: "<|end_of_thought|>".into(),
                },
                "\u{25c1}think\u{25b7}" => Pair::Literal {
                    open: entry.into(),
                    close: "\u{25c1}/think\u{25b7}".into(),
                },
                name if name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == ':') =>
                {
                    Pair::Named(name.to_ascii_lowercase())
                }
                other => return Err(TagError(other.into())),
            };
            if !pairs.contains(&pair) {
                pairs.push(pair);
            }
        }
        Ok(Self { pairs })
    }

    /// Parses a comma-separated list (`--tags think,thought`).
    pub fn parse_list(list: &str) -> Result<Self, TagError> {
        Self::parse(list.split(','))
    }

    /// No tags: extraction off.
    pub fn none() -> Self {
        Self { pairs: Vec::new() }
    }

    /// True when extraction is off.
    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// How many pairs the set holds (pairs are numbered `0..len` in order).
    pub(super) fn len(&self) -> usize {
        self.pairs.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_lowercased_special_tokens_get_their_closers_and_repeats_collapse() {
        let set = TagSet::parse_list("Think, think ,<|begin_of_thought|>,,").unwrap();
        assert_eq!(
            set.pairs,
            vec![
                Pair::Named("think".into()),
                Pair::Literal {
                    open: "<|begin_of_thought|>".into(),
                    close: "<|end_of_thought|>".into()
                }
            ]
        );
        assert_eq!(TagSet::default().len(), DEFAULT_TAGS.len());
        assert!(TagSet::none().is_empty());
        assert_eq!(
            TagSet::parse_list("think,<bad"),
            Err(TagError("<bad".into()))
        );
    }
}
