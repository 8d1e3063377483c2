//! Conversation history in localStorage (DESIGN §5). Reading never throws data
//! away: an unreadable record is moved to a backup key and the user is told.
//! On the server every call is a no-op (there is no localStorage there).

#[cfg(feature = "hydrate")]
use crate::turn::message;
use crate::turn::message::Conversation;

/// Key holding the id of the conversation shown on load.
#[cfg(feature = "hydrate")]
const CURRENT_KEY: &str = "pensive.current";

#[cfg(feature = "hydrate")]
fn conversation_key(id: &str) -> String {
    format!("pensive.conversation.{id}")
}

/// What loading found.
#[derive(Debug, Default)]
pub struct Loaded {
    pub conversation: Option<Conversation>,
    /// A message for the user when something could not be read.
    pub notice: Option<String>,
}

/// Loads the current conversation, quarantining anything unreadable.
pub fn load_current() -> Loaded {
    #[cfg(feature = "hydrate")]
    {
        let Some(storage) = local_storage() else {
            return Loaded {
                conversation: None,
                notice: Some("Browser storage is unavailable: history will not be kept.".into()),
            };
        };
        let Ok(Some(id)) = storage.get_item(CURRENT_KEY) else {
            return Loaded::default();
        };
        let key = conversation_key(&id);
        let Ok(Some(raw)) = storage.get_item(&key) else {
            return Loaded::default();
        };
        match message::decode(&raw) {
            Ok(conversation) => Loaded {
                conversation: Some(conversation),
                notice: None,
            },
            Err(err) => {
                let backup = format!("pensive.backup.{}.{}", id, js_sys::Date::now() as u64);
                let kept = storage.set_item(&backup, &raw).is_ok();
                if kept {
                    let _ = storage.remove_item(&key);
                }
                let where_kept = if kept {
                    format!("It was kept in localStorage under \u{201c}{backup}\u{201d}.")
                } else {
                    "It was left in place.".to_owned()
                };
                Loaded {
                    conversation: None,
                    notice: Some(format!(
                        "Your saved conversation could not be opened ({err}). {where_kept} Starting a new conversation."
                    )),
                }
            }
        }
    }
    #[cfg(not(feature = "hydrate"))]
    {
        Loaded::default()
    }
}

/// Saves a conversation and makes it current. `Err` is a message for the user.
pub fn save(conversation: &Conversation, now_ms: f64) -> Result<(), String> {
    #[cfg(feature = "hydrate")]
    {
        let storage = local_storage().ok_or("Browser storage is unavailable.")?;
        let encoded = message::encode(conversation, now_ms);
        storage
            .set_item(&conversation_key(&conversation.id), &encoded)
            .and_then(|_| storage.set_item(CURRENT_KEY, &conversation.id))
            .map_err(|_| {
                "Could not save the conversation: browser storage is full. The last saved state is kept."
                    .to_owned()
            })
    }
    #[cfg(not(feature = "hydrate"))]
    {
        let _ = (conversation, now_ms);
        Ok(())
    }
}

#[cfg(feature = "hydrate")]
fn local_storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}
