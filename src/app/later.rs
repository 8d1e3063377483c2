//! Code a first visit does not need, fetched when it is first used.
//!
//! The release build splits the browser bundle (scripts/build-release.sh,
//! `--cfg pensive_split`): each function declared with [`later!`] goes with
//! what only it reaches into a chunk of its own name, a module the page
//! fetches on the first call, so the module a first visit downloads before
//! the page is interactive holds only the page itself. Every other build
//! (debug, the server, the tests) has the code in one piece: there the call
//! is an `async fn` that is ready at once, and [`now_or_later`] runs it now,
//! so those builds behave as they did before the split.
//!
//! The page fetches every chunk once it is interactive ([`fetch_all`]), so
//! the first question rarely waits for one.

use std::future::Future;

use leptos::prelude::*;
use leptos::reactive::computed::ScopedFuture;

/// Declares a function whose code may live in the chunk `$chunk`, callable
/// as an `async fn` with the same arguments (plain names and owned types:
/// in a split build the call crosses into another module).
///
/// In a split build each such function has a loader of its own
/// (wasm_split_helpers), which answers at once only after its first call:
/// an export `pensive_warm_<name>` lets [`fetch_all`] make that first call
/// for every one of them, so that, once their chunks are in, every call is
/// ready at once, as in the other builds (a view inside a `Suspense` that
/// waited even a microtask would take its neighbours off the page, and the
/// focus with them).
#[cfg(pensive_split)]
macro_rules! later {
    ($chunk:ident, $(#[$meta:meta])* $vis:vis fn $name:ident($($arg:ident: $ty:ty),* $(,)?) $(-> $ret:ty)? $body:block) => {
        #[::leptos::wasm_split::wasm_split($chunk, wasm_split_path = ::leptos::wasm_split)]
        $(#[$meta])*
        $vis fn $name($($arg: $ty),*) $(-> $ret)? $body

        #[doc(hidden)]
        #[unsafe(no_mangle)]
        pub extern "C" fn ${concat(pensive_warm_, $name)}() {
            ::leptos::task::spawn_local(${concat(__wasm_split_preload_, $name)}());
        }
    };
}

/// Declares a function whose code may live in the chunk `$chunk` (see the
/// split build's `later!`): here an `async fn`, ready at once.
#[cfg(not(pensive_split))]
macro_rules! later {
    ($chunk:ident, $(#[$meta:meta])* $vis:vis fn $name:ident($($arg:ident: $ty:ty),* $(,)?) $(-> $ret:ty)? $body:block) => {
        $(#[$meta])*
        $vis async fn $name($($arg: $ty),*) $(-> $ret)? $body
    };
}
pub(crate) use later;

/// Runs `work` to its end: at once when its code is here (every build but a
/// split one, and a split one after the chunk came), else in the background.
/// Either way it runs under the caller's owner, untracked.
pub fn now_or_later(work: impl Future<Output = ()> + 'static) {
    let mut work = Box::pin(ScopedFuture::new_untracked(work));
    if futures::FutureExt::now_or_never(work.as_mut()).is_none() {
        leptos::task::spawn_local(work);
    }
}

/// The view `view` makes: at once when its code is here, else once the
/// chunk has come (nothing shows until then).
pub fn view_now_or_later(view: impl Future<Output = AnyView> + 'static) -> AnyView {
    let mut view = Box::pin(view);
    match futures::FutureExt::now_or_never(view.as_mut()) {
        Some(ready) => ready,
        None => Suspend::new(send_wrapper::SendWrapper::new(view)).into_any(),
    }
}

/// Fetches every chunk, and makes each split function's first call (its
/// `pensive_warm_` export), so none is waited for when first used (after the
/// page is interactive: the page-weight benchmark counts what comes before).
/// Nothing to do in a build that is not split.
pub fn fetch_all() {
    #[cfg(pensive_split)]
    {
        use wasm_bindgen::JsCast;
        let exports: js_sys::Object = wasm_bindgen::exports().unchecked_into();
        for name in js_sys::Object::keys(&exports).iter() {
            if !name
                .as_string()
                .is_some_and(|n| n.starts_with("pensive_warm_"))
            {
                continue;
            }
            if let Ok(warm) = js_sys::Reflect::get(&exports, &name) {
                let _ = warm
                    .unchecked_into::<js_sys::Function>()
                    .call0(&wasm_bindgen::JsValue::NULL);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;
    use std::rc::Rc;

    use super::*;

    later! {
        turn,
        fn doubled(n: u32) -> u32 {
            n * 2
        }
    }

    #[test]
    fn outside_a_split_build_a_later_function_is_ready_at_once() {
        assert_eq!(futures::FutureExt::now_or_never(doubled(21)), Some(42));
    }

    #[test]
    fn work_whose_code_is_here_runs_before_the_call_returns_under_the_callers_owner() {
        let owner = Owner::new();
        owner.with(|| {
            provide_context(7_u8);
            let seen = Rc::new(Cell::new(None));
            let seen_by_work = Rc::clone(&seen);
            now_or_later(async move { seen_by_work.set(Some(use_context::<u8>())) });
            assert_eq!(seen.get(), Some(Some(7)));
        });
    }

    #[test]
    fn a_view_whose_code_is_here_is_made_at_once() {
        let owner = Owner::new();
        owner.with(|| {
            let made = Rc::new(Cell::new(false));
            let made_by_view = Rc::clone(&made);
            let _view = view_now_or_later(async move {
                made_by_view.set(true);
                "here".into_any()
            });
            assert!(made.get());
        });
    }
}
