"""Guerra rooms (web/rooms.py, web/rooms_api.py) on a real app: several WebSocket clients, a fake
clock for the timers, disconnect and reconnect, a restart on the same database, and who may see
and do what."""
from __future__ import annotations

import contextlib
import json
import time
import re

import pytest
from fastapi.testclient import TestClient

from referee.digital import DigitalGuerra
from web.server import create_app

CARD = re.compile(r"^(?:[A2-9JQK]|10|11|12)[CDHS]$")


class Clock:
    def __init__(self) -> None:
        self.t = 1_000_000.0

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def env(tmp_path):
    clock = Clock()
    app = create_app(tmp_path / "warref.db", "1357", now=clock, tick_s=0.01)
    with TestClient(app, base_url="http://localhost") as client:
        yield client, clock, tmp_path


def room(client, players=2, npc=(), start=True, fill=False, names=("Alex", "Olivia", "Sam", "Mia", "Leo", "Ana")):
    """A room whose human seats are filled in order; the seat tokens by seat."""
    made = client.post("/api/rooms", json={"name": names[0], "players": players, "npc_seats": list(npc)})
    assert made.status_code == 200, made.text
    code, tokens = made.json()["code"], {0: made.json()["token"]}
    for i in range(1, players):
        if i not in npc and not fill:
            joined = client.post(f"/api/rooms/{code}/join", json={"name": names[i], "seat": i}).json()
            tokens[joined["seat"]] = joined["token"]
    if start:
        r = client.post(f"/api/rooms/{code}/start", json={"fill": fill}, headers={"X-Seat-Token": tokens[0]})
        assert r.status_code == 200, r.text
    return code, tokens



@contextlib.contextmanager
def seated(client, code, tokens, seats=range(4)):
    """A room WebSocket for each of ``seats`` (None: a spectator), each saying its seat's token; all
    closed at the end."""
    sockets = {}
    try:
        for seat in seats:
            ws = client.websocket_connect(f"ws://localhost/ws/rooms/{code}").__enter__()
            ws.send_text(json.dumps({"token": tokens.get(seat)}))
            sockets[seat] = ws
        yield sockets
    finally:
        for ws in sockets.values():
            ws.__exit__(None, None, None)

def view(client, code, token=None):
    return client.get(f"/api/rooms/{code}", headers={"X-Seat-Token": token} if token else {}).json()


def act(client, code, token, move, **kw):
    move = {k: v for k, v in move.items() if k != "label"}
    return client.post(f"/api/rooms/{code}/act", json={"move": move, **kw},
                       headers={"X-Seat-Token": token} if token else {})


def game_at(client, code, moves: int) -> DigitalGuerra:
    """The room's game replayed to its first ``moves`` moves, from what the server stored."""
    rooms = client.app.state.rooms.rooms
    _, doc = rooms.load(code)
    game = DigitalGuerra([s["name"] for s in doc["seats"]], doc["seed"], doc["options"])
    game.replay(doc["moves"][:moves])
    return game


def cards_in(obj, skip=("deck",)) -> set[str]:
    if isinstance(obj, dict):
        return set().union(*(cards_in(v) for k, v in obj.items() if k not in skip)) if obj else set()
    if isinstance(obj, (list, tuple)):
        return set().union(*(cards_in(v) for v in obj)) if obj else set()
    if not isinstance(obj, str):
        return set()
    return {w for w in re.split(r"[^0-9A-Za-z]+", obj) if CARD.match(w)}     # in sentences too


def hidden_from(game: DigitalGuerra, seat: str | None) -> set[str]:
    """Cards ``seat`` may not know now: the other seats' hands (partners' in Fim de Guerra excepted,
    failed trocas' shown cards excepted), everyone's face-down cards but its own (a card the whole
    table saw in a troca stays known: the table keeps listing it), the stock."""
    state = game.state
    public = {f.code for p in state.players.values() for f in p.known}
    out = set(game.pack)
    if seat is not None and not game.view(seat).looked:      # its own cards, unseen (Guerra Fria ...)
        out |= set(game.hands[seat])
    for s in game.names:
        if s == seat:
            continue
        partner = seat is not None and game.names.index(s) % 2 == game.names.index(seat) % 2
        if not (partner and state.mode == "fim" and state.fim_side == game.names.index(seat) % 2):
            out |= set(game.hands[s]) - public
        out |= set(game.down[s]) - public
    return out


def receive_until(ws, version):
    """The next view at ``version`` or later (and whatever else came first)."""
    others = []
    while True:
        m = ws.receive_json()
        if m.get("type") == "view" and m["room"]["version"] >= version:
            return m, others
        others.append(m)


# ---------------------------------------------------------------------------- playing
def test_four_phones_play_to_the_end_and_nobody_sees_a_card_they_may_not(env):
    client, clock, _ = env
    code, tokens = room(client, players=4)
    with seated(client, code, tokens, (0, 1, 2, 3, None)) as sockets:
        names = [s["name"] for s in view(client, code)["room"]["seats"]]
        checked = 0
        for step in range(600):
            version = view(client, code)["room"]["version"]
            latest = {seat: receive_until(ws, version)[0] for seat, ws in sockets.items()}
            game = game_at(client, code, latest[None]["room"]["moves"])
            for seat, message in latest.items():
                name = names[seat] if seat is not None else None
                leaked = cards_in(message) & hidden_from(game, name)
                assert not leaked, f"{name or 'a spectator'} was shown {leaked} (seed {game.seed}, move {step})"
                if seat is None:
                    assert "hand" not in message["table"] and message["moves"] == []
                else:
                    assert message["table"]["hand"] == [c if message["table"]["looked"] else None
                                                        for c in game.hands[name]]
                checked += 1
            if latest[None]["room"]["over"]:
                break
            waiting = latest[None]["waiting"]
            seat = names.index(waiting["seats"][0])
            move = latest[seat]["moves"][step % len(latest[seat]["moves"])]
            sockets[seat].send_text(json.dumps({"type": "act", "move": {k: v for k, v in move.items() if k != "label"}}))
        final = view(client, code)
        assert final["room"]["over"] and max(final["scores"]) >= 6 and final["result"]["winners"]
        assert checked > 100


def test_a_seat_acts_only_for_itself_and_a_spectator_not_at_all(env):
    client, clock, _ = env
    code, tokens = room(client, players=4)
    w = view(client, code, tokens[0])["waiting"]
    names = [s["name"] for s in view(client, code)["room"]["seats"]]
    seat = names.index(w["seats"][0])
    move = view(client, code, tokens[seat])["moves"][0]
    opponent = (seat + 1) % 4
    partner = (seat + 2) % 4
    before = view(client, code)["room"]["version"]
    r = act(client, code, tokens[opponent], move)
    assert r.status_code == 409 and "decision" in r.json()["detail"]
    if w["kind"] not in ("answer", "fim"):           # only an answer may come from either partner
        assert act(client, code, tokens[partner], move).status_code == 409
    assert act(client, code, None, move).status_code == 401
    r = act(client, code, "not-a-token", move)
    assert r.status_code == 403 and "token" in r.json()["detail"]
    assert view(client, code)["room"]["version"] == before
    assert view(client, code, tokens[opponent])["moves"] == []
    assert act(client, code, tokens[seat], move).status_code == 200


def test_a_repeated_id_is_answered_again_and_played_once(env):
    client, clock, _ = env
    code, tokens = room(client)
    w = view(client, code, tokens[0])["waiting"]
    names = ["Alex", "Olivia"]
    seat = names.index(w["seats"][0])
    move = view(client, code, tokens[seat])["moves"][0]
    first = act(client, code, tokens[seat], move, id="tap-1")
    moves = view(client, code)["room"]["moves"]
    again = act(client, code, tokens[seat], move, id="tap-1")
    assert first.status_code == again.status_code == 200 and first.json() == again.json()
    assert view(client, code)["room"]["moves"] == moves


def test_a_partners_suggestion_reaches_the_partner_only(env):
    client, clock, _ = env
    code, tokens = room(client, players=4)
    with seated(client, code, tokens, range(4)) as sockets:
        names = [s["name"] for s in view(client, code)["room"]["seats"]]
        deciding = names.index(view(client, code)["waiting"]["seats"][0])
        partner = (deciding + 2) % 4
        offered = view(client, code, tokens[partner])["suggest"]       # what the deciding seat may do
        assert offered and view(client, code, tokens[deciding])["moves"]
        r = client.post(f"/api/rooms/{code}/suggest", json={"move": {k: x for k, x in offered[0].items() if k != "label"}},
                        headers={"X-Seat-Token": tokens[partner]})
        assert r.status_code == 200 and r.json()["shown_to"] == [names[deciding]]
        for seat, ws in sockets.items():
            ws.send_text(json.dumps({"type": "ping"}))
            seen = []
            while True:
                m = ws.receive_json()
                if m["type"] == "pong":
                    break
                seen.append(m["type"])
            assert ("suggestion" in seen) == (seat == deciding), (seat, seen)


# ---------------------------------------------------------------------------- timers
def decide_until(client, code, tokens, kind, limit=200):
    """Pass, or play the first move, until the table waits for ``kind``; the view then."""
    names = [s["name"] for s in view(client, code)["room"]["seats"]]
    for _ in range(limit):
        v = view(client, code)
        if v["waiting"]["kind"] == kind:
            return v
        seat = names.index(v["waiting"]["seats"][0])
        moves = view(client, code, tokens[seat])["moves"]
        move = next((m for m in moves if m["kind"] == "pass"), moves[0])
        assert act(client, code, tokens[seat], move).status_code == 200
    raise AssertionError(f"never waited for {kind}")


def wait_for(client, code, check, clock=None, step=0.0, tries=400):
    import time
    for _ in range(tries):
        v = view(client, code)
        if check(v):
            return v
        if clock is not None:
            clock.t += step
        time.sleep(0.01)
    raise AssertionError(f"never happened; last view: {v.get('waiting')}")


def test_no_card_in_30_seconds_plays_the_weakest_face_up(env):
    client, clock, _ = env
    code, tokens = room(client)
    v = decide_until(client, code, tokens, "turn")
    names = ["Alex", "Olivia"]
    seat = names.index(v["waiting"]["seats"][0])
    assert v["waiting"]["deadline"] - v["waiting"]["since"] == 30
    game = game_at(client, code, v["room"]["moves"])
    hand = list(game.hands[names[seat]])
    clock.t += 29
    assert view(client, code)["room"]["moves"] == v["room"]["moves"]
    clock.t += 2
    after = wait_for(client, code, lambda x: x["room"]["moves"] > v["room"]["moves"])
    _, doc = client.app.state.rooms.rooms.load(code)
    done = doc["moves"][v["room"]["moves"]]
    assert done["by"] == "timer" and done["move"]["kind"] == "flip" and not done["move"].get("down")
    assert game.values[hand[done["move"]["slot"]]] == min(game.values[c] for c in hand)
    assert after["room"]["version"] > v["room"]["version"]
    # the phones read that the timer played it, not the player
    weakest = min(game.values[c] for c in hand)
    assert f"Time ran out for {names[seat]}: the weakest card, {weakest}, is played face up." in after["rulings"]


def test_an_ofensiva_unanswered_in_30_seconds_is_refused(env):
    client, clock, _ = env
    code, tokens = room(client)
    names = ["Alex", "Olivia"]
    for _ in range(20):
        v = decide_until(client, code, tokens, "turn")
        seat = names.index(v["waiting"]["seats"][0])
        raise_move = next((m for m in view(client, code, tokens[seat])["moves"] if m["kind"] == "raise"), None)
        if raise_move:
            break
        move = view(client, code, tokens[seat])["moves"][0]
        act(client, code, tokens[seat], move)
    scores = list(v["scores"])
    assert act(client, code, tokens[seat], raise_move).status_code == 200
    v = view(client, code)
    assert v["waiting"]["kind"] == "answer" and v["waiting"]["deadline"] - v["waiting"]["since"] == 30
    clock.t += 31
    after = wait_for(client, code, lambda x: x["room"]["moves"] > v["room"]["moves"])
    _, doc = client.app.state.rooms.rooms.load(code)
    assert doc["moves"][v["room"]["moves"]] == {**doc["moves"][v["room"]["moves"]], "by": "timer",
                                               "move": {"kind": "refuse"}}
    assert after["scores"][seat % 2] > scores[seat % 2]
    answering = names[1 - seat]
    assert f"Time ran out for {answering}: the Ofensiva is refused." in after["rulings"]


def test_two_minutes_offline_an_npc_takes_the_seat_and_gives_it_back(env):
    client, clock, _ = env
    code, tokens = room(client)
    with client.websocket_connect(f"ws://localhost/ws/rooms/{code}") as alex:
        alex.send_text(json.dumps({"token": tokens[0]}))
        alex.receive_json()
        with client.websocket_connect(f"ws://localhost/ws/rooms/{code}") as olivia:
            olivia.send_text(json.dumps({"token": tokens[1]}))
            olivia.receive_json()
            assert [s["online"] for s in view(client, code)["room"]["seats"]] == [True, True]
        clock.t += 119
        v = wait_for(client, code, lambda x: not x["room"]["seats"][1]["online"])
        assert v["room"]["seats"][1]["by"] == "player"
        clock.t += 2
        v = wait_for(client, code, lambda x: x["room"]["seats"][1]["by"] == "npc")
        assert v["room"]["seats"][1]["away"] and v["room"]["seats"][0]["by"] == "player"
        assert all(r["code"] != code for r in client.get("/api/rooms").json()["rooms"])  # held for Olivia
        # the NPC plays Olivia's decisions, each after a short pause
        for _ in range(20):
            v = view(client, code)
            if v["waiting"]["seats"] == ["Olivia"]:
                clock.t += 1.1
                wait_for(client, code, lambda x: x["room"]["moves"] > v["room"]["moves"])
                break
            moves = view(client, code, tokens[0])["moves"]
            act(client, code, tokens[0], next((m for m in moves if m["kind"] == "pass"), moves[0]))
        _, doc = client.app.state.rooms.rooms.load(code)
        assert doc["moves"][-1]["by"] == "npc" and doc["moves"][-1]["seat"] == "Olivia"
        with client.websocket_connect(f"ws://localhost/ws/rooms/{code}") as olivia:
            olivia.send_text(json.dumps({"token": tokens[1]}))
            back = olivia.receive_json()
            assert back["room"]["you"] == 1 and back["room"]["seats"][1]["by"] == "player"
            assert not back["room"]["seats"][1]["away"]


def test_a_room_against_npcs_plays_itself_when_its_player_waits(env):
    client, clock, _ = env
    code, tokens = room(client, players=4, npc=(1, 2, 3))
    again = client.post(f"/api/rooms/{code}/again", headers={"X-Seat-Token": tokens[0]})
    assert again.status_code == 409 and "still being played" in again.json()["detail"]
    v = wait_for(client, code, lambda x: x["room"]["over"], clock, 31.0, tries=3000)
    _, doc = client.app.state.rooms.rooms.load(code)
    by = {m["by"] for m in doc["moves"]}
    assert by == {"npc", "timer"} and max(v["scores"]) >= 6
    # the creator starts another game at the same table: a new shuffle, nothing played yet
    assert client.post(f"/api/rooms/{code}/again").status_code == 403
    assert client.post(f"/api/rooms/{code}/again", headers={"X-Seat-Token": tokens[0]}).status_code == 200
    fresh = view(client, code, tokens[0])
    assert not fresh["room"]["over"] and fresh["room"]["moves"] == 0 and fresh["scores"] == [0, 0]
    assert fresh["waiting"] and client.app.state.rooms.rooms.load(code)[1]["seed"] != doc["seed"]


# ---------------------------------------------------------------------------- joining, listing, restarting
def test_joining_listing_and_taking_an_npcs_seat(env):
    client, clock, _ = env
    made = client.post("/api/rooms", json={"name": "Alex", "players": 4, "npc_seats": [3]}).json()
    code = made["code"]
    listed = {r["code"]: r for r in client.get("/api/rooms").json()["rooms"]}
    assert listed[code]["free"] == [1, 2, 3] and not listed[code]["started"]
    assert client.post(f"/api/rooms/{code}/join", json={"name": "alex"}).status_code == 409   # the same name
    olivia = client.post(f"/api/rooms/{code}/join", json={"name": "Olivia", "seat": 1}).json()
    r = client.post(f"/api/rooms/{code}/start", json={}, headers={"X-Seat-Token": made["token"]})
    assert r.status_code == 409 and "Seat 3" in r.json()["detail"]
    client.post(f"/api/rooms/{code}/start", json={"fill": True}, headers={"X-Seat-Token": made["token"]})
    listed = {r["code"]: r for r in client.get("/api/rooms").json()["rooms"]}
    assert listed[code]["started"] and listed[code]["free"] == [2, 3]
    sam = client.post(f"/api/rooms/{code}/join", json={"name": "Sam", "seat": 3}).json()
    v = view(client, code, sam["token"])
    assert v["room"]["you"] == 3 and v["room"]["seats"][3] | {} == {**v["room"]["seats"][3], "by": "player",
                                                                    "name": "NPC 4", "player": "Sam"}
    assert "hand" in v["table"]
    # the table still calls the seat NPC 4 at the referee, but whatever a person reads names Sam
    assert v["room"]["seats"][3]["shown"] == "Sam" and "Sam" in " ".join(v["side_names"])
    tokens = [made["token"], olivia["token"], None, sam["token"]]
    names = [x["name"] for x in v["room"]["seats"]]
    for _ in range(300):                       # play on (the NPC on the clock) until Sam's seat is in a ruling
        v = view(client, code, sam["token"])
        if any("Sam" in t for t in v["rulings"]) or v["room"]["over"]:
            break
        seat = names.index(v["waiting"]["seats"][0])
        if tokens[seat] is None:
            clock.t += 5
            time.sleep(0.01)
            continue
        moves = view(client, code, tokens[seat])["moves"]
        act(client, code, tokens[seat], next((m for m in moves if m["kind"] == "pass"), moves[0]))
    words = v["rulings"] + [v["prompt"]] + v["side_names"]
    assert not [w for w in words if "NPC 4" in w] and any("Sam" in w for w in words), words
    r = client.post(f"/api/rooms/{code}/join", json={"name": "Mia", "seat": 1})
    assert r.status_code == 409 and "not free" in r.json()["detail"]


def test_bad_requests_get_a_sentence_and_change_nothing(env):
    client, clock, _ = env
    assert client.get("/api/rooms/QQQQ").status_code == 404
    assert "no room" in client.get("/api/rooms/QQQQ").json()["detail"]
    for body in ({"name": "Alex", "players": 3}, {"name": "Alex", "level": "expert"}, {"name": ""},
                 {"name": "Alex", "npc_seats": [0]}, {"name": "Alex", "options": {"jokers": "yes"}},
                 {"name": "x" * 25}, {"name": "Al\u202eex"}):
        r = client.post("/api/rooms", json=body)
        assert r.status_code == 422 and r.json()["detail"], body
    code, tokens = room(client)
    v = view(client, code)
    names = ["Alex", "Olivia"]
    seat = names.index(v["waiting"]["seats"][0])
    for move in ({"kind": "fly"}, {"kind": "flip", "slot": 2, "down": True, "parity": "odd"}):
        r = act(client, code, tokens[seat], move)
        assert r.status_code == 409 and r.json()["detail"]
    assert act(client, code, tokens[seat], {"kind": "flip", "slot": 9}).status_code == 422
    assert view(client, code)["room"]["version"] == v["room"]["version"]
    with client.websocket_connect(f"ws://localhost/ws/rooms/{code}") as ws:
        ws.send_text(json.dumps({"token": "stolen"}))
        m = ws.receive_json()
        assert m["type"] == "error" and m["status"] == 403
    with client.websocket_connect(f"ws://localhost/ws/rooms/{code}") as ws:
        ws.send_text(json.dumps({"token": tokens[seat]}))
        ws.receive_json()
        ws.send_text("{not json")
        m = ws.receive_json()
        while m["type"] == "view":
            m = ws.receive_json()
        assert m["type"] == "error" and m["status"] == 400
    assert client.get(f"/api/rooms/{code}/qr.svg").headers["content-type"] == "image/svg+xml"


def test_a_restarted_server_has_every_room_hand_and_timer(tmp_path):
    clock = Clock()
    with TestClient(create_app(tmp_path / "w.db", "1357", now=clock, tick_s=0.01), base_url="http://localhost") as c:
        code, tokens = room(c, players=4)
        v = decide_until(c, code, tokens, "turn")
        before = {seat: view(c, code, t) for seat, t in tokens.items()}
    clock.t += 10
    with TestClient(create_app(tmp_path / "w.db", "1357", now=clock, tick_s=0.01), base_url="http://localhost") as c:
        after = {seat: view(c, code, t) for seat, t in tokens.items()}
        for seat in tokens:
            assert after[seat]["table"] == before[seat]["table"]
            assert after[seat]["moves"] == before[seat]["moves"]
            assert after[seat]["waiting"]["deadline"] == v["waiting"]["deadline"]     # the same 20 s left
        clock.t += 21
        wait_for(c, code, lambda x: x["room"]["moves"] > v["room"]["moves"])


# ---------------------------------------------------------------------------- several processes
def test_two_servers_share_rooms_through_a_real_redis_and_fire_each_timer_once(tmp_path, redis_url):
    """Two apps (as two `warref serve --redis` processes would be) on one real redis-server."""
    clock = Clock()
    apps = [create_app(tmp_path / f"{k}.db", "1357", now=clock, tick_s=0.01, redis_url=redis_url) for k in "ab"]
    with TestClient(apps[0], base_url="http://localhost") as a, TestClient(apps[1], base_url="http://localhost") as b:
        code, tokens = room(a)
        assert view(b, code, tokens[1])["room"]["you"] == 1
        with b.websocket_connect(f"ws://localhost/ws/rooms/{code}") as ws:
            ws.send_text(json.dumps({"token": tokens[1]}))
            first = ws.receive_json()
            v = decide_until(a, code, tokens, "turn")          # every move made through server a
            pushed, _ = receive_until(ws, v["room"]["version"])
            assert pushed["room"]["moves"] == v["room"]["moves"] > first["room"]["moves"]
            clock.t += 31                                        # both servers' clocks see it due
            wait_for(b, code, lambda x: x["room"]["moves"] > v["room"]["moves"])
            import time
            time.sleep(0.3)                                      # time for a second firing, were there one
            _, doc = apps[0].state.rooms.rooms.load(code)
            assert [m["by"] for m in doc["moves"][v["room"]["moves"]:]] == ["timer"]


def test_in_guerra_fria_a_seat_is_not_told_its_own_cards(tmp_path):
    """Nobody looks at their cards in Guerra Fria: not in the hand, not in a button's label."""
    import random

    from web.rooms import Rooms, SQLiteRoomStore
    rooms = Rooms(SQLiteRoomStore(tmp_path / "r.db"), now=Clock())
    rng = random.Random(0)
    for _ in range(60):
        made = rooms.create("Alex")
        tokens = [made["token"], rooms.join(made["code"], "Olivia")["token"]]
        rooms.start(made["code"], tokens[0])
        while True:
            views = [rooms.view(made["code"], t) for t in tokens]
            if views[0]["room"]["over"]:
                break
            if views[0]["table"]["mode"] == "fria" and views[0]["waiting"]["kind"] == "turn":
                for v in views:
                    game = rooms.game(rooms.load(made["code"])[1])
                    mine = game.hands[v["room"]["seats"][v["room"]["you"]]["name"]]
                    assert v["table"]["hand"] == [None] * len(mine)
                    assert not cards_in(v) & set(mine), v["moves"]
                return
            seat = next(i for i, v in enumerate(views) if v["waiting"]["yours"])
            move = rng.choice(views[seat]["moves"])
            rooms.act(made["code"], tokens[seat], {k: x for k, x in move.items() if k != "label"})
    pytest.fail("no game reached Guerra Fria")


def test_the_phones_of_a_killed_process_count_as_offline_once_its_heartbeat_runs_out(redis_url):
    import secrets
    import time

    from web.rooms import Rooms
    from web.rooms_redis import RedisRoomStore
    prefix = f"t{secrets.token_hex(4)}"
    clock = Clock()
    a, b = (Rooms(RedisRoomStore(redis_url, prefix=prefix), now=clock) for _ in range(2))
    made = a.create("Alex")
    olivia = a.join(made["code"], "Olivia")
    a.start(made["code"], made["token"])
    a.connect(made["code"], 1, +1)                    # Olivia's phone is connected to process a
    for rooms in (a, b):
        rooms.store.heartbeat(rooms.process, 15)
    assert b.forget_dead(b.store.alive()) == 0
    assert b.view(made["code"], olivia["token"])["room"]["seats"][1]["online"]
    a.store.heartbeat(a.process, 0.001)               # process a is killed: its heartbeat runs out
    time.sleep(0.05)
    assert b.forget_dead(b.store.alive()) == 1
    seat = b.view(made["code"], olivia["token"])["room"]["seats"][1]
    assert not seat["online"] and seat["by"] == "player"
    clock.t += 121                                    # and two minutes later an NPC takes the seat
    b.tick()
    assert b.view(made["code"])["room"]["seats"][1]["by"] == "npc"
    for rooms in (a, b):
        rooms.store.close()


def test_a_room_whose_saved_moves_no_longer_play_says_so_and_is_left_as_it_is(env):
    client, clock, _ = env
    code, tokens = room(client)
    store = client.app.state.rooms.rooms.store
    version, doc = store.load(code)
    doc["moves"].append({"seat": "Nobody", "move": {"kind": "pass"}, "by": "player", "at": clock.t})
    assert store.save(code, version, doc, None)
    client.app.state.rooms.rooms.games.clear()
    r = client.get(f"/api/rooms/{code}", headers={"X-Seat-Token": tokens[0]})
    assert r.status_code == 500 and "no longer play" in r.json()["detail"]
    assert store.load(code) == (version + 1, doc)
    assert client.get("/api/rooms").status_code == 200


def test_a_taken_over_seat_is_named_as_its_player_in_every_word():
    from web.rooms import shown_names
    say = shown_names([{"name": "Alex"}, {"name": "NPC 2", "player": "Nina"}, {"name": "NPC 3"}])
    assert say("NPC 2 and NPC 4 refuse; NPC 2's 7 beats NPC 3's 5.") == "Nina and NPC 4 refuse; Nina's 7 beats NPC 3's 5."
    assert shown_names([{"name": "Alex"}])("NPC 2 plays") == "NPC 2 plays"


def test_a_room_nobody_has_been_connected_to_for_a_day_goes_and_frees_its_code(env):
    client, clock, _ = env
    made = client.post("/api/rooms", json={"name": "Alex", "players": 4}).json()
    listed = lambda: [r["code"] for r in client.get("/api/rooms").json()["rooms"]]   # noqa: E731
    assert made["code"] in listed()
    clock.t += 24 * 3600 - 5
    assert made["code"] in listed()
    joined = client.post(f"/api/rooms/{made['code']}/join", json={"name": "Olivia"}).json()   # a day counts again
    with client.websocket_connect(f"ws://localhost/ws/rooms/{made['code']}") as ws:   # and a connected phone
        ws.send_text(json.dumps({"token": joined["token"]}))
        ws.receive_json()
        clock.t += 3 * 24 * 3600
        time.sleep(0.1)
        assert made["code"] in listed()
    clock.t += 24 * 3600 - 5
    time.sleep(0.1)
    assert made["code"] in listed()
    clock.t += 10
    # the clock deletes it: gone from the lobby and the store, its code no room's
    for _ in range(200):
        if client.app.state.rooms.rooms.store.load(made["code"]) is None:
            break
        time.sleep(0.01)
    assert client.get(f"/api/rooms/{made['code']}").status_code == 404
    assert made["code"] not in listed()
    assert client.app.state.rooms.rooms.store.load(made["code"]) is None


def test_joining_without_a_seat_takes_an_open_one_before_an_npcs(env):
    client, clock, _ = env
    made = client.post("/api/rooms", json={"name": "Alex", "players": 4, "npc_seats": [1]}).json()
    code = made["code"]
    olivia = client.post(f"/api/rooms/{code}/join", json={"name": "Olivia"}).json()
    assert olivia["seat"] == 2                        # the empty chair beside Alex, not NPC 2's on the other team
    sam = client.post(f"/api/rooms/{code}/join", json={"name": "Sam"}).json()
    assert sam["seat"] == 3
    # no open seat left: a seat moves only to an open one, and only before the start
    r = client.post(f"/api/rooms/{code}/seat", json={"seat": 1}, headers={"X-Seat-Token": olivia["token"]})
    assert r.status_code == 409 and "Seat 2 is not open" in r.json()["detail"]
    assert client.post(f"/api/rooms/{code}/start", json={}, headers={"X-Seat-Token": made["token"]}).status_code == 200
    r = client.post(f"/api/rooms/{code}/seat", json={"seat": 0}, headers={"X-Seat-Token": sam["token"]})
    assert r.status_code == 409 and "has started" in r.json()["detail"]


def test_a_seat_moved_keeps_its_token_its_name_and_the_creators_right_to_start(env):
    client, clock, _ = env
    made = client.post("/api/rooms", json={"name": "Alex", "players": 4}).json()
    code = made["code"]
    mia = client.post(f"/api/rooms/{code}/join", json={"name": "Mia", "seat": 1}).json()
    r = client.post(f"/api/rooms/{code}/seat", json={"seat": 2}, headers={"X-Seat-Token": mia["token"]})
    assert r.status_code == 200 and r.json()["seat"] == 2
    v = view(client, code, mia["token"])
    assert v["room"]["you"] == 2 and [s["by"] for s in v["room"]["seats"]] == ["player", "open", "player", "open"]
    assert v["room"]["seats"][2]["name"] == "Mia" and v["room"]["seats"][2]["side"] == 0     # Alex's partner now
    r = client.post(f"/api/rooms/{code}/seat", json={"seat": 3}, headers={"X-Seat-Token": made["token"]})
    assert r.status_code == 200
    v = view(client, code, made["token"])
    assert v["room"]["you"] == 3 and v["room"]["creator"]
    assert client.post(f"/api/rooms/{code}/seat", json={"seat": 9},
                       headers={"X-Seat-Token": made["token"]}).status_code == 422
    assert client.post(f"/api/rooms/{code}/seat", json={"seat": 0}).status_code == 401     # a spectator
    r = client.post(f"/api/rooms/{code}/start", json={"fill": True}, headers={"X-Seat-Token": made["token"]})
    assert r.status_code == 200


def test_the_view_says_whether_the_confrontos_cards_are_dealt(env):
    client, clock, _ = env
    code, tokens = room(client)
    v = view(client, code, tokens[0])
    assert v["waiting"]["kind"] == "cut" and v["dealt"] is False      # no seat holds cards before the cut
    seat = ["Alex", "Olivia"].index(v["waiting"]["seats"][0])
    moves = view(client, code, tokens[seat])["moves"]
    act(client, code, tokens[seat], next(m for m in moves if m["kind"] == "pass"))
    assert view(client, code, tokens[0])["dealt"] is True


# ---------------------------------------------------------------------------- the coach
def hint(client, code, token):
    return client.post(f"/api/rooms/{code}/hint", headers={"X-Seat-Token": token} if token else {})


def test_the_coach_is_on_against_npcs_and_off_with_people_until_the_creator_says(env):
    client, clock, _ = env
    alone, alone_tokens = room(client, players=2, npc=(1,))
    assert view(client, alone, alone_tokens[0])["room"]["coach"] is True
    code, tokens = room(client, players=4)
    assert view(client, code, tokens[1])["room"]["coach"] is False
    names = [s["name"] for s in view(client, code)["room"]["seats"]]
    deciding = names.index(view(client, code)["waiting"]["seats"][0])
    r = hint(client, code, tokens[deciding])
    assert r.status_code == 403 and "creator" in r.json()["detail"]
    other = next(s for s in tokens if s != 0)
    r = client.post(f"/api/rooms/{code}/coach", json={"on": True}, headers={"X-Seat-Token": tokens[other]})
    assert r.status_code == 403 and view(client, code)["room"]["coach"] is False
    r = client.post(f"/api/rooms/{code}/coach", json={"on": True}, headers={"X-Seat-Token": tokens[0]})
    assert r.status_code == 200 and view(client, code)["room"]["coach"] is True
    made = client.post("/api/rooms", json={"name": "Zoe", "players": 2, "coach": True}).json()
    assert view(client, made["code"], made["token"])["room"]["coach"] is True


def test_a_hint_is_one_of_the_seat_s_own_moves_now_and_names_no_hidden_card(env):
    client, clock, _ = env
    code, tokens = room(client, players=4)
    client.post(f"/api/rooms/{code}/coach", json={"on": True}, headers={"X-Seat-Token": tokens[0]})
    with seated(client, code, tokens, range(4)):              # every phone online: no NPC takes a seat
        names = [s["name"] for s in view(client, code)["room"]["seats"]]
        hints = 0
        for step in range(60):
            v = view(client, code)
            if v["room"]["over"]:
                break
            seat = names.index(v["waiting"]["seats"][0])
            idle = next(s for s in range(4) if names[s] not in v["waiting"]["seats"])
            r = hint(client, code, tokens[idle])
            assert r.status_code == 409 and "your decision" in r.json()["detail"]
            moves = view(client, code, tokens[seat])["moves"]
            clock.t += 4                                             # past the hint limit's refill
            r = hint(client, code, tokens[seat])
            assert r.status_code == 200, r.text
            advice = r.json()
            assert advice["move"] in moves and advice["text"].endswith(".")
            game = game_at(client, code, v["room"]["moves"])
            words = set(re.findall(r"(?:\byour|\bthe|'s) (1[0-2]|[1-9])\b(?!%)", advice["text"]))
            seat_view = game.view(names[seat])
            seen = set(game.values) - set(seat_view.unseen()) - hidden_from(game, names[seat])
            assert words <= {str(game.values[c]) for c in seen}, advice["text"]
            r = act(client, code, tokens[seat], advice["move"])
            assert r.status_code == 200, r.text
            hints += 1
    assert hints >= 10
    r = hint(client, code, None)
    assert r.status_code == 401


def test_an_npc_moves_after_the_pause_the_server_was_given(tmp_path):
    """`warref serve --npc-pause S` (create_app's ``npc_pause``): a room's NPC makes its move S seconds
    after its turn comes, not before."""
    clock = Clock()
    with TestClient(create_app(tmp_path / "w.db", "1357", now=clock, tick_s=0.01, npc_pause=3.0),
                    base_url="http://localhost") as client:
        rooms = client.app.state.rooms.rooms
        code, tokens = room(client, players=2, npc=(1,))
        for _ in range(200):                       # the person's turns pass by their timer until the NPC's comes
            waiting = view(client, code)["waiting"]
            if waiting["seats"] == ["NPC 2"]:
                break
            clock.t = waiting["deadline"]
            time.sleep(0.02)
        assert waiting["seats"] == ["NPC 2"] and waiting["deadline"] - waiting["since"] == 3.0
        moves = len(rooms.load(code)[1]["moves"])
        clock.t = waiting["since"] + 2.9           # not yet
        time.sleep(0.1)
        assert len(rooms.load(code)[1]["moves"]) == moves
        clock.t = waiting["since"] + 3.0           # now
        wait_for(client, code, lambda v: len(rooms.load(code)[1]["moves"]) > moves)


def test_serve_refuses_an_npc_pause_out_of_range(tmp_path, capsys):
    from web import cli
    assert cli.main(["serve", "--npc-pause", "-1", "--db", str(tmp_path / "w.db"), "--no-qr"]) == 2
    assert capsys.readouterr().err.strip() == "warref serve: --npc-pause is seconds from 0 to 60"
    assert not (tmp_path / "w.db").exists()
