//! The names a model is offered (`server__tool`), and which of them each
//! provider takes. MCP allows tool names of 128 characters with `.`; the
//! providers take less, and one refused name fails the whole request. So a
//! name a provider cannot take is left out of that provider's requests
//! alone, with a log line, and every other tool is still offered.

use crate::server::providers::wire::Dialect;
use crate::turn::public_model::ToolNameRule;

/// The names a dialect's provider takes; `None`: no documented limit past
/// MCP's own.
pub fn name_rule(dialect: Dialect) -> Option<ToolNameRule> {
    let rule = |max, letter_first| ToolNameRule {
        max,
        dots: false,
        letter_first,
    };
    match dialect {
        // OpenAI, chat completions and Responses alike: "The name of the
        // function to be called. Must be a-z, A-Z, 0-9, or contain
        // underscores and dashes, with a maximum length of 64." (the API
        // reference's `function.name`), i.e. `^[a-zA-Z0-9_-]{1,64}$`, the
        // pattern its 400 quotes. Servers speaking the same dialect
        // (llama.cpp, vLLM, OpenRouter) get the strictest reading.
        Dialect::Chat | Dialect::Responses => Some(rule(64, false)),
        // Gemini's `FunctionDeclaration.name`: "Must start with a letter or
        // an underscore. Must be a-z, A-Z, 0-9, or contain underscores,
        // dots, colons and dashes, with a maximum length of 64." Some of
        // its own references leave out the dots (Firebase AI Logic: "Must
        // be a-z, A-Z, 0-9, or contain underscores and dashes, with a max
        // length of 64"), so dots are left out too.
        Dialect::Gemini => Some(rule(64, true)),
        // Anthropic's `tools[].name`: `^[a-zA-Z0-9_-]{1,128}$` (no dot).
        Dialect::Anthropic => Some(rule(128, false)),
        // Ollama documents no rule; it passes names to the model's template.
        Dialect::Ollama => None,
    }
}

/// Whether the provider of `dialect` (`None`: the demo model) takes `name`.
pub fn provider_takes(dialect: Option<Dialect>, name: &str) -> bool {
    dialect
        .and_then(name_rule)
        .is_none_or(|rule| rule.takes(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_or_dotted_name_is_refused_only_where_the_provider_refuses_it() {
        let long = format!("files__{}", "r".repeat(93));
        assert_eq!(long.len(), 100);
        let dotted = "files__read.file";
        for dialect in [Dialect::Chat, Dialect::Responses, Dialect::Gemini] {
            assert!(!provider_takes(Some(dialect), &long), "{dialect:?}");
            assert!(!provider_takes(Some(dialect), dotted), "{dialect:?}");
            assert!(provider_takes(Some(dialect), "files__read_file"));
        }
        assert!(provider_takes(Some(Dialect::Anthropic), &long));
        assert!(!provider_takes(Some(Dialect::Anthropic), dotted));
        assert!(!provider_takes(
            Some(Dialect::Anthropic),
            &format!("files__{}", "r".repeat(122))
        ));
        assert!(provider_takes(Some(Dialect::Ollama), dotted));
        assert!(provider_takes(None, &long), "the demo takes any");
    }

    #[test]
    fn gemini_wants_a_letter_or_underscore_first() {
        assert!(!provider_takes(Some(Dialect::Gemini), "9lives__x"));
        assert!(provider_takes(Some(Dialect::Chat), "9lives__x"));
    }
}
