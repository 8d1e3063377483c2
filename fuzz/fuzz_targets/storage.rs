//! Fuzzes the storage schema loader (`turn::message`): `decode` (one stored
//! conversation), `decode_index` (the conversation list) and `decode_file` (an
//! export of one conversation or all of them). Asserts: no panic; whatever
//! each accepts is re-encoded by this build and decodes to the same value
//! (saving what was loaded loses or changes nothing), and so does an export
//! of it without reasoning.
//!
//! Input starting with a 0 byte: the rest picks a record from the schema's own
//! vocabulary (every field, enum value and odd float), so the property is
//! tested on records that get past the parser; any other input is the raw
//! stored text, as a browser's storage may hold it.
#![no_main]

use libfuzzer_sys::arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use pensive::turn::message::{
    decode, decode_file, decode_index, encode, encode_all, encode_index, Conversation,
};
use serde_json::{json, Map, Value};

/// A client clock for `encode` (2025-11-30T00:00:00Z in ms).
const NOW_MS: f64 = 1_764_460_800_000.0;

fn pick<'a>(u: &mut Unstructured<'_>, choices: &[&'a str]) -> Result<&'a str> {
    u.choose(choices).copied()
}

/// Any finite float (NaN and infinities have no JSON form).
fn number(u: &mut Unstructured<'_>) -> Result<Value> {
    let x = if u.arbitrary()? {
        f64::from_bits(u.arbitrary()?)
    } else {
        f64::from(u.int_in_range(-3..=3)?) * 1e12
    };
    Ok(serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number))
}

fn text(u: &mut Unstructured<'_>) -> Result<Value> {
    Ok(json!(pick(
        u,
        &["", " ", "\n\n", "x", "später 😀", "\u{0}"]
    )?))
}

/// Sets `key` to `value` on about half the calls (optional fields).
fn maybe(
    u: &mut Unstructured<'_>,
    map: &mut Map<String, Value>,
    key: &str,
    value: Value,
) -> Result<()> {
    if u.arbitrary()? {
        map.insert(key.to_owned(), value);
    }
    Ok(())
}

fn block(u: &mut Unstructured<'_>) -> Result<Value> {
    let mut map = Map::new();
    if u.ratio(1, 4)? {
        map.insert("kind".into(), json!("answer"));
        map.insert("text".into(), text(u)?);
        return Ok(Value::Object(map));
    }
    map.insert("kind".into(), json!("thinking"));
    map.insert("text".into(), text(u)?);
    let state = pick(u, &["streaming", "done", "interrupted"])?;
    map.insert("state".into(), json!(state));
    let duration = json!(u.arbitrary::<u64>()?);
    maybe(u, &mut map, "duration_ms", duration)?;
    let opaque = json!(u.arbitrary::<bool>()?);
    maybe(u, &mut map, "opaque", opaque)?;
    let headline = text(u)?;
    maybe(u, &mut map, "headline", headline)?;
    Ok(Value::Object(map))
}

/// A message; a question may carry its turn's other versions, whose later
/// messages nest up to `depth` levels down.
fn message(u: &mut Unstructured<'_>, depth: u32) -> Result<Value> {
    if u.arbitrary()? {
        let mut map = Map::new();
        map.insert("role".into(), json!("user"));
        map.insert("content".into(), text(u)?);
        if depth < 3 && u.ratio(1, 4)? {
            let mut others = Vec::new();
            u.arbitrary_loop(Some(0), Some(3), |u| {
                let mut after = Vec::new();
                u.arbitrary_loop(Some(0), Some(3), |u| {
                    after.push(message(u, depth + 1)?);
                    Ok(std::ops::ControlFlow::Continue(()))
                })?;
                others.push(json!({"content": text(u)?, "after": after}));
                Ok(std::ops::ControlFlow::Continue(()))
            })?;
            let shown = u.int_in_range(0..=4u32)?;
            map.insert("versions".into(), json!({"shown": shown, "others": others}));
        }
        return Ok(Value::Object(map));
    }
    let mut map = Map::new();
    map.insert("role".into(), json!("assistant"));
    let mut blocks = Vec::new();
    u.arbitrary_loop(Some(0), Some(4), |u| {
        blocks.push(block(u)?);
        Ok(std::ops::ControlFlow::Continue(()))
    })?;
    map.insert("blocks".into(), Value::Array(blocks));
    let statuses = [
        "waiting",
        "thinking",
        "answering",
        "done",
        "error",
        "stopped",
    ];
    map.insert("status".into(), json!(pick(u, &statuses)?));
    let error =
        json!({"kind": pick(u, &["upstream", "rate_limit", "interrupted"])?, "message": text(u)?});
    maybe(u, &mut map, "error", error)?;
    let usage = json!({"input_tokens": u.arbitrary::<u64>()?, "reasoning_tokens": 4});
    maybe(u, &mut map, "usage", usage)?;
    let finish = text(u)?;
    maybe(u, &mut map, "finish_reason", finish)?;
    let ttft = json!(u.arbitrary::<u64>()?);
    maybe(u, &mut map, "ttft_ms", ttft)?;
    Ok(Value::Object(map))
}

/// A stored conversation or index built from the fuzzer's bytes.
fn record(u: &mut Unstructured<'_>) -> Result<String> {
    if u.ratio(1, 4)? {
        let mut lines = Vec::new();
        u.arbitrary_loop(Some(0), Some(4), |u| {
            lines.push(json!({"id": text(u)?, "title": text(u)?, "updated_at": number(u)?}));
            Ok(std::ops::ControlFlow::Continue(()))
        })?;
        return Ok(json!({"version": 1, "conversations": lines}).to_string());
    }
    let mut conversation = Map::new();
    conversation.insert("id".into(), text(u)?);
    conversation.insert("title".into(), text(u)?);
    conversation.insert("created_at".into(), number(u)?);
    conversation.insert("updated_at".into(), number(u)?);
    let model = text(u)?;
    maybe(u, &mut conversation, "model", model)?;
    let mut messages = Vec::new();
    u.arbitrary_loop(Some(0), Some(4), |u| {
        messages.push(message(u, 0)?);
        Ok(std::ops::ControlFlow::Continue(()))
    })?;
    conversation.insert("messages".into(), Value::Array(messages));
    let version = u.int_in_range(1..=3u32)?;
    Ok(json!({"version": version, "conversation": conversation}).to_string())
}

fn check(raw: &str) {
    if let Ok(conversation) = decode(raw) {
        let again = encode(&conversation, NOW_MS);
        assert_eq!(decode(&again), Ok(conversation), "re-encoded: {again}");
    }
    if let Ok(index) = decode_index(raw) {
        let again = encode_index(&index);
        assert_eq!(decode_index(&again), Ok(index), "re-encoded: {again}");
    }
    if let Ok(all) = decode_file(raw) {
        let again = encode_all(&all, NOW_MS);
        assert_eq!(decode_file(&again), Ok(all.clone()), "re-encoded: {again}");
        let bare: Vec<Conversation> = all.iter().map(Conversation::without_reasoning).collect();
        let again = encode_all(&bare, NOW_MS);
        assert_eq!(decode_file(&again), Ok(bare), "without reasoning: {again}");
    }
}

/// A record's conversation as an export of all conversations (one, twice).
fn as_export_of_all(raw: &str) -> Option<String> {
    let record: Value = serde_json::from_str(raw).ok()?;
    let conversation = record.get("conversation")?;
    Some(
        json!({"version": record.get("version")?, "conversations": [conversation, conversation]})
            .to_string(),
    )
}

fuzz_target!(|data: &[u8]| {
    if let Some((0, rest)) = data.split_first() {
        if let Ok(raw) = record(&mut Unstructured::new(rest)) {
            check(&raw);
            if let Some(all) = as_export_of_all(&raw) {
                check(&all);
            }
        }
    } else if let Ok(raw) = std::str::from_utf8(data) {
        check(raw);
    }
});
