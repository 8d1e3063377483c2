//! The nginx configuration the test runs: the production site file
//! (deploy/nginx/pensive.conf) with its addresses, certificate and log path
//! substituted,
//! inside a main configuration that keeps every path in a temporary directory
//! so nginx runs without root and without touching /etc or /var.

use std::path::Path;

/// The site file docs/nginx.md recommends.
pub const SITE_FILE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/deploy/nginx/pensive.conf");

/// Where the test's nginx listens and proxies to, and its certificate.
pub struct Addresses<'a> {
    /// HTTPS (the site).
    pub listen: &'a str,
    /// Plain HTTP (the redirect).
    pub listen_http: &'a str,
    pub backends: [&'a str; 2],
    pub certificate: &'a Path,
    pub key: &'a Path,
}

/// The site file with the test's addresses. Panics when a string it replaces
/// is gone from the file (the file and the test must change together).
pub fn site(addresses: &Addresses, access_log: &Path) -> String {
    let template = std::fs::read_to_string(SITE_FILE)
        .unwrap_or_else(|e| panic!("cannot read {SITE_FILE}: {e}"));
    let replacements = [
        ("listen 80;", format!("listen {};", addresses.listen_http)),
        (
            "listen 443 ssl;",
            format!("listen {} ssl;", addresses.listen),
        ),
        (
            "/etc/ssl/certs/pensive.pem",
            addresses.certificate.display().to_string(),
        ),
        (
            "/etc/ssl/private/pensive.key",
            addresses.key.display().to_string(),
        ),
        (
            "server 127.0.0.1:8001 ",
            format!("server {} ", addresses.backends[0]),
        ),
        (
            "server 127.0.0.1:8002 ",
            format!("server {} ", addresses.backends[1]),
        ),
        (
            "/var/log/nginx/pensive.access.log",
            access_log.display().to_string(),
        ),
    ];
    replacements.iter().fold(template, |text, (from, to)| {
        assert_eq!(
            text.matches(from).count(),
            1,
            "{SITE_FILE} should contain {from:?} exactly once"
        );
        text.replace(from, to)
    })
}

/// A main configuration shaped like Debian's /etc/nginx/nginx.conf (which
/// includes conf.d/*.conf inside `http`), but with gzip on for every type: the
/// worst case a streamed turn can meet, which the site file must undo.
pub fn main(dir: &Path, site_file: &Path) -> String {
    let d = dir.display();
    format!(
        "worker_processes 1;
pid {d}/nginx.pid;
error_log {d}/error.log info;
events {{
    worker_connections 128;
}}
http {{
    sendfile on;
    tcp_nopush on;
    default_type application/octet-stream;
    access_log {d}/default-access.log;
    gzip on;
    gzip_types *;
    gzip_min_length 1;
    client_body_temp_path {d}/client_body;
    proxy_temp_path {d}/proxy;
    fastcgi_temp_path {d}/fastcgi;
    uwsgi_temp_path {d}/uwsgi;
    scgi_temp_path {d}/scgi;
    include {site};
}}
",
        site = site_file.display()
    )
}
