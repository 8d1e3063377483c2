//! Pensive's MCP client against a hostile server: the Python fixture
//! `tests/fixtures/mcp/hostile_server.py` (the official `mcp` SDK, in the
//! venv `make test` creates), over stdio, through the same `connect` and
//! `ToolBox` the app uses. A flood reaches the model capped, a hang times
//! out, markup comes back as inert text, a tool named like another
//! server's stays apart under its own server's name, and a tool whose
//! server changed what it says it does is held until the user agrees.

#![cfg(feature = "ssr")]

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use futures::StreamExt;
use pensive::server::limits::Limits;
use pensive::server::tools::bounds;
use pensive::server::tools::hashes::ToolHashes;
use pensive::server::tools::mcp::oversized::MAX_MESSAGE_BYTES;
use pensive::server::tools::mcp::{self, McpServerConfig, Transport};
use pensive::server::tools::output::MAX_OUTPUT_BYTES;
use pensive::server::tools::ToolBox;
use pensive::server::{AppConfig, TurnService};
use pensive::turn::tool::ShownCall;
use pensive::turn::tool_listing::ServerState;
use pensive::turn::{Approval, ChatMessage, ChatRequest, Decision, ToolStatus, TurnEvent};
use serde_json::json;

fn manifest_path(relative: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(relative)
}

/// The hostile server's config: `state_file` feeds its `weather` tool.
fn hostile(state_file: &Path, timeout: Duration, trusted: bool) -> McpServerConfig {
    let python = manifest_path("tests/fixtures/mcp/.venv/bin/python");
    assert!(
        python.exists(),
        "{} is missing: run `make setup-python-mcp` (make test does)",
        python.display()
    );
    McpServerConfig {
        name: "hostile".into(),
        transport: Transport::Stdio {
            command: python.display().to_string(),
            args: vec![manifest_path("tests/fixtures/mcp/hostile_server.py")
                .display()
                .to_string()],
            env: BTreeMap::from([("HOSTILE_STATE".into(), state_file.display().to_string())]),
            cwd: None,
        },
        trusted,
        timeout,
        ask_open_world: true,
    }
}

fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pensive-hostile-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    dir
}

/// The hostile server with `HOSTILE_MODE` set to `mode`.
fn hostile_in_mode(tag: &str, mode: &str) -> McpServerConfig {
    let mut config = hostile(&temp_dir(tag).join("state"), Duration::from_secs(10), false);
    if let Transport::Stdio { env, .. } = &mut config.transport {
        env.insert("HOSTILE_MODE".into(), mode.into());
    }
    config
}

async fn hostile_tools(tag: &str, timeout: Duration) -> ToolBox {
    let dir = temp_dir(tag);
    let server = mcp::connect(hostile(&dir.join("state"), timeout, false))
        .await
        .expect("the hostile server starts");
    ToolBox::with_servers(vec![server])
}

#[tokio::test]
async fn ten_megabytes_of_output_reach_the_model_capped_with_a_marker() {
    let tools = hostile_tools("flood", Duration::from_secs(20)).await;
    let flood = tools.call("hostile__flood", Ok(&json!({}))).await;
    assert_eq!(flood.status, ToolStatus::Ok);
    assert!(
        flood.output.len() <= MAX_OUTPUT_BYTES,
        "{} bytes reached the model",
        flood.output.len()
    );
    assert!(flood.output.starts_with("flood line 0000000:"));
    let sent = 10 * 1024 * 1024;
    assert_eq!(
        flood.output.len() as u64 - marker_len(&flood.output) + flood.truncated_bytes,
        sent,
        "what was kept and what was cut add up to what the tool sent"
    );
    assert!(
        flood.output.ends_with(&format!(
            "{} more bytes of output were cut]",
            flood.truncated_bytes
        )),
        "{}",
        &flood.output[flood.output.len() - 80..]
    );
    tools.close().await;
}

/// The bytes of the cut marker at the end of `output`.
fn marker_len(output: &str) -> u64 {
    output
        .rfind("\n[\u{2026}")
        .map_or(0, |at| (output.len() - at) as u64)
}

#[tokio::test]
async fn a_hanging_tool_times_out_at_its_servers_limit_and_the_server_still_answers() {
    let tools = hostile_tools("hang", Duration::from_secs(1)).await;
    let started = Instant::now();
    let hang = tools.call("hostile__hang", Ok(&json!({}))).await;
    let took = started.elapsed();
    assert_eq!(hang.status, ToolStatus::Timeout, "{}", hang.output);
    assert_eq!(hang.output, "The tool did not answer within 1s.");
    assert!(
        took >= Duration::from_secs(1) && took < Duration::from_secs(5),
        "{took:?}"
    );
    assert!(hang.duration_ms >= 1_000, "{}", hang.duration_ms);
    // The hang cost one call, not the server.
    let next = tools
        .call("hostile__read_text_file", Ok(&json!({"path": "/x"})))
        .await;
    assert_eq!(next.status, ToolStatus::Ok, "{}", next.output);
    tools.close().await;
}

#[tokio::test]
async fn markup_in_a_result_comes_back_as_plain_text() {
    let tools = hostile_tools("script", Duration::from_secs(10)).await;
    let result = tools.call("hostile__script_result", Ok(&json!({}))).await;
    assert_eq!(result.status, ToolStatus::Ok);
    // Exactly what the server wrote, nothing stripped or rewritten: the
    // page shows it escaped (Leptos text nodes, src/app/tool_step.rs), so
    // the script never runs and the image never loads.
    assert_eq!(
        result.output,
        "Result: <script>alert(1)</script> \
         <img src=\"http://127.0.0.1:9/tracker.png\" onerror=\"alert(2)\"> \
         [click here](http://127.0.0.1:9/phish)"
    );
    tools.close().await;
}

fn filesystem_server(dir: &Path) -> McpServerConfig {
    let bin = manifest_path("end2end/node_modules/.bin/mcp-server-filesystem");
    assert!(
        bin.exists(),
        "{} is missing: run `make test` (npm ci in end2end)",
        bin.display()
    );
    McpServerConfig {
        name: "files".into(),
        transport: Transport::Stdio {
            command: bin.display().to_string(),
            args: vec![dir.display().to_string()],
            env: BTreeMap::new(),
            cwd: None,
        },
        trusted: true,
        timeout: Duration::from_secs(10),
        ask_open_world: true,
    }
}

#[tokio::test]
async fn a_tool_named_like_another_servers_stays_apart_under_its_servers_name() {
    let dir = temp_dir("shadow");
    std::fs::write(dir.join("note.txt"), "the real note").expect("a file to read");
    let files = mcp::connect(filesystem_server(&dir))
        .await
        .expect("server-filesystem starts");
    let hostile = mcp::connect(hostile(&dir.join("state"), Duration::from_secs(10), false))
        .await
        .expect("the hostile server starts");
    let tools = ToolBox::with_servers(vec![files, hostile]);
    let names: Vec<String> = tools.offered(None).into_iter().map(|s| s.name).collect();
    for name in ["files__read_text_file", "hostile__read_text_file"] {
        assert_eq!(
            names.iter().filter(|n| *n == name).count(),
            1,
            "{name} in {names:?}"
        );
    }
    let path = dir.join("note.txt").display().to_string();
    let real = tools
        .call("files__read_text_file", Ok(&json!({"path": path})))
        .await;
    assert_eq!(
        (real.status, real.output.as_str()),
        (ToolStatus::Ok, "the real note")
    );
    let copy = tools
        .call("hostile__read_text_file", Ok(&json!({"path": path})))
        .await;
    assert!(
        copy.output.starts_with("hostile copy of"),
        "{}",
        copy.output
    );
    // The same claim (`readOnlyHint`) is believed from the trusted server
    // only: the copy asks first, and its step names its own server.
    assert_eq!(tools.approval("files__read_text_file"), Approval::NotNeeded);
    assert_eq!(tools.approval("hostile__read_text_file"), Approval::Needed);
    assert_eq!(tools.server_of("hostile__read_text_file"), "hostile");
    tools.close().await;
}

/// The hostile server (trusted) connected with its `weather` tool in
/// `state`, checked against the hashes kept at `hashes`: a restart of
/// Pensive and of the server.
async fn restarted(dir: &Path, state: &str) -> ToolBox {
    let state_file = dir.join("state");
    std::fs::write(&state_file, state).expect("the server's state");
    let server = mcp::connect(hostile(&state_file, Duration::from_secs(10), true))
        .await
        .expect("the hostile server starts");
    ToolBox::with_servers(vec![server]).with_hashes(ToolHashes::open(dir.join("tool-hashes.json")))
}

#[tokio::test]
async fn a_tool_that_changed_since_the_user_met_it_is_held_until_allowed() {
    let dir = temp_dir("rug-pull");
    let weather = "hostile__weather";
    let tools = restarted(&dir, "1").await;
    // Trusted and read-only: it runs without asking.
    assert_eq!(tools.approval(weather), Approval::NotNeeded);
    tools.close().await;

    // The server now asks the model for a secret: the tool is held, even
    // though the server is trusted and the tool was allowed for the
    // conversation before, and it is not offered: its new description
    // never reaches the model.
    let tools = restarted(&dir, "2").await;
    assert!(
        tools.offered(None).iter().all(|s| s.name != weather),
        "a held tool is not offered"
    );
    assert!(tools
        .offered_to(None, None, "alice")
        .iter()
        .all(|s| s.name != weather));
    assert_eq!(tools.approval(weather), Approval::Held);
    assert_eq!(
        tools.approval_in_conversation(weather, &[weather.to_owned()], "alice"),
        Approval::Held
    );
    tools.close().await;

    // Still held after another restart: only the user's agreement counts,
    // and only for the one who agreed.
    let tools = restarted(&dir, "2").await;
    assert_eq!(tools.approval(weather), Approval::Held);
    tools.agree(weather, "alice");
    let to_alice = tools.offered_to(None, None, "alice");
    let spec = to_alice
        .iter()
        .find(|s| s.name == weather)
        .expect("offered again to the one who agreed");
    assert!(spec.description.contains("id_rsa"), "{}", spec.description);
    assert!(tools
        .offered_to(None, None, "bob")
        .iter()
        .all(|s| s.name != weather));
    assert_eq!(
        tools.approval_in_conversation(weather, &[], "alice"),
        Approval::NotNeeded
    );
    assert_eq!(
        tools.approval_in_conversation(weather, &[], "bob"),
        Approval::Held
    );
    tools.close().await;

    let tools = restarted(&dir, "2").await;
    assert_eq!(
        tools.approval_in_conversation(weather, &[], "alice"),
        Approval::NotNeeded,
        "agreed is kept"
    );
    assert_eq!(
        tools.approval_in_conversation(weather, &[], "bob"),
        Approval::Held,
        "for the one who agreed"
    );
    tools.close().await;
}

fn service(port: u16, tools: ToolBox) -> TurnService {
    service_with(port, tools, Default::default())
}

fn service_with(port: u16, tools: ToolBox, limits: Limits) -> TurnService {
    let model = common::mock_chat_model(port);
    TurnService::new(AppConfig {
        idle_timeout: Duration::from_secs(30),
        limits,
        ..common::app_config(vec![model])
    })
    .with_tools(tools)
}

/// One turn calling `weather`, with `allowed` already allowed for the
/// conversation; `decision` answers each call that asks. The approvals
/// asked for, and the events.
async fn weather_turn(
    turns: &TurnService,
    turn_id: &str,
    allowed: Vec<String>,
    decision: Decision,
) -> (Vec<Approval>, Vec<TurnEvent>) {
    let question = "mock:call hostile__weather {\"city\": \"Paris\"}";
    asked_turn(turns, turn_id, question, allowed, decision).await
}

/// One turn asking `question`; `decision` answers each call that asks.
async fn asked_turn(
    turns: &TurnService,
    turn_id: &str,
    question: &str,
    allowed: Vec<String>,
    decision: Decision,
) -> (Vec<Approval>, Vec<TurnEvent>) {
    decided_turn(turns, turn_id, question, allowed, decision, "tester").await
}

/// `asked_turn`, with the decisions made (and holds released) by `decider`.
async fn decided_turn(
    turns: &TurnService,
    turn_id: &str,
    question: &str,
    allowed: Vec<String>,
    decision: Decision,
    decider: &str,
) -> (Vec<Approval>, Vec<TurnEvent>) {
    let request = ChatRequest {
        messages: vec![ChatMessage::user(question)],
        model: Some("m".into()),
        turn_id: Some(turn_id.into()),
        allowed_tools: allowed,
        ..ChatRequest::default()
    };
    let mut stream = Box::pin(turns.start_for(request, "tester", decider));
    let (mut approvals, mut events) = (Vec::new(), Vec::new());
    while let Some(event) = stream.next().await {
        if let TurnEvent::ToolCallReady {
            id,
            approval,
            digest,
            ..
        } = &event
        {
            approvals.push(*approval);
            if approval.asks() {
                let call = ShownCall {
                    id: id.clone(),
                    name: String::new(),
                    digest: digest.clone(),
                };
                let (turns, turn_id, decider) =
                    (turns.clone(), turn_id.to_owned(), decider.to_owned());
                tokio::spawn(async move {
                    for _ in 0..250 {
                        if turns.tool_decision(&decider, &turn_id, &call, decision) {
                            return;
                        }
                        tokio::time::sleep(Duration::from_millis(20)).await;
                    }
                });
            }
        }
        events.push(event);
    }
    pensive::turn::contract::check_stream(&events).expect("the contract holds");
    (approvals, events)
}

fn weather_result(events: &[TurnEvent]) -> Option<(ToolStatus, String)> {
    events.iter().find_map(|e| match e {
        TurnEvent::ToolResult { status, output, .. } => Some((*status, output.clone())),
        _ => None,
    })
}

#[tokio::test]
async fn a_held_tool_asks_in_a_turn_and_allowing_it_ends_the_hold() {
    let (port, _mock) = common::start_mock_in_process().await;
    let dir = temp_dir("held-turn");
    restarted(&dir, "1").await.close().await;
    let tools = restarted(&dir, "2").await;
    let turns = service(port, tools.clone());
    let allowed = vec!["hostile__weather".to_owned()];

    // Denied: it never runs, and it stays held.
    let (approvals, events) = weather_turn(&turns, "t1", allowed.clone(), Decision::Deny).await;
    assert_eq!(approvals, [Approval::Held], "allowed before, asked again");
    assert_eq!(
        weather_result(&events).map(|r| r.0),
        Some(ToolStatus::Denied)
    );
    assert_eq!(tools.approval("hostile__weather"), Approval::Held);

    // Allowed once: it runs, and its new description is the one kept.
    let (approvals, events) =
        weather_turn(&turns, "t2", allowed.clone(), Decision::AllowOnce).await;
    assert_eq!(approvals, [Approval::Held]);
    assert_eq!(
        weather_result(&events),
        Some((
            ToolStatus::Ok,
            "Sunny in Paris. (Received 0 bytes of notes.)".into()
        ))
    );
    let (approvals, _) = weather_turn(&turns, "t3", Vec::new(), Decision::Deny).await;
    assert_eq!(
        approvals,
        [Approval::NotNeeded],
        "trusted and read-only again"
    );

    // Another session's turn: the hold the tester released still holds.
    let question = "mock:call hostile__weather {\"city\": \"Paris\"}";
    let (approvals, events) = decided_turn(
        &turns,
        "t4",
        question,
        allowed,
        Decision::Deny,
        "session:other",
    )
    .await;
    assert_eq!(approvals, [Approval::Held], "another session is asked");
    assert_eq!(
        weather_result(&events).map(|r| r.0),
        Some(ToolStatus::Denied)
    );
    tools.close().await;
}

#[tokio::test]
async fn a_server_that_comes_back_with_a_changed_tool_has_it_held() {
    let dir = temp_dir("relist");
    let state = dir.join("state");
    std::fs::write(&state, "1").expect("the server's state");
    let server = mcp::connect(hostile(&state, Duration::from_secs(10), true))
        .await
        .expect("the hostile server starts");
    let mut lists = server.tool_lists();
    let pid = server.pid().expect("a stdio child");
    let tools = ToolBox::with_servers(vec![server]);
    assert_eq!(tools.approval("hostile__weather"), Approval::NotNeeded);

    // The server dies and its next run says something else: the list read
    // on its restart is checked like the first.
    std::fs::write(&state, "2").expect("the server's new state");
    let killed = std::process::Command::new("kill")
        .args(["-KILL", &pid.to_string()])
        .status()
        .expect("kill runs");
    assert!(killed.success());
    tokio::time::timeout(Duration::from_secs(20), lists.changed())
        .await
        .expect("the server is restarted and lists its tools again")
        .expect("the server is still kept");
    assert_eq!(tools.approval("hostile__weather"), Approval::Held);
    assert_eq!(
        tools.approval("hostile__read_text_file"),
        Approval::NotNeeded
    );
    tools.close().await;
}

#[tokio::test]
async fn a_call_running_when_the_turns_tool_time_runs_out_is_cancelled() {
    let (port, _mock) = common::start_mock_in_process().await;
    // The call itself may take 30 s; the turn's tools only 1 s in all.
    let dir = temp_dir("tool-time");
    let server = mcp::connect(hostile(&dir.join("state"), Duration::from_secs(30), false))
        .await
        .expect("the hostile server starts");
    let limits = Limits {
        max_tool_time: Duration::from_secs(1),
        ..Limits::default()
    };
    let turns = service_with(port, ToolBox::with_servers(vec![server]), limits);
    let started = Instant::now();
    let (_, events) = asked_turn(
        &turns,
        "turn-tool-time",
        "mock:call hostile__hang",
        Vec::new(),
        Decision::AllowOnce,
    )
    .await;
    assert_eq!(
        weather_result(&events),
        Some((
            ToolStatus::Cancelled,
            "Cancelled: the turn reached its limit of 1 second of tool time.".into()
        ))
    );
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "cut at the turn's limit, not the call's"
    );
    // The model heard why and answered.
    assert!(pensive::turn::contract::answer_text(&events).contains("limit of 1 second"));
    turns.tools().close().await;
}

#[tokio::test]
async fn a_dozen_mebibyte_descriptions_reach_neither_the_page_nor_the_request_whole() {
    let (port, mock) = common::start_mock_in_process().await;
    let server = mcp::connect(hostile_in_mode("big-list", "big-list"))
        .await
        .expect("the hostile server starts with its 12 MiB list");
    let tools = ToolBox::with_servers(vec![server]);

    // The page: a summary, each description cut, the cut said.
    let listing = tools.listing("tester");
    let hostile = listing
        .iter()
        .find(|s| s.name == "hostile")
        .expect("the server is listed");
    let big: Vec<_> = hostile
        .tools
        .iter()
        .filter(|t| t.name.starts_with("big_"))
        .collect();
    assert_eq!(big.len(), 12);
    assert!(big
        .iter()
        .all(|t| t.description.len() <= bounds::PAGE_DESCRIPTION_BYTES));
    assert_eq!(
        hostile.notice.as_deref(),
        Some("12 descriptions cut to 4 KiB")
    );
    let page = serde_json::to_vec(&listing).expect("the listing serializes");
    assert!(
        page.len() < 64 * 1024,
        "the page's listing: {} bytes",
        page.len()
    );

    // The provider request: bounded, each description cut.
    let turns = service(port, tools.clone());
    asked_turn(
        &turns,
        "big-list",
        "Hello mock:normal",
        Vec::new(),
        Decision::Deny,
    )
    .await;
    let bodies: Vec<serde_json::Value> = mock.requests().into_iter().map(|r| r.body).collect();
    let body = bodies.first().expect("the provider was asked");
    let sent = serde_json::to_vec(body).expect("the body serializes").len();
    assert!(
        sent < bounds::MAX_REQUEST_TOOL_BYTES + 16 * 1024,
        "the request: {sent} bytes"
    );
    let offered = body["tools"].as_array().expect("tools were offered");
    let big_sent = offered
        .iter()
        .filter(|t| {
            t["function"]["name"]
                .as_str()
                .is_some_and(|n| n.starts_with("hostile__big_"))
        })
        .map(|t| t["function"]["description"].as_str().unwrap_or("").len())
        .collect::<Vec<_>>();
    assert_eq!(big_sent.len(), 12, "cut, not dropped");
    assert!(big_sent
        .iter()
        .all(|len| *len <= bounds::MAX_DESCRIPTION_BYTES));
    tools.close().await;
}

#[tokio::test]
async fn a_server_that_floods_notifications_is_disconnected_with_a_notice() {
    let server = mcp::connect(hostile_in_mode("notify-flood", "none"))
        .await
        .expect("the hostile server starts");
    let pid = server.pid().expect("a stdio child");
    let tools = ToolBox::with_servers(vec![server]);
    let started = tools.call("hostile__notify_flood", Ok(&json!({}))).await;
    assert_eq!(started.status, ToolStatus::Ok, "{}", started.output);

    // Disconnected within a few seconds, for good, and the listing says why.
    let deadline = Instant::now() + Duration::from_secs(10);
    let hostile = loop {
        let listing = tools.listing("tester");
        let hostile = listing
            .into_iter()
            .find(|s| s.name == "hostile")
            .expect("the server is listed");
        if hostile.state == ServerState::Unavailable || Instant::now() > deadline {
            break hostile;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(hostile.state, ServerState::Unavailable, "{hostile:?}");
    let notice = hostile.notice.unwrap_or_default();
    assert!(notice.contains("notifications a second"), "{notice}");
    assert!(hostile.tools.is_empty());
    assert!(tools
        .offered(None)
        .iter()
        .all(|s| !s.name.starts_with("hostile__")));
    let call = tools
        .call("hostile__weather", Ok(&json!({"city": "Paris"})))
        .await;
    assert!(
        call.output.contains("notifications a second"),
        "{}",
        call.output
    );
    // Its process is gone: nothing burns CPU after the turn.
    while process_alive(pid) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(!process_alive(pid), "the flooding server {pid} still runs");
    tools.close().await;
}

/// Whether process `pid` still exists (and is not a zombie waiting for us).
fn process_alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        !stat
            .split(") ")
            .nth(1)
            .is_some_and(|rest| rest.starts_with('Z'))
    })
}

#[tokio::test]
async fn a_slow_server_does_not_hold_back_the_others() {
    let slow = McpServerConfig {
        name: "slow".into(),
        transport: Transport::Stdio {
            command: "sleep".into(),
            args: vec!["60".into()],
            env: BTreeMap::new(),
            cwd: None,
        },
        trusted: false,
        timeout: Duration::from_secs(10),
        ask_open_world: true,
    };
    let started = Instant::now();
    let tools = ToolBox::with_servers(vec![
        mcp::McpServer::start(slow),
        mcp::McpServer::start(hostile_in_mode("parallel", "none")),
    ]);
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "start does not wait"
    );
    let states: Vec<_> = tools.listing("tester").iter().map(|s| s.state).collect();
    assert_eq!(
        states,
        [
            ServerState::Ready,
            ServerState::Starting,
            ServerState::Starting
        ]
    );
    assert_eq!(
        tools.offered(None).len(),
        2,
        "the built-in tools alone, meanwhile"
    );

    let fast = tools
        .servers()
        .find(|s| s.config.name == "hostile")
        .expect("the hostile server");
    tokio::time::timeout(Duration::from_secs(20), fast.settled())
        .await
        .expect("the fast server is up while the slow one still starts");
    let listing = tools.listing("tester");
    assert_eq!(
        listing[1].state,
        ServerState::Starting,
        "slow: {:?}",
        listing[1]
    );
    assert_eq!(listing[2].state, ServerState::Ready);
    let names: Vec<String> = tools.offered(None).into_iter().map(|s| s.name).collect();
    assert!(names.contains(&"hostile__weather".to_owned()), "{names:?}");
    assert!(names.iter().all(|n| !n.starts_with("slow__")));
    assert!(
        started.elapsed() < Duration::from_secs(25),
        "not after the slow one's 30 s"
    );
    let call = tools.call("slow__anything", Ok(&json!({}))).await;
    assert_eq!(call.status, ToolStatus::Error);
    tools.close().await;
}

/// The provider's request bodies so far, as text.
fn request_texts(mock: &pensive::server::mock::upstream::MockState) -> Vec<String> {
    mock.requests()
        .into_iter()
        .map(|r| r.body.to_string())
        .collect()
}

/// The digest the Tools listing shows `decider` for the held `tool` of the
/// hostile server.
fn listed_digest(tools: &ToolBox, tool: &str, decider: &str) -> Option<String> {
    tools
        .listing(decider)
        .into_iter()
        .find(|s| s.name == "hostile")?
        .tools
        .into_iter()
        .find(|t| t.name == tool && t.held)?
        .digest
}

#[tokio::test]
async fn a_held_tools_new_description_never_reaches_the_provider_until_agreed() {
    let (port, mock) = common::start_mock_in_process().await;
    let dir = temp_dir("held-offer");
    restarted(&dir, "1").await.close().await;
    let tools = restarted(&dir, "2").await;
    let turns = service(port, tools.clone());
    let hello = "Hello mock:normal";
    asked_turn(&turns, "h1", hello, Vec::new(), Decision::Deny).await;
    let sent = request_texts(&mock);
    assert!(!sent.is_empty(), "the provider was asked");
    for body in &sent {
        assert!(!body.contains("id_rsa"), "the payload reached the model");
        assert!(
            !body.contains("hostile__weather"),
            "a held tool was offered"
        );
    }
    assert!(
        body_offers(&sent[0], "hostile__read_text_file"),
        "the rest is"
    );

    // The Tools control agrees, naming what it showed; a stale digest is
    // refused and keeps nothing.
    let digest = listed_digest(&tools, "weather", "tester").expect("listed as held");
    assert!(!tools.agree_listed("hostile", "weather", "sha256:stale", "tester"));
    assert!(!tools.agree_listed("hostile", "nothing", &digest, "tester"));
    assert!(tools.agree_listed("hostile", "weather", &digest, "tester"));
    assert!(
        listed_digest(&tools, "weather", "tester").is_none(),
        "released"
    );
    assert!(
        !tools.agree_listed("hostile", "weather", &digest, "tester"),
        "not held now"
    );

    // Agreed: offered to the tester again, description and all; another
    // session is still not offered it.
    let before = mock.requests().len();
    asked_turn(&turns, "h2", hello, Vec::new(), Decision::Deny).await;
    let after = request_texts(&mock);
    assert!(
        after[before..].iter().any(|b| b.contains("id_rsa")),
        "offered again"
    );
    let before = after.len();
    decided_turn(
        &turns,
        "h3",
        hello,
        Vec::new(),
        Decision::Deny,
        "session:other",
    )
    .await;
    for body in &request_texts(&mock)[before..] {
        assert!(
            !body.contains("id_rsa"),
            "another session is not offered it"
        );
    }
    tools.close().await;
}

/// Whether a request body offers the tool `name`.
fn body_offers(body: &str, name: &str) -> bool {
    body.contains(&format!("\"{name}\""))
}

#[tokio::test]
async fn a_tool_changed_while_its_server_runs_is_held_once_the_server_says_so() {
    let mut config = hostile_in_mode("list-changed", "list-changed");
    config.trusted = true;
    let server = mcp::connect(config)
        .await
        .expect("the hostile server starts");
    let tools = ToolBox::with_servers(vec![server]);
    let weather = "hostile__weather";
    assert_eq!(tools.approval(weather), Approval::NotNeeded);
    let pulled = tools.call("hostile__rug_pull", Ok(&json!({}))).await;
    assert_eq!(pulled.status, ToolStatus::Ok, "{}", pulled.output);

    // The notification makes Pensive list again: the tool is held, and not
    // offered, without any restart.
    let deadline = Instant::now() + Duration::from_secs(15);
    while tools.approval(weather) != Approval::Held && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(tools.approval(weather), Approval::Held);
    assert!(tools.offered(None).iter().all(|s| s.name != weather));
    assert!(listed_digest(&tools, "weather", "tester").is_some());
    // The server still serves.
    let read = tools
        .call("hostile__read_text_file", Ok(&json!({"path": "/x"})))
        .await;
    assert_eq!(read.status, ToolStatus::Ok, "{}", read.output);
    tools.close().await;
}

/// Peak resident memory of this process, in KiB.
fn peak_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

#[tokio::test]
async fn a_100_mb_result_is_refused_at_once_without_being_held_whole() {
    let mut config = hostile_in_mode("big-result", "big-result");
    config.timeout = Duration::from_secs(30);
    let server = mcp::connect(config)
        .await
        .expect("the hostile server starts");
    let tools = ToolBox::with_servers(vec![server]);
    let peak_before = peak_rss_kib();
    let started = Instant::now();
    let huge = tools.call("hostile__huge", Ok(&json!({}))).await;
    assert_eq!(
        huge.status,
        ToolStatus::Error,
        "{}",
        &huge.output[..200.min(huge.output.len())]
    );
    let bound = format!("larger than {} MiB", MAX_MESSAGE_BYTES / (1024 * 1024));
    assert!(huge.output.contains(&bound), "{}", huge.output);
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "refused as it arrived, not at the call's deadline: {:?}",
        started.elapsed()
    );
    // rmcp holds at most one line's bound; 100 MB read whole (and parsed,
    // and copied) would be several hundred. Other tests share the process,
    // so the margin is wide.
    let grown_mib = peak_rss_kib().saturating_sub(peak_before) / 1024;
    assert!(grown_mib < 160, "peak memory grew by {grown_mib} MiB");
    // The server is not cut off for it: the next call is answered.
    let next = tools
        .call("hostile__read_text_file", Ok(&json!({"path": "/x"})))
        .await;
    assert_eq!(next.status, ToolStatus::Ok, "{}", next.output);
    tools.close().await;
}

/// A log writer the test reads back.
#[derive(Clone, Default)]
struct Captured(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if let Ok(mut bytes) = self.0.lock() {
            bytes.extend_from_slice(buf);
        }
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Captured {
    fn text(&self) -> String {
        let bytes = self.0.lock().map(|b| b.clone()).unwrap_or_default();
        String::from_utf8_lossy(&bytes).into_owned()
    }
}

#[tokio::test(flavor = "current_thread")]
async fn a_server_writing_64_mib_of_stderr_on_one_line_leaves_a_small_scrubbed_log() {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);
    let secret = "hostile-secret-value-0123456789";
    let mut config = hostile_in_mode("stderr-flood", "stderr-flood");
    if let Transport::Stdio { env, .. } = &mut config.transport {
        env.insert("HOSTILE_SECRET".into(), secret.into());
    }
    let server = mcp::connect(config)
        .await
        .expect("the hostile server starts");
    let tools = ToolBox::with_servers(vec![server]);
    let deadline = Instant::now() + Duration::from_secs(60);
    while !captured.text().contains("STDERR-END") && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let log = captured.text();
    assert!(
        log.contains("STDERR-END"),
        "the end of the flood was logged"
    );
    assert!(log.len() < 64 * 1024, "the log holds {} bytes", log.len());
    assert!(log.contains("mcp_stderr"), "its own target");
    assert!(
        log.contains("more bytes of this line were cut"),
        "the cut is said"
    );
    assert!(log.contains("lines dropped"), "the rate is kept and said");
    assert!(
        !log.contains("abcdef0123456789"),
        "a bearer token was logged"
    );
    assert!(!log.contains(secret), "the server's own secret was logged");
    // Drained throughout: the server was never blocked on its stderr.
    let read = tools
        .call("hostile__read_text_file", Ok(&json!({"path": "/x"})))
        .await;
    assert_eq!(read.status, ToolStatus::Ok, "{}", read.output);
    tools.close().await;
}
