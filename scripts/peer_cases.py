#!/usr/bin/env python3
"""Runs the peer cases (../shared/peer-cases/cases.json) through `pensive parse`.

Each case is other projects' expectation of how a stream splits into thinking
and answer text (see the cases' README). Peers disagree with each other on
purpose-made decisions, so a failure is a difference to read, not always a bug;
what must never happen is an `error` event: a stream Pensive cannot read.

  wire-transcript  the case's SSE lines (or its fixture file) as recorded
  tag-split        the chunks as chat-completions `content` deltas, with the
                   case's tag (`--tags`) and `--start-in-thinking` where the
                   peer starts in reasoning; property cases use the default tags
  ui-reducer       a browser reducer's state, not a stream: not run here

Usage: scripts/peer_cases.py [--pensive target/debug/pensive]
                             [--cases ../shared/peer-cases] [-v]
Exit status 1 when any case ends in an `error` event.
"""

import argparse
import json
import subprocess
import sys
from pathlib import Path


def chat_sse(chunks):
    """Chunks as a chat-completions stream of content deltas."""
    lines = [
        "data: " + json.dumps({"choices": [{"delta": {"content": c}}]}) for c in chunks
    ]
    lines.append('data: {"choices":[{"delta":{},"finish_reason":"stop"}]}')
    lines.append("data: [DONE]")
    return "\n\n".join(lines) + "\n\n"


def wire_sse(case, cases_dir):
    """A wire transcript's SSE text, inline or from its fixture file."""
    inp = case["input"]
    if inp.get("sse"):
        return "\n\n".join(inp["sse"]) + "\n\n"
    text = (cases_dir / inp["sse_file"]).read_text()
    lines = [f"data: {line}" for line in text.splitlines() if line.strip()]
    return "\n\n".join(lines) + "\n\n"


def run_parse(pensive, sse, args):
    done = subprocess.run(
        [pensive, "parse", *args, "-"],
        input=sse.encode(),
        capture_output=True,
        timeout=60,
    )
    if done.returncode != 0:
        return None, done.stderr.decode().strip()
    events = [json.loads(line) for line in done.stdout.decode().splitlines() if line]
    return events, None


def segments(events):
    """Ordered thinking/text segments, adjacent ones of a type merged."""
    out = []
    for e in events:
        kind = {"thinking_delta": "thinking", "answer_delta": "text"}.get(e["type"])
        if kind is None:
            continue
        if out and out[-1]["type"] == kind:
            out[-1]["text"] += e["text"]
        else:
            out.append({"type": kind, "text": e["text"]})
    return out


def errors(events):
    return [e for e in events if e["type"] == "error"]


def check_wire(case, events):
    exp = case["expected"]
    segs = segments(events)
    thinking = "".join(s["text"] for s in segs if s["type"] == "thinking")
    answer = "".join(s["text"] for s in segs if s["type"] == "text")
    blocks = sum(1 for e in events if e["type"] == "thinking_start")
    problems = []
    if "thinking" in exp and thinking != exp["thinking"]:
        problems.append(f"thinking {short(thinking)} != {short(exp['thinking'])}")
    if "answer" in exp and answer != exp["answer"]:
        problems.append(f"answer {short(answer)} != {short(exp['answer'])}")
    if "blocks" in exp and blocks != exp["blocks"]:
        problems.append(f"blocks {blocks} != {exp['blocks']}")
    return problems


def check_segments(case, events):
    got = segments(events)
    want = case["expected"]
    if any("contains" in s for s in want):
        problems = []
        for s in want:
            text = "".join(g["text"] for g in got if g["type"] == s["type"])
            needle = s.get("contains", s.get("text", ""))
            if needle not in text:
                problems.append(f"{s['type']} lacks {short(needle)}")
        return problems
    merged = []
    for s in want:
        if merged and merged[-1]["type"] == s["type"]:
            merged[-1]["text"] += s["text"]
        elif s["text"] != "":
            merged.append(dict(s))
    return [] if got == merged else [f"got {short(got)} want {short(merged)}"]


def check_properties(case, events):
    props = case["expected"]["properties"]
    visible = "".join(s["text"] for s in segments(events) if s["type"] == "text")
    problems = []
    for tag in props.get("no_reasoning_close_tag_literal_in_visible_text", []):
        if tag in visible:
            problems.append(f"{tag} in visible text")
    if props.get("all_reasoning_blocks_closed_at_end_of_stream"):
        starts = sum(1 for e in events if e["type"] == "thinking_start")
        ends = sum(1 for e in events if e["type"] == "thinking_end")
        if starts != ends:
            problems.append(f"{starts} blocks opened, {ends} closed")
    want = props.get("visible_text_contains_whitespace_normalized")
    if want and " ".join(want.split()) not in " ".join(visible.split()):
        problems.append(f"visible text lacks {short(want)}")
    return problems


def short(value, width=70):
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    text = text.replace("\n", "\\n")
    return repr(text if len(text) <= width else text[:width] + "…")


def tag_args(case):
    opts = case["input"].get("options", {})
    args = []
    if case.get("expected_match") != "property":
        args += ["--tags", case["input"].get("tag", "think")]
    if opts.get("start_in_reasoning") or opts.get("startWithReasoning"):
        args.append("--start-in-thinking")
    return args


def run_case(case, pensive, cases_dir):
    """(status, detail): pass, differs, error (an error event or a failed run), n/a."""
    kind = case["kind"]
    if kind == "ui-reducer":
        return "n/a", "a browser reducer's state, not a stream"
    if kind == "wire-transcript":
        events, failure = run_parse(pensive, wire_sse(case, cases_dir), [])
    else:
        events, failure = run_parse(pensive, chat_sse(case["input"]["chunks"]), tag_args(case))
    if failure is not None:
        return "unread", failure
    if errors(events):
        return "error", errors(events)[0].get("message", "")
    if kind == "wire-transcript":
        problems = check_wire(case, events)
    elif case.get("expected_match") == "property":
        problems = check_properties(case, events)
    else:
        problems = check_segments(case, events)
    return ("pass", "") if not problems else ("differs", "; ".join(problems))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pensive", default="target/debug/pensive")
    parser.add_argument("--cases", default="../shared/peer-cases")
    parser.add_argument("-v", "--verbose", action="store_true")
    opts = parser.parse_args()
    cases_dir = Path(opts.cases)
    cases = json.loads((cases_dir / "cases.json").read_text())
    tally = {}
    for case in cases:
        status, detail = run_case(case, opts.pensive, cases_dir)
        tally.setdefault(status, []).append(case["id"])
        if status != "pass" and (opts.verbose or status in ("error", "unread")):
            print(f"{status:8} {case['id']}: {detail}")
        elif opts.verbose:
            print(f"{status:8} {case['id']}")
    print(", ".join(f"{k}: {len(v)}" for k, v in sorted(tally.items())), f"of {len(cases)}")
    return 1 if tally.get("error") else 0


if __name__ == "__main__":
    sys.exit(main())
