"""Event-to-screen latency of `warref serve`: how long after an event is POSTed each WebSocket viewer
gets its rulings (medians over repeats, not a timed test).

    python bench/bench_ws.py [--viewers 20] [--events 200] [--repeats 3]

Starts the real server (subprocess, temporary database), connects the viewers to /ws, sets up a
Classic War game and sends the events one after another over POST /api/events (each waits for its
answer, as a camera would). Each viewer notes when the `rulings` message for each event arrives;
latency = arrival - the moment the POST was sent. Prints p50 and p95 (ms) per repeat and the median
of each over the repeats. The view grows with the game's history, so later events cost more.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import websockets

ROOT = Path(__file__).resolve().parent.parent
PIN = "8080"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def events(n: int) -> list[dict]:
    """Battles with no wars, each side winning in turn, so the game never ends."""
    out = []
    for i in range(n):
        battle, second = divmod(i, 2)
        high, low = ("AS", "2H") if battle % 2 == 0 else ("2S", "AH")
        out.append({"type": "flip", "seat": "Alex" if not second else "Olivia", "card": high if not second else low})
    return out


def percentile(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, max(0, round(q * (len(values) - 1))))]


async def viewer(url: str, seen: dict[int, float], ready: asyncio.Event, total: int) -> None:
    async with websockets.connect(url, max_size=None) as ws:
        json.loads(await ws.recv())                         # hello
        ready.set()
        while len(seen) < total:
            message = json.loads(await ws.recv())
            if message["type"] == "rulings":
                seen[message["rulings"][0]["seq"]] = time.perf_counter()


async def one_run(base: str, n_viewers: int, n_events: int) -> tuple[float, float, float]:
    async with httpx.AsyncClient(base_url=base, headers={"X-Warref-Pin": PIN}, timeout=30) as http:
        r = await http.post("/api/games", json={"game": "classic", "players": ["Alex", "Olivia"]})
        r.raise_for_status()
        seen: list[dict[int, float]] = [{} for _ in range(n_viewers)]
        readies = [asyncio.Event() for _ in range(n_viewers)]
        ws_url = base.replace("http", "ws", 1) + "/ws"
        tasks = [asyncio.create_task(viewer(ws_url, seen[i], readies[i], n_events)) for i in range(n_viewers)]
        await asyncio.gather(*(e.wait() for e in readies))
        sent: list[float] = []
        start = time.perf_counter()
        for event in events(n_events):
            sent.append(time.perf_counter())
            r = await http.post("/api/events", json=event)
            r.raise_for_status()
        seconds = time.perf_counter() - start
        await asyncio.wait_for(asyncio.gather(*tasks), timeout=60)
    latencies = [(got[seq] - sent[seq]) * 1000 for got in seen for seq in range(n_events)]
    return percentile(latencies, 0.5), percentile(latencies, 0.95), n_events / seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--viewers", type=int, default=20)
    parser.add_argument("--events", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.Popen([sys.executable, "-m", "web.cli", "serve", "--host", "127.0.0.1", "--port",
                                 str(port), "--db", str(Path(tmp) / "bench.db"), "--pin", PIN, "--no-qr"],
                                cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        base = f"http://127.0.0.1:{port}"
        try:
            for _ in range(200):
                try:
                    httpx.get(base + "/api/catalog", timeout=0.5)
                    break
                except httpx.HTTPError:
                    time.sleep(0.05)
            p50s, p95s = [], []
            for i in range(args.repeats):
                p50, p95, rate = asyncio.run(one_run(base, args.viewers, args.events))
                p50s.append(p50)
                p95s.append(p95)
                print(f"repeat {i + 1}: {args.viewers} viewers, {args.events} events ({rate:.0f} events/s): "
                      f"p50 {p50:.1f} ms  p95 {p95:.1f} ms", flush=True)
            print(f"median over {args.repeats} repeats: p50 {statistics.median(p50s):.1f} ms  "
                  f"p95 {statistics.median(p95s):.1f} ms")
        finally:
            proc.terminate()
            proc.wait(10)


if __name__ == "__main__":
    main()
