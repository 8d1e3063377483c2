#!/usr/bin/env python3
"""Collects target/bench/results/*.json into one markdown results table.

Each benchmark script writes {"title": ..., "rows": [{"metric", "value",
"unit", "goal", "met"}]}. This writes docs/benchmarks.md and replaces the part
of README.md between the bench markers with the rows that have a goal, with
the machine and date on top.
"""

import datetime
import json
import os
import pathlib
import platform
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
RESULTS = ROOT / "target" / "bench" / "results"
START, END = "<!-- bench:start -->", "<!-- bench:end -->"
# Sections in the order the README presents them; unknown ones follow.
ORDER = ["extraction", "relay", "concurrency", "reattach", "replicas", "browser-render", "rendering", "code-block", "long-line", "history", "page-weight", "tti", "ssr"]


def machine() -> str:
    cores = os.cpu_count() or 0
    mem_kb = 0
    with open("/proc/meminfo") as meminfo:
        for line in meminfo:
            if line.startswith("MemTotal:"):
                mem_kb = int(line.split()[1])
    model = platform.processor() or ""
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{cores} cores ({model}), {mem_kb / 1024 / 1024:.0f} GiB RAM, {platform.system()} {platform.release()}"


def fmt(value) -> str:
    if isinstance(value, bool) or value is None:
        return "—" if value is None else str(value)
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer() and abs(value) >= 100):
        return f"{int(value):,}"
    if isinstance(value, float):
        return f"{value:,.3g}" if abs(value) < 100 else f"{value:,.0f}"
    return str(value)


def verdict(met) -> str:
    return {True: "✅ met", False: "❌ not met", None: ""}[met]


def load():
    sections = []
    for path in sorted(RESULTS.glob("*.json")):
        try:
            data = json.loads(path.read_text())
        except (OSError, json.JSONDecodeError) as err:
            print(f"bench report: skipping {path.name}: {err}", file=sys.stderr)
            continue
        sections.append((path.stem, data))
    rank = {name: i for i, name in enumerate(ORDER)}
    sections.sort(key=lambda s: (rank.get(s[0], len(ORDER)), s[0]))
    return sections


def row_line(row) -> str:
    value = f"{fmt(row.get('value'))} {row.get('unit', '')}".strip()
    return f"| {row.get('metric', '')} | {value} | {row.get('goal') or ''} | {verdict(row.get('met'))} |"


def table(sections, now) -> str:
    """Every row of every benchmark: docs/benchmarks.md."""
    out = [f"Measured {now} on {machine()} by `make bench`.", ""]
    for name, data in sections:
        out.append(f"**{data.get('title', name)}**")
        out.append("")
        out.append("| Metric | Value | Goal | |")
        out.append("|---|---:|---|---|")
        out.extend(row_line(row) for row in data.get("rows", []))
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def summary(sections, now) -> str:
    """Only the rows that have a goal, in one table: the README stays short
    for a newcomer, and the full tables are one link away."""
    out = [
        f"Measured {now} on {machine()} by `make bench`; every row, with the context of each",
        "figure, is in [docs/benchmarks.md](docs/benchmarks.md).",
        "",
        "| Metric | Value | Goal | |",
        "|---|---:|---|---|",
    ]
    for _, data in sections:
        out.extend(row_line(row) for row in data.get("rows", []) if row.get("goal"))
    return "\n".join(out).rstrip() + "\n"


def main() -> int:
    sections = load()
    if not sections:
        print("bench report: no results in target/bench/results", file=sys.stderr)
        return 1
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    body = table(sections, now)
    (ROOT / "docs").mkdir(exist_ok=True)
    (ROOT / "docs" / "benchmarks.md").write_text("# Benchmark results\n\n" + body)
    short = summary(sections, now)
    readme = ROOT / "README.md"
    text = readme.read_text()
    if START in text and END in text:
        head, rest = text.split(START, 1)
        _, tail = rest.split(END, 1)
        readme.write_text(f"{head}{START}\n{short}{END}{tail}")
    else:
        print("bench report: README has no bench markers; wrote docs/benchmarks.md only", file=sys.stderr)
    print(body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
