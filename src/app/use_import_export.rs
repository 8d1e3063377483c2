//! Export the shown conversation or all of them (Markdown or JSON, with or
//! without reasoning) and import an exported file (one conversation or all).
//! A bad file changes nothing and says why; an import never overwrites a
//! stored conversation.

use leptos::prelude::*;

use super::browser::{now_ms, wall_ms};
use super::history;
use super::later::{later, now_or_later};
use super::use_chat_session::UseChatSessionReturn;
use super::use_notices::UseNoticesReturn;
use crate::turn::export::export_file_name;
use crate::turn::message::{self, Conversation, Summary};

/// The file an export writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportFormat {
    /// For reading: thinking as `<details>`, the shown version of each turn.
    Markdown,
    /// For import: everything, every version.
    Json,
}

/// Which conversations an export holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ExportScope {
    /// The one shown.
    #[default]
    Shown,
    /// Every conversation stored in this browser, in one file.
    All,
}

impl ExportScope {
    /// Every choice, in the order the picker lists them.
    pub const ALL: [ExportScope; 2] = [ExportScope::Shown, ExportScope::All];

    /// Stable value for the `<select>`.
    pub fn key(self) -> &'static str {
        match self {
            ExportScope::Shown => "shown",
            ExportScope::All => "all",
        }
    }

    /// As the picker shows it.
    pub fn label(self) -> &'static str {
        match self {
            ExportScope::Shown => "This conversation",
            ExportScope::All => "All conversations",
        }
    }

    /// The choice a `<select>` value names.
    pub fn from_key(key: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.key() == key)
    }
}

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
    /// Whether any conversation is stored (tracked: Export all is offered
    /// only then, or while one is shown).
    pub fn any_stored(&self) -> bool {
        self.index.with(|i| !i.is_empty())
    }

    /// Downloads the shown conversation, or all of them, as `format`; without
    /// reasoning, every thinking block is left out (hidden versions' too).
    pub fn export(&self, format: ExportFormat, with_reasoning: bool, scope: ExportScope) {
        now_or_later(export_now(*self, format, with_reasoning, scope));
    }

    fn export_these(
        &self,
        conversations: Vec<Conversation>,
        format: ExportFormat,
        with_reasoning: bool,
        scope: ExportScope,
    ) {
        let one = (scope == ExportScope::Shown).then(|| &conversations[0]);
        match format {
            ExportFormat::Json => {
                let name = export_file_name(one, with_reasoning, "json");
                let kept: Vec<Conversation> = conversations
                    .iter()
                    .map(|c| match with_reasoning {
                        true => c.for_export(),
                        false => c.for_export().without_reasoning(),
                    })
                    .collect();
                let text = match scope {
                    ExportScope::Shown => message::encode(&kept[0], now_ms()),
                    ExportScope::All => message::encode_all(&kept, now_ms()),
                };
                super::browser::download(&name, "application/json", &text);
            }
            ExportFormat::Markdown => {
                // The exporter is in the renderer's worker, ready right after
                // hydration; before that (or if it failed) a notice says so.
                let name = export_file_name(one, with_reasoning, "md");
                let notices = self.notices;
                super::lazy_renderer::export_markdown(
                    &conversations,
                    with_reasoning,
                    move |markdown| match markdown {
                        Ok(markdown) => super::browser::download(&name, "text/markdown", &markdown),
                        Err(message) => notices.say(message),
                    },
                );
            }
        }
    }

    /// Every stored conversation, newest first, the shown one as it is now
    /// (a turn may be streaming); a notice names how many could not be read.
    /// `None`, with a notice, when there is none.
    async fn every_conversation(&self) -> Option<Vec<Conversation>> {
        let (mut all, unreadable) = history::load_every().await;
        self.session.with_conversation(|shown| {
            if !shown.id.is_empty() {
                all.retain(|c| c.id != shown.id);
                all.push(shown.clone());
            }
        });
        all.sort_by(|a, b| b.updated_at.total_cmp(&a.updated_at));
        match unreadable {
            0 => {}
            1 => self.notices.say(
                "1 stored conversation could not be read (damaged, or saved by a newer version \
                 of Pensive) and is not in the export."
                    .to_owned(),
            ),
            n => self.notices.say(format!(
                "{n} stored conversations could not be read (damaged, or saved by a newer \
                 version of Pensive) and are not in the export."
            )),
        }
        if all.is_empty() {
            self.notices
                .say("There is no conversation to export.".to_owned());
            return None;
        }
        Some(all)
    }

    /// Imports an exported JSON file, of one conversation or all of them; a
    /// bad file changes nothing.
    pub fn import(&self, raw: Result<String, String>) {
        now_or_later(import_now(*self, raw));
    }

    /// Stores each of `conversations` under an id of its own, all in one
    /// transaction (all or nothing: storage full stores none), and shows the
    /// first.
    async fn import_several(&self, mut conversations: Vec<Conversation>) {
        self.session.leave_running_turn();
        let mut given: Vec<String> = Vec::with_capacity(conversations.len());
        for conversation in &mut conversations {
            // Each one's id is taken before the next is given its own, so
            // that two of the file's never take the same one.
            conversation.id = self
                .free_id(std::mem::take(&mut conversation.id), &given)
                .await;
            given.push(conversation.id.clone());
        }
        let mut index = self.index.get_untracked();
        match history::save_all(&conversations, &mut index, now_ms()).await {
            Err(message) => {
                self.failed(&message);
                return;
            }
            Ok(history::Saved::Unlisted(message)) => self.notices.say(message),
            Ok(_) => {}
        }
        self.index.set(index);
        let count = conversations.len();
        if let Some(first) = conversations.into_iter().next() {
            self.session.show(first);
            self.session.save();
        }
        self.notices.say(format!("Imported {count} conversations."));
    }

    fn failed(&self, message: &str) {
        self.notices
            .say(format!("Import failed: {message} Nothing was changed."));
    }

    /// `id`, or a new one if it is empty or taken (stored, listed, or in
    /// `given` to another of the same import). Storage itself is asked,
    /// since the list here shows neither a newer version's records nor
    /// another tab's latest.
    async fn free_id(&self, id: String, given: &[String]) -> String {
        let listed = |id: &str| {
            id.is_empty()
                || given.iter().any(|g| g == id)
                || self.index.with_untracked(|i| i.iter().any(|s| s.id == id))
        };
        if !listed(&id) && !history::is_stored(&id).await {
            return id;
        }
        let base = format!("c{}", wall_ms() as u64);
        let mut id = base.clone();
        for n in 1.. {
            if !listed(&id) && !history::is_stored(&id).await {
                break;
            }
            id = format!("{base}-{n}");
        }
        id
    }
}

// Export and import are the library chunk's (super::later).
later! {
    library,
    fn export_now(
        this: UseImportExportReturn,
        format: ExportFormat,
        with_reasoning: bool,
        scope: ExportScope,
    ) {
        match scope {
            ExportScope::Shown => {
                let shown = vec![this.session.with_conversation(Conversation::clone)];
                this.export_these(shown, format, with_reasoning, scope);
            }
            // Read from IndexedDB first.
            ExportScope::All => {
                leptos::task::spawn_local(async move {
                    if let Some(all) = this.every_conversation().await {
                        this.export_these(all, format, with_reasoning, scope);
                    }
                });
            }
        }
    }
}

later! {
    library,
    fn import_now(this: UseImportExportReturn, raw: Result<String, String>) {
        let parsed = raw.and_then(|raw| {
            let conversations = message::decode_file(&raw)
                .map_err(|e| format!("That file is not a Pensive conversation: {e}"))?;
            crate::turn::export::check_import(&conversations)?;
            Ok(conversations)
        });
        leptos::task::spawn_local(async move {
            match parsed {
                Ok(mut conversations) if conversations.len() == 1 => {
                    let mut conversation = conversations.remove(0);
                    conversation.id = this.free_id(conversation.id, &[]).await;
                    this.session.leave_running_turn();
                    this.session.show(conversation);
                    this.session.save();
                }
                Ok(conversations) => this.import_several(conversations).await,
                Err(message) => this.failed(&message),
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scope_picker_reads_back_what_it_lists() {
        for scope in ExportScope::ALL {
            assert_eq!(ExportScope::from_key(scope.key()), Some(scope));
        }
        assert_eq!(ExportScope::from_key("other"), None);
        assert_eq!(ExportScope::default(), ExportScope::Shown);
    }
}
