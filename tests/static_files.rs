//! The site's `/pkg` files over the real router (tower `oneshot`): the copy
//! compressed at build time that the browser accepts, and caching by name,
//! against a site directory laid out as `cargo leptos build --release
//! --precompress` with `hash-files` leaves it.

#![cfg(feature = "ssr")]

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use leptos::config::LeptosOptions;
use pensive::server::http::router::build_router;
use pensive::server::{AppConfig, TurnService};
use tower::ServiceExt;

const HASH: &str = "AbCdEfGhIjKlMnOpQrSt_-";
const IMMUTABLE: &str = "public, max-age=31536000, immutable";
/// What Chromium sends.
const CHROMIUM: &str = "gzip, deflate, br, zstd";

/// A site directory: hashed WASM, JS and CSS with `.br` and `.gz` beside
/// each, one unhashed file, and the hash file cargo-leptos writes.
struct Site {
    root: PathBuf,
    wasm: Vec<u8>,
    css: Vec<u8>,
}

impl Site {
    fn new(name: &str) -> Self {
        let root =
            std::env::temp_dir().join(format!("pensive-static-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let pkg = root.join("pkg");
        std::fs::create_dir_all(&pkg).unwrap();
        // Compressible but not trivial, like a real module.
        let mut wasm = b"\0asm\x01\0\0\0".to_vec();
        for i in 0..5_000u32 {
            wasm.extend_from_slice(format!("func{i} local.get {} i32.add;", i % 97).as_bytes());
        }
        let js = b"export default function init() { return 42; }".repeat(50);
        let css = b"body { color: #222; } .thinking { margin: 0 }\n".repeat(40);
        for (file, bytes) in [
            (format!("pensive.{HASH}.wasm"), &wasm),
            (format!("pensive.{HASH}.js"), &js),
            (format!("pensive.{HASH}.css"), &css),
        ] {
            precompressed(&pkg.join(file), bytes);
        }
        std::fs::write(pkg.join("unhashed.js"), b"console.log(1)").unwrap();
        std::fs::write(
            pkg.join("render_worker.js"),
            b"import init from './pensive_render.js';",
        )
        .unwrap();
        std::fs::write(
            root.join("hash.txt"),
            format!("js: {HASH}\nwasm: {HASH}\ncss: {HASH}\n"),
        )
        .unwrap();
        Self { root, wasm, css }
    }

    fn app(&self) -> axum::Router {
        let options = LeptosOptions::builder()
            .output_name("pensive")
            .site_root(self.root.to_string_lossy().into_owned())
            // Absolute: read here rather than next to the test binary, as
            // Leptos' HydrationScripts reads it too.
            .hash_file(
                self.root
                    .join("hash.txt")
                    .to_string_lossy()
                    .into_owned()
                    .into(),
            )
            .build();
        let config = AppConfig::from_lookup(|_| None).expect("the demo configuration");
        build_router(TurnService::new(config), options)
    }
}

impl Drop for Site {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

/// Writes `file`, `file.br` and `file.gz`.
fn precompressed(file: &Path, bytes: &[u8]) {
    std::fs::write(file, bytes).unwrap();
    let mut br = Vec::new();
    {
        let mut writer = brotli::CompressorWriter::new(&mut br, 4096, 5, 22);
        writer.write_all(bytes).unwrap();
    }
    std::fs::write(format!("{}.br", file.display()), br).unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    gz.write_all(bytes).unwrap();
    std::fs::write(format!("{}.gz", file.display()), gz.finish().unwrap()).unwrap();
}

async fn get(app: axum::Router, path: &str, accept_encoding: Option<&str>) -> Response {
    let mut request = Request::get(path);
    if let Some(value) = accept_encoding {
        request = request.header("accept-encoding", value);
    }
    let response = app
        .oneshot(request.body(Body::empty()).unwrap())
        .await
        .unwrap();
    let status = response.status();
    let headers = response.headers().clone();
    let body = response
        .into_body()
        .collect()
        .await
        .unwrap()
        .to_bytes()
        .to_vec();
    Response {
        status,
        headers,
        body,
    }
}

struct Response {
    status: StatusCode,
    headers: axum::http::HeaderMap,
    body: Vec<u8>,
}

impl Response {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// The body as the browser would have it after undoing `content-encoding`.
    fn decoded(&self) -> Vec<u8> {
        let mut out = Vec::new();
        match self.header("content-encoding") {
            None => out.clone_from(&self.body),
            Some("br") => {
                brotli::Decompressor::new(&self.body[..], 4096)
                    .read_to_end(&mut out)
                    .unwrap();
            }
            Some("gzip") => {
                flate2::read::GzDecoder::new(&self.body[..])
                    .read_to_end(&mut out)
                    .unwrap();
            }
            Some(other) => panic!("unexpected content-encoding {other}"),
        }
        out
    }
}

#[tokio::test]
async fn the_wasm_comes_brotli_compressed_to_a_browser_that_accepts_it() {
    let site = Site::new("br");
    let path = format!("/pkg/pensive.{HASH}.wasm");
    for accept in ["br", CHROMIUM] {
        let response = get(site.app(), &path, Some(accept)).await;
        assert_eq!(response.status, StatusCode::OK);
        assert_eq!(response.header("content-encoding"), Some("br"), "{accept}");
        assert_eq!(response.header("content-type"), Some("application/wasm"));
        assert_eq!(response.header("vary"), Some("accept-encoding"));
        assert!(
            response.body.len() < site.wasm.len() / 4,
            "{} bytes over the wire for {}",
            response.body.len(),
            site.wasm.len()
        );
        assert!(response.decoded() == site.wasm, "decodes to the same bytes");
    }
}

#[tokio::test]
async fn gzip_when_the_browser_has_no_brotli_and_identity_without_accept_encoding() {
    let site = Site::new("gzip");
    let path = format!("/pkg/pensive.{HASH}.wasm");

    let gzip = get(site.app(), &path, Some("gzip, deflate")).await;
    assert_eq!(gzip.header("content-encoding"), Some("gzip"));
    assert!(gzip.decoded() == site.wasm);

    let plain = get(site.app(), &path, None).await;
    assert_eq!(plain.status, StatusCode::OK);
    assert_eq!(plain.header("content-encoding"), None);
    assert_eq!(plain.header("vary"), Some("accept-encoding"));
    assert!(plain.body == site.wasm);

    let refused = get(site.app(), &path, Some("br;q=0, gzip;q=0")).await;
    assert_eq!(refused.header("content-encoding"), None);
    assert!(refused.body == site.wasm);
}

#[tokio::test]
async fn hashed_files_are_immutable_for_a_year_and_others_revalidate() {
    let site = Site::new("cache");
    for file in ["wasm", "js", "css"] {
        let response = get(
            site.app(),
            &format!("/pkg/pensive.{HASH}.{file}"),
            Some(CHROMIUM),
        )
        .await;
        assert_eq!(response.status, StatusCode::OK, "{file}");
        assert_eq!(response.header("cache-control"), Some(IMMUTABLE), "{file}");
    }
    let unhashed = get(site.app(), "/pkg/unhashed.js", Some(CHROMIUM)).await;
    assert_eq!(unhashed.status, StatusCode::OK);
    assert_eq!(unhashed.header("cache-control"), Some("no-cache"));
    // A missing file is not cached at all (it may exist after the next deploy).
    let missing = get(site.app(), "/pkg/pensive.ZZZZZZZZZZZZZZZZZZZZZZ.wasm", None).await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
    assert_eq!(missing.header("cache-control"), None);
}

/// A worker runs under its own script's policy: the renderer's worker may
/// load the renderer module and compile its WebAssembly, from this origin
/// only; every other file keeps the strict policy of files.
#[tokio::test]
async fn the_renderers_worker_may_load_its_module_and_nothing_else() {
    let site = Site::new("worker");
    let worker = get(site.app(), "/pkg/render_worker.js", Some(CHROMIUM)).await;
    assert_eq!(worker.status, StatusCode::OK);
    assert_eq!(
        worker.header("content-security-policy"),
        Some(
            "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; connect-src 'self'; \
             base-uri 'none'"
        )
    );
    let other = get(site.app(), "/pkg/unhashed.js", Some(CHROMIUM)).await;
    let policy = other.header("content-security-policy").unwrap_or_default();
    assert!(policy.starts_with("default-src 'none';"), "{policy}");
    assert!(!policy.contains("script-src"), "{policy}");
}

#[tokio::test]
async fn the_page_names_the_hashed_files() {
    let site = Site::new("page");
    let page = get(site.app(), "/", None).await;
    assert_eq!(page.status, StatusCode::OK);
    let html = String::from_utf8_lossy(&page.body);
    for file in ["wasm", "js", "css"] {
        let name = format!("/pkg/pensive.{HASH}.{file}");
        assert!(html.contains(&name), "the page names {name}: {html}");
    }
    assert!(!html.contains("/pkg/pensive.css"), "{html}");
}

#[tokio::test]
async fn the_stable_name_serves_the_current_file_revalidated() {
    // The sign-in page and links written before hashing ask for `pensive.css`.
    let site = Site::new("alias");
    let response = get(site.app(), "/pkg/pensive.css", Some(CHROMIUM)).await;
    assert_eq!(response.status, StatusCode::OK);
    assert_eq!(response.header("content-encoding"), Some("br"));
    assert_eq!(response.header("content-type"), Some("text/css"));
    assert_eq!(response.header("cache-control"), Some("no-cache"));
    assert!(response.decoded() == site.css);
}

#[tokio::test]
async fn without_the_hash_file_the_page_names_stable_names_and_they_load() {
    // A server binary copied without the hash.txt beside it.
    let site = Site::new("no-hash-file");
    std::fs::remove_file(site.root.join("hash.txt")).unwrap();
    let page = get(site.app(), "/", None).await;
    let html = String::from_utf8_lossy(&page.body);
    assert!(html.contains("/pkg/pensive.wasm"), "{html}");
    assert!(!html.contains(HASH), "{html}");
    for (file, expected) in [("wasm", &site.wasm), ("css", &site.css)] {
        let response = get(site.app(), &format!("/pkg/pensive.{file}"), Some(CHROMIUM)).await;
        assert_eq!(response.status, StatusCode::OK, "{file}");
        assert_eq!(response.header("content-encoding"), Some("br"), "{file}");
        assert_eq!(response.header("cache-control"), Some("no-cache"), "{file}");
        assert!(response.decoded() == *expected, "{file}");
    }
}

#[tokio::test]
async fn a_stable_name_the_site_holds_is_served_as_it_is() {
    // `cargo leptos watch` hashes its first build only; a rebuild writes
    // `pensive.wasm` beside the first build's hashed file, and pages name it.
    let site = Site::new("rebuilt");
    std::fs::remove_file(site.root.join("hash.txt")).unwrap();
    let rebuilt = b"\0asm\x01\0\0\0 rebuilt".to_vec();
    std::fs::write(site.root.join("pkg/pensive.wasm"), &rebuilt).unwrap();
    let response = get(site.app(), "/pkg/pensive.wasm", Some(CHROMIUM)).await;
    assert_eq!(response.status, StatusCode::OK);
    assert_eq!(response.header("cache-control"), Some("no-cache"));
    assert!(response.decoded() == rebuilt);
    // The kinds not rebuilt still load the hashed file.
    let css = get(site.app(), "/pkg/pensive.css", Some(CHROMIUM)).await;
    assert!(css.decoded() == site.css);
}

#[tokio::test]
async fn turns_are_never_compressed() {
    // Compression would hold streamed events back until a buffer fills.
    let site = Site::new("api");
    let response = site
        .app()
        .oneshot(
            Request::post("/api/chat")
                .header("content-type", "application/json")
                .header("accept-encoding", CHROMIUM)
                .body(Body::from(
                    r#"{"request":{"messages":[{"role":"user","content":"hi"}]}}"#,
                ))
                .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.headers().get("content-encoding"), None);
}
