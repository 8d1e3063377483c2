//! Pensive behind nginx and scaled out, as docs/nginx.md recommends: two
//! `pensive serve` processes against one `pensive mock-upstream`, load-balanced
//! by a real nginx running deploy/nginx/pensive.conf over TLS (a self-signed
//! certificate the test makes), all on loopback.
//! Needs nginx installed (Debian: `apt-get install nginx`); fails, never skips,
//! without it.

#![cfg(feature = "ssr")]

// Helpers live beside this file (tests/proxy_nginx/) so cargo does not take
// them for test targets of their own.
#[path = "proxy_nginx/cluster.rs"]
mod cluster;
#[path = "proxy_nginx/nginx_conf.rs"]
mod nginx_conf;

use std::future::Future;
use std::time::{Duration, Instant};

use cluster::{http_get, Cluster, Options, POLL_INTERVAL};
use pensive::server::mock::scenarios::{ANSWER, REASONING};
use pensive::turn::contract::{answer_text, check_stream, thinking_text};
use pensive::turn::framer::NdjsonFramer;
use pensive::turn::TurnEvent;
use reqwest::header::{
    ACCEPT_ENCODING, CONTENT_ENCODING, CONTENT_TYPE, COOKIE, LOCATION, ORIGIN, SET_COOKIE,
    STRICT_TRANSPORT_SECURITY,
};
use reqwest::StatusCode;

/// Each test's HTTP part ends within this (start-up has its own bound), so a
/// whole test stays well under a minute.
const TEST_BUDGET: Duration = Duration::from_secs(40);
const TOKEN: &str = "proxy-test-access-token";

async fn within<T>(work: impl Future<Output = T>) -> T {
    tokio::time::timeout(TEST_BUDGET, work)
        .await
        .unwrap_or_else(|_| panic!("the test did not finish within {TEST_BUDGET:?}"))
}

/// A plain-HTTP client, for the mock and the backends directly.
fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .no_proxy()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(Duration::from_secs(20))
        .build()
        .expect("an HTTP client")
}

/// `POST /api/chat` through nginx, announcing gzip as a browser does.
async fn send_turn(cluster: &Cluster, cookie: Option<&str>) -> reqwest::Response {
    let body = r#"{"request":{"messages":[{"role":"user","content":"Why is the sky blue?"}]}}"#;
    let mut request = cluster
        .client()
        .post(cluster.url("/api/chat"))
        .header(CONTENT_TYPE, "application/json")
        .header(ACCEPT_ENCODING, "gzip, deflate, br")
        .body(body);
    if let Some(cookie) = cookie {
        request = request.header(COOKIE, cookie);
    }
    request.send().await.expect("nginx answers")
}

/// A secret as the page makes them.
const SECRET: &str = "0123456789abcdef0123456789abcdef";

/// Starts turn `turn_id` (with the page's secret) through nginx.
async fn send_turn_as(cluster: &Cluster, turn_id: &str) -> reqwest::Response {
    let body = serde_json::json!({"request": {
        "messages": [{"role": "user", "content": "Why is the sky blue?"}],
        "turn_id": turn_id,
        "turn_secret": SECRET,
    }});
    cluster
        .client()
        .post(cluster.url("/api/chat"))
        .header(CONTENT_TYPE, "application/json")
        .body(body.to_string())
        .send()
        .await
        .expect("nginx answers")
}

/// A turn as the client received it.
struct Received {
    bytes: Vec<u8>,
    events: Vec<TurnEvent>,
    /// Network reads that carried bytes.
    reads: usize,
    first_event_after: Duration,
    finished_after: Duration,
}

/// Reads a turn to its end; `on_first_event` runs the moment the first whole
/// event is in (the rest of the turn still unread), and its output is returned.
async fn receive<T, F: Future<Output = T>>(
    mut response: reqwest::Response,
    sent_at: Instant,
    on_first_event: impl FnOnce() -> F,
) -> (Received, Option<T>) {
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(
        response.headers().get(CONTENT_ENCODING),
        None,
        "the turn stream must not be compressed (gzip holds bytes back)"
    );
    let mut framer = NdjsonFramer::new();
    let mut received = Received {
        bytes: Vec::new(),
        events: Vec::new(),
        reads: 0,
        first_event_after: Duration::ZERO,
        finished_after: Duration::ZERO,
    };
    let mut on_first_event = Some(on_first_event);
    let mut observed = None;
    while let Some(chunk) = response.chunk().await.expect("the body streams") {
        received.reads += 1;
        received.bytes.extend_from_slice(&chunk);
        for event in framer.push(&chunk) {
            received.events.push(event.expect("valid NDJSON"));
        }
        if !received.events.is_empty() {
            if let Some(hook) = on_first_event.take() {
                received.first_event_after = sent_at.elapsed();
                observed = Some(hook().await);
            }
        }
    }
    received.finished_after = sent_at.elapsed();
    received
        .events
        .extend(framer.finish().map(|e| e.expect("valid NDJSON")));
    (received, observed)
}

/// The mock's scripted `normal` turn, arrived whole: every line an event, the
/// exact reasoning and answer, and a clean end.
fn assert_complete(received: &Received) {
    assert_eq!(
        received.bytes.last(),
        Some(&b'\n'),
        "the last line is whole"
    );
    // Every line but the heartbeats is an event.
    let lines = received
        .bytes
        .split(|b| *b == b'\n')
        .filter(|line| !line.is_empty() && !line.starts_with(br#"{"type":"heartbeat""#))
        .count();
    assert_eq!(lines, received.events.len(), "one event per line");
    check_stream(&received.events).expect("design §2 rules hold");
    let thinking = thinking_text(&received.events);
    let answer = answer_text(&received.events);
    assert_eq!(thinking, REASONING);
    assert_eq!(answer, ANSWER);
    assert_eq!(
        received.events.last(),
        Some(&TurnEvent::Done {
            finish_reason: Some("stop".into()),
            output_limit: None,
        })
    );
}

async fn mock_stats(cluster: &Cluster) -> serde_json::Value {
    client()
        .get(format!("http://{}/_mock/stats", cluster.mock))
        .send()
        .await
        .expect("the mock answers")
        .json()
        .await
        .expect("stats are JSON")
}

async fn active_turns(addr: &str) -> Option<u64> {
    let body = client()
        .get(format!("http://{addr}/healthz"))
        .send()
        .await
        .ok()?
        .json::<serde_json::Value>()
        .await
        .ok()?;
    body["active_turns"].as_u64()
}

/// Polls `condition` until it holds; panics with `what` after `limit`.
async fn eventually<F: Future<Output = bool>>(
    what: &str,
    limit: Duration,
    mut condition: impl FnMut() -> F,
) {
    let deadline = Instant::now() + limit;
    while !condition().await {
        assert!(Instant::now() < deadline, "{what} within {limit:?}");
        tokio::time::sleep(POLL_INTERVAL).await;
    }
}

#[tokio::test]
async fn a_paced_turn_streams_through_nginx_whole_and_stop_reaches_the_provider() {
    // 80 ms before each of the mock's 18 chunks: about 1.5 s of streaming.
    let cluster = Cluster::start(Options {
        base_port: 6010,
        delay_ms: 80,
        access_token: None,
        redis: false,
    });
    within(async {
        let sent_at = Instant::now();
        let response = send_turn(&cluster, None).await;
        let (received, stats_at_first_event) =
            receive(response, sent_at, || mock_stats(&cluster)).await;
        eprintln!(
            "through nginx: first event after {:?}, whole turn after {:?}, {} bytes in {} reads",
            received.first_event_after,
            received.finished_after,
            received.bytes.len(),
            received.reads
        );
        assert_eq!(
            stats_at_first_event.and_then(|s| s["active"].as_u64()),
            Some(1),
            "the first event reached the client while the provider was still streaming"
        );
        assert!(
            received.first_event_after < received.finished_after / 2,
            "the first event arrives well before the end: {:?} of {:?}",
            received.first_event_after,
            received.finished_after
        );
        assert!(
            received.reads > 5,
            "the turn arrives in many reads, not one buffered block: {}",
            received.reads
        );
        assert_complete(&received);

        // The client goes away after the first event: the turn runs on (a
        // page may attach again). Stop, sent to the process that runs it
        // (without Redis the processes share no turns), drops the
        // provider's stream.
        let response = send_turn_as(&cluster, "t-proxied").await;
        let mut chunks = response;
        let first = chunks.chunk().await.expect("a first chunk");
        assert!(first.is_some_and(|c| !c.is_empty()));
        drop(chunks);
        let mut stopped = 0;
        for backend in &cluster.backends {
            let status = client()
                .post(format!("http://{backend}/api/stop_turn"))
                .header(CONTENT_TYPE, "application/json")
                .body(format!(r#"{{"turn_id":"t-proxied","secret":"{SECRET}"}}"#))
                .send()
                .await
                .expect("the backend answers")
                .status();
            stopped += usize::from(status.is_success());
        }
        assert_eq!(stopped, 1, "one process runs the turn and stops it");
        eventually(
            "the provider's stream is closed early and no turn is left running",
            Duration::from_secs(10),
            || async {
                let stats = mock_stats(&cluster).await;
                stats["closed_early"].as_u64() == Some(1)
                    && stats["active"].as_u64() == Some(0)
                    && active_turns(&cluster.backends[0]).await == Some(0)
                    && active_turns(&cluster.backends[1]).await == Some(0)
            },
        )
        .await;
    })
    .await;
}

/// One line of the `pensive_upstream` access log.
struct LogEntry {
    request: String,
    status: u16,
    /// Every backend nginx tried, in order ("a, b" when it retried).
    upstreams: Vec<String>,
}

fn access_log(cluster: &Cluster) -> Vec<LogEntry> {
    let text = std::fs::read_to_string(cluster.access_log()).unwrap_or_default();
    text.lines()
        .filter_map(|line| {
            let (_, rest) = line.split_once('"')?;
            let (request, rest) = rest.split_once('"')?;
            let status = rest.split_whitespace().next()?.parse().ok()?;
            let upstreams = rest
                .split_once("upstream=")?
                .1
                .split_once(" upstream_status=")?
                .0;
            Some(LogEntry {
                request: request.to_owned(),
                status,
                upstreams: upstreams.split(", ").map(str::to_owned).collect(),
            })
        })
        .collect()
}

/// The log's `POST /api/chat` lines, once there are `count` of them (nginx
/// writes a line just after the response ends).
async fn chat_log(cluster: &Cluster, count: usize) -> Vec<LogEntry> {
    let is_chat = |e: &LogEntry| e.request.starts_with("POST /api/chat ");
    eventually(
        &format!("nginx logs {count} chat requests"),
        Duration::from_secs(10),
        || async { access_log(cluster).iter().filter(|e| is_chat(e)).count() >= count },
    )
    .await;
    access_log(cluster).into_iter().filter(is_chat).collect()
}

async fn complete_turn(cluster: &Cluster, cookie: &str) {
    let response = send_turn(cluster, Some(cookie)).await;
    assert_complete(&receive(response, Instant::now(), || async {}).await.0);
}

#[tokio::test]
async fn turns_spread_over_both_processes_share_nothing_and_survive_losing_one() {
    let mut cluster = Cluster::start(Options {
        base_port: 6020,
        delay_ms: 0,
        access_token: Some(TOKEN),
        redis: false,
    });
    within(async {
        let refused = send_turn(&cluster, None).await;
        assert_eq!(refused.status(), StatusCode::UNAUTHORIZED);

        // Sign in once, on whichever process nginx picks.
        let signed_in = cluster
            .client()
            .post(cluster.url("/sign-in"))
            .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(format!("token={TOKEN}"))
            .send()
            .await
            .expect("nginx answers");
        assert!(signed_in.status().is_redirection());
        let set_cookie = signed_in
            .headers()
            .get(SET_COOKIE)
            .and_then(|v| v.to_str().ok())
            .expect("a cookie")
            .to_owned();
        // Over HTTPS behind a trusted proxy: Secure, __Host- prefixed, and
        // holding a signature of the token, never the token.
        assert!(
            set_cookie.starts_with("__Host-pensive_access=")
                && set_cookie.split("; ").any(|a| a == "Secure")
                && !set_cookie.contains(TOKEN),
            "{set_cookie}"
        );
        let cookie = set_cookie
            .split(';')
            .next()
            .expect("a name=value pair")
            .to_owned();

        for _ in 0..4 {
            complete_turn(&cluster, &cookie).await;
        }
        let log = access_log(&cluster);
        let sign_in = log
            .iter()
            .find(|e| e.request.starts_with("POST /sign-in "))
            .expect("the sign-in is logged");
        let chats = chat_log(&cluster, 5).await;
        let served: Vec<&str> = chats[1..]
            .iter()
            .map(|e| {
                assert_eq!(e.status, 200);
                e.upstreams.last().expect("a backend").as_str()
            })
            .collect();
        eprintln!("sign-in on {:?}; turns on {served:?}", sign_in.upstreams);
        for backend in &cluster.backends {
            assert!(
                served.contains(&backend.as_str()),
                "{backend} served a turn: {served:?}"
            );
        }
        // So a process that never saw the sign-in accepted its cookie.
        assert!(served
            .iter()
            .any(|b| !sign_in.upstreams.iter().any(|s| s == b)));

        // One process goes away; every turn still completes, on the other.
        cluster.stop_backend(0);
        assert!(
            http_get(&cluster.backends[0], "/healthz").is_err(),
            "backend 0 is down"
        );
        for _ in 0..4 {
            complete_turn(&cluster, &cookie).await;
        }
        let chats = chat_log(&cluster, 9).await;
        for entry in &chats[5..] {
            assert_eq!(entry.status, 200);
            assert_eq!(
                entry.upstreams.last(),
                Some(&cluster.backends[1]),
                "{:?}",
                entry.upstreams
            );
        }
    })
    .await;
}

#[test]
fn every_process_is_stopped_even_when_an_assertion_fails() {
    let mut seen = None;
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let cluster = Cluster::start(Options {
            base_port: 6030,
            delay_ms: 0,
            access_token: None,
            redis: true,
        });
        seen = Some((cluster.pids(), cluster.addresses(), cluster.dir.clone()));
        panic!("a deliberate failure while the cluster runs");
    }));
    assert!(outcome.is_err());
    let (pids, addresses, dir) = seen.expect("the cluster started");
    // mock, redis-server, two backends, nginx's master and at least one worker.
    assert!(pids.len() >= 6, "{pids:?}");
    for pid in &pids {
        assert!(
            !std::path::Path::new(&format!("/proc/{pid}")).exists(),
            "process {pid} is gone"
        );
    }
    for addr in &addresses {
        assert!(
            std::net::TcpStream::connect(addr).is_err(),
            "nothing listens on {addr}"
        );
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn plain_http_redirects_to_https_and_tls_responses_carry_hsts_and_the_site_guard() {
    let cluster = Cluster::start(Options {
        base_port: 6040,
        delay_ms: 0,
        access_token: None,
        redis: false,
    });
    within(async {
        // Plain HTTP: a permanent redirect to the same path over HTTPS, nothing proxied.
        let (status, _) = http_get(&cluster.nginx_http, "/api/chat?x=1").expect("nginx answers");
        assert_eq!(status, 301);
        let redirect = client()
            .get(format!("http://{}/some/page?x=1", cluster.nginx_http))
            .send()
            .await
            .expect("nginx answers");
        assert_eq!(redirect.status(), StatusCode::MOVED_PERMANENTLY);
        let location = redirect
            .headers()
            .get(LOCATION)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default();
        assert!(
            location.starts_with("https://") && location.ends_with("/some/page?x=1"),
            "{location}"
        );

        // HTTPS: pages and turns carry HSTS.
        let page = cluster
            .client()
            .get(cluster.url("/"))
            .send()
            .await
            .expect("a page");
        assert_eq!(page.status(), StatusCode::OK);
        let hsts = |response: &reqwest::Response| {
            response
                .headers()
                .get(STRICT_TRANSPORT_SECURITY)
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default()
                .to_owned()
        };
        assert!(
            hsts(&page).contains("max-age=63072000"),
            "{:?}",
            page.headers()
        );
        let turn = send_turn(&cluster, None).await;
        assert!(hsts(&turn).contains("max-age="), "{:?}", turn.headers());
        assert_complete(&receive(turn, Instant::now(), || async {}).await.0);

        // The public name is allowed (PENSIVE_ALLOWED_HOSTS behind the proxy):
        // the app's own origin may post, another site may not.
        let body = r#"{"request":{"messages":[{"role":"user","content":"Why is the sky blue?"}]}}"#;
        let from = |origin: &str| {
            cluster
                .client()
                .post(cluster.url("/api/chat"))
                .header(CONTENT_TYPE, "application/json")
                .header(ORIGIN, origin.to_owned())
                .body(body)
                .send()
        };
        let own = from(&cluster.url("")).await.expect("nginx answers");
        assert_eq!(own.status(), StatusCode::OK);
        assert_complete(&receive(own, Instant::now(), || async {}).await.0);
        let foreign = from("https://attacker.example")
            .await
            .expect("nginx answers");
        assert_eq!(foreign.status(), StatusCode::FORBIDDEN);
        assert_eq!(
            mock_stats(&cluster).await["requests"].as_u64(),
            Some(2),
            "the refused turn reached no provider"
        );
    })
    .await;
}

/// A line-by-line reader of a turn's log from one backend.
struct LogReader {
    response: reqwest::Response,
    framer: NdjsonFramer,
    events: Vec<(u64, TurnEvent)>,
}

impl LogReader {
    async fn attach(backend: &str, turn_id: &str) -> LogReader {
        let body = serde_json::json!({"turn_id": turn_id, "secret": SECRET, "after": 0});
        let response = client()
            .post(format!("http://{backend}/api/turn_events"))
            .header(CONTENT_TYPE, "application/json")
            .body(body.to_string())
            .send()
            .await
            .expect("the backend answers");
        assert_eq!(response.status(), StatusCode::OK, "attach on {backend}");
        LogReader {
            response,
            framer: NdjsonFramer::new(),
            events: Vec::new(),
        }
    }

    /// Reads until `done(events)` holds, or the log ends.
    async fn until(&mut self, done: impl Fn(&[(u64, TurnEvent)]) -> bool) {
        use pensive::turn::log_line::LogLine;
        while !done(&self.events) {
            let Some(chunk) = self.response.chunk().await.expect("a chunk") else {
                return;
            };
            for line in self.framer.push_lines(&chunk) {
                if let LogLine::Event { stamp, event } = line.expect("a valid line") {
                    self.events.push((stamp.expect("stamped").seq, event));
                }
            }
        }
    }

    fn last(&self) -> Option<&TurnEvent> {
        self.events.last().map(|(_, e)| e)
    }
}

/// Starts turn `turn_id` on `backend` directly, reads its first line and
/// goes away (the turn runs on).
async fn start_and_leave(backend: &str, turn_id: &str, text: &str) {
    let body = serde_json::json!({"request": {
        "messages": [{"role": "user", "content": text}],
        "turn_id": turn_id,
        "turn_secret": SECRET,
    }});
    let mut response = client()
        .post(format!("http://{backend}/api/chat"))
        .header(CONTENT_TYPE, "application/json")
        .body(body.to_string())
        .send()
        .await
        .expect("the backend answers");
    assert!(response.chunk().await.expect("a chunk").is_some());
}

#[tokio::test(flavor = "multi_thread")]
async fn with_redis_a_turn_on_one_replica_is_followed_and_stopped_through_the_other_and_a_dead_replica_is_said(
) {
    let mut cluster = Cluster::start(Options {
        base_port: 6050,
        delay_ms: 100,
        access_token: None,
        redis: true,
    });
    let [first, second] = cluster.backends.clone();
    within(async {
        // Started on the first replica, whose reader then goes away.
        start_and_leave(&first, "t-shared", "Why? mock:paced-100").await;
        // Followed whole through the second: from line 1, nothing missing.
        let mut follower = LogReader::attach(&second, "t-shared").await;
        follower
            .until(|events| {
                events
                    .iter()
                    .filter(|(_, e)| matches!(e, TurnEvent::ThinkingDelta { .. }))
                    .count()
                    >= 5
            })
            .await;
        let seqs: Vec<u64> = follower.events.iter().map(|(seq, _)| *seq).collect();
        assert_eq!(seqs, (1..=seqs.len() as u64).collect::<Vec<_>>());
        assert_eq!(active_turns(&first).await, Some(1));
        assert_eq!(
            active_turns(&second).await,
            Some(0),
            "it runs on the first only"
        );
        // Stop sent to the second reaches the first, which closes the provider request.
        let stop = client()
            .post(format!("http://{second}/api/stop_turn"))
            .header(CONTENT_TYPE, "application/json")
            .body(format!(r#"{{"turn_id":"t-shared","secret":"{SECRET}"}}"#))
            .send()
            .await
            .expect("the second answers");
        assert_eq!(stop.status(), StatusCode::OK);
        follower
            .until(|events| events.last().is_some_and(|(_, e)| e.is_terminal()))
            .await;
        assert_eq!(follower.last(), Some(&TurnEvent::Stopped));
        eventually(
            "the provider stream closed and the first replica idle",
            Duration::from_secs(5),
            || async {
                mock_stats(&cluster).await["closed_early"].as_u64() == Some(1)
                    && active_turns(&first).await == Some(0)
            },
        )
        .await;
        // A turn on the first, followed through the second, when the first dies.
        start_and_leave(&first, "t-orphaned", "Why? mock:paced-100").await;
        let mut orphan = LogReader::attach(&second, "t-orphaned").await;
        orphan.until(|events| events.len() >= 3).await;
        cluster.kill_backend(0);
        let killed = Instant::now();
        orphan
            .until(|events| events.last().is_some_and(|(_, e)| e.is_terminal()))
            .await;
        assert!(
            matches!(
                orphan.last(),
                Some(TurnEvent::Error {
                    kind: pensive::turn::ErrorKind::Interrupted,
                    ..
                })
            ),
            "{:?}",
            orphan.last()
        );
        assert!(
            killed.elapsed() < Duration::from_secs(10),
            "said after {:?}",
            killed.elapsed()
        );
    })
    .await;
}
