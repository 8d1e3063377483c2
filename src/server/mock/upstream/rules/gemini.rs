//! Gemini `generateContent` / `streamGenerateContent`:
//! `generationConfig.thinkingConfig`, per model.
//!
//! Sources (read 2026-12-03 through stored copies):
//! - ai.google.dev/gemini-api/docs/thinking (as quoted in big-AGI#893,
//!   spring-ai#4983 and Vercel's "Google and Vertex Reasoning", 2026-03-07):
//!   2.5 budgets (Pro 128–32,768 and never off; Flash 0–24,576; Flash-Lite
//!   512–24,576, 0 = off; -1 dynamic); 3 Pro low/high; 3 Flash
//!   minimal–high; 3.1 Pro low/medium/high; 3.1 Flash-Lite minimal–high.
//! - Google Cloud's "Developer's guide to Gemini 3.5 Flash" (levels and
//!   defaults of 3.1 Pro and 3.5 Flash); oh-my-pi#10543 (3.7 Flash starts at low).
//! - The 400s, verbatim: Roo-Code#10700 (a level on 2.5), gemini-balance#206
//!   (budget 0 on 2.5 Pro), CherryHQ/cherry-studio#6986 (a budget out of
//!   range), chatwise-releases#1206 (a level a model lacks),
//!   eclipse-peon-ai#115 (both fields; the doubled "only" is Google's).
//! - Without `includeThoughts` no thought parts are sent (the thinking guide).

use serde_json::{json, Value};

use super::{Refusal, Thinks};

#[derive(Debug, Clone, Copy)]
enum Control {
    /// `thinkingBudget` from `min` to `max`; 0 allowed where `off`.
    Budget { min: i64, max: i64, off: bool },
    /// `thinkingLevel`, one of these (upper or lower case).
    Levels(&'static [&'static str]),
}

const FLASH_LEVELS: &[&str] = &["minimal", "low", "medium", "high"];

const MODELS: &[(&[&str], Control)] = &[
    (
        &["gemini-2.5-pro"],
        Control::Budget {
            min: 128,
            max: 32_768,
            off: false,
        },
    ),
    (
        &["gemini-2.5-flash"],
        Control::Budget {
            min: 1,
            max: 24_576,
            off: true,
        },
    ),
    (
        &["gemini-2.5-flash-lite"],
        Control::Budget {
            min: 512,
            max: 24_576,
            off: true,
        },
    ),
    (
        &["gemini-3-pro-preview", "gemini-3-pro"],
        Control::Levels(&["low", "high"]),
    ),
    (
        &[
            "gemini-3-flash-preview",
            "gemini-3-flash",
            "gemini-3.1-flash-lite-preview",
            "gemini-3.1-flash-lite",
            "gemini-3.5-flash",
        ],
        Control::Levels(FLASH_LEVELS),
    ),
    (
        &[
            "gemini-3.1-pro-preview",
            "gemini-3.1-pro",
            "gemini-3.7-flash",
        ],
        Control::Levels(&["low", "medium", "high"]),
    ),
];

pub(super) fn knows(name: &str) -> bool {
    MODELS.iter().any(|(ids, _)| ids.contains(&name))
}

fn refused(message: String) -> Refusal {
    (
        400,
        json!({"error": {"code": 400, "message": message, "status": "INVALID_ARGUMENT"}}),
    )
}

/// The verdict on a request to `name` (the model of the path).
pub(super) fn check(name: &str, body: &Value) -> Result<Thinks, Refusal> {
    let Some((_, control)) = MODELS.iter().find(|(ids, _)| ids.contains(&name)) else {
        return Ok(Thinks::Shown);
    };
    let config = body.pointer("/generationConfig/thinkingConfig");
    let level = config
        .and_then(|c| c.get("thinkingLevel"))
        .and_then(Value::as_str);
    let budget = config
        .and_then(|c| c.get("thinkingBudget"))
        .and_then(Value::as_i64);
    let included = config
        .and_then(|c| c.get("includeThoughts"))
        .and_then(Value::as_bool)
        .unwrap_or(false);
    if level.is_some() && budget.is_some() {
        return Err(refused(
            "You can only set only one of thinking budget and thinking level.".into(),
        ));
    }
    let thinking = if included {
        Thinks::Shown
    } else {
        Thinks::Omitted
    };
    match *control {
        Control::Budget { min, max, off } => {
            if level.is_some() {
                return Err(refused("Thinking level is not supported for this model.".into()));
            }
            match budget {
                Some(0) if !off => Err(refused(
                    "Budget 0 is invalid. This model only works in thinking mode.".into(),
                )),
                Some(0) => Ok(Thinks::No),
                Some(-1) | None => Ok(thinking),
                Some(b) if b < min || b > max => Err(refused(format!(
                    "The thinking budget {b} is invalid. Please choose a value between {min} and {max}."
                ))),
                Some(_) => Ok(thinking),
            }
        }
        Control::Levels(levels) => match level.map(str::to_ascii_lowercase) {
            Some(level) if !levels.contains(&level.as_str()) => Err(refused(format!(
                "Thinking level {} is not supported for this model. Please retry with other thinking level.",
                level.to_ascii_uppercase()
            ))),
            // 3.x still takes a budget (for old clients); 0 cannot turn it off.
            _ => Ok(thinking),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(name: &str, config: Value) -> Result<Thinks, String> {
        check(
            name,
            &json!({"generationConfig": {"thinkingConfig": config}}),
        )
        .map_err(|(_, body)| body["error"]["message"].as_str().unwrap_or("").to_owned())
    }

    #[test]
    fn levels_budgets_and_their_refusals() {
        assert_eq!(
            ask(
                "gemini-3.1-pro-preview",
                json!({"thinkingLevel": "medium", "includeThoughts": true})
            ),
            Ok(Thinks::Shown)
        );
        assert_eq!(
            ask("gemini-3-pro-preview", json!({"thinkingLevel": "medium"})),
            Err("Thinking level MEDIUM is not supported for this model. Please retry with other thinking level.".into())
        );
        assert!(ask("gemini-3.7-flash", json!({"thinkingLevel": "minimal"}))
            .unwrap_err()
            .contains("MINIMAL"));
        assert_eq!(
            ask("gemini-2.5-flash", json!({"thinkingBudget": 0})),
            Ok(Thinks::No)
        );
        assert!(ask("gemini-2.5-pro", json!({"thinkingBudget": 0})).is_err());
        assert!(ask("gemini-2.5-flash-lite", json!({"thinkingBudget": 100})).is_err());
        assert_eq!(ask("gemini-2.5-pro", json!({})), Ok(Thinks::Omitted));
        assert!(ask("gemini-2.5-flash", json!({"thinkingLevel": "low"})).is_err());
        assert!(ask(
            "gemini-3-flash",
            json!({"thinkingLevel": "low", "thinkingBudget": 1})
        )
        .unwrap_err()
        .contains("only one of"));
        assert_eq!(
            ask("mock-gemini", json!({"thinkingLevel": "x"})),
            Ok(Thinks::Shown)
        );
    }
}
