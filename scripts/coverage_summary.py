#!/usr/bin/env python3
"""Line coverage per source folder from `cargo llvm-cov --json --summary-only`.

Usage: coverage_summary.py target/coverage.json [--min src/turn=90 ...]
Prints a markdown table; exits 1 when a folder is below its minimum.
"""

import json
import pathlib
import sys

FOLDERS = ["src/turn", "src/server", "src/app", "src"]


def main() -> int:
    path = pathlib.Path(sys.argv[1])
    minimums = {}
    for arg in sys.argv[2:]:
        if arg == "--min":
            continue
        folder, _, percent = arg.partition("=")
        minimums[folder] = float(percent)
    data = json.loads(path.read_text())["data"][0]["files"]
    root = pathlib.Path.cwd()
    totals = {folder: [0, 0] for folder in FOLDERS}
    for entry in data:
        name = pathlib.Path(entry["filename"])
        try:
            relative = name.relative_to(root).as_posix()
        except ValueError:
            continue  # dependencies
        lines = entry["summary"]["lines"]
        for folder in FOLDERS:
            if relative.startswith(folder + "/"):
                totals[folder][0] += lines["covered"]
                totals[folder][1] += lines["count"]
    failed = False
    print("| folder | lines covered | line coverage | minimum |")
    print("|---|---:|---:|---|")
    for folder, (covered, count) in totals.items():
        percent = 100.0 * covered / count if count else 0.0
        minimum = minimums.get(folder)
        mark = ""
        if minimum is not None:
            ok = percent >= minimum
            failed |= not ok
            mark = f"{minimum:.0f}% {'✅' if ok else '❌'}"
        print(f"| `{folder}` | {covered:,} / {count:,} | {percent:.1f}% | {mark} |")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
