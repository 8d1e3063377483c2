//! Slow or stalled clients against the real `pensive serve` (a process, since
//! these are about its sockets): a client dribbling its headers, or sending
//! nothing, is cut off after `PENSIVE_HEADER_TIMEOUT_SECS`; connections beyond
//! `PENSIVE_MAX_CONNECTIONS` wait; a client that never reads its turn has the
//! turn ended after `PENSIVE_IDLE_TIMEOUT_SECS`, its upstream closed and its
//! slot freed. Loopback only; every wait is bounded.

#![cfg(feature = "ssr")]

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::Stdio;
use std::time::{Duration, Instant};

use common::{json_field, mock_upstream, models_config, send_turn, serve_with, wait_until};

/// True once the server has given up on `stream`: it closed it (end of
/// stream, a reset) or answered, which for a request never finished is an
/// error (hyper's 408).
fn cut_off(stream: &mut TcpStream) -> bool {
    let _ = stream.set_read_timeout(Some(Duration::from_millis(10)));
    let mut buf = [0; 256];
    match stream.read(&mut buf) {
        // End of stream (0) or the start of an answer (hyper's 408).
        Ok(0..) => true,
        Err(err) => !matches!(
            err.kind(),
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
        ),
    }
}

#[test]
fn a_client_sending_its_headers_one_byte_a_second_is_cut_off() {
    let (_server, port) = serve_with(
        &[("PENSIVE_HEADER_TIMEOUT_SECS", "2".into())],
        Stdio::null(),
        "warn",
    );
    let headers = format!(
        "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUser-Agent: slowloris\r\nAccept: */*\r\n\r\n"
    );
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    let started = Instant::now();
    let mut sent = 0;
    for byte in headers.bytes() {
        if stream.write_all(&[byte]).is_err() || cut_off(&mut stream) {
            break;
        }
        sent += 1;
        assert!(
            started.elapsed() < Duration::from_secs(8),
            "still connected after {sent} bytes in {:?}",
            started.elapsed()
        );
        std::thread::sleep(Duration::from_secs(1));
    }
    let after = started.elapsed();
    assert!(
        after >= Duration::from_secs(2) && after < Duration::from_secs(5),
        "cut off after {after:?} and {sent} of {} bytes; the timeout is 2 s",
        headers.len()
    );
}

#[test]
fn a_client_that_connects_and_sends_nothing_is_cut_off() {
    let (_server, port) = serve_with(
        &[("PENSIVE_HEADER_TIMEOUT_SECS", "1".into())],
        Stdio::null(),
        "warn",
    );
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    let started = Instant::now();
    wait_until(
        Duration::from_secs(5),
        "the silent connection to close",
        || cut_off(&mut stream),
    );
    assert!(started.elapsed() >= Duration::from_millis(900));
}

#[test]
fn connections_beyond_the_limit_wait_until_one_closes() {
    let (_server, port) = serve_with(
        &[
            ("PENSIVE_MAX_CONNECTIONS", "2".into()),
            ("PENSIVE_HEADER_TIMEOUT_SECS", "30".into()),
        ],
        Stdio::null(),
        "warn",
    );
    // The readiness check's connections have closed once this answers twice.
    wait_until(Duration::from_secs(5), "the server to be idle", || {
        json_field(port, "/healthz", "active_turns") == Some(0)
    });
    let first = TcpStream::connect(("127.0.0.1", port)).expect("first");
    let _second = TcpStream::connect(("127.0.0.1", port)).expect("second");
    let mut third = TcpStream::connect(("127.0.0.1", port)).expect("third, queued");
    write!(
        third,
        "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
    )
    .expect("send");
    third
        .set_read_timeout(Some(Duration::from_secs(1)))
        .expect("timeout");
    let mut buf = [0; 512];
    let early = third.read(&mut buf);
    assert!(
        early.is_err(),
        "a third connection is served while two are open: {early:?}"
    );
    drop(first);
    third
        .set_read_timeout(Some(Duration::from_secs(5)))
        .expect("timeout");
    let n = third
        .read(&mut buf)
        .expect("served once a connection closes");
    let text = String::from_utf8_lossy(&buf[..n]);
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
}

#[test]
fn a_client_that_never_reads_its_turn_frees_the_slot_after_the_idle_timeout() {
    let (_mock, mock_port) = mock_upstream(0);
    let config = models_config(mock_port, &["openai", "anthropic"]);
    let env = [
        ("PENSIVE_CONFIG", config.path().display().to_string()),
        ("PENSIVE_IDLE_TIMEOUT_SECS", "2".into()),
    ];
    let (_server, port) = serve_with(&env, Stdio::null(), "warn");
    // One turn per provider path: the chat dialect's library reads the body
    // from a task of its own; the others read it in the turn's stream.
    for (done, model) in ["anthropic", "openai"].into_iter().enumerate() {
        let stalled = send_turn(port, "mock:endless", Some(model));
        wait_until(Duration::from_secs(10), "the turn to start", || {
            json_field(port, "/healthz", "active_turns") == Some(1)
        });
        let started = Instant::now();
        wait_until(
            Duration::from_secs(10),
            "the provider stream to close",
            || json_field(mock_port, "/_mock/stats", "closed_early") == Some(done as u64 + 1),
        );
        wait_until(Duration::from_secs(2), "the slot to free", || {
            json_field(port, "/healthz", "active_turns") == Some(0)
        });
        let ended = started.elapsed();
        assert!(
            ended < Duration::from_secs(6),
            "{model}: ended {ended:?} after it started; the idle timeout is 2 s"
        );
        drop(stalled);
    }
}
