"""The real `warref serve` in a subprocess: `kill -9` it in the middle of a war, start it again, and the
game, its history and its clock are exactly where they were."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]
PIN = "1357"
H = {"X-Warref-Pin": PIN}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(db: Path, port: int, pin: str = PIN, extra: list[str] = ()) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-m", "web.cli", "serve", "--host", "127.0.0.1", "--port", str(port),
                             "--db", str(db), "--pin", pin, "--no-qr", *extra], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    end = time.monotonic() + 15
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise AssertionError(f"warref serve exited: {proc.stdout.read().decode()}")
        try:
            httpx.get(f"http://127.0.0.1:{port}/api/catalog", timeout=0.5)
            return proc
        except httpx.HTTPError:
            time.sleep(0.05)
    proc.kill()
    raise AssertionError("warref serve did not start")


def kill9(proc: subprocess.Popen) -> None:
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(5)
    proc.stdout.close()


@pytest.fixture
def server(tmp_path):
    procs = []

    def run() -> tuple[str, subprocess.Popen]:
        port = free_port()
        procs.append(start(tmp_path / "warref.db", port))
        return f"http://127.0.0.1:{port}", procs[-1]

    yield run
    for p in procs:
        if p.poll() is None:
            kill9(p)


def test_kill_9_and_restart_keeps_game_history_and_clock(server, tmp_path):
    url, proc = server()
    with httpx.Client(base_url=url, headers=H, timeout=5) as c:
        r = c.post("/api/games", json={"game": "classic", "players": [{"name": "Alex", "colour": "#e4572e"},
                                                                      {"name": "Olivia"}], "clock_minutes": 10})
        assert r.status_code == 200, r.text
        for e in [{"type": "flip", "seat": "Alex", "card": "8S"}, {"type": "flip", "seat": "Olivia", "card": "5H"},
                  {"type": "flips", "cards": {"Alex": "QS", "Olivia": "QH"}},
                  {"type": "down", "seat": "Alex", "count": 1}]:
            assert c.post("/api/events", json=e).status_code == 200
        assert c.post("/api/clock", json={"action": "start"}).status_code == 200
        before = c.get("/api/state").json()
    assert before["prompt"]["phase"] == "down" and before["pile"] == 3 and before["clock"]["running"]
    kill9(proc)
    time.sleep(0.3)

    url, _ = server()
    with httpx.Client(base_url=url, headers=H, timeout=5) as c:
        after = c.get("/api/state").json()
        # the running clock kept running while the server was down: same end time
        end_before = before["clock"]["server_time"] + before["clock"]["remaining_s"]
        end_after = after["clock"]["server_time"] + after["clock"]["remaining_s"]
        assert end_after == pytest.approx(end_before, abs=0.01)
        assert after["clock"]["remaining_s"] < before["clock"]["remaining_s"]
        for key in ("length_s", "running", "time_up"):
            assert after["clock"][key] == before["clock"][key]
        strip = lambda v: {k: x for k, x in v.items() if k != "clock"}  # noqa: E731
        assert strip(after) == strip(before)
        # and it carries on from the middle of the war
        r = c.post("/api/events", json={"type": "down", "seat": "Olivia", "count": 1})
        assert r.status_code == 200 and r.json()["view"]["prompt"]["phase"] == "play"
        assert c.get("/api/games").json()[0]["id"] == before["game_id"]


def test_concurrent_requests_are_applied_one_at_a_time(server):
    from concurrent.futures import ThreadPoolExecutor

    url, _ = server()
    with httpx.Client(base_url=url, headers=H, timeout=5) as c:
        c.post("/api/games", json={"game": "classic", "players": ["Alex", "Olivia"]}).raise_for_status()
        c.post("/api/events", json={"type": "flip", "seat": "Alex", "card": "8S"}).raise_for_status()

    def send(card: str) -> int:
        with httpx.Client(base_url=url, headers=H, timeout=5) as c:
            return c.post("/api/events", json={"type": "flip", "seat": "Olivia", "card": card}).status_code

    with ThreadPoolExecutor(12) as pool:
        codes = list(pool.map(send, ["5H", "6H", "7H", "9H", "10H", "JH"] * 2))
    # one flip decides battle 1, the next is Olivia's card in battle 2, the rest are refused
    assert sorted(codes) == [200] * 2 + [422] * 10
    state = httpx.get(url + "/api/state").json()
    assert state["log_length"] == 3 and len(state["history"]) == 1
    assert state["prompt"]["waiting"] == ["Alex"]
