//! One page with a counter button, rendered on the server and hydrated.

use leptos::prelude::*;
use leptos_meta::{provide_meta_context, MetaTags, Stylesheet, Title};
use leptos_router::components::{Route, Router, Routes};
use leptos_router::path;

/// The HTML document (server side).
pub fn shell(options: LeptosOptions) -> impl IntoView {
    view! {
        <!DOCTYPE html>
        <html lang="en">
            <head>
                <meta charset="utf-8"/>
                <meta name="viewport" content="width=device-width, initial-scale=1"/>
                <AutoReload options=options.clone()/>
                <HydrationScripts options/>
                <MetaTags/>
            </head>
            <body>
                <App/>
            </body>
        </html>
    }
}

/// The root component.
#[component]
pub fn App() -> impl IntoView {
    provide_meta_context();
    view! {
        <Stylesheet id="leptos" href="/pkg/pensive.css"/>
        <Title text="Bare Leptos"/>
        <Router>
            <main>
                <Routes fallback=|| "Page not found.">
                    <Route path=path!("") view=HomePage/>
                </Routes>
            </main>
        </Router>
    }
}

/// The counter: a click that changes the number proves hydration.
#[component]
fn HomePage() -> impl IntoView {
    let count = RwSignal::new(0);
    view! {
        <h1>"Bare Leptos"</h1>
        <button id="counter" on:click=move |_| *count.write() += 1>
            "Clicked: " {count}
        </button>
    }
}
