#!/usr/bin/env python3
"""The import-circle guard's own test: it must find a circle that only
grouped `use` statements make, and pass a tree without one. Run by
`make test` (test-lint) before the guard reads src/."""
import os
import subprocess
import sys
import tempfile

GUARD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "import_circles.py")


def run(files):
    with tempfile.TemporaryDirectory() as root:
        for name, text in files.items():
            path = os.path.join(root, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        done = subprocess.run([sys.executable, GUARD, root], capture_output=True, text=True)
        return done.returncode, done.stdout


def main():
    lib = "mod a;\nmod b;\nmod c;\n"
    grouped = {
        "lib.rs": lib,
        "a.rs": "use super::{b::Thing, c};\npub struct Other;\n",
        "b.rs": "use super::{\n    a::{self, Other},\n};\npub struct Thing;\n",
        "c.rs": "pub fn f() {}\n",
    }
    code, out = run(grouped)
    assert code == 1, f"a circle through grouped imports is found:\n{out}"
    assert "a -> b" in out and "b -> a" in out, out
    one_way = dict(grouped, **{"b.rs": "use super::c::{f};\npub struct Thing;\n"})
    code, out = run(one_way)
    assert code == 0, f"imports one way are no circle:\n{out}"
    in_tests = dict(grouped, **{"b.rs": "pub struct Thing;\n#[cfg(test)]\nmod tests {\n    use super::super::{a::Other};\n}\n"})
    code, out = run(in_tests)
    assert code == 0, f"test modules may cross:\n{out}"
    print("import_circles.py: its own test passes")


main()
