//! Export the shown conversation (Markdown or JSON) and import an exported
//! one. A bad file changes nothing and says why; an import never overwrites a
//! stored conversation.

use super::browser::{now_ms, wall_ms};
use super::history;
use super::use_chat_session::UseChatSessionReturn;
use super::use_notices::UseNoticesReturn;
use crate::turn::message::Summary;
use leptos::prelude::*;

/// Export and import for the shown conversation (a `Copy` handle).
#[derive(Clone, Copy)]
pub struct UseImportExportReturn {
    session: UseChatSessionReturn,
    index: RwSignal<Vec<Summary>>,
    notices: UseNoticesReturn,
}

/// Export and import through `session`; `index` is asked which ids are taken.
pub fn use_import_export(
    session: UseChatSessionReturn,
    index: RwSignal<Vec<Summary>>,
    notices: UseNoticesReturn,
) -> UseImportExportReturn {
    UseImportExportReturn {
        session,
        index,
        notices,
    }
}

impl UseImportExportReturn {
    /// Downloads the shown conversation as Markdown or JSON.
    pub fn export(&self, as_json: bool) {
        let notices = self.notices;
        self.session.with_conversation(|c| {
            if as_json {
                let name = crate::turn::export::file_name(c, "json");
                super::browser::download(
                    &name,
                    "application/json",
                    &crate::turn::message::encode(c, now_ms()),
                );
                return;
            }
            // The exporter is in the renderer's worker, ready right after
            // hydration; before that (or if it failed) a notice says so.
            let name = crate::turn::export::file_name(c, "md");
            super::lazy_renderer::export_markdown(c, move |markdown| match markdown {
                Ok(markdown) => super::browser::download(&name, "text/markdown", &markdown),
                Err(message) => notices.say(message),
            });
        });
    }

    /// Imports an exported JSON conversation; a bad file changes nothing.
    pub fn import(&self, raw: Result<String, String>) {
        let parsed = raw.and_then(|raw| {
            crate::turn::message::decode(&raw)
                .map_err(|e| format!("That file is not a Pensive conversation: {e}"))
        });
        match parsed {
            Ok(mut conversation) => {
                conversation.id = self.free_id(conversation.id);
                self.session.stop_if_running();
                self.session.show(conversation);
                self.session.save();
            }
            Err(message) => self
                .notices
                .say(format!("Import failed: {message} Nothing was changed.")),
        }
    }

    /// `id`, or a new one if it is empty or taken. Storage itself is asked,
    /// since the index here lists neither a newer version's records nor
    /// another tab's latest.
    fn free_id(&self, id: String) -> String {
        let taken = |id: &str| {
            id.is_empty()
                || history::is_stored(id)
                || self.index.with_untracked(|i| i.iter().any(|s| s.id == id))
        };
        if !taken(&id) {
            return id;
        }
        let base = format!("c{}", wall_ms() as u64);
        let mut id = base.clone();
        for n in 1.. {
            if !taken(&id) {
                break;
            }
            id = format!("{base}-{n}");
        }
        id
    }
}
