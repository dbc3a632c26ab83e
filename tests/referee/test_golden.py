"""Golden transcripts: the rule documents' own examples, played through the `warref referee` CLI.

Each file in tests/referee/golden/<game>/ has comment lines (#) quoting the rule it shows, one command line
($), and the events (>) each followed by the exact rulings (<) the referee must print. Set
WARREF_REGEN=1 to rewrite the ruling lines from the current referee (then read the diff!).
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import shlex
import sys
from pathlib import Path

import pytest

from web.cli import main

GOLDEN = Path(__file__).parent / "golden"
FILES = sorted(GOLDEN.glob("*/*.txt"))


def parse(path: Path) -> tuple[list[str], list[str], list[str], list[list[dict]]]:
    comments, args, events, expected = [], [], [], []
    opening: list[dict] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            comments.append(line)
        elif line.startswith("$ "):
            words = shlex.split(line[2:])
            assert words[:2] == ["warref", "referee"], f"{path}: the command must be warref referee"
            args = words[2:]
        elif line.startswith("> "):
            events.append(line[2:])
            expected.append([])
        elif line.startswith("< "):
            (expected[-1] if expected else opening).append(json.loads(line[2:]))
        elif line.strip():
            raise AssertionError(f"{path}: cannot read line {line!r}")
    return comments, args, events, [opening] + expected


def run(args: list[str], events: list[str]) -> list[list[dict]]:
    """Rulings grouped by the input line that caused them (the first group: before any input)."""
    # in this process: the same `warref referee` with stdin and stdout swapped for strings
    stdin, out, err = io.StringIO("".join(e + "\n" for e in events)), io.StringIO(), io.StringIO()
    saved = sys.stdin
    try:
        sys.stdin = stdin
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["referee", "--echo", *args])
    finally:
        sys.stdin = saved
    assert code == 0, err.getvalue()
    groups: list[list[dict]] = [[]]
    for line in out.getvalue().splitlines():
        obj = json.loads(line)
        if obj["type"] == "input":
            groups.append([])
        else:
            groups[-1].append(obj)
    return groups


def write(path: Path, comments, args, events, groups) -> None:
    lines = list(comments) + ["$ " + shlex.join(["warref", "referee", *args])]
    lines += ["< " + json.dumps(r, ensure_ascii=False) for r in groups[0]]
    for event, rulings in zip(events, groups[1:]):
        lines.append("> " + event)
        lines += ["< " + json.dumps(r, ensure_ascii=False) for r in rulings]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_there_are_transcripts():
    assert len(FILES) >= 20


@pytest.mark.parametrize("path", FILES, ids=[f"{p.parent.name}/{p.stem}" for p in FILES])
def test_transcript(path: Path):
    comments, args, events, expected = parse(path)
    actual = run(args, events)
    if os.environ.get("WARREF_REGEN"):
        write(path, comments, args, events, actual)
        return
    assert any(g for g in expected), f"{path} has no expected rulings: run with WARREF_REGEN=1"
    for i, (event, want, got) in enumerate(zip([None] + events, expected, actual)):
        assert got == want, f"{path.name}, after {event or 'start'}:\nexpected {want}\n     got {got}"
    assert len(actual) == len(expected)
