//! Pensive's MCP client against the real reference servers from npm
//! (installed by `make test` in end2end/node_modules, run offline):
//! server-everything over stdio and over Streamable HTTP, server-filesystem
//! on a temporary folder. A tool loop that writes a file asks the user
//! first; reading from a trusted server does not; a declined call never
//! runs and the model is told so.

#![cfg(feature = "ssr")]

mod common;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use futures::StreamExt;
use pensive::server::tools::mcp::{self, McpServer, McpServerConfig, Transport};
use pensive::server::tools::ToolBox;
use pensive::server::{AppConfig, TurnService};
use pensive::turn::tool::ShownCall;
use pensive::turn::{Approval, ChatMessage, ChatRequest, Decision, ToolStatus, TurnEvent};
use serde_json::json;

fn bin(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("end2end/node_modules/.bin")
        .join(name);
    assert!(
        path.exists(),
        "{} is missing: run `make test` (npm ci in end2end)",
        path.display()
    );
    path.display().to_string()
}

fn stdio(name: &str, command: String, args: Vec<String>, trusted: bool) -> McpServerConfig {
    McpServerConfig {
        name: name.into(),
        transport: Transport::Stdio {
            command,
            args,
            env: BTreeMap::new(),
            cwd: None,
        },
        trusted,
        timeout: Duration::from_secs(10),
        ask_open_world: true,
    }
}

fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pensive-mcp-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    dir
}

/// server-everything over stdio, untrusted, connected.
async fn everything_over_stdio() -> McpServer {
    mcp::connect(stdio(
        "everything",
        bin("mcp-server-everything"),
        vec![],
        false,
    ))
    .await
    .expect("server-everything starts")
}

#[tokio::test]
async fn server_everything_over_stdio_lists_and_calls_its_tools() {
    let server = everything_over_stdio().await;
    let tools = ToolBox::with_servers(vec![server]);
    let names: Vec<String> = tools.offered(None).into_iter().map(|s| s.name).collect();
    assert!(names.contains(&"everything__echo".to_owned()), "{names:?}");
    assert!(names.contains(&"builtin__calculate".to_owned()));
    let echo = tools
        .call("everything__echo", Ok(&json!({"message": "over stdio"})))
        .await;
    assert_eq!(
        (echo.status, echo.output.as_str()),
        (ToolStatus::Ok, "Echo: over stdio")
    );
    // Only PATH and HOME (and what the config names) reach the child.
    std::env::set_var("PENSIVE_TEST_SECRET", "must-not-leak");
    let env = tools.call("everything__get-env", Ok(&json!({}))).await;
    assert!(
        !env.output.contains("must-not-leak") && !env.output.contains("CARGO"),
        "{}",
        env.output
    );
    assert!(env.output.contains("PATH"), "{}", env.output);
    // structuredContent shows as JSON.
    let structured = tools
        .call(
            "everything__get-structured-content",
            Ok(&json!({"location": "New York"})),
        )
        .await;
    assert!(
        structured.output.contains("\"temperature\""),
        "{}",
        structured.output
    );
    // A server that is not trusted: every tool asks first.
    assert_eq!(tools.approval("everything__echo"), Approval::Needed);
    tools.close().await;
}

#[tokio::test]
async fn server_everything_over_streamable_http() {
    let port = common::free_port();
    let mut child = tokio::process::Command::new(bin("mcp-server-everything"))
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .env(
            "NODE_OPTIONS",
            format!(
                "--require {}/tests/fixtures/mcp/loopback.cjs",
                env!("CARGO_MANIFEST_DIR")
            ),
        )
        .kill_on_drop(true)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("server-everything over HTTP starts");
    let url = format!("http://127.0.0.1:{port}/mcp");
    let mut server = None;
    for _ in 0..100 {
        let config = McpServerConfig {
            name: "remote".into(),
            transport: Transport::Http {
                url: url.clone(),
                headers: BTreeMap::new(),
            },
            trusted: false,
            timeout: Duration::from_secs(10),
            ask_open_world: true,
        };
        match mcp::connect(config).await {
            Ok(connected) => {
                server = Some(connected);
                break;
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
        }
    }
    let tools = ToolBox::with_servers(vec![server.expect("connected over HTTP")]);
    let sum = tools
        .call("remote__get-sum", Ok(&json!({"a": 2, "b": 40})))
        .await;
    assert_eq!(sum.status, ToolStatus::Ok);
    assert!(sum.output.contains("42"), "{}", sum.output);
    tools.close().await;
    let _ = child.kill().await;
}

async fn filesystem_tools(dir: &std::path::Path) -> ToolBox {
    let server = mcp::connect(stdio(
        "files",
        bin("mcp-server-filesystem"),
        vec![dir.display().to_string()],
        true,
    ))
    .await
    .expect("server-filesystem starts");
    ToolBox::with_servers(vec![server])
}

#[tokio::test]
async fn a_trusted_servers_reads_run_at_once_and_its_writes_ask_first() {
    let dir = temp_dir("approval");
    let tools = filesystem_tools(&dir).await;
    assert_eq!(tools.approval("files__read_text_file"), Approval::NotNeeded);
    assert_eq!(tools.approval("files__write_file"), Approval::Needed);
    tools.close().await;
}

fn service(port: u16, tools: ToolBox) -> TurnService {
    let model = common::mock_chat_model(port);
    TurnService::new(AppConfig {
        models: vec![model],
        // Shorter than the user takes to decide below: the model's next
        // response gets its own deadline, not what is left of the first.
        first_token_timeout: Duration::from_secs(1),
        idle_timeout: Duration::from_secs(30),
        access_token: None,
        site_access: Default::default(),
        show_thinking: true,
        limits: Default::default(),
        shutdown_grace: Duration::from_secs(1),
    })
    .with_tools(tools)
}

/// A write turn decided by `decision`: its events.
async fn write_turn(turns: &TurnService, dir_note: &str, decision: Decision) -> Vec<TurnEvent> {
    let request = ChatRequest {
        messages: vec![ChatMessage::user(format!(
            "Save it. mock:tools-write {dir_note}"
        ))],
        model: Some("m".into()),
        turn_id: Some("turn-1".into()),
        ..ChatRequest::default()
    };
    let mut stream = Box::pin(turns.start(request, "tester"));
    let mut events = Vec::new();
    while let Some(event) = stream.next().await {
        if let TurnEvent::ToolCallReady {
            id,
            approval,
            digest,
            ..
        } = &event
        {
            assert_eq!(*approval, Approval::Needed, "a write asks first");
            // The user answers while the call waits.
            let turns = turns.clone();
            let call = ShownCall {
                id: id.clone(),
                name: "files__write_file".into(),
                digest: digest.clone(),
            };
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_millis(1_300)).await;
                for _ in 0..100 {
                    if turns.tool_decision("tester", "turn-1", &call, decision) {
                        return;
                    }
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
            });
        }
        events.push(event);
    }
    pensive::turn::contract::check_stream(&events).expect("the contract holds");
    events
}

fn result_of(events: &[TurnEvent]) -> Option<(ToolStatus, String)> {
    events.iter().find_map(|e| match e {
        TurnEvent::ToolResult { status, output, .. } => Some((*status, output.clone())),
        _ => None,
    })
}

#[tokio::test]
async fn a_write_runs_only_once_the_user_allows_it() {
    let (port, _mock) = common::start_mock_in_process().await;
    // The mock's script writes under a fixed folder (see tool_scripts).
    let dir = PathBuf::from(pensive::server::mock::tool_scripts::WRITE_DIR);
    std::fs::create_dir_all(&dir).expect("the write folder");
    let note = dir.join("note.txt");
    let _ = std::fs::remove_file(&note);
    let turns = service(port, filesystem_tools(&dir).await);

    let denied = write_turn(&turns, "", Decision::Deny).await;
    assert_eq!(
        result_of(&denied),
        Some((ToolStatus::Denied, pensive::turn::tool::DECLINED.to_owned()))
    );
    assert!(!note.exists(), "a declined call never runs");
    assert!(
        matches!(denied.last(), Some(TurnEvent::Done { .. })),
        "the wire stays valid"
    );

    let allowed = write_turn(&turns, "", Decision::AllowOnce).await;
    assert_eq!(
        result_of(&allowed).map(|r| r.0),
        Some(ToolStatus::Ok),
        "{allowed:?}"
    );
    assert_eq!(
        std::fs::read_to_string(&note).ok().as_deref(),
        Some("Written after approval.")
    );
    turns.tools().close().await;
}

/// One response, two writes under one id (`mock:tools-same-id`): each gets
/// its own step and its own approval; the user allows the write to
/// `shown.txt`, and the write to `hidden.txt` never runs (it is never
/// answered, so it is denied at the decision deadline). Before call ids were
/// made distinct, the server waited on the first call (`hidden.txt`) while
/// the page showed the second, and allowing what was shown ran the other.
#[tokio::test]
async fn two_calls_under_one_id_are_two_steps_and_an_allow_runs_only_the_one_shown() {
    let (port, _mock) = common::start_mock_in_process().await;
    let dir = PathBuf::from(pensive::server::mock::tool_scripts::WRITE_DIR);
    std::fs::create_dir_all(&dir).expect("the write folder");
    let (hidden, shown) = (dir.join("hidden.txt"), dir.join("shown.txt"));
    let _ = std::fs::remove_file(&hidden);
    let _ = std::fs::remove_file(&shown);
    let turns = service_with_decision_time(port, filesystem_tools(&dir).await);
    let request = ChatRequest {
        messages: vec![ChatMessage::user("Save both. mock:tools-same-id")],
        model: Some("m".into()),
        turn_id: Some("turn-same-id".into()),
        ..ChatRequest::default()
    };
    let mut stream = Box::pin(turns.start(request, "tester"));
    let (mut events, mut answered) = (Vec::new(), Vec::new());
    while let Some(event) = stream.next().await {
        if let TurnEvent::ToolCallReady {
            id,
            arguments,
            digest,
            ..
        } = &event
        {
            let is_shown = arguments["path"]
                .as_str()
                .is_some_and(|p| p.ends_with("shown.txt"));
            if is_shown {
                // The user allows the step they see, for the conversation.
                let call = ShownCall {
                    id: id.clone(),
                    name: "files__write_file".into(),
                    digest: digest.clone(),
                };
                let decided = turns.tool_decision(
                    "tester",
                    "turn-same-id",
                    &call,
                    Decision::AllowConversation,
                );
                answered.push((id.clone(), decided));
            }
        }
        events.push(event);
    }
    pensive::turn::contract::check_stream(&events).expect("one id per call: the contract holds");
    let ids: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            TurnEvent::ToolCallStart { id, .. } => Some(id.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(ids.len(), 2, "{events:?}");
    assert_ne!(ids[0], ids[1], "two calls, two ids");
    assert_eq!(answered.len(), 1);
    assert!(answered[0].1, "the decision reached the call shown");
    assert_eq!(
        std::fs::read_to_string(&shown).ok().as_deref(),
        Some("Written to shown.txt.")
    );
    assert!(
        !hidden.exists(),
        "the call the user did not allow never ran"
    );
    let statuses: Vec<ToolStatus> = events
        .iter()
        .filter_map(|e| match e {
            TurnEvent::ToolResult { status, .. } => Some(*status),
            _ => None,
        })
        .collect();
    assert_eq!(statuses, [ToolStatus::Denied, ToolStatus::Ok]);
    turns.tools().close().await;
}

/// `service`, where a call nobody answers is denied after 2 s.
fn service_with_decision_time(port: u16, tools: ToolBox) -> TurnService {
    let model = common::mock_chat_model(port);
    TurnService::new(AppConfig {
        idle_timeout: Duration::from_secs(30),
        limits: pensive::server::limits::Limits {
            tool_decision_time: Duration::from_secs(2),
            ..Default::default()
        },
        ..common::app_config(vec![model])
    })
    .with_tools(tools)
}

/// Polls `check` every 50 ms until it yields a value or `within` passes.
async fn poll<T, F: std::future::Future<Output = Option<T>>>(
    within: Duration,
    mut check: impl FnMut() -> F,
) -> Option<T> {
    let deadline = tokio::time::Instant::now() + within;
    loop {
        if let Some(value) = check().await {
            return Some(value);
        }
        if tokio::time::Instant::now() >= deadline {
            return None;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn a_stdio_server_that_dies_is_restarted_and_calls_meanwhile_fail_at_once() {
    let server = everything_over_stdio().await;
    // What the server lists each time its list is read again (its own
    // `list_changed` at start, a restart).
    let relisted = std::sync::Arc::new(std::sync::Mutex::new(Vec::<(String, usize)>::new()));
    let heard = relisted.clone();
    server.on_tools_relisted(move |name, tools| {
        if let Ok(mut heard) = heard.lock() {
            heard.push((name.to_owned(), tools.len()));
        }
    });
    let listed_first = server.tools().len();
    let tools = ToolBox::with_servers(vec![server]);
    let message = json!({"message": "still here"});
    let echo = || tools.call("everything__echo", Ok(&message));
    assert_eq!(echo().await.status, ToolStatus::Ok);
    let pid_now = || tools.servers().next().and_then(|s| s.pid());
    let first = pid_now().expect("a stdio child");
    let heard_before_the_kill = relisted.lock().map_or(0, |l| l.len());

    let killed = std::process::Command::new("kill")
        .args(["-KILL", &first.to_string()])
        .status()
        .expect("kill runs");
    assert!(killed.success());
    let asked = std::time::Instant::now();
    let down = echo().await;
    assert_eq!(down.status, ToolStatus::Error, "{}", down.output);
    assert_eq!(
        down.output,
        "the MCP server `everything` stopped; restarting in 1 s"
    );
    assert!(
        asked.elapsed() < Duration::from_secs(2),
        "a call while the server is down fails at once, not after {:?}",
        asked.elapsed()
    );

    let back = poll(Duration::from_secs(20), || async {
        let outcome = echo().await;
        (outcome.status == ToolStatus::Ok).then_some(outcome.output)
    })
    .await;
    assert_eq!(back.as_deref(), Some("Echo: still here"), "restarted");
    let second = pid_now().expect("a new stdio child");
    assert_ne!(first, second, "a new process serves the calls");
    let heard = relisted.lock().map(|l| l.clone()).unwrap_or_default();
    assert!(
        heard.len() > heard_before_the_kill,
        "the tools were listed again on the restart: {heard:?}"
    );
    assert!(
        heard
            .iter()
            .all(|l| *l == ("everything".to_owned(), listed_first)),
        "{heard:?}"
    );
    let names: Vec<String> = tools.offered(None).into_iter().map(|s| s.name).collect();
    assert!(names.contains(&"everything__echo".to_owned()), "{names:?}");
    tools.close().await;
    assert_eq!(
        pid_now(),
        None,
        "closed: the child is gone and not restarted"
    );
}

/// The JSON-RPC messages written to a server's stdin so far (one a line).
fn messages_in(log: &std::path::Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect()
}

#[tokio::test]
async fn stop_during_a_call_sends_the_server_cancellation_and_leaves_it_usable() {
    let (port, _mock) = common::start_mock_in_process().await;
    // server-everything with what it reads on stdin copied to a file, so
    // the test sees what the server received. The server stays the direct
    // child (`exec`); only the test wraps it in a shell.
    let dir = temp_dir("cancel");
    let log = dir.join("stdin.jsonl");
    let server = mcp::connect(stdio(
        "slow",
        "bash".into(),
        vec![
            "-c".into(),
            r#"exec "$1" < <(exec tee -a "$0")"#.into(),
            log.display().to_string(),
            bin("mcp-server-everything"),
        ],
        // Trusted, and the tool says it only reads: it runs without asking.
        true,
    ))
    .await
    .expect("server-everything starts");
    let turns = service(port, ToolBox::with_servers(vec![server]));
    let request = ChatRequest {
        messages: vec![ChatMessage::user("Run the slow job. mock:tools-slow")],
        model: Some("m".into()),
        turn_id: Some("turn-stop".into()),
        ..ChatRequest::default()
    };
    // The page reading the turn's stream, as long as it is open.
    let mut stream = Box::pin(turns.start(request, "tester"));
    let page = tokio::spawn(async move {
        let mut events = Vec::new();
        while let Some(event) = stream.next().await {
            events.push(event);
        }
        events
    });
    let call_id = poll(Duration::from_secs(10), || async {
        messages_in(&log).into_iter().find_map(|m| {
            (m["method"] == "tools/call" && m["params"]["name"] == "trigger-long-running-operation")
                .then(|| m["id"].clone())
        })
    })
    .await
    .expect("the call reached the server");
    let cancelled = |log: &std::path::Path| {
        messages_in(log).into_iter().any(|m| {
            m["method"] == "notifications/cancelled" && m["params"]["requestId"] == call_id
        })
    };
    assert!(!cancelled(&log), "not cancelled before Stop");

    // Stop: the browser goes away and the turn's stream is dropped.
    page.abort();
    let stopped = std::time::Instant::now();
    assert!(
        page.await.is_err_and(|e| e.is_cancelled()),
        "the turn was still running"
    );
    let received = poll(Duration::from_secs(1), || async {
        cancelled(&log).then_some(())
    })
    .await;
    assert!(
        received.is_some(),
        "the server got notifications/cancelled for request {call_id} within a second of Stop"
    );
    assert!(stopped.elapsed() < Duration::from_secs(2));

    let echo = turns
        .tools()
        .call("slow__echo", Ok(&json!({"message": "after Stop"})))
        .await;
    assert_eq!(
        (echo.status, echo.output.as_str()),
        (ToolStatus::Ok, "Echo: after Stop"),
        "the server goes on serving"
    );
    turns.tools().close().await;
}
