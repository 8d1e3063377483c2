//! The conversation's messages: the empty state, the render window ("Show
//! earlier" renders older messages on demand, so a long conversation opens
//! at its latest ones) and one view per message, keyed so a growing turn
//! touches only its own signals.

use leptos::prelude::*;

use super::assistant_message::AssistantMessage;
use super::later::{later, view_now_or_later};
use super::message_view::MessageView;
use super::turn_view::TurnView;
use super::use_chat_session::{UseChatSessionReturn, RENDER_WINDOW};
use super::user_message::UserMessage;
use crate::turn::tool::ShownCall;
use crate::turn::versions::VersionPosition;
use crate::turn::Decision;

/// The shown conversation's messages, from the first rendered one.
#[component]
pub fn MessageList(
    /// The chat session: its messages, render window and the actions a
    /// message offers (edit, retry, answer now, continue, tool decisions).
    session: UseChatSessionReturn,
) -> impl IntoView {
    view! {
        <Show when=move || session.messages.with(Vec::is_empty)>
            <div class="empty-state">
                // Texts as blocks: shown again after hydration, these
                // are built node by node (super::trusted_html).
                <h2>{"Ask a reasoning model something hard."}</h2>
                <p>{"You will see it think, live, then answer."}</p>
            </div>
        </Show>
        <Show when=move || { session.first_rendered.get() > 0 }>
            <button
                class="show-earlier"
                data-testid="show-earlier"
                on:click=move |_| session.show_earlier()
            >
                {move || earlier_label(session.first_rendered.get())}
            </button>
        </Show>
        <For
            each=move || {
                let first = session.first_rendered.get();
                session.messages.with(|m| m[first.min(m.len())..].to_vec())
            }
            key=MessageView::key
            children=move |message| {
                let key = message.key();
                let is_last = Signal::derive(move || {
                    session.messages.with(|m| m.last().map(MessageView::key) == Some(key))
                });
                match message {
                    MessageView::User { content, versions, .. } => {
                        view_now_or_later(user_view(session, key, content, versions))
                    }
                    MessageView::Assistant { turn, .. } => {
                        view_now_or_later(assistant_view(session, key, turn, is_last))
                    }
                }
            }
        />
    }
}

// The message views are the turn chunk's (super::later): a first visit shows
// none, and their code is a large part of the page's.
later! {
    turn,
    fn user_view(
        session: UseChatSessionReturn,
        key: usize,
        content: String,
        versions: Option<VersionPosition>,
    ) -> AnyView {
        let running = session.running();
        // The last user message sits right before the last turn.
        let editable = Signal::derive(move || {
            !running.get()
                && session
                    .messages
                    .with(|m| m.len() >= 2 && m[m.len() - 2].key() == key)
        });
        let on_edit = Callback::new(move |text| session.edit_and_resend(key, text));
        let on_version = Callback::new(move |target| session.show_version(key, target));
        view! { <UserMessage content editable on_edit versions on_version running /> }.into_any()
    }
}

later! {
    turn,
    fn assistant_view(
        session: UseChatSessionReturn,
        key: usize,
        turn: TurnView,
        is_last: Signal<bool>,
    ) -> AnyView {
        let now = session.clock;
        let on_retry = Callback::new(move |_| session.retry(key));
        let on_answer_now = Callback::new(move |_| session.answer_now());
        let on_continue = Callback::new(move |_| session.continue_answer());
        let on_decide = Callback::new(move |choice: (ShownCall, Decision)| {
            session.decide(choice.0, choice.1)
        });
        view! {
            <AssistantMessage turn now on_retry is_last on_answer_now on_continue on_decide />
        }
        .into_any()
    }
}

/// The "Show earlier" button's words, with `hidden` messages not rendered.
fn earlier_label(hidden: usize) -> String {
    let next = hidden.min(RENDER_WINDOW);
    match hidden {
        1 => "Show the earlier message".to_owned(),
        _ if next == hidden => format!("Show the {hidden} earlier messages"),
        _ => format!(
            "Show {next} earlier messages ({} not shown)",
            crate::turn::turn_footer::thousands(hidden as u64)
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn show_earlier_says_how_many_it_adds_and_how_many_stay_hidden() {
        assert_eq!(earlier_label(1), "Show the earlier message");
        assert_eq!(earlier_label(12), "Show the 12 earlier messages");
        assert_eq!(
            earlier_label(RENDER_WINDOW),
            format!("Show the {RENDER_WINDOW} earlier messages")
        );
        assert_eq!(
            earlier_label(1_940),
            format!("Show {RENDER_WINDOW} earlier messages (1,940 not shown)")
        );
    }
}
