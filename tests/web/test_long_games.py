"""Issue 41: long games and event ids. The cost of an event does not grow with the game (the view
carries the newest battles, the rest is paged; snapshots of the state in SQLite so that a restart,
an undo or a correction replays only the log's tail), and a change sent again with the same id is
answered again, not applied again, also after a restart."""
from __future__ import annotations

import json
import pickle
import random
import sqlite3

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
from web.snapshots import SnapshotError, check_text, dump_state, load_state
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
                decided = {"seq": seq, "battle": len(history) + 1, "text": r["text"], "cards": dict(cards),
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
def small_snapshots(monkeypatch):
    """Snapshots every 100 entries, so that short games cross several."""
    monkeypatch.setattr("web.session.SNAPSHOT_EVERY", 100)


def new_keeper(db) -> GameKeeper:
    return GameKeeper(Store(db), lambda: NOW)


def play(keeper: GameKeeper, events: list[dict]) -> None:
    for e in events:
        if e.get("type") == "undo":
            keeper.undo()
        else:
            keeper.submit(e)


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
    keeper = new_keeper(db)
    keeper.new_game(SETUP)
    play(keeper, events_3000)
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


def test_the_history_kept_as_events_come_is_the_history_rebuilt(tmp_path, small_snapshots):
    """With undos now and then (some across a snapshot), the battles kept event by event are the ones
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
    # each undo replays from the latest snapshot still in force: at most two snapshots back
    assert session.checkpoints.rebuilt <= 200 * sum(e["type"] == "undo" for e in events)


# ----------------------------------------------------------------------------------- snapshots
def snapshot_rows(db) -> list[tuple]:
    with sqlite3.connect(db) as c:
        return c.execute("SELECT seq, version FROM snapshots ORDER BY seq").fetchall()


def test_a_restart_replays_only_the_tail_after_the_latest_snapshot(tmp_path, events_3000):
    db = tmp_path / "warref.db"
    keeper = new_keeper(db)
    keeper.new_game(SETUP)
    play(keeper, events_3000[:2010])
    before = strip_clock(keeper.view())
    whole = keeper.session.history()
    keeper.store.close()
    assert [seq for seq, _ in snapshot_rows(db)] == [500, 1000, 1500, 2000]

    again = new_keeper(db)
    assert again.session.replayed == 10                       # the entries after the snapshot at 2000
    assert strip_clock(again.view()) == before and again.session.history() == whole
    play(again, events_3000[2010:2100])
    assert again.session.table.state.snapshot() == plain_table(events_3000[:2100]).state.snapshot()


@pytest.mark.parametrize("spoil", ["garbage", "old_code", "other_prefix", "check"])
def test_a_snapshot_that_does_not_fit_is_ignored(tmp_path, events_3000, spoil):
    db = tmp_path / "warref.db"
    keeper = new_keeper(db)
    keeper.new_game(SETUP)
    play(keeper, events_3000[:1210])
    before = strip_clock(keeper.view())
    keeper.store.close()
    with sqlite3.connect(db) as c:
        if spoil == "garbage":            # the newest snapshot does not load: the one before it is used
            c.execute("UPDATE snapshots SET state = ? WHERE seq = 1000", (b"\x80\x05not a pickle",))
            expected = 710
        elif spoil == "old_code":         # made by other rules code: none is used
            c.execute("UPDATE snapshots SET version = 'older'")
            expected = 1210
        elif spoil == "other_prefix":     # an entry before them is not what they were made from
            c.execute("UPDATE entries SET rulings = '[]' WHERE seq = 3")
            expected = 1210
        else:                             # loads, but as another state
            c.execute("UPDATE snapshots SET check_text = '{}' WHERE seq = 1000")
            expected = 710
    again = new_keeper(db)
    assert again.session.replayed == expected
    assert strip_clock(again.view()) == before
    assert again.session.table.state.snapshot() == plain_table(events_3000[:1210]).state.snapshot()
    again.store.close()
    # what was replayed is stored again: the next start uses the newest snapshot
    assert [v for _, v in snapshot_rows(db)] == [again.session.snaps[0].row.version] * 2
    assert new_keeper(db).session.replayed == 210


def test_a_database_from_before_snapshots_is_replayed_then_snapshotted(tmp_path, events_3000):
    db = tmp_path / "warref.db"
    keeper = new_keeper(db)
    keeper.new_game(SETUP)
    play(keeper, events_3000[:1100])
    keeper.store.close()
    with sqlite3.connect(db) as c:      # as a database of the last version holds it
        c.execute("DELETE FROM snapshots")
        c.execute("UPDATE entries SET rulings = NULL")
    assert new_keeper(db).session.replayed == 1100
    assert new_keeper(db).session.replayed == 100


def test_undo_across_a_snapshot_and_after_a_restart(tmp_path, events_3000):
    db = tmp_path / "warref.db"
    keeper = new_keeper(db)
    keeper.new_game(SETUP)
    play(keeper, events_3000[:1002])
    for _ in range(4):                   # back to 998 in force: across the snapshot at 1000 entries
        keeper.undo()
    session = keeper.session
    table = session.table
    # each undo replays from the latest snapshot still in force (1000, 1000, then 500 twice): from the
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


def test_corrections_replay_from_the_snapshot_before_them(tmp_path, events_3000):
    db = tmp_path / "warref.db"
    keeper = new_keeper(db)
    keeper.new_game(SETUP)
    play(keeper, events_3000[:1300])
    log = list(keeper.session.table.log)
    # after the snapshot at 1000: a battle's two cards swapped between the seats (the other player
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
    assert answer["changed"] and fresh.replayed == 1300 - 1000        # replayed from the snapshot at 1000
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
def test_every_game_state_snapshots_and_goes_on_the_same(sim, game, players):
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


def test_a_snapshot_builds_nothing_but_referee_state():
    class Evil:
        def __reduce__(self):
            import os
            return (os.system, ("echo pwned",))

    table = Table("classic", ["A", "B"])
    for blob in (pickle.dumps(Evil()), pickle.dumps(print), b"not a pickle"):
        with pytest.raises(SnapshotError):
            load_state(blob, table.game)
