//! Notices about saved data (a save refused, a record quarantined), each
//! with Dismiss and, when something was kept aside, a download of it.

use leptos::prelude::*;

use super::history::Notice;
use super::use_notices::UseNoticesReturn;

/// The notices shown above the conversation.
#[component]
pub fn NoticeList(
    /// The page's notices.
    notices: UseNoticesReturn,
) -> impl IntoView {
    let notice_list = move || {
        let list: Vec<(usize, Notice)> = notices.notices.get().into_iter().enumerate().collect();
        list
    };
    view! {
        <For
            each=notice_list
            key=|(i, n)| (*i, n.message.clone())
            children=move |(_, notice)| notice_view(notices, notice)
        />
    }
}

/// A notice about saved data, with a download of anything quarantined.
fn notice_view(notices: UseNoticesReturn, notice: Notice) -> impl IntoView {
    let message = notice.message.clone();
    let download = notice.backup.map(|raw| {
        let href = format!(
            "data:application/json;charset=utf-8,{}",
            percent_encode(&raw)
        );
        view! {
            <a href=href download="pensive-backup.json" data-testid="download-backup">
                "Download it"
            </a>
        }
    });
    view! {
        <div class="notice" role="alert" data-testid="notice">
            <span>{notice.message}</span>
            {download}
            <button on:click=move |_| notices.dismiss(&message)>"Dismiss"</button>
        </div>
    }
}

/// Percent-encodes text for a `data:` URL.
fn percent_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len() * 3 / 2);
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(byte as char)
            }
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_backup_goes_into_a_data_url_with_only_unreserved_characters_left_as_they_are() {
        assert_eq!(percent_encode("a-Z_0.~"), "a-Z_0.~");
        assert_eq!(
            percent_encode("{\"t\": \"é/\"}"),
            "%7B%22t%22%3A%20%22%C3%A9%2F%22%7D"
        );
    }
}
