//! What the real `pensive serve` process decides before it listens: it will
//! not serve beyond loopback without an access token unless told to, and it
//! refuses an unusable token or a broken configuration file without ever
//! printing the secret in it. Every wait is a bounded poll.

#![cfg(feature = "ssr")]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_pensive");

/// A child process killed when the test ends, however it ends.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// `pensive serve` on `addr` with only these settings (the developer's own
/// PENSIVE_* cannot leak in); its log goes to a file returned with it.
fn serve(addr: &str, env: &[(&str, &str)]) -> (Running, PathBuf) {
    let log = std::env::temp_dir().join(format!(
        "pensive-startup-{}-{}.log",
        std::process::id(),
        addr.replace([':', '.', '[', ']'], "_")
    ));
    let file = std::fs::File::create(&log).expect("log file");
    let mut command = Command::new(BIN);
    command
        .arg("serve")
        .env_clear()
        .env("LEPTOS_SITE_ADDR", addr)
        .env("LEPTOS_SITE_ROOT", "target/site")
        .env("RUST_LOG", "info")
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(file);
    (Running(command.spawn().expect("start pensive serve")), log)
}

/// Waits for the process to exit on its own.
fn exit_status(running: &mut Running) -> ExitStatus {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Ok(Some(status)) = running.0.try_wait() {
            return status;
        }
        assert!(Instant::now() < deadline, "the server should have exited");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn healthy(port: u16) -> bool {
    let Ok(mut stream) = TcpStream::connect(("127.0.0.1", port)) else {
        return false;
    };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
    let request =
        format!("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n");
    let mut text = String::new();
    stream.write_all(request.as_bytes()).is_ok()
        && stream.read_to_string(&mut text).is_ok()
        && text.starts_with("HTTP/1.1 200")
}

/// Waits until `/healthz` answers on loopback.
fn wait_healthy(running: &mut Running, port: u16, log: &PathBuf) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !healthy(port) {
        if let Ok(Some(status)) = running.0.try_wait() {
            panic!("exited ({status}): {}", read(log));
        }
        assert!(Instant::now() < deadline, "not healthy: {}", read(log));
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn read(log: &PathBuf) -> String {
    std::fs::read_to_string(log).unwrap_or_default()
}

#[test]
fn beyond_loopback_without_a_token_the_server_refuses_to_start_and_says_what_to_do() {
    let port = free_port();
    let (mut server, log) = serve(&format!("0.0.0.0:{port}"), &[]);
    let status = exit_status(&mut server);
    let text = read(&log);
    assert!(!status.success(), "{text}");
    for advice in ["PENSIVE_ACCESS_TOKEN", "PENSIVE_ALLOW_OPEN", "127.0.0.1"] {
        assert!(text.contains(advice), "names {advice}: {text}");
    }
    assert!(!healthy(port), "nothing listens");
    let _ = std::fs::remove_file(log);
}

#[test]
fn beyond_loopback_with_the_opt_in_it_starts_and_warns_and_with_a_token_it_is_quiet() {
    let port = free_port();
    let (mut server, log) = serve(&format!("0.0.0.0:{port}"), &[("PENSIVE_ALLOW_OPEN", "1")]);
    wait_healthy(&mut server, port, &log);
    drop(server);
    let text = read(&log);
    assert!(
        text.lines()
            .any(|l| l.contains("WARN") && l.contains("without PENSIVE_ACCESS_TOKEN")),
        "{text}"
    );
    let _ = std::fs::remove_file(&log);

    let port = free_port();
    let (mut server, log) = serve(
        &format!("0.0.0.0:{port}"),
        &[("PENSIVE_ACCESS_TOKEN", "a-long-enough-token-0123")],
    );
    wait_healthy(&mut server, port, &log);
    drop(server);
    let text = read(&log);
    assert!(!text.contains("without PENSIVE_ACCESS_TOKEN"), "{text}");
    assert!(
        !text.contains("a-long-enough-token-0123"),
        "the token is never logged: {text}"
    );
    let _ = std::fs::remove_file(log);
}

#[test]
fn an_unusable_token_stops_startup_without_printing_it() {
    for token in [
        "SENTINEL-short",
        "SENTINEL token with spaces",
        "SENTINEL;cookie;unsafe;chars",
    ] {
        let port = free_port();
        let (mut server, log) = serve(
            &format!("127.0.0.1:{port}"),
            &[("PENSIVE_ACCESS_TOKEN", token)],
        );
        let status = exit_status(&mut server);
        let text = read(&log);
        assert!(!status.success(), "{token}: {text}");
        assert!(text.contains("PENSIVE_ACCESS_TOKEN"), "{text}");
        assert!(!text.contains("SENTINEL"), "the token is echoed: {text}");
        let _ = std::fs::remove_file(log);
    }
}

#[test]
fn a_misspelled_key_in_the_configuration_file_is_reported_without_the_value_beside_it() {
    let file = std::env::temp_dir().join(format!("pensive-startup-{}.toml", std::process::id()));
    std::fs::write(
        &file,
        "[[models]]\nprovider = \"openai\"\nbase_url = \"http://127.0.0.1:9/v1\"\nmodel = \"m\"\napi_kye = \"sk-SENTINEL-in-the-file\"\n",
    )
    .expect("write the file");
    let port = free_port();
    let config = file.display().to_string();
    let (mut server, log) = serve(&format!("127.0.0.1:{port}"), &[("PENSIVE_CONFIG", &config)]);
    let status = exit_status(&mut server);
    let text = read(&log);
    let _ = std::fs::remove_file(&file);
    assert!(!status.success(), "{text}");
    assert!(
        text.contains("api_kye") && text.contains("line 5"),
        "says what and where: {text}"
    );
    assert!(!text.contains("SENTINEL"), "the key is echoed: {text}");
    let _ = std::fs::remove_file(log);
}
