//! The site's build output under `/pkg` (the WASM, its JS glue, the
//! stylesheet): the brotli or gzip copy written at build time
//! (scripts/build-release.sh, as `cargo leptos build --release --precompress`
//! would) when the browser accepts it, and caching by name. A content-hashed
//! name (cargo-leptos `hash-files`, which the release script follows:
//! `pensive.<md5>.wasm`) never changes content, so the browser may keep it a
//! year without asking again; anything else is revalidated on every use.
//!
//! Files only: this never wraps `/api`, whose streamed turns a compression
//! layer would hold back. Nothing is compressed at request time.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use axum::extract::Request;
use axum::http::{header, HeaderValue, StatusCode, Uri};
use axum::middleware::Next;
use axum::response::Response;
use axum::Router;
use leptos::config::LeptosOptions;
use tower_http::services::ServeDir;

/// `Cache-Control` of a content-hashed file.
pub const IMMUTABLE: &str = "public, max-age=31536000, immutable";
/// `Cache-Control` of any other file: kept, but checked before each use.
pub(crate) const REVALIDATE: &str = "no-cache";

/// The renderer's worker script in the package directory
/// (`trusted_html::RENDER_WORKER_URL`), served with its own policy.
pub(crate) const RENDER_WORKER_FILE: &str = "render_worker.js";

/// What the build put in the site's package directory.
#[derive(Debug, Clone)]
pub(crate) struct Assets {
    /// `<site root>/<site pkg dir>`.
    dir: PathBuf,
    /// URL path the directory is served under (`/pkg`).
    mount: String,
    /// Stable name -> hashed name (`pensive.css` -> `pensive.<hash>.css`).
    aliases: HashMap<String, String>,
    /// Pages name the hashed files (Leptos found the hash file and it matches).
    pages_hashed: bool,
}

impl Assets {
    /// Reads the build's hash file where Leptos' `HydrationScripts` reads it
    /// (`hash.txt` next to the server binary, or `LEPTOS_HASH_FILE_NAME` if
    /// absolute). Not under `cargo leptos watch` (`LEPTOS_WATCH`, set for the
    /// server it runs): watch hashes names in its first build only and writes
    /// every rebuild under the stable names, so pages name those, and each
    /// serves the first build's hashed file until a rebuild writes it.
    pub(crate) fn detect(options: &LeptosOptions) -> Self {
        if std::env::var_os("LEPTOS_WATCH").is_some() {
            return Self::new(options, None);
        }
        let exe_dir = std::env::current_exe()
            .ok()
            .and_then(|exe| exe.parent().map(Path::to_path_buf))
            .unwrap_or_default();
        let listing = std::fs::read_to_string(exe_dir.join(options.hash_file.as_ref())).ok();
        Self::new(options, listing.as_deref())
    }

    /// `hash_listing` is the hash file's text (`js: <hash>` lines). When it is
    /// absent, unreadable or names files the site does not hold (a stale file
    /// from another build, or a binary copied without it), pages name the
    /// stable names, and those serve the one hashed file of each kind the
    /// directory holds, revalidated: slower to revisit, never broken.
    pub fn new(options: &LeptosOptions, hash_listing: Option<&str>) -> Self {
        let dir = Path::new(options.site_root.as_ref()).join(options.site_pkg_dir.as_ref());
        let name = options.output_name.as_ref();
        let listed: HashMap<String, String> = hash_listing
            .unwrap_or_default()
            .lines()
            .filter_map(|line| line.split_once(':'))
            .map(|(ext, hash)| (ext.trim(), hash.trim()))
            .filter(|(ext, hash)| matches!(*ext, "js" | "wasm" | "css") && is_hash(hash))
            .map(|(ext, hash)| (format!("{name}.{ext}"), format!("{name}.{hash}.{ext}")))
            .collect();
        let pages_hashed =
            listed.len() == 3 && listed.values().all(|file| dir.join(file).is_file());
        let aliases = if pages_hashed {
            listed
        } else {
            found_in(&dir, name)
        };
        Self {
            dir,
            mount: format!("/{}", options.site_pkg_dir.trim_matches('/')),
            aliases,
            pages_hashed,
        }
    }

    /// True when pages name the hashed files.
    pub fn hashed(&self) -> bool {
        self.pages_hashed
    }

    /// `options` with `hash_files` saying whether pages must name the hashed
    /// files: Leptos reads it when rendering the scripts and the stylesheet
    /// link. Decided here from what the site holds, so a binary started outside
    /// cargo-leptos (no `LEPTOS_HASH_FILES`) still names files that exist.
    pub(crate) fn page_options(&self, mut options: LeptosOptions) -> LeptosOptions {
        options.hash_files = self.hashed();
        options
    }

    /// The URL path to mount [`Assets::router`] under.
    pub(crate) fn mount(&self) -> &str {
        &self.mount
    }

    /// Serves the directory: the precompressed copy the browser accepts
    /// (brotli over gzip), `Vary: Accept-Encoding`, and caching by name. The
    /// stable names (`pensive.css`, for the sign-in page and old links) serve
    /// the current hashed file, revalidated on every use.
    pub fn router(self) -> Router {
        let files = ServeDir::new(&self.dir)
            .precompressed_br()
            .precompressed_gzip();
        Router::new()
            .fallback_service(files)
            .layer(axum::middleware::from_fn_with_state(self, cache_by_name))
    }
}

/// `<name>.<ext>` -> `<name>.<hash>.<ext>` for each of js, wasm and css of
/// which `dir` holds exactly one hashed file (one build's output).
fn found_in(dir: &Path, name: &str) -> HashMap<String, String> {
    let files: Vec<String> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok()?.file_name().into_string().ok())
                .collect()
        })
        .unwrap_or_default();
    let mut aliases = HashMap::new();
    for ext in ["js", "wasm", "css"] {
        let mut hashed = files.iter().filter(|f| {
            f.strip_prefix(name)
                .and_then(|rest| rest.strip_prefix('.'))
                .and_then(|rest| rest.strip_suffix(ext))
                .and_then(|rest| rest.strip_suffix('.'))
                .is_some_and(is_hash)
        });
        if let (Some(file), None) = (hashed.next(), hashed.next()) {
            aliases.insert(format!("{name}.{ext}"), file.clone());
        }
    }
    aliases
}

/// cargo-leptos names a hashed file `<stem>.<hash>.<ext>`, the hash being the
/// MD5 of the content in unpadded base64url: 22 characters.
pub(crate) fn is_hashed_name(file_name: &str) -> bool {
    let mut parts = file_name.rsplitn(3, '.');
    let (Some(_ext), Some(hash), Some(stem)) = (parts.next(), parts.next(), parts.next()) else {
        return false;
    };
    !stem.is_empty() && is_hash(hash)
}

fn is_hash(s: &str) -> bool {
    s.len() == 22
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

async fn cache_by_name(
    axum::extract::State(assets): axum::extract::State<Assets>,
    mut request: Request,
    next: Next,
) -> Response {
    // Inside the nested router the path is relative to the mount point.
    let path = request.uri().path().trim_start_matches('/').to_owned();
    // A stable name the site holds itself (a `cargo leptos watch` rebuild) is
    // that file, not the hashed one of an earlier build.
    let alias = assets
        .aliases
        .get(&path)
        .filter(|_| !assets.dir.join(&path).is_file());
    if let Some(hashed) = alias {
        if let Ok(uri) = format!("/{hashed}").parse::<Uri>() {
            *request.uri_mut() = uri;
        }
    }
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    // Whether or not a compressed copy exists, the answer depends on it.
    headers.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
    let served = response.status().is_success() || response.status() == StatusCode::NOT_MODIFIED;
    if served {
        let file_name = path.rsplit('/').next().unwrap_or_default();
        let policy = if alias.is_none() && is_hashed_name(file_name) {
            IMMUTABLE
        } else {
            REVALIDATE
        };
        response
            .headers_mut()
            .insert(header::CACHE_CONTROL, HeaderValue::from_static(policy));
        if file_name == RENDER_WORKER_FILE {
            response.headers_mut().insert(
                header::CONTENT_SECURITY_POLICY,
                HeaderValue::from_static(super::csp::RENDER_WORKER_POLICY),
            );
        }
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashed_names_are_stem_hash_extension() {
        assert!(is_hashed_name("pensive.f1Xz0aQ-9_bcdEFghIJklm.wasm"));
        assert!(is_hashed_name("inline0.f1Xz0aQ-9_bcdEFghIJklm.js"));
        assert!(!is_hashed_name("pensive.wasm"));
        assert!(!is_hashed_name("pensive.css"));
        assert!(!is_hashed_name(".f1Xz0aQ-9_bcdEFghIJklm.js"));
        // One character short, or a character base64url does not use.
        assert!(!is_hashed_name("pensive.f1Xz0aQ-9_bcdEFghIJkl.wasm"));
        assert!(!is_hashed_name("pensive.f1Xz0aQ-9_bcdEFghIJk+m.wasm"));
    }

    #[test]
    fn a_hash_file_naming_missing_files_is_ignored() {
        let options = LeptosOptions::builder()
            .output_name("pensive")
            .site_root("/nonexistent-pensive-site")
            .build();
        let listing = "js: f1Xz0aQ-9_bcdEFghIJklm\nwasm: f1Xz0aQ-9_bcdEFghIJklm\ncss: f1Xz0aQ-9_bcdEFghIJklm\n";
        let assets = Assets::new(&options, Some(listing));
        assert!(!assets.hashed());
        assert!(!assets.page_options(options).hash_files);
    }
}
