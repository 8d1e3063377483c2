//! Reading a live server's tool list again when it says the list changed
//! (`notifications/tools/list_changed`), beside the supervisor's watch of
//! the connection: heard unasked from servers before 2026-07-28, and at
//! 2026-07-28 on a `subscriptions/listen` stream opened for it. Each new
//! list is bounded like the first and handed to the supervisor (its
//! `relisted` hashes it, a changed tool held, before it is offered). Never
//! more than one listing per `RELIST_INTERVAL`, however many notifications.

use std::time::Duration;

use rmcp::model::{ProtocolVersion, SubscriptionFilter};
use rmcp::service::Peer;
use rmcp::RoleClient;
use tokio::sync::watch;

use super::guard::Guard;
use super::session::{list_bounded, CONNECT_TIMEOUT};

/// The least time between two listings the server asked for (each
/// `notifications/tools/list_changed`): a server announcing changes without
/// pause costs one listing per interval.
pub(crate) const RELIST_INTERVAL: Duration = Duration::from_secs(2);

/// Lists the server's tools again each time it says they changed
/// (`notifications/tools/list_changed`), bounded like the first listing
/// and within `CONNECT_TIMEOUT`, at most once per `RELIST_INTERVAL`:
/// notifications meanwhile make one more listing after it. A listing that
/// fails keeps the list before (the log says why). Never returns: it ends
/// with the connection it serves.
pub(super) async fn relist_on_change(
    name: &str,
    peer: Peer<RoleClient>,
    mut changed: watch::Receiver<u64>,
    listed_again: impl Fn(Vec<rmcp::model::Tool>, crate::server::tools::bounds::LeftOut),
) {
    loop {
        if changed.changed().await.is_err() {
            // The guard is gone with its connection: nothing more to hear.
            return std::future::pending().await;
        }
        changed.mark_unchanged();
        let listed = tokio::time::timeout(CONNECT_TIMEOUT, list_bounded(name, &peer)).await;
        match listed {
            Ok(Ok((tools, left_out))) => {
                tracing::info!(mcp_server = %name, tools = tools.len(), "the MCP server's tool list changed; listed again");
                listed_again(tools, left_out);
            }
            Ok(Err(problem)) => {
                tracing::warn!(mcp_server = %name, "listing the changed tools failed ({problem}); the list before stays")
            }
            Err(_) => {
                tracing::warn!(mcp_server = %name, "listing the changed tools took over {}s; the list before stays", CONNECT_TIMEOUT.as_secs())
            }
        }
        tokio::time::sleep(RELIST_INTERVAL).await;
    }
}

/// On a 2026-07-28 connection a server tells of a changed tool list only
/// on a `subscriptions/listen` stream the client opened (SEP-2575): this
/// opens one for `tools_list_changed` and hands each notification to the
/// guard (counted against the flood bound, then a relist). Older servers
/// send the notification unasked (`Guard::on_tool_list_changed`). Never
/// returns: it ends with the connection it serves.
pub(super) async fn listen_for_changes(name: &str, peer: Peer<RoleClient>, guard: Guard) {
    let modern = peer
        .peer_info()
        .is_some_and(|info| info.protocol_version >= ProtocolVersion::V_2026_07_28);
    if modern {
        let filter = SubscriptionFilter::builder().tools_list_changed().build();
        match peer.listen(filter).await {
            Ok(mut stream) => {
                while let Ok(Some(_)) = stream.next().await {
                    guard.tools_changed();
                }
                tracing::info!(mcp_server = %name, "the server closed its stream of tool list changes");
            }
            Err(problem) => {
                tracing::warn!(mcp_server = %name, "cannot listen for tool list changes ({problem}); its tools are listed again only when it restarts")
            }
        }
    }
    std::future::pending().await
}
