//! Bounds on what an MCP server can put in front of the page and the model.
//! A server's tool list is text someone else wrote: without a bound, one
//! server with 100 MB of descriptions made every page 100 MB (the page
//! embeds the listing) and every turn a 300 MB request. Here a server's list
//! is cut to size once, when it is read, and what is left out is counted
//! so the log and the Tools control can say so; the page gets a summary
//! (short descriptions, no schemas); a turn's request gets a bounded tool
//! section. Pure: no I/O besides a log line.

use rmcp::model::Tool;

use crate::turn::tool::ToolSpec;

/// Most tools offered from one server. Real servers list a few dozen
/// (server-filesystem 14, GitHub's about 100); past this a list is more
/// likely an attack on the context window than a toolbox.
pub const MAX_TOOLS_PER_SERVER: usize = 128;
/// Longest description kept for the model. Good descriptions are a few
/// sentences; 4 KiB leaves room for examples while 128 of them stay
/// under the request's tool budget.
pub const MAX_DESCRIPTION_BYTES: usize = 4 * 1024;
/// Largest input (or output) schema: a tool whose schema is larger is left
/// out, since a cut schema would describe other arguments than the tool's.
pub const MAX_SCHEMA_BYTES: usize = 16 * 1024;
/// Longest title (the tool's or its annotations'): a label, not a text.
pub const MAX_TITLE_BYTES: usize = 256;
/// Most bytes of tool specs (names, descriptions, schemas as JSON) in one
/// request: about 64k tokens, a third of a large context window, and a
/// bound on what a turn sends however many servers are on. Tools past it
/// are left out of that request, with a log line.
pub const MAX_REQUEST_TOOL_BYTES: usize = 256 * 1024;
/// Longest description the page gets (the Tools control shows a summary;
/// the model gets up to `MAX_DESCRIPTION_BYTES`).
pub const PAGE_DESCRIPTION_BYTES: usize = 1024;
/// Most `tools/list` pages read from one server: each page may be a whole
/// rmcp message (up to 16 MiB), so an endless cursor must end somewhere.
pub const MAX_LIST_PAGES: usize = 8;

/// What a server's list lost to the bounds, counted per reason.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LeftOut {
    /// Tools past `MAX_TOOLS_PER_SERVER` (or past `MAX_LIST_PAGES`).
    pub over_count: usize,
    /// Names MCP does not allow (1 to 128 of `[A-Za-z0-9_.-]`).
    pub bad_name: usize,
    /// A second tool of a name already listed.
    pub duplicate: usize,
    /// Schemas over `MAX_SCHEMA_BYTES`.
    pub big_schema: usize,
    /// Tools kept with their description cut to `MAX_DESCRIPTION_BYTES`.
    pub descriptions_cut: usize,
}

impl LeftOut {
    /// How many listed tools are not offered.
    pub fn tools(&self) -> usize {
        self.over_count + self.bad_name + self.duplicate + self.big_schema
    }

    /// One sentence for the Tools control, or `None` when nothing was lost.
    pub fn notice(&self) -> Option<String> {
        let mut parts = Vec::new();
        let mut say = |count: usize, why: String| {
            if count > 0 {
                parts.push(format!("{count} {why}"));
            }
        };
        say(
            self.over_count,
            format!("left out past the limit of {MAX_TOOLS_PER_SERVER} tools"),
        );
        say(self.bad_name, "left out: names MCP does not allow".into());
        say(self.duplicate, "left out: names listed twice".into());
        say(
            self.big_schema,
            format!("left out: schemas over {} KiB", MAX_SCHEMA_BYTES / 1024),
        );
        say(
            self.descriptions_cut,
            format!("descriptions cut to {} KiB", MAX_DESCRIPTION_BYTES / 1024),
        );
        (!parts.is_empty()).then(|| parts.join("; "))
    }
}

/// A tool name as MCP allows it (1 to 128 of `[A-Za-z0-9_.-]`); others are
/// not offered (a model could not call them back by name anyway).
pub fn valid_tool_name(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'))
}

/// `server`'s list as read, within the bounds: what is kept (in the
/// server's order) and what was lost. Logs the loss with the server's name.
pub fn bound_list(server: &str, listed: Vec<Tool>) -> (Vec<Tool>, LeftOut) {
    let mut left_out = LeftOut::default();
    let mut kept: Vec<Tool> = Vec::new();
    for tool in listed {
        if !valid_tool_name(&tool.name) {
            left_out.bad_name += 1;
        } else if kept.iter().any(|k| k.name == tool.name) {
            left_out.duplicate += 1;
        } else if schema_too_big(&tool) {
            left_out.big_schema += 1;
        } else if kept.len() >= MAX_TOOLS_PER_SERVER {
            left_out.over_count += 1;
        } else {
            let (tool, cut) = trimmed(tool);
            left_out.descriptions_cut += usize::from(cut);
            kept.push(tool);
        }
    }
    if let Some(notice) = left_out.notice() {
        tracing::warn!(
            mcp_server = %server,
            kept = kept.len(),
            left_out = left_out.tools(),
            descriptions_cut = left_out.descriptions_cut,
            "the MCP server's tool list was over Pensive's bounds: {notice}"
        );
    }
    (kept, left_out)
}

fn json_len(value: &impl serde::Serialize) -> usize {
    serde_json::to_vec(value).map_or(usize::MAX, |bytes| bytes.len())
}

fn schema_too_big(tool: &Tool) -> bool {
    json_len(&*tool.input_schema) > MAX_SCHEMA_BYTES
        || tool
            .output_schema
            .as_ref()
            .is_some_and(|schema| json_len(&**schema) > MAX_SCHEMA_BYTES)
}

/// The tool with its description and titles cut to size, and the parts
/// Pensive never uses (icons, `_meta`) dropped; whether the description
/// was cut.
fn trimmed(mut tool: Tool) -> (Tool, bool) {
    let mut cut = false;
    if let Some(description) = tool.description.as_ref() {
        if description.len() > MAX_DESCRIPTION_BYTES {
            tool.description = Some(summary(description, MAX_DESCRIPTION_BYTES).into());
            cut = true;
        }
    }
    if let Some(title) = tool.title.as_mut() {
        *title = summary(title, MAX_TITLE_BYTES);
    }
    if let Some(title) = tool.annotations.as_mut().and_then(|a| a.title.as_mut()) {
        *title = summary(title, MAX_TITLE_BYTES);
    }
    tool.icons = None;
    tool.meta = None;
    (tool, cut)
}

/// `text` within `max` bytes: whole when it fits, else cut at a character
/// boundary with `…` at the end (the ellipsis counted in `max`).
pub fn summary(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let ellipsis = '\u{2026}';
    let mut end = max.saturating_sub(ellipsis.len_utf8());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}{ellipsis}", &text[..end])
}

/// Bytes a spec adds to a request (its JSON; the dialects wrap it in a
/// few more).
pub fn spec_bytes(spec: &ToolSpec) -> usize {
    json_len(spec)
}

/// The specs that fit `MAX_REQUEST_TOOL_BYTES`, in order (built-in tools
/// come first, so they are the last to go), and how many were left out.
pub fn within_request_budget(specs: Vec<ToolSpec>, budget: usize) -> (Vec<ToolSpec>, usize) {
    let mut used = 0;
    let mut kept = Vec::with_capacity(specs.len());
    let mut left_out = 0;
    for spec in specs {
        let bytes = spec_bytes(&spec);
        if used + bytes <= budget {
            used += bytes;
            kept.push(spec);
        } else {
            left_out += 1;
        }
    }
    (kept, left_out)
}

/// A tool with an empty schema, for tests.
#[cfg(test)]
pub(crate) fn tool(name: &str, description: &str) -> Tool {
    Tool::new(
        name.to_owned(),
        description.to_owned(),
        std::sync::Arc::new(serde_json::Map::new()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::sync::Arc;

    const MIB: usize = 1024 * 1024;

    #[test]
    fn a_dozen_tools_of_a_mebibyte_each_are_kept_with_their_descriptions_cut() {
        let listed: Vec<Tool> = (0..12)
            .map(|i| tool(&format!("t{i}"), &"x".repeat(MIB)))
            .collect();
        let (kept, left_out) = bound_list("big", listed);
        assert_eq!(kept.len(), 12);
        assert!(kept.iter().all(|t| t
            .description
            .as_ref()
            .is_some_and(|d| d.len() <= MAX_DESCRIPTION_BYTES && d.ends_with('\u{2026}'))));
        assert_eq!(left_out.descriptions_cut, 12);
        assert_eq!(left_out.tools(), 0);
        assert_eq!(
            left_out.notice().as_deref(),
            Some("12 descriptions cut to 4 KiB")
        );
    }

    #[test]
    fn past_the_count_bad_names_duplicates_and_big_schemas_are_left_out_and_counted() {
        let mut listed: Vec<Tool> = (0..MAX_TOOLS_PER_SERVER + 3)
            .map(|i| tool(&format!("t{i}"), "ok"))
            .collect();
        listed.insert(0, tool("has space", "bad"));
        listed.push(tool("t0", "again"));
        let mut big = tool("big", "schema");
        let mut schema = serde_json::Map::new();
        schema.insert("x".into(), json!("y".repeat(MAX_SCHEMA_BYTES)));
        big.input_schema = Arc::new(schema);
        listed.insert(1, big);
        let (kept, left_out) = bound_list("many", listed);
        assert_eq!(kept.len(), MAX_TOOLS_PER_SERVER);
        assert_eq!(kept[0].name, "t0");
        assert_eq!(
            kept[0].description.as_deref(),
            Some("ok"),
            "the first t0 wins"
        );
        assert_eq!(
            left_out,
            LeftOut {
                over_count: 3,
                bad_name: 1,
                duplicate: 1,
                big_schema: 1,
                descriptions_cut: 0,
            }
        );
        assert_eq!(left_out.tools(), 6);
        let notice = left_out.notice().unwrap_or_default();
        assert!(
            notice.starts_with("3 left out past the limit of 128 tools"),
            "{notice}"
        );
    }

    #[test]
    fn a_summary_cuts_at_a_character_boundary_within_its_bytes() {
        assert_eq!(summary("short", 10), "short");
        let cut = summary(&"é".repeat(100), 11);
        assert!(cut.len() <= 11, "{cut}");
        assert!(cut.ends_with('\u{2026}'));
    }

    #[test]
    fn a_request_keeps_specs_in_order_until_the_budget_is_spent() {
        let spec = |name: &str, bytes: usize| ToolSpec {
            name: name.into(),
            description: "d".repeat(bytes),
            parameters: json!({}),
        };
        let specs = vec![spec("a", 100), spec("b", 1_000), spec("c", 100)];
        let budget = spec_bytes(&specs[0]) + spec_bytes(&specs[2]);
        let (kept, left_out) = within_request_budget(specs, budget);
        let names: Vec<_> = kept.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(
            names,
            ["a", "c"],
            "a spec that fits after one that did not still goes"
        );
        assert_eq!(left_out, 1);
    }
}
