//! Slow or stalled clients against the real `pensive serve` (a process, since
//! these are about its sockets): a client dribbling its headers, or sending
//! nothing, is cut off after `PENSIVE_HEADER_TIMEOUT_SECS`; one trickling its
//! body, after `PENSIVE_BODY_TIMEOUT_SECS`; connections beyond
//! `PENSIVE_MAX_CONNECTIONS` wait, and one address gets no more than
//! `PENSIVE_MAX_CONNECTIONS_PER_ADDRESS`; a client that never reads its turn has the
//! turn ended after `PENSIVE_IDLE_TIMEOUT_SECS`, its upstream closed and its
//! slot freed. Loopback only; every wait is bounded.

#![cfg(feature = "ssr")]

mod common;

use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
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

/// Sends `head` at once, then `body` one byte a second until the server
/// gives up; how long that took and how many body bytes went out.
fn trickle_body(port: u16, head: &str, body: &[u8]) -> (Duration, usize) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    stream.write_all(head.as_bytes()).expect("send the headers");
    let started = Instant::now();
    let mut sent = 0;
    for byte in body {
        if stream.write_all(&[*byte]).is_err() || cut_off(&mut stream) {
            break;
        }
        sent += 1;
        if started.elapsed() > Duration::from_secs(8) {
            break;
        }
        std::thread::sleep(Duration::from_secs(1));
    }
    (started.elapsed(), sent)
}

/// The `Cookie` header line of a signed-in client (`token` is the server's).
fn sign_in(port: u16, token: &str) -> String {
    let form = format!("token={token}");
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    write!(
        stream,
        "POST /sign-in HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{form}",
        form.len()
    )
    .expect("send");
    let mut text = String::new();
    stream.read_to_string(&mut text).expect("the answer");
    let cookie = text
        .lines()
        .find_map(|line| line.strip_prefix("set-cookie: "))
        .and_then(|value| value.split(';').next())
        .unwrap_or_else(|| panic!("no cookie in {text}"));
    format!("Cookie: {cookie}\r\n")
}

#[test]
fn a_client_trickling_its_body_is_cut_off_on_sign_in_and_the_api_while_healthz_answers() {
    let token = "slow-body-token-0123456789";
    let (_server, port) = serve_with(
        &[
            ("PENSIVE_ACCESS_TOKEN", token.into()),
            ("PENSIVE_BODY_TIMEOUT_SECS", "2".into()),
        ],
        Stdio::null(),
        "warn",
    );
    let host = format!("Host: 127.0.0.1:{port}\r\n");
    // No token needed to reach the sign-in form's reader.
    let sign_in_head = format!(
        "POST /sign-in HTTP/1.1\r\n{host}Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\ntoken="
    );
    let cookie = sign_in(port, token);
    let chat_head = format!(
        "POST /api/chat HTTP/1.1\r\n{host}{cookie}Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{{\"request\":"
    );
    let sign_in_client =
        std::thread::spawn(move || trickle_body(port, &sign_in_head, &[b'x'; 994]));
    // JSON whitespace: nothing a reader could refuse early.
    let chat_client = std::thread::spawn(move || trickle_body(port, &chat_head, &[b' '; 989]));
    std::thread::sleep(Duration::from_millis(500));
    let served = Instant::now();
    assert_eq!(json_field(port, "/healthz", "active_turns"), Some(0));
    assert!(served.elapsed() < Duration::from_secs(1), "/healthz waited");
    for (route, client) in [("/sign-in", sign_in_client), ("/api/chat", chat_client)] {
        let (after, sent) = client.join().expect("the trickling client");
        assert!(
            after >= Duration::from_secs(1) && after < Duration::from_secs(5),
            "{route}: cut off after {after:?} and {sent} body bytes; the body timeout is 2 s"
        );
    }
}

/// A connection from `source` (any 127.0.0.0/8 address is this machine).
fn connect_from(source: Ipv4Addr, port: u16) -> TcpStream {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .build()
        .expect("a runtime to connect with");
    let stream = runtime.block_on(async {
        let socket = tokio::net::TcpSocket::new_v4().expect("a socket");
        socket
            .bind(SocketAddr::from((source, 0)))
            .expect("bind the source address");
        socket
            .connect(SocketAddr::from((Ipv4Addr::LOCALHOST, port)))
            .await
            .expect("connect")
    });
    let stream = stream.into_std().expect("a std stream");
    stream.set_nonblocking(false).expect("blocking");
    stream
}

fn healthz_on(stream: &mut TcpStream, port: u16) -> String {
    write!(
        stream,
        "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n"
    )
    .expect("send");
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .expect("timeout");
    let mut buf = [0; 512];
    let n = stream.read(&mut buf).expect("an answer");
    String::from_utf8_lossy(&buf[..n]).into_owned()
}

#[test]
fn one_address_cannot_take_more_than_its_share_of_connections() {
    let (_server, port) = serve_with(
        &[
            ("PENSIVE_MAX_CONNECTIONS", "8".into()),
            ("PENSIVE_MAX_CONNECTIONS_PER_ADDRESS", "2".into()),
            ("PENSIVE_HEADER_TIMEOUT_SECS", "30".into()),
        ],
        Stdio::null(),
        "warn",
    );
    let greedy = Ipv4Addr::new(127, 0, 0, 3);
    let mut held = [connect_from(greedy, port), connect_from(greedy, port)];
    let mut third = connect_from(greedy, port);
    wait_until(
        Duration::from_secs(3),
        "the third connection from one address to be turned away",
        || cut_off(&mut third),
    );
    let other = healthz_on(&mut connect_from(Ipv4Addr::new(127, 0, 0, 2), port), port);
    assert!(other.starts_with("HTTP/1.1 200"), "{other}");
    // The two within the share are served, not merely left open.
    for stream in &mut held {
        let answer = healthz_on(stream, port);
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    }
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

/// A turn runs on whether or not its client reads (a page may attach to it
/// later), so a client that never reads holds its slot only until the turn
/// ends: here at its byte budget.
#[test]
fn a_client_that_never_reads_its_turn_holds_the_slot_only_until_the_turn_ends() {
    let (_mock, mock_port) = mock_upstream(0);
    let config = models_config(mock_port, &["openai", "anthropic"]);
    let env = [
        ("PENSIVE_CONFIG", config.path().display().to_string()),
        ("PENSIVE_MAX_TURN_BYTES", (4 * 1024 * 1024).to_string()),
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
            "{model}: ended {ended:?} after it started, at a budget of 4 MiB"
        );
        drop(stalled);
    }
}
