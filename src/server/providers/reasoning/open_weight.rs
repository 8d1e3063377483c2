//! The servers behind the chat-completions dialect and the open-weight
//! families they serve (DeepSeek, Kimi, Qwen3, GLM, gpt-oss), and Ollama's:
//! which server a model is behind, and the words each family takes (sources
//! in docs/decisions.md). Pure.

use super::openai::{openai_chat_efforts, openai_efforts};
use super::Efforts;
use crate::server::providers::wire::UpstreamModel;
use crate::turn::Effort::{High, Low, Max, Medium, Minimal, Off, Xhigh};

/// Which server a chat-completions model is behind, for its reasoning words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ChatServer {
    /// api.openai.com, or an OpenAI model name (`gpt-5*`, `o3`, …) behind
    /// any other host: `reasoning_effort` in OpenAI's words.
    OpenAi,
    /// api.deepseek.com (or a DeepSeek API model name): `thinking` + `reasoning_effort`.
    DeepSeek,
    /// Moonshot's Kimi API (api.moonshot.ai/.cn, or a `kimi-` name).
    Kimi,
    /// openrouter.ai: `reasoning: {effort}`.
    OpenRouter,
    /// A llama.cpp server (`provider = "llamacpp"`).
    LlamaCpp,
    /// Anything else OpenAI-compatible (vLLM, SGLang, LM Studio, …).
    Other,
}

/// The host of a base URL, lowercased.
fn host(base_url: &str) -> String {
    let rest = base_url
        .split_once("://")
        .map_or(base_url, |(_, rest)| rest);
    let authority = rest.split(['/', '?']).next().unwrap_or("");
    let host = authority.rsplit('@').next().unwrap_or("");
    host.split(':').next().unwrap_or("").to_ascii_lowercase()
}

fn host_is(host: &str, domain: &str) -> bool {
    host == domain || host.ends_with(&format!(".{domain}"))
}

/// The server behind a chat-completions model.
pub(crate) fn chat_server(model: &UpstreamModel) -> ChatServer {
    if model.llamacpp {
        return ChatServer::LlamaCpp;
    }
    let host = host(&model.base_url);
    let name = model.name.to_ascii_lowercase();
    if host_is(&host, "deepseek.com") || name.starts_with("deepseek-") && !name.contains("-r1") {
        ChatServer::DeepSeek
    } else if host_is(&host, "moonshot.ai")
        || host_is(&host, "moonshot.cn")
        || name.starts_with("kimi-")
    {
        ChatServer::Kimi
    } else if host_is(&host, "openrouter.ai") {
        ChatServer::OpenRouter
    } else if host_is(&host, "openai.com") || openai_efforts(&name).is_some() {
        // OpenAI's own names behind a proxy (Azure, LiteLLM) take its words too.
        ChatServer::OpenAi
    } else {
        ChatServer::Other
    }
}

/// Open-weight families whose chat template switches thinking on and off
/// (`enable_thinking`) without levels: Qwen3 (and 3.5+), QwQ, GLM 4.5+.
pub(crate) fn switch_only_family(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    ["qwen3", "qwq", "glm-4.5", "glm-4.6", "glm-4.7", "glm-5"]
        .iter()
        .any(|family| lower.contains(family))
}

/// Kimi's models: K2 (2.5, 2.6) switch thinking with `thinking: {type}`;
/// K2 Thinking and the code models always think; K3 takes `reasoning_effort`
/// low, high or max and always thinks.
pub(crate) fn kimi_efforts(name: &str) -> Efforts {
    let lower = name.to_ascii_lowercase();
    if lower.contains("k3") {
        Efforts::new(&[Low, High, Max], Max)
    } else if lower.contains("thinking") || lower.contains("code") {
        Efforts::new(&[High], High)
    } else {
        Efforts::new(&[Off, High], High)
    }
}

/// What each chat server's families take; `None` when unknown.
pub(crate) fn chat_efforts(model: &UpstreamModel) -> Option<Efforts> {
    let name = model.name.to_ascii_lowercase();
    match chat_server(model) {
        ChatServer::OpenAi => openai_chat_efforts(&name),
        // DeepSeek's V4 API: low, high, max, and `thinking: disabled`.
        ChatServer::DeepSeek => Some(Efforts::new(&[Off, Low, High, Max], High)),
        ChatServer::Kimi => Some(kimi_efforts(&name)),
        ChatServer::OpenRouter => Some(Efforts::new(
            &[Off, Minimal, Low, Medium, High, Xhigh],
            Medium,
        )),
        ChatServer::LlamaCpp if switch_only_family(&name) => Some(Efforts::new(&[Off, High], High)),
        ChatServer::LlamaCpp => Some(Efforts::new(&[Off, Low, Medium, High], Medium)),
        ChatServer::Other if name.contains("gpt-oss") => {
            Some(Efforts::new(&[Low, Medium, High], Medium))
        }
        ChatServer::Other if switch_only_family(&name) => Some(Efforts::new(&[Off, High], High)),
        ChatServer::Other => None,
    }
}

/// The Ollama families: gpt-oss takes levels, the others an on/off switch.
pub(crate) fn ollama_efforts(name: &str) -> Option<Efforts> {
    let lower = name.to_ascii_lowercase();
    let base = lower.split(':').next().unwrap_or(&lower);
    let base = base.rsplit('/').next().unwrap_or(base);
    if base.starts_with("gpt-oss") {
        return Some(Efforts::new(&[Low, Medium, High], Medium));
    }
    let switch = ["deepseek-r1", "deepseek-v3.1", "magistral", "cogito"]
        .iter()
        .any(|family| base.starts_with(family));
    (switch || switch_only_family(base)).then(|| Efforts::new(&[Off, High], High))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(base: &str, name: &str) -> UpstreamModel {
        UpstreamModel {
            base_url: base.into(),
            name: name.into(),
            ..UpstreamModel::default()
        }
    }

    #[test]
    fn open_weight_servers_take_their_familys_words() {
        use crate::turn::Effort::*;
        let words = |model: UpstreamModel| chat_efforts(&model).map(|e| e.words);
        let llama = |name: &str| UpstreamModel {
            llamacpp: true,
            ..at("http://127.0.0.1:8080/v1", name)
        };
        assert_eq!(
            words(llama("gemma-3-27b")),
            Some(vec![Off, Low, Medium, High])
        );
        assert_eq!(words(llama("Qwen3-8B")), Some(vec![Off, High]));
        let vllm = "http://127.0.0.1:8000/v1";
        assert_eq!(
            words(at(vllm, "openai/gpt-oss-20b")),
            Some(vec![Low, Medium, High])
        );
        assert_eq!(words(at(vllm, "zai-org/GLM-4.6")), Some(vec![Off, High]));
        assert_eq!(words(at(vllm, "mistral-small")), None);
    }

    #[test]
    fn chat_servers_are_told_apart_by_host_and_name() {
        use ChatServer::*;
        for (model, server) in [
            (
                at("https://api.deepseek.com", "deepseek-v4-flash"),
                DeepSeek,
            ),
            (at("http://proxy.local/v1", "deepseek-flash"), DeepSeek),
            (at("https://api.moonshot.ai/v1", "kimi-k2.6"), Kimi),
            (at("http://proxy.local/v1", "kimi-k3"), Kimi),
            // The host alone decides, whatever the model is called.
            (at("https://api.moonshot.cn/v1", "moonshot-v1-8k"), Kimi),
            (at("https://api.moonshot.ai/v1", "moonshot-v1-8k"), Kimi),
            (at("https://api.deepseek.com/v1", "v4-alias"), DeepSeek),
            (
                at("https://openrouter.ai/api/v1", "openai/gpt-5"),
                OpenRouter,
            ),
            (at("https://api.openai.com/v1", "gpt-5"), OpenAi),
            (at("http://litellm.local/v1", "gpt-5.1"), OpenAi),
            (at("http://litellm.local/v1", "o4-mini"), OpenAi),
            // Not a reasoning model: no OpenAI effort words to follow.
            (at("http://litellm.local/v1", "gpt-4.1"), Other),
            (at("http://localhost:11434/v1", "deepseek-r1:8b"), Other),
            (
                at("http://user@evil-openai.com.example:8000/v1", "x"),
                Other,
            ),
            (at("http://localhost:8000/v1", "openai/gpt-oss-20b"), Other),
        ] {
            assert_eq!(chat_server(&model), server, "{}", model.name);
        }
        let llama = UpstreamModel {
            llamacpp: true,
            ..at("http://localhost:8080/v1", "qwen3")
        };
        assert_eq!(chat_server(&llama), LlamaCpp);
    }

    #[test]
    fn deepseek_offers_low_and_defaults_to_high() {
        use crate::turn::Effort::*;
        let efforts = chat_efforts(&at("https://api.deepseek.com/v1", "deepseek-v4-flash"));
        assert_eq!(
            efforts,
            Some(Efforts::new(&[Off, Low, High, Max], High)),
            "DeepSeek's documented words, its default high"
        );
    }
}
