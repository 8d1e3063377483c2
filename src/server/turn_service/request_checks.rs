//! The checks a request passes before any upstream call: a known model, an
//! effort it takes, and a conversation of bounded size that ends with the
//! user's question (or, for "Continue", with tool results). A refusal is the
//! error the turn streams.

use crate::server::config::{AppConfig, ModelConfig};
use crate::server::limits::{MAX_MESSAGES, MAX_MESSAGE_CHARS};
use crate::server::turn_service::answer_now;
use crate::turn::effort::list_words;
use crate::turn::turn_error::TurnError;
use crate::turn::{ChatRequest, Effort, Role};

/// Checks the request before any upstream call: `Ok` is the model and the
/// effort the turn runs at; `Err` is the error to stream.
pub(super) fn validate<'c>(
    config: &'c AppConfig,
    request: &ChatRequest,
) -> Result<(&'c ModelConfig, Option<Effort>), TurnError> {
    let model = config
        .model(request.model.as_deref())
        .ok_or_else(|| TurnError::UnknownModel(request.model.clone().unwrap_or_default()))?;
    let effort = match (request.effort, &request.reasoning_so_far) {
        // "Answer now" asked again, or "Continue": the effort at which the
        // model does not think again.
        (None, Some(_)) => answer_now::weakest(model),
        (None, None) if request.continue_answer => answer_now::weakest(model),
        (asked, _) => effort_for(model, asked)?,
    };
    if request.messages.len() > MAX_MESSAGES {
        return Err(TurnError::TooManyMessages {
            count: request.messages.len(),
            limit: MAX_MESSAGES,
        });
    }
    if let Some(long) = request
        .messages
        .iter()
        .find(|m| m.content.chars().count() > MAX_MESSAGE_CHARS)
    {
        return Err(TurnError::MessageTooLong {
            chars: long.content.chars().count(),
            limit: MAX_MESSAGE_CHARS,
        });
    }
    match request.messages.last() {
        None => Err(TurnError::NoMessages),
        // "Continue" on a turn stopped at the tool-call limit: the loop goes
        // on from its last results.
        Some(last) if request.continue_answer && last.role == Role::Tool => Ok((model, effort)),
        Some(last) if last.role != Role::User || last.content.trim().is_empty() => {
            Err(TurnError::LastMessageNotFromUser)
        }
        Some(_) => Ok((model, effort)),
    }
}

/// The effort a turn runs at: the one asked for if the model takes it, else
/// its default; a word it does not take is refused, naming the ones it does.
fn effort_for(model: &ModelConfig, asked: Option<Effort>) -> Result<Option<Effort>, TurnError> {
    let offered = &model.upstream.efforts;
    match asked {
        None => Ok(model.upstream.default_effort),
        Some(effort) if offered.contains(&effort) => Ok(Some(effort)),
        Some(effort) if offered.is_empty() => Err(TurnError::Refused(format!(
            "{} takes no reasoning effort setting; send the request without \"effort\" (asked: {effort}).",
            model.label
        ))),
        Some(effort) => Err(TurnError::Refused(format!(
            "{} does not take the reasoning effort \"{effort}\"; it takes {}.",
            model.label,
            list_words(offered)
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::mock::scripted::Pace;
    use crate::server::turn_service::tests::ask;
    use crate::turn::ErrorKind;

    #[test]
    fn an_effort_the_model_does_not_take_is_refused_naming_the_ones_it_does() {
        let mut config = AppConfig::from_lookup(|_| None).unwrap();
        let mut plain = ModelConfig::demo(Pace::INSTANT);
        plain.id = "plain".into();
        plain.label = "Plain".into();
        plain.upstream.efforts.clear();
        plain.upstream.default_effort = None;
        config.models.push(plain);
        let (_, effort) = validate(&config, &ask(None, None)).unwrap();
        assert_eq!(effort, Some(Effort::Medium), "the default");
        let (_, effort) = validate(&config, &ask(None, Some(Effort::Off))).unwrap();
        assert_eq!(effort, Some(Effort::Off));
        let refused = validate(&config, &ask(None, Some(Effort::Max))).unwrap_err();
        assert_eq!(refused.kind(), ErrorKind::BadRequest);
        assert_eq!(
            refused.user_message(),
            "Demo model (scripted) does not take the reasoning effort \"max\"; it takes off, low, medium or high."
        );
        let (_, effort) = validate(&config, &ask(Some("plain"), None)).unwrap();
        assert_eq!(effort, None);
        let none = validate(&config, &ask(Some("plain"), Some(Effort::Low))).unwrap_err();
        assert_eq!(none.kind(), ErrorKind::BadRequest);
        assert!(none.user_message().contains("takes no reasoning effort"));
    }
}
