"""Issue 41: long games and event ids. The cost of an event does not grow with the game (the view
carries the newest battles, the rest is paged; checkpoints of the state in SQLite so that a restart,
an undo or a correction replays only the log's tail), and a change sent again with the same id is
answered again, not applied again, also after a restart."""
from __future__ import annotations

import json
import pickle
import random
import sqlite3
import threading

import pytest
from fastapi.testclient import TestClient

from referee import Table
from referee.sim.casino import CasinoSim
from referee.sim.classic import ClassicSim, long_game_events
from referee.sim.guerra import GuerraSim
from referee.sim.namikopy import NamikopySim
from referee.sim.woolly import WoollySim
from web.errors import Refused
from web.keeper import HISTORY_TAIL, GameKeeper
from web.server import create_app
from web.session import HISTORY_PAGE, VIEW_BATTLES, Session
from web.checkpoints import CheckpointError, check_text, dump_state, load_state
from web.store import Store

PIN = "2468"
H = {"X-Warref-Pin": PIN}
BASE = "http://localhost"
SETUP = {"game": "classic", "players": [{"name": "Alex"}, {"name": "Olivia"}]}
NOW = 1_800_000_000.0


def with_undos(events: list[dict], every: int, rng: random.Random) -> list[dict]:
    """The same game with undos in it: now and then the last one or two events are taken back and
    sent again (so the stream stays legal)."""
    out: list[dict] = []
    for i, e in enumerate(events):
        out.append(e)
        if i and i % every == 0:
            back = rng.choice([1, 2])
            out += [{"type": "undo"}] * back + events[i - back + 1:i + 1]
    return out


def reference_history(session: Session) -> list[dict]:
    """The history as the server built it before issue 41: from scratch, over every entry in force."""
    history, pending, cards, card_seq, turned = [], [], {}, {}, {}
    for seq in session.in_force:
        entry = session.table.log[seq]
        flipped = {}
        if entry.get("type") == "flip":
            flipped = {entry["seat"]: entry["card"]}
        elif entry.get("type") == "flips":
            flipped = dict(entry["cards"])
        for seat, card in flipped.items():
            seat = session._seat(seat)
            cards[seat] = card
            card_seq[seat] = seq
            turned.setdefault(seat, []).append(card)
        decided = None
        for r in session.entry_rulings[seq]:
            if r["type"] == "prompt":
                continue
            if r["type"] == "battle":
                decided = {"seq": seq, "battle": len(history) + 1, "text": r["text"],
                           **({"msg": r["msg"]} if "msg" in r else {}), "cards": dict(cards),
                           "card_seq": dict(card_seq), "turned": {s: list(c) for s, c in turned.items()},
                           "rulings": pending + [r], "photo": None}
                history.append(decided)
                pending = []
            elif decided is not None:
                decided["rulings"].append(r)
            else:
                pending.append(r)
        if decided is not None:
            cards, card_seq, turned = {}, {}, {}
    return history


def plain_table(log: list[dict]) -> Table:
    return Table.restore("classic", ["Alex", "Olivia"], None, log)


@pytest.fixture
def small_checkpoints(monkeypatch):
    """Checkpoints every 100 entries, so that short games cross several."""
    monkeypatch.setattr("web.session.CHECKPOINT_EVERY", 100)


def new_keeper(db) -> GameKeeper:
    return GameKeeper(Store(db), lambda: NOW)


def play(keeper: GameKeeper, events: list[dict]) -> None:
    for e in events:
        if e.get("type") == "undo":
            keeper.undo()
        else:
            keeper.submit(e)


def keeper_playing(db, events: list[dict]) -> GameKeeper:
    """A keeper on ``db`` with a new game (SETUP) and ``events`` played."""
    keeper = new_keeper(db)
    keeper.new_game(SETUP)
    play(keeper, events)
    return keeper


def strip_clock(view: dict) -> dict:
    return {k: v for k, v in view.items() if k != "clock"}


# ----------------------------------------------------------------------------------- ids
@pytest.fixture
def app_at(tmp_path):
    def make():
        return create_app(tmp_path / "warref.db", PIN, now=lambda: NOW, tick_s=0.05, static_dir=tmp_path / "static")
    return make


def test_an_event_sent_again_with_its_id_is_answered_again_not_applied(app_at):
    with TestClient(app_at(), base_url=BASE) as client:
        assert client.post("/api/games", json=SETUP, headers=H).status_code == 200
        flip = {"type": "flip", "seat": "Alex", "card": "8S", "id": "tap-1"}
        first = client.post("/api/events", json=flip, headers=H)
        assert first.status_code == 200
        again = client.post("/api/events", json=flip, headers=H)
        assert again.status_code == 200
        assert again.json()["rulings"] == first.json()["rulings"] and again.json()["repeated"] is True
        assert again.json()["view"]["log_length"] == 1
        # the same id with another request: refused, nothing changes
        other = client.post("/api/events", json={**flip, "card": "9S"}, headers=H)
        assert other.status_code == 409 and "already used" in other.json()["detail"]
        # a refused event's id: refused again with the same sentence, even once it would be legal
        bad = client.post("/api/events", json={"type": "flip", "seat": "Alex", "card": "9S", "id": "tap-2"}, headers=H)
        assert bad.status_code == 422
        assert client.post("/api/events", json={"type": "flip", "seat": "Alex", "card": "9S", "id": "tap-2"},
                           headers=H).json() == bad.json()
        # undo, by body id or by the Idempotency-Key header
        undo = client.post("/api/undo", json={"id": "undo-1"}, headers=H)
        assert undo.status_code == 200 and undo.json()["view"]["log_length"] == 2
        assert client.post("/api/undo", json={"id": "undo-1"}, headers=H).json()["rulings"] == undo.json()["rulings"]
        assert client.post("/api/undo", headers={**H, "Idempotency-Key": "undo-1"}).json()["view"]["log_length"] == 2
        assert client.get("/api/state").json()["log_length"] == 2
        # ids that are not ids
        for wrong in (7, "", "x" * 65, "a b", "é"):
            r = client.post("/api/events", json={"type": "flip", "seat": "Alex", "card": "8S", "id": wrong}, headers=H)
            assert r.status_code == 422 and "id" in r.json()["detail"], wrong
        # clock and corrections take ids too
        clock = client.post("/api/clock", json={"action": "set", "minutes": 5, "id": "clock-1"}, headers=H)
        assert client.post("/api/clock", json={"action": "set", "minutes": 5, "id": "clock-1"}, headers=H).json() == clock.json()
        client.post("/api/events", json={"type": "flip", "seat": "Alex", "card": "8S"}, headers=H)
        fix = {"seq": 2, "event": {"type": "flip", "seat": "Alex", "card": "KS"}, "id": "fix-1"}
        first_fix = client.post("/api/corrections", json=fix, headers=H)
        assert first_fix.status_code == 200
        length = client.get("/api/state").json()["log_length"]
        assert client.post("/api/corrections", json=fix, headers=H).json()["changed"] == first_fix.json()["changed"]
        assert client.get("/api/state").json()["log_length"] == length
        game = client.post("/api/games", json={**SETUP, "id": "game-1"}, headers=H).json()
        assert client.post("/api/games", json={**SETUP, "id": "game-1"}, headers=H).json()["view"]["game_id"] == game["game_id"]
        assert len(client.get("/api/games").json()) == 2
    # after a restart on the same database: still answered, still not applied
    with TestClient(app_at(), base_url=BASE) as client:
        assert client.post("/api/games", json={**SETUP, "id": "game-1"}, headers=H).status_code == 200
        assert len(client.get("/api/games").json()) == 2
        client.post("/api/games", json=SETUP, headers=H)
        again = client.post("/api/events", json=flip, headers=H)
        assert again.status_code == 200 and again.json()["rulings"] == first.json()["rulings"]
        assert client.get("/api/state").json()["log_length"] == 0
        assert client.post("/api/events", json={**flip, "id": "tap-3"}, headers=H).json()["view"]["log_length"] == 1


def test_the_answer_is_stored_with_the_entry(tmp_path):
    """The id's answer is written in the same transaction as the log entry: a crash between the two
    cannot leave an applied event without its answer (the retry after `kill -9` in issue 41)."""
    app = create_app(tmp_path / "warref.db", PIN, now=lambda: NOW, static_dir=tmp_path / "static")
    with TestClient(app, base_url=BASE) as client:
        client.post("/api/games", json=SETUP, headers=H)
        store = app.state.store
        real = store._write
        statements = []

        def spy(batch, rowid_of=-1, **how):
            batch = list(batch)
            statements.append(" ".join(sql for sql, _ in batch))
            return real(batch, rowid_of, **how)

        store._write = spy
        client.post("/api/events", json={"type": "flip", "seat": "Alex", "card": "8S", "id": "tap-1"}, headers=H)
    assert any("INTO entries" in s and "INTO answers" in s for s in statements), statements


# ----------------------------------------------------------------------------------- long games
@pytest.fixture(scope="module")
def events_3000():
    return long_game_events(3000, seed=1)


def test_a_long_game_keeps_the_view_small_and_pages_its_history(tmp_path, events_3000):
    db = tmp_path / "warref.db"
    keeper = keeper_playing(db, events_3000)
    session = keeper.session
    assert len(session.battles) > 1000
    keeper.store.close()
    app = create_app(db, PIN, now=lambda: NOW, static_dir=tmp_path / "static")
    with TestClient(app, base_url=BASE) as client:
        raw = client.get("/api/state")
        state = raw.json()
        assert len(raw.content) <= 64 * 1024
        total = state["history_total"]
        assert total == len(session.battles)
        assert len(state["history"]) == VIEW_BATTLES and state["history_from"] == total - VIEW_BATTLES
        assert [h["battle"] for h in state["history"]] == list(range(total - VIEW_BATTLES + 1, total + 1))
        with client.websocket_connect("ws://localhost/ws") as ws:
            hello = ws.receive_text()
        assert len(hello.encode()) <= 64 * 1024 and json.loads(hello)["view"]["history_total"] == total
        # page back from the oldest battle the view has to the first: in order, no gaps, no repeats
        pages, before = [], state["history"][0]["battle"]
        while before > 1:
            page = client.get(f"/api/games/{state['game_id']}/history", params={"before": before, "limit": 150}).json()
            assert page["history_total"] == total and len(page["history"]) <= 150
            pages = page["history"] + pages
            before = page["history"][0]["battle"]
        whole = pages + state["history"]
        assert [h["battle"] for h in whole] == list(range(1, total + 1))
        assert whole == reference_history(app.state.keeper.session)
        assert client.get(f"/api/games/{state['game_id']}/history").json()["history"] == whole[-HISTORY_PAGE:]
        assert client.get(f"/api/games/{state['game_id']}/history", params={"before": 1}).json()["history"] == []
        for bad in ({"limit": 0}, {"limit": 201}, {"before": 0}, {"limit": "x"}):
            r = client.get(f"/api/games/{state['game_id']}/history", params=bad)
            assert r.status_code == 422 and r.json()["detail"], bad
        assert client.get("/api/games/99/history").status_code == 404
        assert client.get(f"/api/games/{10 ** 30}/history").status_code in (404, 422)
        # a pushed view is small too, and says where its battles start
        with client.websocket_connect("ws://localhost/ws") as ws:
            ws.receive_json()
            e = long_game_events(3001, seed=1)[-1]
            assert client.post("/api/events", json=e, headers=H).status_code == 200
            pushed = ws.receive_json()["view"]
        assert len(pushed["history"]) <= HISTORY_TAIL
        assert pushed["history_start"] == pushed["history_from"] == pushed["history_total"] - len(pushed["history"])


def test_a_past_game_is_paged_too(tmp_path, events_3000):
    keeper = new_keeper(tmp_path / "warref.db")
    keeper.new_game(SETUP)
    play(keeper, events_3000[:600])
    first = keeper.session.record.id
    whole = keeper.session.history()
    keeper.new_game(SETUP)
    view = keeper.game_view(first)
    assert view["history"] == whole[-VIEW_BATTLES:] and view["history_total"] == len(whole)
    assert keeper.history(first, view["history_from"] + 1, 200)["history"] == whole[max(0, view["history_from"] - 200):view["history_from"]]


def test_the_history_kept_as_events_come_is_the_history_rebuilt(tmp_path, small_checkpoints):
    """With undos now and then (some across a checkpoint), the battles kept event by event are the ones
    the old server rebuilt from every entry in force, and the state is the plain referee's."""
    events = with_undos(long_game_events(700, seed=3), every=37, rng=random.Random(5))
    keeper = new_keeper(tmp_path / "warref.db")
    keeper.new_game(SETUP)
    for i, e in enumerate(events):
        play(keeper, [e])
        if i % 97 == 0 or e["type"] == "undo":
            assert keeper.session.history() == reference_history(keeper.session)
    session = keeper.session
    assert session.history() == reference_history(session)
    assert session.table.state.snapshot() == plain_table(session.table.log).state.snapshot()
    # each undo replays from the latest checkpoint still in force: at most two checkpoints back
    assert session.checkpoints.rebuilt <= 200 * sum(e["type"] == "undo" for e in events)


# ----------------------------------------------------------------------------------- checkpoints
def checkpoint_rows(db) -> list[tuple]:
    with sqlite3.connect(db) as c:
        return c.execute("SELECT seq, version FROM checkpoints ORDER BY seq").fetchall()


def test_a_restart_replays_only_the_tail_after_the_latest_checkpoint(tmp_path, events_3000):
    db = tmp_path / "warref.db"
    keeper = keeper_playing(db, events_3000[:2010])
    before = strip_clock(keeper.view())
    whole = keeper.session.history()
    keeper.store.close()
    assert [seq for seq, _ in checkpoint_rows(db)] == [500, 1000, 1500, 2000]

    again = new_keeper(db)
    assert again.session.replayed == 10                       # the entries after the checkpoint at 2000
    assert strip_clock(again.view()) == before and again.session.history() == whole
    play(again, events_3000[2010:2100])
    assert again.session.table.state.snapshot() == plain_table(events_3000[:2100]).state.snapshot()


@pytest.mark.parametrize("spoil", ["garbage", "old_code", "other_prefix", "check"])
def test_a_checkpoint_that_does_not_fit_is_ignored(tmp_path, events_3000, spoil):
    db = tmp_path / "warref.db"
    keeper = keeper_playing(db, events_3000[:1210])
    before = strip_clock(keeper.view())
    keeper.store.close()
    with sqlite3.connect(db) as c:
        if spoil == "garbage":            # the newest checkpoint does not load: the one before it is used
            c.execute("UPDATE checkpoints SET state = ? WHERE seq = 1000", (b"\x80\x05not a pickle",))
            expected = 710
        elif spoil == "old_code":         # made by other rules code: none is used
            c.execute("UPDATE checkpoints SET version = 'older'")
            expected = 1210
        elif spoil == "other_prefix":     # an entry before them is not what they were made from
            c.execute("UPDATE entries SET rulings = '[]' WHERE seq = 3")
            expected = 1210
        else:                             # loads, but as another state
            c.execute("UPDATE checkpoints SET check_text = '{}' WHERE seq = 1000")
            expected = 710
    again = new_keeper(db)
    assert again.session.replayed == expected
    assert strip_clock(again.view()) == before
    assert again.session.table.state.snapshot() == plain_table(events_3000[:1210]).state.snapshot()
    again.store.close()
    # what was replayed is stored again: the next start uses the newest checkpoint
    assert [v for _, v in checkpoint_rows(db)] == [again.session.made[0].row.version] * 2
    assert new_keeper(db).session.replayed == 210


def test_a_database_from_before_checkpoints_is_replayed_then_checkpointed(tmp_path, events_3000):
    db = tmp_path / "warref.db"
    keeper = keeper_playing(db, events_3000[:1100])
    keeper.store.close()
    with sqlite3.connect(db) as c:      # as a database of the last version holds it
        c.execute("DELETE FROM checkpoints")
        c.execute("UPDATE entries SET rulings = NULL")
    assert new_keeper(db).session.replayed == 1100
    assert new_keeper(db).session.replayed == 100


# the table as databases made before issue 61 hold it, word for word
OLD_TABLE = """
CREATE TABLE IF NOT EXISTS snapshots (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,           -- the state after the first seq entries
    version TEXT NOT NULL,          -- web/snapshots.py's referee_version() when it was made
    digest TEXT NOT NULL,           -- sha256 over those entries and their rulings (web/session.py)
    state BLOB NOT NULL,            -- the pickled state (web/snapshots.py)
    check_text TEXT NOT NULL,       -- the state's snapshot() as JSON, compared after loading
    PRIMARY KEY (game_id, seq)
);
"""


def as_before_issue_61(db) -> list[tuple]:
    """The database's checkpoints moved to a table made with the old name and statement, as a server
    from before issue 61 left them; their rows."""
    with sqlite3.connect(db) as c:
        c.executescript(OLD_TABLE)
        c.execute("INSERT INTO snapshots SELECT game_id, seq, version, digest, state, check_text FROM checkpoints")
        c.execute("DROP TABLE checkpoints")
        return c.execute("SELECT * FROM snapshots ORDER BY game_id, seq").fetchall()


def tables(db) -> set[str]:
    with sqlite3.connect(db) as c:
        return {r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def test_a_database_with_the_old_table_name_keeps_its_checkpoints(tmp_path, events_3000):
    """Issue 61: the table of checkpoints was named ``snapshots``. Opened now, it is renamed with its
    rows, the game is rebuilt from them (only the tail replayed), plays on and checkpoints again."""
    db = tmp_path / "warref.db"
    keeper = keeper_playing(db, events_3000[:1210])
    before = strip_clock(keeper.view())
    keeper.store.close()
    old_rows = as_before_issue_61(db)
    assert [r[1] for r in old_rows] == [500, 1000] and "checkpoints" not in tables(db)
    with sqlite3.connect(db) as c:
        version = c.execute("SELECT value FROM meta WHERE key = 'version'").fetchone()

    again = new_keeper(db)
    assert "snapshots" not in tables(db) and "checkpoints" in tables(db)
    with sqlite3.connect(db) as c:
        assert c.execute("SELECT * FROM checkpoints ORDER BY game_id, seq").fetchall() == old_rows
        assert c.execute("SELECT value FROM meta WHERE key = 'version'").fetchone() == version
    assert again.session.replayed == 210                      # from the checkpoint at 1000, kept
    assert [c.seq for c in again.session.made] == [500, 1000] and not again.session.unsaved()
    assert strip_clock(again.view()) == before
    play(again, events_3000[1210:1520])
    assert again.session.table.state.snapshot() == plain_table(events_3000[:1520]).state.snapshot()
    assert again.session.history() == reference_history(again.session)
    again.store.close()
    assert [seq for seq, _ in checkpoint_rows(db)] == [500, 1000, 1500]
    assert new_keeper(db).session.replayed == 20


def test_servers_opening_an_old_database_at_once_rename_it_once(tmp_path, events_3000):
    """Several worker processes open the same database as they start: one renames the table, the
    others find it renamed (no error, no empty table beside it, no row lost)."""
    db = tmp_path / "warref.db"
    keeper = keeper_playing(db, events_3000[:1010])
    keeper.store.close()
    old_rows = as_before_issue_61(db)
    start = threading.Barrier(6)
    opened, failed = [], []

    def open_store():
        start.wait()
        try:
            opened.append(Store(db))
        except Exception as err:   # pragma: no cover - the failure this test is for
            failed.append(err)

    workers = [threading.Thread(target=open_store) for _ in range(6)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert not failed and len(opened) == 6
    assert all(s.checkpoints(1) == opened[0].checkpoints(1) for s in opened)
    assert [(1, c.seq, c.version, c.digest, c.state, c.check) for c in opened[0].checkpoints(1)] == old_rows
    for s in opened:
        s.close()
    assert "snapshots" not in tables(db)
    assert new_keeper(db).session.replayed == 10


def test_undo_across_a_checkpoint_and_after_a_restart(tmp_path, events_3000):
    db = tmp_path / "warref.db"
    keeper = keeper_playing(db, events_3000[:1002])
    for _ in range(4):                   # back to 998 in force: across the checkpoint at 1000 entries
        keeper.undo()
    session = keeper.session
    table = session.table
    # each undo replays from the latest checkpoint still in force (1000, 1000, then 500 twice): from the
    # first card it would be 1001 + 1000 + 999 + 998
    assert session.checkpoints.rebuilt == 1 + 0 + 499 + 498
    assert table.state.snapshot() == plain_table(events_3000[:998]).state.snapshot()
    assert keeper.session.history() == reference_history(keeper.session)
    keeper.store.close()
    again = new_keeper(db)
    assert again.session.replayed == 6
    again.session.checkpoints.rebuilt = 0
    for _ in range(3):
        again.undo()
    assert again.session.checkpoints.rebuilt == 497 + 496 + 495
    assert again.session.table.state.snapshot() == plain_table(events_3000[:995]).state.snapshot()
    play(again, events_3000[995:1010])
    assert again.session.table.state.snapshot() == plain_table(events_3000[:1010]).state.snapshot()
    assert again.session.history() == reference_history(again.session)


def test_corrections_replay_from_the_checkpoint_before_them(tmp_path, events_3000):
    db = tmp_path / "warref.db"
    keeper = keeper_playing(db, events_3000[:1300])
    log = list(keeper.session.table.log)
    # after the checkpoint at 1000: a battle's two cards swapped between the seats (the other player
    # wins it), the first such correction the rest of the log still plays after
    for seq in range(1100, 1300):
        e = log[seq]
        if e["type"] != "flips" or len(set(e["cards"].values())) < 2 or any(
                r["type"] != "battle" for r in keeper.session.entry_rulings[seq] if r["type"] != "prompt"):
            continue
        (a, x), (b, y) = e["cards"].items()
        event = {"type": "flips", "cards": {a: y, b: x}}
        try:
            answer = keeper.correct({"seq": seq, "event": event})
        except Refused:
            continue
        break
    else:
        pytest.fail("no correction plays")
    fresh = keeper.session
    assert answer["changed"] and fresh.replayed == 1300 - 1000        # replayed from the checkpoint at 1000
    new_log = log[:seq] + [event] + log[seq + 1:]
    reference = Session.replay(fresh.record, new_log)
    assert fresh.table.log == new_log and fresh.entry_rulings == reference.entry_rulings
    assert fresh.history() == reference.history() == reference_history(fresh)
    assert fresh.table.state.snapshot() == reference.table.state.snapshot()
    before = strip_clock(keeper.view())
    keeper.store.close()
    again = new_keeper(db)
    assert strip_clock(again.view()) == before
    assert again.session.replayed == 300


# ----------------------------------------------------------------------------------- the format
@pytest.mark.parametrize("sim, game, players", [(ClassicSim, "classic", ["A", "B", "C"]), (CasinoSim, "casino", ["A", "B"]),
                                                (GuerraSim, "guerra", ["A", "B"]), (NamikopySim, "namikopy", ["A", "B", "C"]),
                                                (WoollySim, "woolly", ["A", "B"])])
def test_every_game_state_checkpoints_and_goes_on_the_same(sim, game, players):
    s = sim(players, random.Random(11))
    s.run()
    log, options = s.table.log, s.table.options
    table = Table(game, players, options)
    for i, entry in enumerate(log):
        if i % 25 == 0:
            copy = Table(game, players, options)
            copy.log, copy.effective = list(table.log), list(table.effective)
            copy.state = load_state(dump_state(table.state, table.game), copy.game, check_text(table.state))
            for e in log[i:i + 25]:
                assert [r.to_json() for r in copy.submit(e)] == [r.to_json() for r in table.submit(e)]
            table = copy
    assert table.state.snapshot() == s.table.state.snapshot()


def test_a_checkpoint_builds_nothing_but_referee_state():
    class Evil:
        def __reduce__(self):
            import os
            return (os.system, ("echo pwned",))

    table = Table("classic", ["A", "B"])
    for blob in (pickle.dumps(Evil()), pickle.dumps(print), b"not a pickle"):
        with pytest.raises(CheckpointError):
            load_state(blob, table.game)
