//! The chat page: the conversation, the composer and the running turn.
//!
//! The pure `Conversation` (with the live reducer `Turn` inside) is the source of
//! truth; `TurnView`s mirror it for rendering. History loads after hydration, so
//! the server and the first client render are the same empty page.

use futures::future::{AbortHandle, Abortable};
use leptos::prelude::*;
use leptos::task::spawn_local;

use super::api::{list_models, PublicModel};
use super::assistant_message::AssistantMessage;
use super::browser::{now_ms, wall_ms};
use super::composer::Composer;
use super::history;
use super::preferences::{provide_fold_preference, FoldPreferencePicker};
use super::turn_client::stream_turn;
use super::turn_view::TurnView;
use super::user_message::UserMessage;
use crate::turn::message::{Conversation, Message};
use crate::turn::reducer::Turn;
use crate::turn::{ChatRequest, TurnEvent};

/// One rendered message.
#[derive(Clone)]
enum MessageView {
    User { key: usize, content: String },
    Assistant { key: usize, turn: TurnView },
}

impl MessageView {
    fn key(&self) -> usize {
        match self {
            MessageView::User { key, .. } | MessageView::Assistant { key, .. } => *key,
        }
    }
}

/// How often a streaming turn is saved, at most (DESIGN §5).
const SAVE_INTERVAL_MS: f64 = 1000.0;

/// The page's state, shared by its handlers (all fields are `Copy` handles).
#[derive(Clone, Copy)]
struct ChatState {
    conversation: StoredValue<Conversation>,
    messages: RwSignal<Vec<MessageView>>,
    running: RwSignal<Option<AbortHandle>>,
    clock: RwSignal<f64>,
    notice: RwSignal<Option<String>>,
    announcement: RwSignal<String>,
    last_save_ms: StoredValue<f64>,
    next_key: StoredValue<usize>,
    /// The page's reactive owner: message signals are created under it, not
    /// under the component whose handler happened to run (Retry disposes that one).
    owner: StoredValue<Owner>,
}

impl ChatState {
    fn new() -> Self {
        Self {
            conversation: StoredValue::new(Conversation::new(String::new(), 0.0)),
            messages: RwSignal::new(Vec::new()),
            running: RwSignal::new(None),
            clock: RwSignal::new(0.0),
            notice: RwSignal::new(None),
            announcement: RwSignal::new(String::new()),
            last_save_ms: StoredValue::new(0.0),
            next_key: StoredValue::new(0),
            owner: StoredValue::new(Owner::current().unwrap_or_default()),
        }
    }

    fn key(&self) -> usize {
        let key = self.next_key.get_value();
        self.next_key.set_value(key + 1);
        key
    }

    fn view_of(&self, message: &Message) -> MessageView {
        let owner = self.owner.get_value();
        owner.with(|| self.view_in_owner(message))
    }

    fn view_in_owner(&self, message: &Message) -> MessageView {
        match message {
            Message::User { content } => MessageView::User {
                key: self.key(),
                content: content.clone(),
            },
            Message::Assistant(turn) => MessageView::Assistant {
                key: self.key(),
                turn: TurnView::new(turn),
            },
        }
    }

    /// Shows a conversation loaded from history.
    fn show(&self, conversation: Conversation) {
        let views = conversation
            .messages
            .iter()
            .map(|m| self.view_of(m))
            .collect();
        self.conversation.set_value(conversation);
        self.messages.set(views);
    }

    fn live_view(&self) -> Option<TurnView> {
        self.messages.with_untracked(|m| match m.last() {
            Some(MessageView::Assistant { turn, .. }) => Some(*turn),
            _ => None,
        })
    }

    /// Starts a turn for the user's text.
    fn send(&self, text: String) {
        let now = now_ms();
        let wall = wall_ms();
        let request = self.conversation.try_update_value(|c| {
            if c.id.is_empty() {
                *c = Conversation::new(format!("c{}", wall as u64), wall);
            }
            if c.title.is_empty() {
                c.title = text
                    .lines()
                    .next()
                    .unwrap_or_default()
                    .chars()
                    .take(60)
                    .collect();
            }
            c.messages.push(Message::User {
                content: text.clone(),
            });
            let request = ChatRequest {
                messages: c.to_chat_messages(),
                model: c.model.clone(),
            };
            c.messages.push(Message::Assistant(Turn::new(now)));
            c.updated_at = wall;
            request
        });
        let Some(request) = request else { return };
        let user = self.view_of(&Message::User { content: text });
        let turn = self.view_of(&Message::Assistant(Turn::new(now)));
        self.messages.update(|m| {
            m.push(user);
            m.push(turn);
        });
        self.clock.set(now);
        self.announcement.set("Thinking".into());
        self.save();

        let state = *self;
        let ticker = set_interval_with_handle(
            move || state.clock.set(now_ms()),
            std::time::Duration::from_millis(250),
        )
        .ok();
        let (handle, registration) = AbortHandle::new_pair();
        self.running.set(Some(handle));
        spawn_local(async move {
            let turn = stream_turn(request, move |event| state.apply(event));
            let _ = Abortable::new(turn, registration).await;
            if let Some(ticker) = ticker {
                ticker.clear();
            }
            state.finish_turn();
        });
    }

    /// Folds one event into the live turn and its view.
    fn apply(&self, event: TurnEvent) {
        let now = now_ms();
        let Some(view) = self.live_view() else { return };
        if let Some(text) = announcement_for(&event) {
            self.announcement.set(text);
        }
        self.conversation.update_value(|c| {
            if let Some(Message::Assistant(turn)) = c.messages.last_mut() {
                let changes = turn.apply(event, now);
                view.sync(turn, &changes);
            }
        });
        if now - self.last_save_ms.get_value() >= SAVE_INTERVAL_MS {
            self.save();
        }
    }

    /// Retry the turn shown with `key`: the last turn is replaced, an older one
    /// is asked again at the end.
    fn retry(&self, key: usize) {
        if self.running.get_untracked().is_some() {
            return;
        }
        let Some(index) = self
            .messages
            .with_untracked(|m| m.iter().position(|v| v.key() == key))
        else {
            return;
        };
        let is_last = self.messages.with_untracked(|m| index + 1 == m.len());
        let user_text = self.conversation.with_value(|c| {
            match index.checked_sub(1).and_then(|i| c.messages.get(i)) {
                Some(Message::User { content }) => Some(content.clone()),
                _ => None,
            }
        });
        let Some(text) = user_text else { return };
        if is_last {
            self.conversation
                .update_value(|c| c.messages.truncate(index - 1));
            self.messages.update(|m| m.truncate(index - 1));
        }
        self.send(text);
    }

    /// Stop pressed: freeze the turn where it is.
    fn stop(&self) {
        if let Some(handle) = self.running.get_untracked() {
            handle.abort();
        }
        let now = now_ms();
        if let Some(view) = self.live_view() {
            self.conversation.update_value(|c| {
                if let Some(Message::Assistant(turn)) = c.messages.last_mut() {
                    let changes = turn.stop(now);
                    view.sync(turn, &changes);
                }
            });
        }
        self.announcement.set("Stopped".into());
        self.finish_turn();
    }

    fn finish_turn(&self) {
        if self.running.get_untracked().is_some() {
            self.running.set(None);
        }
        self.save();
    }

    fn save(&self) {
        let now = now_ms();
        self.last_save_ms.set_value(now);
        let result = self.conversation.with_value(|c| history::save(c, now));
        if let Err(message) = result {
            self.notice.set(Some(message));
        }
    }
}

/// The chat page.
#[component]
pub fn ChatPage() -> impl IntoView {
    let state = ChatState::new();
    let fold_preference = provide_fold_preference();
    Effect::new(move |_| {
        let loaded = history::load_current();
        if let Some(conversation) = loaded.conversation {
            state.show(conversation);
        }
        state.notice.set(loaded.notice);
    });
    let models = Resource::new(|| (), |_| list_models());
    let running = Signal::derive(move || state.running.with(Option::is_some));
    let now = Signal::from(state.clock);

    view! {
        <div class="page">
            <header class="topbar">
                <h1 class="brand">"Pensive"</h1>
                <FoldPreferencePicker preference=fold_preference/>
                <Suspense fallback=|| ()>
                    {move || models.get().and_then(Result::ok).and_then(|m| m.into_iter().next()).map(model_badge)}
                </Suspense>
            </header>
            {move || state.notice.get().map(|text| view! {
                <div class="notice" role="alert" data-testid="notice">
                    <span>{text}</span>
                    <button on:click=move |_| state.notice.set(None)>"Dismiss"</button>
                </div>
            })}
            <main class="conversation" data-testid="conversation">
                <Show when=move || state.messages.with(Vec::is_empty)>
                    <div class="empty-state">
                        <h2>"Ask a reasoning model something hard."</h2>
                        <p>"You will see it think, live, then answer."</p>
                    </div>
                </Show>
                <For
                    each=move || state.messages.get()
                    key=MessageView::key
                    children=move |message| match message {
                        MessageView::User { content, .. } => view! { <UserMessage content/> }.into_any(),
                        MessageView::Assistant { turn, key } => {
                            let on_retry = Callback::new(move |_| state.retry(key));
                            view! { <AssistantMessage turn now on_retry/> }.into_any()
                        }
                    }
                />
            </main>
            <div class="visually-hidden" role="status" aria-live="polite" data-testid="status">
                {move || state.announcement.get()}
            </div>
            <Composer
                running
                on_send=Callback::new(move |text| state.send(text))
                on_stop=Callback::new(move |_| state.stop())
            />
        </div>
    }
}

/// What the polite status line says for an event (never the streaming text).
fn announcement_for(event: &TurnEvent) -> Option<String> {
    match event {
        TurnEvent::ThinkingStart => Some("Thinking".into()),
        TurnEvent::ThinkingEnd { duration_ms, .. } => {
            let seconds = (*duration_ms as f64 / 1000.0).round() as u64;
            Some(match seconds {
                0 => "Thought for less than a second".into(),
                1 => "Thought for 1 second".into(),
                n => format!("Thought for {n} seconds"),
            })
        }
        TurnEvent::Done { .. } => Some("Answer complete".into()),
        TurnEvent::Error { message, .. } => Some(format!("Error: {message}")),
        _ => None,
    }
}

fn model_badge(model: PublicModel) -> impl IntoView {
    view! {
        <span class="model-badge" data-testid="model-badge" class:demo=model.demo>
            {model.label}
            {model.demo.then(|| view! { <span class="demo-note">" \u{b7} built-in demo, no API key needed"</span> })}
        </span>
    }
}
