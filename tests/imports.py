"""Every import among warref's own modules, read from the source (tests/test_layers.py): the ones at
the top of a module and the ones inside functions, but not those only for type checkers (``if
TYPE_CHECKING:``), which nothing runs."""
from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("referee", "vision", "web")


@cache
def modules() -> dict[str, Path]:
    """Each module's dotted name -> its file (a package by its __init__.py)."""
    out = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def _runs(node: ast.AST):
    """The import statements under ``node`` that run (those under ``if TYPE_CHECKING:`` left out)."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
            for other in child.orelse:
                yield from _runs(ast.Module(body=[other], type_ignores=[]))
        elif isinstance(child, (ast.Import, ast.ImportFrom)):
            yield child
        else:
            yield from _runs(child)


def _target(name: str) -> str | None:
    """The warref module an import of ``name`` loads (``vision.art.CARD_H``: ``vision.art``)."""
    known = modules()
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


@cache
def graph() -> dict[str, frozenset[str]]:
    """Module -> the warref modules it imports (importing ``a.b.c`` loads ``a`` and ``a.b`` too)."""
    known = modules()
    out = {}
    for name, path in known.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        found = set()
        for node in _runs(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                base = node.module or ""
                if node.level:
                    parts = package.split(".")[:len(package.split(".")) - node.level + 1]
                    base = ".".join([*parts, base] if base else parts)
                names = [f"{base}.{a.name}" for a in node.names]
            for target in filter(None, map(_target, names)):
                if target != name:
                    found.add(target)
        out[name] = frozenset(found)
    return out


def circles() -> list[list[str]]:
    """Groups of modules that import each other, directly or round a loop (Tarjan's algorithm)."""
    g, index, low, stack, on, out, counter = graph(), {}, {}, [], set(), [], [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(g[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    for v in sorted(g):
        if v not in index:
            visit(v)
    return out


def reached(start: list[str]) -> dict[str, str]:
    """Every module ``start`` loads, at once or later in a function: module -> the one importing it."""
    g, seen, todo = graph(), {s: "" for s in start}, list(start)
    while todo:
        v = todo.pop()
        for w in g[v]:
            if w not in seen:
                seen[w] = v
                todo.append(w)
    return seen


def _is_import(line: str) -> bool:
    return line.lstrip().startswith(("import ", "from ")) or line.lstrip().startswith(")")


def unexplained_late_imports() -> list[str]:
    """Imports inside a function (or a class) with no stated reason: a comment on the import's
    line, or above the group of imports it belongs to. A reason is start-up time (a heavy library
    that a command or a page may never need) or an optional install (the training environment)."""
    out = []
    for name, path in modules().items():
        lines = path.read_text().splitlines()
        tree = ast.parse("\n".join(lines))
        for node in _runs(tree):
            if node.col_offset == 0:
                continue                                  # at the top of the module
            k = node.lineno - 1
            block = [k]
            while k > 0 and _is_import(lines[k - 1]):
                k -= 1
                block.append(k)
            above = lines[k - 1].strip() if k > 0 else ""
            said = above.startswith("#") or any("#" in lines[i] for i in block)
            said = said or any("#" in lines[i] for i in range(node.lineno - 1, node.end_lineno))
            if not said:
                out.append(f"{path.relative_to(ROOT)}:{node.lineno}: {lines[node.lineno - 1].strip()}")
    return out
