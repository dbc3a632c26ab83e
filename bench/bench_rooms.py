"""Guerra rooms on several server processes: action-to-broadcast latency, and nothing lost when one
process is killed (a benchmark, not a timed test).

    python bench/bench_rooms.py [--rooms 200] [--workers 2] [--seconds 60] [--think 1.0] [--kill-at 25]
                                [--npc-rooms 20 --npc-level hard]

Starts a real redis-server and `warref serve --redis URL --workers N` (subprocesses, temporary
files), makes ``--rooms`` rooms of 4 seats, each seat a WebSocket client driven by an NPC (easy; it
decides from its own seat's view as sent to its phone), thinking ``--think`` seconds on average
before each move. Latency: from a client sending its move to each of the room's 4 clients getting
the view with that move (p50 and p95, ms). At ``--kill-at`` seconds one worker process is killed
with SIGKILL; uvicorn starts another, and the clients that were on it reconnect. At the end every
move a client was told was played (the answer names its place in the room's moves) is looked up in
Redis: "lost" counts those that are not there. ``--npc-rooms``: also rooms of one client and three
NPCs the server plays, whose thinking shares the server's processes with the timed rooms (compare a
run with and without them).
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import redis
import websockets

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from referee.npc import Move, SeatView, make_npc  # noqa: E402


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def percentile(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, max(0, round(q * (len(values) - 1))))] if values else float("nan")


def seat_view(table: dict) -> SeatView:
    """The view a phone got, back into the NPCs' SeatView (lists become tuples)."""
    def tup(x):
        return tuple(tup(v) for v in x) if isinstance(x, list) else x
    return SeatView(**{k: tup(v) for k, v in table.items()})


class Stats:
    def __init__(self) -> None:
        self.sent: dict[tuple[str, int], float] = {}      # (room, move index) -> when its move was sent
        self.latency: list[tuple[float, float]] = []      # (when, seconds)
        self.acked: list[tuple[str, int, str, dict]] = []
        self.errors = 0
        self.reconnects = 0
        self.over: set[str] = set()


async def client(base: str, code: str, seat: int, token: str, stats: Stats, think: float, stop: float,
                 rng: random.Random, timed: bool = True) -> None:
    npc = make_npc("easy", random.Random(rng.random()))
    ws_url = base.replace("http", "ws") + f"/ws/rooms/{code}"
    while time.monotonic() < stop and code not in stats.over:
        try:
            async with websockets.connect(ws_url, max_size=None, open_timeout=10) as ws:
                await ws.send(json.dumps({"token": token}))
                pending: asyncio.Task | None = None
                while time.monotonic() < stop:
                    try:
                        message = json.loads(await asyncio.wait_for(ws.recv(), timeout=max(0.1, stop - time.monotonic())))
                    except asyncio.TimeoutError:
                        return
                    if message["type"] == "acted":
                        stats.acked.append((code, message["move"], message["id"], time.monotonic()))
                        continue
                    if message["type"] == "error":
                        stats.errors += 1
                        continue
                    if message["type"] != "view" or "table" not in message:
                        continue
                    n = message["room"]["moves"]
                    when = stats.sent.get((code, n - 1))
                    if when is not None and timed:
                        stats.latency.append((time.monotonic(), time.monotonic() - when))
                    if message["room"]["over"]:
                        stats.over.add(code)
                        return
                    w = message["waiting"]
                    if w and w["seats"][0] == message["room"]["seats"][seat]["name"] and message["moves"] \
                            and (pending is None or pending.done()):
                        pending = asyncio.create_task(move_later(ws, message, npc, code, stats, think, rng))
        except (OSError, websockets.exceptions.WebSocketException, asyncio.TimeoutError):
            stats.reconnects += 1
            await asyncio.sleep(0.2 + rng.random() * 0.5)


async def move_later(ws, message: dict, npc, code: str, stats: Stats, think: float, rng: random.Random) -> None:
    await asyncio.sleep(rng.expovariate(1 / think) if think else 0)
    moves = [Move(**{k: v for k, v in m.items() if k != "label"}) for m in message["moves"]]
    move = npc.decide(seat_view(message["table"]), message["waiting"]["kind"], moves)
    n = message["room"]["moves"]
    stats.sent[(code, n)] = time.monotonic()         # a move sent again after a reconnect counts from then
    try:
        await ws.send(json.dumps({"type": "act", "id": f"{code}-{n}", "move": move.to_json()}))
    except websockets.exceptions.ConnectionClosed:
        pass                                   # the client reconnects and gets the view again


def start_redis(tmp: Path) -> tuple[subprocess.Popen, str]:
    port = free_port()
    proc = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no", "--dir", str(tmp)], stdout=subprocess.DEVNULL)
    url = f"redis://127.0.0.1:{port}/0"
    for _ in range(100):
        try:
            redis.Redis.from_url(url).ping()
            return proc, url
        except redis.ConnectionError:
            time.sleep(0.05)
    raise SystemExit("redis-server did not start (make system-deps installs it)")


def start_server(tmp: Path, url: str, workers: int) -> tuple[subprocess.Popen, str]:
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "web.cli", "serve", "--host", "127.0.0.1", "--port", str(port),
                             "--db", str(tmp / "warref.db"), "--pin", "1357", "--no-qr", "--redis", url,
                             "--workers", str(workers)], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            httpx.get(base + "/api/rooms", timeout=1)
            return proc, base
        except httpx.HTTPError:
            time.sleep(0.1)
    raise SystemExit(f"warref serve did not start: {proc.stderr.read().decode()[-2000:]}")


def workers_of(proc: subprocess.Popen) -> list[int]:
    """The worker processes (uvicorn spawns them; its resource tracker is a child too)."""
    out = subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True, text=True).stdout.split()
    return [int(p) for p in out if b"spawn_main" in Path(f"/proc/{p}/cmdline").read_bytes()]


async def main(args: argparse.Namespace) -> None:
    tmp = Path(tempfile.mkdtemp(prefix="warref-rooms-"))
    rds, url = start_redis(tmp)
    server, base = start_server(tmp, url, args.workers)
    stats = Stats()
    try:
        # the rooms are made straight in the servers' Redis (as the servers would make them): through
        # HTTP one address may make 10 rooms and join 20 seats at once (web/rooms.py's LIMITS)
        from web.rooms import Rooms
        from web.rooms_redis import RedisRoomStore
        maker = Rooms(RedisRoomStore(url))
        rooms = []
        for r in range(args.rooms):
            made = maker.create("Alex", players=4)
            tokens = [made["token"]] + [maker.join(made["code"], name)["token"] for name in ("Olivia", "Sam", "Mia")]
            maker.start(made["code"], tokens[0])
            rooms.append((made["code"], tokens))
        npc_rooms = []
        for r in range(args.npc_rooms):          # one player (a client) and three NPCs the server plays
            made = maker.create("Alex", players=4, npc_seats=[1, 2, 3], level=args.npc_level)
            maker.start(made["code"], made["token"])
            npc_rooms.append((made["code"], [made["token"]]))
        maker.store.close()
        print(f"{len(rooms)} rooms of 4 made; {4 * len(rooms)} WebSocket clients on {args.workers} processes"
              + (f"; and {len(npc_rooms)} rooms of one client and 3 {args.npc_level} NPCs played by the server "
                 "(their moves not timed)" if npc_rooms else ""))
        t0 = time.monotonic()
        stop = t0 + args.seconds
        rng = random.Random(1)
        tasks = [asyncio.create_task(client(base, code, seat, tok, stats, args.think, stop, random.Random(rng.random())))
                 for code, tokens in rooms for seat, tok in enumerate(tokens)]
        tasks += [asyncio.create_task(client(base, code, 0, tokens[0], stats, args.think, stop,
                                             random.Random(rng.random()), timed=False)) for code, tokens in npc_rooms]
        killed_at = None
        if args.kill_at:
            await asyncio.sleep(args.kill_at)
            victims = workers_of(server)
            if victims:
                os.kill(victims[0], signal.SIGKILL)
                killed_at = time.monotonic()
                print(f"killed worker {victims[0]} at {killed_at - t0:.1f} s (workers were {victims})")
        await asyncio.gather(*tasks)
    finally:
        server.send_signal(signal.SIGINT)
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
    # every acknowledged move is in the room's document
    r = redis.Redis.from_url(url)
    lost = 0
    docs = {}
    acked = {(code, index) for code, index, *_ in stats.acked}      # a retried id is answered again
    for code, index in acked:
        if code not in docs:
            docs[code] = json.loads(r.hget(f"warref:room:{code}", "doc"))
        moves = docs[code]["moves"]
        if index >= len(moves) or moves[index]["by"] != "player":
            lost += 1
    rds.terminate()
    lat = [s for _, s in stats.latency]
    before = [s for t, s in stats.latency if killed_at is None or t < killed_at]
    after = [s for t, s in stats.latency if killed_at is not None and t >= killed_at + 5]
    total_moves = sum(len(d["moves"]) for d in docs.values())
    print(f"moves acknowledged: {len(acked)} ({len(acked) / args.seconds:.0f}/s); in the rooms: "
          f"{total_moves}; games finished: {len(stats.over)}; errors answered: {stats.errors}; "
          f"reconnects: {stats.reconnects}")
    print(f"action -> broadcast, all {len(lat)} deliveries: p50 {1000 * percentile(lat, 0.5):.1f} ms, "
          f"p95 {1000 * percentile(lat, 0.95):.1f} ms")
    if killed_at is not None:
        print(f"  before the kill: p50 {1000 * percentile(before, 0.5):.1f} ms, p95 {1000 * percentile(before, 0.95):.1f} ms;"
              f" from 5 s after: p50 {1000 * percentile(after, 0.5):.1f} ms, p95 {1000 * percentile(after, 0.95):.1f} ms")
    if killed_at is not None:
        rate = [sum(1 for *_, t in stats.acked if a <= t < b) / (b - a)
                for a, b in ((t0, killed_at), (killed_at + 5, stop))]
        print(f"  moves acknowledged per second: {rate[0]:.0f} before the kill, {rate[1]:.0f} from 5 s after")
    print(f"acknowledged moves lost: {lost} of {len(acked)}")
    if lost:
        raise SystemExit(1)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rooms", type=int, default=200)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--think", type=float, default=1.0, help="mean seconds a client thinks before its move")
    ap.add_argument("--npc-rooms", type=int, default=0,
                    help="also this many rooms of one client and three NPCs the server plays (their thinking "
                         "shares the server with the timed rooms)")
    ap.add_argument("--npc-level", default="hard", help="those NPCs' level")
    ap.add_argument("--kill-at", type=float, default=25.0, help="SIGKILL one worker after this long (0: never)")
    asyncio.run(main(ap.parse_args()))
