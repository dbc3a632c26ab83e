"""`warref serve --workers 2 --redis URL`, for real (two uvicorn worker processes on one port, a real
redis-server from tests/conftest.py): the dashboard's game is one table whatever process answers.
Each request goes on a new connection, so the kernel hands them to either worker."""
from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from referee import Table, get_game
from web.store import ClockState, Store

from test_server_restart import PIN, ROOT, free_port

H = {"X-Warref-Pin": PIN}
RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]


def legal_flips(battles: int) -> list[dict]:
    """Classic War battles without a war, won in turn so nobody runs out; checked legal here."""
    table, events = Table(get_game("classic"), ["Alex", "Olivia"], {}), []
    for i in range(battles):
        high, low = RANKS[i % 12 + 1], RANKS[i % 12]
        alex, olivia = (high, low) if i % 2 else (low, high)
        for event in ({"type": "flip", "seat": "Alex", "card": alex + "S"},
                      {"type": "flip", "seat": "Olivia", "card": olivia + "H"}):
            assert table.can(event)
            table.submit(event)
            events.append(event)
    return events


def long_game_database(path, battles: int) -> None:
    """A database at ``path`` holding one Classic War game of ``battles`` legal battles (2 events each)."""
    store = Store(path)
    store.loaded()
    game = store.new_game("classic", [{"name": "Alex", "colour": "#e4572e"}, {"name": "Olivia", "colour": "#4c9f70"}],
                          {}, 0.0, 0.0)
    store.replace_log(game, legal_flips(battles), None, None, ClockState())
    store.close()


@contextlib.contextmanager
def serving(tmp_path, redis_url):
    """`warref serve --workers 2` until the block ends: its URL and the database's path."""
    port, db = free_port(), tmp_path / "warref.db"
    proc = subprocess.Popen([sys.executable, "-m", "web.cli", "serve", "--host", "127.0.0.1", "--port", str(port),
                             "--db", str(db), "--pin", PIN, "--no-qr", "--workers", "2", "--redis", redis_url],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    end, up = time.monotonic() + 30, 0
    while time.monotonic() < end and up < 6:           # both workers up: several fresh connections answer
        if proc.poll() is not None:
            raise AssertionError(f"warref serve exited: {proc.stdout.read().decode()}")
        try:
            httpx.get(url + "/api/catalog", timeout=0.5).raise_for_status()
            up += 1
        except httpx.HTTPError:
            up = 0
            time.sleep(0.1)
    try:
        yield url, db
    finally:
        os.killpg(proc.pid, signal.SIGKILL)         # uvicorn's workers too: they are in its session
        proc.wait(5)
        proc.stdout.close()


@pytest.fixture
def workers(tmp_path, redis_url):
    """A server of the test's own: a fresh database, and no wrong PINs counted yet."""
    with serving(tmp_path, redis_url) as served:
        yield served


@pytest.fixture(scope="module")
def shared_workers(tmp_path_factory, redis_url):
    """One server for the tests that each set up a game of their own and look only at it (starting
    two workers is most of such a test's time)."""
    with serving(tmp_path_factory.mktemp("workers"), redis_url) as served:
        yield served


def fresh(method: str, url: str, **kw) -> httpx.Response:
    """One request on a connection of its own."""
    with httpx.Client(timeout=10) as client:
        return client.request(method, url, **kw)


def test_events_from_both_workers_make_one_stored_order_and_one_state(workers):
    url, db = workers
    views = [fresh("GET", url + "/api/state").json() for _ in range(8)]      # a fresh database
    assert all(v["game"] is None for v in views)
    fresh("POST", url + "/api/games", headers=H, json={"game": "classic", "players": ["Alex", "Olivia"]}).raise_for_status()
    events = legal_flips(30)
    codes = [fresh("POST", url + "/api/events", headers=H, json=e).status_code for e in events]
    assert codes == [200] * len(events)
    states = [fresh("GET", url + "/api/state").json() for _ in range(12)]
    assert {s["log_length"] for s in states} == {60}
    assert len({json.dumps(s, sort_keys=True, default=str).replace(str(s["clock"]["server_time"]), "")
                for s in states}) == 1
    store = Store(db)
    assert store.log(store.current_id()) == events                        # the order they were sent in
    store.close()


def test_racing_events_from_both_workers_are_applied_one_at_a_time(shared_workers):
    url, _ = shared_workers
    fresh("POST", url + "/api/games", headers=H, json={"game": "classic", "players": ["Alex", "Olivia"]}).raise_for_status()
    fresh("POST", url + "/api/events", headers=H, json={"type": "flip", "seat": "Alex", "card": "8S"}).raise_for_status()

    def send(card: str) -> int:
        return fresh("POST", url + "/api/events", headers=H,
                     json={"type": "flip", "seat": "Olivia", "card": card}).status_code

    with ThreadPoolExecutor(12) as pool:
        codes = list(pool.map(send, ["5H", "6H", "7H", "9H", "10H", "JH"] * 2))
    assert sorted(codes) == [200] * 2 + [422] * 10            # no 500, no entry stored twice
    assert {fresh("GET", url + "/api/state").json()["log_length"] for _ in range(8)} == {3}


def test_a_new_game_set_up_on_one_worker_is_refereed_by_every_worker(shared_workers):
    url, _ = shared_workers
    fresh("POST", url + "/api/games", headers=H, json={"game": "classic", "players": ["Alex", "Olivia"]}).raise_for_status()
    fresh("POST", url + "/api/events", headers=H, json={"type": "flip", "seat": "Alex", "card": "8S"}).raise_for_status()
    second = fresh("POST", url + "/api/games", headers=H, json={"game": "classic", "players": ["Mia", "Noah"]}).json()
    for i in range(10):                      # each worker knows the new game: Mia flips, Noah flips
        seat = "Mia" if i % 2 == 0 else "Noah"
        answer = fresh("POST", url + "/api/events", headers=H,
                       json={"type": "flip", "seat": seat, "card": RANKS[i] + ("S" if seat == "Mia" else "H")})
        assert answer.status_code == 200, answer.text
    views = [fresh("GET", url + "/api/state").json() for _ in range(8)]
    assert {v["game"]["id"] if isinstance(v["game"], dict) else v.get("id") for v in views} == \
        {second["game"]["id"] if isinstance(second["game"], dict) else second.get("id")}
    assert {v["log_length"] for v in views} == {10}


def test_viewers_on_every_worker_hear_each_change(shared_workers):
    import websockets

    url, _ = shared_workers
    fresh("POST", url + "/api/games", headers=H, json={"game": "classic", "players": ["Alex", "Olivia"]}).raise_for_status()
    events = legal_flips(5)

    async def watch() -> list[int]:
        sockets = [await websockets.connect(url.replace("http", "ws") + "/ws") for _ in range(6)]
        try:
            for s in sockets:
                json.loads(await s.recv())                              # hello
            for event in events:
                await asyncio.to_thread(fresh, "POST", url + "/api/events", headers=H, json=event)
            last = []
            for s in sockets:                                           # each viewer's newest view
                length = 0
                while length < len(events):
                    message = json.loads(await asyncio.wait_for(s.recv(), 10))
                    length = message.get("view", {}).get("log_length", length)
                last.append(length)
            return last
        finally:
            for s in sockets:
                await s.close()

    assert asyncio.run(watch()) == [len(events)] * 6


def test_a_change_to_a_table_another_process_changed_writes_nothing(tmp_path):
    """Store's compare and swap: the second process's write on what it loaded before is refused
    (``Stale``) and leaves the database as the first left it; loaded again, it is accepted."""
    from web.store import ClockState, Stale

    one, two = Store(tmp_path / "t.db"), Store(tmp_path / "t.db")
    one.loaded(), two.loaded()
    game = one.new_game("classic", [{"name": "Alex"}, {"name": "Olivia"}], {}, 0.0, 60.0)
    with pytest.raises(Stale):
        two.save_clock(game, ClockState(600.0))
    assert one.game(game).clock.length == 60.0 and two.stored_version() == one.version
    two.loaded()
    two.save_clock(game, ClockState(600.0))
    assert one.game(game).clock.length == 600.0 and one.stored_version() == two.version == one.version + 1


def test_wrong_pins_count_once_for_every_worker(workers):
    """The limits live in the shared database: wrong PINs spread over both workers lock the device."""
    from web import guard

    url, _ = workers
    for _ in range(guard.FREE + 1):
        assert fresh("POST", url + "/api/games", headers={"X-Warref-Pin": "0000"},
                     json={"game": "classic", "players": ["Alex", "Olivia"]}).status_code == 401
    assert {fresh("POST", url + "/api/games", headers=H, json={"game": "classic", "players": ["Alex", "Olivia"]})
            .status_code for _ in range(4)} == {429}


def test_catching_up_with_another_workers_change_runs_off_the_event_loop(tmp_path):
    """Point 10 with workers: after another process changed a long game (here a correction of entry 3
    of 10,000), this process loads the table again before its next answer, reading every entry and
    replaying from a checkpoint (a tenth of a second or more). That runs off the event loop, as
    changes do, so the loop keeps turning meanwhile. Two apps on one database stand for two workers."""
    from web.server import create_app

    long_game_database(tmp_path / "warref.db", 5000)
    one, two = (create_app(tmp_path / "warref.db", PIN, static_dir=tmp_path, hosts=["*"]) for _ in range(2))
    one.state.keeper.correct({"seq": 3, "event": {"type": "flip", "seat": "Olivia", "card": "2H"}})
    gaps: list[float] = []

    async def read_while_beating() -> dict:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=two), base_url="http://localhost") as c:
            done = []

            async def read() -> dict:
                answer = (await c.get("/api/state")).json()
                done.append(True)
                return answer

            async def heartbeat() -> None:
                last = time.perf_counter()
                while not done:
                    await asyncio.sleep(0.005)
                    now = time.perf_counter()
                    gaps.append(now - last)
                    last = now
            started = time.perf_counter()
            view, _ = await asyncio.gather(read(), heartbeat())
            gaps.append(time.perf_counter() - started)
            return view

    view = asyncio.run(read_while_beating())
    assert view["log_length"] == 10_000 and two.state.keeper.session.table.log[3]["card"] == "2H"
    whole, turns = gaps.pop(), sorted(gaps)        # on the loop it was one long turn, two or three in all
    assert len(turns) >= 8 and turns[len(turns) // 2] < min(0.1, whole / 4), (whole, turns)
