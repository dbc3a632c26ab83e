"""Long games (issue 41): what an event costs early and late in one long Classic War game, how big
/api/state and the WebSocket hello are at the end, and how long a restart takes with the whole log.

    python bench/bench_long_game.py [--events 10000] [--window 200] [--seed 0] [--root DIR]

Runs the real server, `python -m web.cli serve` (uvicorn, in a subprocess, on a temporary SQLite
database), sets up a Classic War game and POSTs the events one at a time over HTTP (httpx; each
waits for its answer, as a camera would). Latency is measured by the client around each POST.
The events are the referee simulator's real cards (referee/sim/classic.py) with won cards put back
in the order they were played, so the game goes on for as long as asked.

Prints the median and p95 POST latency over the first ``--window`` events and over the last ones,
the size of /api/state, of the WebSocket hello and of a history page, then kills the server
(SIGKILL) and starts it again on the same database: the restart time is from the new process's
start to its first answer on /api/state; the game's load alone (the GameKeeper built from the store,
in a fresh interpreter) is timed too, with how many log entries it replayed. ``--root`` runs
another checkout's server (e.g. `git archive HEAD | tar -x -C /tmp/head` for the code before).

Targets (issue 41): POST p95 <= 20 ms at event 10,000, /api/state <= 64 KB, restart <= 1 s.
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from referee.sim.classic import long_game_events  # noqa: E402
PIN = "8080"
H = {"X-Warref-Pin": PIN}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(root: Path, db: Path, port: int) -> tuple[subprocess.Popen, float]:
    """The server, and the seconds from its start to its first answer on /api/state."""
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "web.cli", "serve", "--host", "127.0.0.1", "--port", str(port),
                             "--db", str(db), "--pin", PIN, "--no-qr"], cwd=root,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while True:
        if proc.poll() is not None:
            raise SystemExit("the server exited")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/state", timeout=5).status_code == 200:
                return proc, time.perf_counter() - t0
        except httpx.HTTPError:
            time.sleep(0.005)
        if time.perf_counter() - t0 > 120:
            proc.kill()
            raise SystemExit("the server did not start")


def percentile(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, max(0, round(q * (len(values) - 1))))]


def hello_size(port: int) -> int:
    import websockets.sync.client as ws_client
    with ws_client.connect(f"ws://127.0.0.1:{port}/ws", max_size=None) as ws:
        return len(ws.recv().encode())


def load_in_fresh_interpreter(root: Path, db: Path) -> dict:
    code = ("import json, time; t = time.perf_counter()\n"
            "try:\n    from web.keeper import GameKeeper\n"
            "except ImportError:  # --root: a checkout from before web/keeper.py\n"
            "    from web.server import Referee as GameKeeper\n"
            "from web.store import Store\n"
            "t1 = time.perf_counter(); r = GameKeeper(Store(%r), time.time); t2 = time.perf_counter()\n"
            "print(json.dumps({'import_s': t1 - t, 'load_s': t2 - t1, "
            "'replayed': getattr(r.session, 'replayed', None), 'log': len(r.session.table.log)}))" % str(db))
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--events", type=int, default=10_000)
    ap.add_argument("--window", type=int, default=200, help="events timed at the start and at the end")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--root", type=Path, default=ROOT, help="the checkout whose server runs")
    ap.add_argument("--restarts", type=int, default=3, help="restarts timed (the median is shown)")
    args = ap.parse_args()

    t = time.perf_counter()
    events = long_game_events(args.events, args.seed)
    print(f"{len(events)} events of one Classic War game generated in {time.perf_counter() - t:.1f} s "
          f"(server: {args.root})")
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "warref.db"
        port = free_port()
        proc, _ = start(args.root, db, port)
        url = f"http://127.0.0.1:{port}"
        latencies: list[float] = []
        with httpx.Client(base_url=url, headers=H, timeout=60) as c:
            c.post("/api/games", json={"game": "classic", "players": ["Alex", "Olivia"]}).raise_for_status()
            t = time.perf_counter()
            for i, e in enumerate(events):
                t0 = time.perf_counter()
                r = c.post("/api/events", json=e)
                latencies.append((time.perf_counter() - t0) * 1000)
                if r.status_code != 200:
                    raise SystemExit(f"event {i} refused: {r.text}")
                if (i + 1) % 2000 == 0:
                    print(f"  {i + 1} events, {time.perf_counter() - t:.0f} s", flush=True)
            state = c.get("/api/state")
            view = state.json()
            page = c.get(f"/api/games/{view['game_id']}/history", params={"limit": 50})
        hello = hello_size(port)
        battles = view.get("history_total", len(view["history"]))
        restarts, empty_starts, same = [], [], True
        for _ in range(args.restarts):
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
            proc, seconds = start(args.root, db, port)
            restarts.append(seconds)
            after = httpx.get(url + "/api/state").json()
            same = same and {k: v for k, v in after.items() if k != "clock"} == \
                {k: v for k, v in view.items() if k != "clock"}
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        loads = [load_in_fresh_interpreter(args.root, db) for _ in range(args.restarts)]
        load = min(loads, key=lambda x: x["load_s"])
        with tempfile.TemporaryDirectory() as tmp2:
            for _ in range(args.restarts):
                proc, seconds = start(args.root, Path(tmp2) / "empty.db", free_port())
                empty_starts.append(seconds)
                os.kill(proc.pid, signal.SIGKILL)
                proc.wait()

    w = args.window
    early, late = latencies[:w], latencies[-w:]
    print(f"battles: {battles}; log entries: {view['log_length']}")
    print(f"POST /api/events, events 1-{w}:                median {statistics.median(early):6.1f} ms, "
          f"p95 {percentile(early, 0.95):6.1f} ms")
    print(f"POST /api/events, events {len(events) - w + 1}-{len(events)}:  median {statistics.median(late):6.1f} ms, "
          f"p95 {percentile(late, 0.95):6.1f} ms")
    print(f"GET /api/state: {len(state.content) / 1024:.1f} KB ({len(view['history'])} battles of {battles}); "
          f"WebSocket hello: {hello / 1024:.1f} KB; a history page of 50 battles: {len(page.content) / 1024:.1f} KB"
          if page.status_code == 200 else
          f"GET /api/state: {len(state.content) / 1024:.1f} KB; WebSocket hello: {hello / 1024:.1f} KB; no history pages")
    print(f"restart after kill -9 with {view['log_length']} entries: median {statistics.median(restarts):.2f} s to "
          f"the first /api/state ({', '.join(f'{x:.2f}' for x in restarts)}); the same server on an empty database: "
          f"median {statistics.median(empty_starts):.2f} s; the state after it {'is' if same else 'is NOT'} "
          f"the state before")
    print(f"the game's load alone (fresh interpreter, best of {len(loads)}): {load['load_s'] * 1000:.0f} ms, "
          f"{load['replayed'] if load['replayed'] is not None else 'all'} entries replayed "
          f"(imports {load['import_s']:.2f} s)")


if __name__ == "__main__":
    main()
