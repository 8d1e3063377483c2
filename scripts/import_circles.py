#!/usr/bin/env python3
"""Fails when two production modules of the crate import each other, directly
or round a longer circle. Reads the `crate::`/`super::`/`self::` paths of each
file up to its test module (tests may cross) and ignores comments; a module
using one of its ancestors (a child reaching its parent's items) is not a
circle. Grouped imports (`use super::{a::B, c}`) count like single ones.
Usage: scripts/import_circles.py [src]; its own test:
scripts/test_import_circles.py"""
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else "src"
modules = {}
for folder, _, names in os.walk(root):
    for name in names:
        if not name.endswith(".rs"):
            continue
        path = os.path.join(folder, name)
        parts = os.path.relpath(path, root)[:-3].split(os.sep)
        if parts[-1] == "mod":
            parts = parts[:-1]
        if parts in (["lib"], ["main"]):
            parts = []
        modules[tuple(parts)] = path


def resolve(current, path):
    parts = path.split("::")
    if parts[0] == "crate":
        base, parts = [], parts[1:]
    else:
        base = list(current)
        while parts and parts[0] in ("super", "self"):
            if parts[0] == "super":
                base = base[:-1]
            parts = parts[1:]
    found = None
    for i in range(len(parts) + 1):
        candidate = tuple(base + parts[:i])
        if candidate in modules:
            found = candidate
    return found


def expand(tree):
    """The paths a `use` tree names: `super::{a::B, c::{d, self}}` gives
    `super::a::B`, `super::c::d` and `super::c`."""
    tree = re.sub(r"\s+", "", tree)
    brace = tree.find("{")
    if brace < 0:
        return [tree[: -len("::self")] if tree.endswith("::self") else tree]
    prefix, inner = tree[:brace], tree[brace + 1 : tree.rfind("}")]
    items, depth, start = [], 0, 0
    for at, c in enumerate(inner):
        depth += c == "{"
        depth -= c == "}"
        if c == "," and depth == 0:
            items.append(inner[start:at])
            start = at + 1
    items.append(inner[start:])
    return [path for item in items if item for path in expand(prefix + item)]


def used_paths(code):
    """Every `crate::`/`super::`/`self::` path in `code`, grouped `use`
    statements expanded."""
    paths = []
    for tree in re.findall(r"\buse\s+((?:crate|super|self)::[^;]*);", code):
        paths.extend(expand(tree))
    paths.extend(re.findall(r"\b((?:crate|super|self)(?:::\w+)+)", code))
    return paths


edges = {}
for module, path in modules.items():
    text = re.split(r"#\[cfg\((?:all\()?test", open(path, encoding="utf-8").read())[0]
    code = "\n".join(l for l in text.split("\n") if not l.strip().startswith("//"))
    edges[module] = set()
    for used in used_paths(code):
        target = resolve(module, used)
        if target is None or target == module or module[: len(target)] == target:
            continue
        edges[module].add(target)

# Tarjan's strongly connected components.
index, low, stack, on_stack, circles = {}, {}, [], set(), []
sys.setrecursionlimit(10_000)


def visit(v):
    index[v] = low[v] = len(index)
    stack.append(v)
    on_stack.add(v)
    for w in edges[v]:
        if w not in index:
            visit(w)
            low[v] = min(low[v], low[w])
        elif w in on_stack:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        component = []
        while True:
            w = stack.pop()
            on_stack.discard(w)
            component.append(w)
            if w == v:
                break
        if len(component) > 1:
            circles.append(component)


for v in list(edges):
    if v not in index:
        visit(v)
for component in circles:
    members = set(component)
    print("import circle:", ", ".join(sorted("::".join(m) for m in component)))
    for a in component:
        for b in sorted(edges[a] & members):
            print("   ", "::".join(a), "->", "::".join(b))
print(f"{len(modules)} modules, {len(circles)} import circles")
sys.exit(1 if circles else 0)
