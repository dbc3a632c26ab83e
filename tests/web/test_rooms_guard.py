"""Issue 60, the rooms a stranger on the same network can reach (points 4-7 and 9): NPC names no player
can take, limits on making, joining and guessing rooms, rooms that go when nobody has been there for
a day, the lobby in pages, answer ids of one seat, create and join safe to retry, one name rule, and
suggestions that are moves. Through the HTTP API and the WebSockets of a real app, on the SQLite
store and on a real redis-server (tests/conftest.py) where the store is involved."""
from __future__ import annotations

import json
import re
import sqlite3
import time
import unicodedata

import pytest
import redis
from fastapi.testclient import TestClient

from referee import Table
from referee.errors import SetupError
from referee.names import alike, clean, find_alike
from test_rooms import Clock, act, room, seated, view
from web.rooms import CODE_LENGTH, SQLiteRoomStore
from web.server import create_app

BASE = "http://localhost"
DAY = 24 * 3600


def redis_db(redis_url: str, n: int) -> str:
    """The test Redis's database ``n``, emptied: each test's rooms, buckets and counters its own."""
    url = redis_url.rsplit("/", 1)[0] + f"/{n}"
    redis.Redis.from_url(url).flushdb()
    return url


@pytest.fixture(params=["sqlite", "redis"])
def env(request, tmp_path):
    """A real app on the SQLite store or on a real redis-server; the fake clock; a function that makes
    another client of the same app from another address."""
    clock = Clock()
    url = redis_db(request.getfixturevalue("redis_url"), 7) if request.param == "redis" else None
    app = create_app(tmp_path / "warref.db", "1357", now=clock, tick_s=0.01, redis_url=url)
    with TestClient(app, base_url=BASE) as client:
        yield client, clock, lambda ip: TestClient(app, base_url=BASE, client=(ip, 40000))
    app.state.rooms.rooms.store.close()


def make(client, name="Alex", players=2, **kw):
    return client.post("/api/rooms", json={"name": name, "players": players, **kw})


# ---------------------------------------------------------------------------- 4: NPC names
def test_nobody_takes_an_npcs_name_so_nobody_blocks_the_start_with_npcs(env):
    client, clock, _ = env
    made = make(client, players=4).json()
    code = made["code"]
    for name in ("npc 4", "NPC 2", "Npc4", "N\u0420C 4", "ＮＰＣ ４"):        # any case, Cyrillic Р, full width
        r = client.post(f"/api/rooms/{code}/join", json={"name": name, "seat": 1})
        assert r.status_code == 422 and "what this table calls an NPC" in r.json()["detail"], (name, r.text)
    r = make(client, name="NPC 2")                                          # a creator neither
    assert r.status_code == 422 and "NPC 2 is what this table calls an NPC" in r.json()["detail"]
    assert client.post(f"/api/rooms/{code}/join", json={"name": "Olivia", "seat": 1}).status_code == 200
    r = client.post(f"/api/rooms/{code}/start", json={"fill": True}, headers={"X-Seat-Token": made["token"]})
    assert r.status_code == 200, r.text
    assert [s["name"] for s in view(client, code)["room"]["seats"]] == ["Alex", "Olivia", "NPC 3", "NPC 4"]


def test_a_room_saved_with_a_seat_named_like_an_npc_says_why_it_cant_start_never_a_500(env):
    """A room written before the rule (a seat called npc 4) gets a sentence at the start, not a 500."""
    client, clock, _ = env
    made = make(client, players=4).json()
    store = client.app.state.rooms.rooms.store
    version, doc = store.load(made["code"])
    doc["seats"][1].update(name="npc 4", by="player")
    assert store.save(made["code"], version, doc, None)
    r = client.post(f"/api/rooms/{made['code']}/start", json={"fill": True}, headers={"X-Seat-Token": made["token"]})
    assert r.status_code == 409 and "same name" in r.json()["detail"], r.text
    assert client.get(f"/api/rooms/{made['code']}").status_code == 200


# ---------------------------------------------------------------------------- 5: flooding and guessing
def test_making_rooms_is_limited_per_device_and_for_everyone(env):
    client, clock, other = env
    for _ in range(10):
        assert make(client).status_code == 200
    r = make(client)
    assert r.status_code == 429 and "This device has made many rooms" in r.json()["detail"]
    assert 1 <= int(r.headers["retry-after"]) <= 60
    assert make(other("198.51.100.7")).status_code == 200                   # another device may
    clock.t += 60
    assert make(client).status_code == 200                                  # one a minute again
    assert make(client).status_code == 429
    # everyone together: 100 at once (then one every 6 s), however many addresses make them
    made = 12
    for k in range(20):
        device = other(f"203.0.113.{k + 1}")
        for _ in range(10):
            r = make(device)
            if r.status_code != 200:
                break
            made += 1
        if r.status_code == 429:
            break
    assert r.status_code == 429 and "Many rooms have been made on this server" in r.json()["detail"], r.text
    assert made == 100 + 10, made           # 10 refilled in the 60 s the clock went on
    assert int(r.headers["retry-after"]) <= 6


def test_codes_are_six_long_and_trying_codes_that_no_room_has_is_limited(env):
    client, clock, other = env
    made = make(client).json()
    assert len(made["code"]) == CODE_LENGTH == 6
    guesser = other("192.0.2.9")
    for k in range(20):
        r = guesser.get(f"/api/rooms/QQQQ{k:02d}")
        assert r.status_code == 404, r.text
    # the allowance spent: every code is refused alike, a room's code too (a hit can't be told from a miss)
    for path in ("/api/rooms/QQQQ99", f"/api/rooms/{made['code']}", f"/api/rooms/{made['code']}/qr.svg"):
        r = guesser.get(path)
        assert r.status_code == 429 and "room codes that do not exist" in r.json()["detail"], (path, r.text)
        assert int(r.headers["retry-after"]) <= 30
    r = guesser.post(f"/api/rooms/{made['code']}/join", json={"name": "Mia"})
    assert r.status_code == 429
    with guesser.websocket_connect(f"ws://localhost/ws/rooms/{made['code']}") as ws:
        ws.send_text(json.dumps({"token": None}))
        assert ws.receive_json()["status"] == 429
    assert client.get(f"/api/rooms/{made['code']}").status_code == 200      # other devices are not held up
    clock.t += 30
    assert guesser.get(f"/api/rooms/{made['code']}").status_code == 200    # one more try every 30 s
    assert guesser.get("/api/rooms/QQQQ98").status_code == 404
    assert guesser.get(f"/api/rooms/{made['code']}").status_code == 429


def test_joining_is_limited_per_device(env):
    client, clock, other = env
    codes = [make(other(f"198.51.100.{k}"), players=6).json()["code"] for k in range(5)]
    joiner = other("192.0.2.50")
    joined = 0
    for code in codes:
        for seat in range(1, 6):
            r = joiner.post(f"/api/rooms/{code}/join", json={"name": f"Kid{joined}", "seat": seat})
            if r.status_code != 200:
                break
            joined += 1
        if r.status_code != 200:
            break
    assert joined == 20 and r.status_code == 429 and "joined many rooms" in r.json()["detail"], (joined, r.text)
    clock.t += 15
    assert joiner.post(f"/api/rooms/{codes[-1]}/join", json={"name": "Late", "seat": 5}).status_code == 200


def test_a_room_nobody_is_connected_to_goes_after_a_day_from_the_store_and_its_indexes(env):
    client, clock, _ = env
    old = make(client, players=4).json()
    clock.t += DAY / 2
    young = make(client, players=4).json()
    alex = client.websocket_connect(f"ws://localhost/ws/rooms/{young['code']}").__enter__()
    try:
        alex.send_text(json.dumps({"token": young["token"]}))
        alex.receive_json()
        clock.t += DAY / 2 + 1
        rooms = client.app.state.rooms.rooms
        for _ in range(300):
            if rooms.store.load(old["code"]) is None:
                break
            time.sleep(0.01)
        assert rooms.store.load(old["code"]) is None and rooms.store.expired(clock.t + 10 * DAY) == []
        assert client.get(f"/api/rooms/{old['code']}").status_code == 404
        assert old["code"] not in rooms.store.codes()
        clock.t += 5 * DAY                     # a phone connected: the room stays, however long
        time.sleep(0.1)
        assert client.get(f"/api/rooms/{young['code']}").status_code == 200
    finally:
        alex.__exit__(None, None, None)
    clock.t += DAY + 1                         # and goes a day after its phone did
    for _ in range(300):
        if client.app.state.rooms.rooms.store.load(young["code"]) is None:
            break
        time.sleep(0.01)
    assert client.get(f"/api/rooms/{young['code']}").status_code == 404
    assert [r["code"] for r in client.get("/api/rooms").json()["rooms"]] == []


def test_the_lobby_comes_in_pages_newest_first(env):
    client, clock, other = env
    codes = []
    for k in range(25):
        codes.append(make(other(f"198.51.100.{k}"), players=4).json()["code"])
        clock.t += 1
    full = make(client).json()                                      # a 2-seat room with both seats taken
    client.post(f"/api/rooms/{full['code']}/join", json={"name": "Olivia"})
    seen, after, pages = [], None, 0
    while True:
        page = client.get("/api/rooms", params={"limit": 10, **({"after": after} if after else {})}).json()
        assert len(page["rooms"]) <= 10
        seen += [r["code"] for r in page["rooms"]]
        pages += 1
        after = page["next"]
        if after is None:
            break
    assert seen == codes[::-1] and pages == 3
    assert len(client.get("/api/rooms").json()["rooms"]) == 20                  # a page by default
    assert len(client.get("/api/rooms", params={"limit": 1000}).json()["rooms"]) == 25   # 50 at most
    assert client.get("/api/rooms", params={"after": "x'; DROP"}).status_code == 422


def test_the_clock_reads_only_the_rooms_somebody_is_connected_to(env):
    """The clock's 5-second look at connections reads the rooms a phone is connected to, not every room."""
    client, clock, other = env
    codes = [make(other(f"198.51.100.{k}"), players=4).json()["code"] for k in range(30)]
    made = make(client).json()
    rooms = client.app.state.rooms.rooms
    with client.websocket_connect(f"ws://localhost/ws/rooms/{made['code']}") as ws:
        ws.send_text(json.dumps({"token": made["token"]}))
        ws.receive_json()
        assert rooms.store.online() == [made["code"]]
        read = []
        load = rooms.store.load
        rooms.store.load = lambda code: read.append(code) or load(code)       # counts, changes nothing
        try:
            rooms.forget_dead(rooms.store.alive() | {rooms.process})
            rooms.sweep()
            rooms.tick()
        finally:
            rooms.store.load = load
        assert set(read) <= {made["code"]} and not set(read) & set(codes)


def test_a_room_with_a_four_letter_code_from_before_still_opens_lists_and_plays(tmp_path):
    """A database whose rooms table is from before (4-letter codes, no indexes) keeps its rooms."""
    clock = Clock()
    from web.rooms import Rooms
    rooms = Rooms(SQLiteRoomStore(tmp_path / "new.db"), now=clock)
    made = rooms.create("Alex", players=4)
    _, doc = rooms.load(made["code"])
    doc["code"] = "KX7M"
    db = sqlite3.connect(tmp_path / "old.db")
    db.execute("CREATE TABLE rooms (code TEXT PRIMARY KEY, version INTEGER NOT NULL, doc TEXT NOT NULL, due REAL)")
    db.execute("INSERT INTO rooms VALUES ('KX7M', 1, ?, NULL)", (json.dumps(doc),))
    db.commit()
    db.close()
    app = create_app(tmp_path / "old.db", "1357", now=clock, tick_s=0.01)
    with TestClient(app, base_url=BASE) as client:
        assert [r["code"] for r in client.get("/api/rooms").json()["rooms"]] == ["KX7M"]
        assert view(client, "kx7m", made["token"])["room"]["you"] == 0
        assert client.post("/api/rooms/KX7M/join", json={"name": "Olivia"}).status_code == 200
        clock.t += DAY + 1                                            # and it expires like any other
        for _ in range(300):
            if client.get("/api/rooms/KX7M").status_code == 404:
                break
            time.sleep(0.01)
        assert client.get("/api/rooms/KX7M").status_code == 404


# ---------------------------------------------------------------------------- 6: answer ids
def test_an_answer_id_answers_only_its_own_seat_and_never_without_a_token(env):
    client, clock, _ = env
    code, tokens = room(client)
    names = ["Alex", "Olivia"]
    for k in range(100):                  # until the other seat decides after a seat's move with an id
        a = names.index(view(client, code)["waiting"]["seats"][0])
        moves = view(client, code, tokens[a])["moves"]
        first = act(client, code, tokens[a], next((m for m in moves if m["kind"] == "pass"), moves[0]),
                    id=f"tap-{k:06d}")
        assert first.status_code == 200, first.text
        w = view(client, code)["waiting"]
        if w and names.index(w["seats"][0]) != a:
            break
    used, b = f"tap-{k:06d}", 1 - a
    made = view(client, code)["room"]["moves"]
    assert act(client, code, None, {"kind": "pass"}, id=used).status_code == 401     # no token: no answer
    assert act(client, code, "not-a-token", {"kind": "pass"}, id=used).status_code == 403
    legal = view(client, code, tokens[b])["moves"][0]
    r = act(client, code, tokens[b], legal, id=used)                  # seat A's id, seat B's legal move
    assert r.status_code == 200 and r.json()["move"] == made and r.json() != first.json(), r.text
    assert view(client, code)["room"]["moves"] == made + 1
    _, doc = client.app.state.rooms.rooms.load(code)
    assert doc["moves"][-1]["seat"] == names[b]
    assert act(client, code, tokens[b], legal, id=used).json() == r.json()      # B's retry: B's answer again
    assert view(client, code)["room"]["moves"] == made + 1


# ---------------------------------------------------------------------------- 7: create and join by id
def test_a_retried_create_or_join_gets_the_first_answer(env):
    client, clock, _ = env
    first = make(client, players=4, id="create-attempt-0001")
    again = make(client, players=4, id="create-attempt-0001")
    assert first.status_code == again.status_code == 200 and first.json() == again.json()
    listed = [r["code"] for r in client.get("/api/rooms").json()["rooms"]]
    assert listed == [first.json()["code"]]                                  # one room, not two
    header = client.post("/api/rooms", json={"name": "Alex"}, headers={"Idempotency-Key": "create-attempt-0002"})
    assert header.json() == client.post("/api/rooms", json={"name": "Alex"},
                                        headers={"Idempotency-Key": "create-attempt-0002"}).json()
    assert make(client, id="short").status_code == 422                      # an id is as secret as a token
    code = first.json()["code"]
    j1 = client.post(f"/api/rooms/{code}/join", json={"name": "Olivia", "id": "join-attempt-00001"})
    j2 = client.post(f"/api/rooms/{code}/join", json={"name": "Olivia", "id": "join-attempt-00001"})
    assert j1.status_code == j2.status_code == 200 and j1.json() == j2.json()
    v = view(client, code, j1.json()["token"])
    assert v["room"]["you"] == j1.json()["seat"] and [s["by"] for s in v["room"]["seats"]].count("player") == 2
    # without the id, a second join is a second player: the name is taken
    assert client.post(f"/api/rooms/{code}/join", json={"name": "Olivia"}).status_code == 409
    # retries cost nothing of the limits: 10 rooms more may still be made (the id's retries did not count)
    made = sum(make(client).status_code == 200 for _ in range(10))
    assert made == 8                                                          # 2 made above with new ids


# ---------------------------------------------------------------------------- 9: names and suggestions
def test_the_name_rule():
    assert clean("  Ana   Maria ") == "Ana Maria"
    assert clean("Jose\u0301") == "José" == unicodedata.normalize("NFC", "José")
    assert clean("Nguyễn") == "Nguyễn" and clean("❤️ Mia") == "❤️ Mia"
    for bad, why in (("A\u3164", "U+3164"), ("\u3164", "U+3164"), ("Al\u202eex", "U+202E"), ("Sam\x00", "U+0000"),
                     ("Sam\x1b[2J", "U+001B"), ("Ol\u200bivia", "U+200B"), ("Z" + "\u0336" * 23, "23 marks"),
                     ("\u0301Bo", "start with a mark"), ("x" * 25, "1-24 characters"), ("", "1-24 characters")):
        with pytest.raises(ValueError, match=re.escape(why)):
            clean(bad)
    for a, b in (("Alex", "\u0410lex"), ("Alex", "Ale\u0445"), ("Alex", "alex"), ("José", "Jose\u0301"),
                 ("Olivia", "0livia"), ("Ian", "lan")):
        assert alike(a, b), (a, b)
    for a, b in (("Leo", "Lea"), ("Mia", "Mía"), ("Ana", "Anna"), ("Sam", "Som")):
        assert not alike(a, b), (a, b)
    assert find_alike(["Mia", "Alex", "Sam", "\u0410lex"]) == ("Alex", "\u0410lex")


def test_the_referee_refuses_look_alike_and_invisible_names_for_every_game():
    for players, why in ((["Alex", "\u0410lex"], "look the same"), (["José", "Jose\u0301"], "same name"),
                         (["Alex", "Ale\u0445"], "Cyrillic Small Letter Ha"), (["Mia", "A\u3164"], "U+3164")):
        with pytest.raises(SetupError, match=re.escape(why)):
            Table("classic", players)
    assert Table("classic", ["Jose\u0301", "Mia"]).players == ["José", "Mia"]
    table = Table("classic", ["José", "Mia"])                  # an event naming the seat either way
    table.submit({"type": "flip", "seat": "Jose\u0301", "card": "KH"})
    assert table.log == [{"type": "flip", "seat": "José", "card": "KH"}]


def test_the_dashboard_and_the_rooms_use_the_name_rule(env):
    client, clock, _ = env
    r = client.post("/api/games", content=json.dumps({"game": "classic", "players": [{"name": "Alex"},
                                                                                     {"name": "\u0410lex"}]}),
                    headers={"X-Warref-Pin": "1357", "Content-Type": "application/json"})
    assert r.status_code == 422 and "look the same" in r.json()["detail"], r.text
    for name in ("A\u3164", "Z" + "\u0336" * 23, "Sam\x1b", "Al\u202eex"):
        r = make(client, name=name)
        assert r.status_code == 422 and r.json()["detail"], name
    code = make(client, name="José", players=6).json()["code"]
    for name, why in (("Jose\u0301", "already called José"), ("JOSÉ", "already called José"),
                      ("Alex", None), ("\u0410lex", "looks just like Alex"), ("Ale\u0445", "looks just like Alex")):
        r = client.post(f"/api/rooms/{code}/join", json={"name": name})
        if why is None:
            assert r.status_code == 200, r.text
        else:
            assert r.status_code == 409 and why in r.json()["detail"], (name, r.text)


def test_a_suggestion_is_a_move_the_partner_may_make_and_nothing_else(env):
    client, clock, _ = env
    code, tokens = room(client, players=4)
    names = [s["name"] for s in view(client, code)["room"]["seats"]]
    deciding = names.index(view(client, code)["waiting"]["seats"][0])
    partner, opponent = (deciding + 2) % 4, (deciding + 1) % 4
    with seated(client, code, tokens, range(4)) as sockets:
        hdr = {"X-Seat-Token": tokens[partner]}
        legal = {m["kind"] for m in view(client, code, tokens[deciding])["moves"]}
        for move in ({"kind": "\u202eraise"}, {"kind": "raise\x00\x1b[2J"}, {"kind": "call", "parity": "\x1b[31m"},
                     {"kind": "fly"}, *[{"kind": k} for k in ("raise", "accept", "refuse", "abstain") if k not in legal]):
            r = client.post(f"/api/rooms/{code}/suggest", json={"move": move}, headers=hdr)
            assert r.status_code in (409, 422) and r.json()["detail"], (move, r.text)
            clock.t += 2                                                       # not the rate limit
        r = client.post(f"/api/rooms/{code}/suggest", json={"move": {"kind": "pass"}},
                        headers={"X-Seat-Token": tokens[opponent]})
        assert r.status_code == 409                      # the opponent's partner has nothing to decide
        offered = [{k: x for k, x in m.items() if k != "label"} for m in view(client, code, tokens[partner])["suggest"]]
        assert offered and all(m["kind"] in legal for m in offered)
        sent = 0
        for _ in range(3):
            r = client.post(f"/api/rooms/{code}/suggest", json={"move": offered[0]}, headers=hdr)
            assert r.status_code == 200 and r.json()["shown_to"] == [names[deciding]], r.text
            sent += 1
        r = client.post(f"/api/rooms/{code}/suggest", json={"move": offered[0]}, headers=hdr)
        assert r.status_code == 429 and "One suggestion at a time" in r.json()["detail"]
        got = []
        for seat, ws in sockets.items():
            ws.send_text(json.dumps({"type": "ping"}))
            while True:
                m = ws.receive_json()
                if m["type"] == "pong":
                    break
                if m["type"] == "suggestion":
                    got.append((seat, m))
        assert [seat for seat, _ in got] == [deciding] * sent
        for _, m in got:
            assert m["move"] == offered[0] and m["from"] == names[partner]
            assert m["text"].isprintable() and all(unicodedata.category(c)[0] != "C" for c in json.dumps(m))


def test_a_deeply_nested_message_is_answered_and_the_socket_stays_open(env):
    """Point 10: a 1,000-deep JSON message used to close a room's socket with no reply."""
    client = env[0]
    code, tokens = room(client)
    with client.websocket_connect(f"ws://localhost/ws/rooms/{code}") as ws:
        ws.send_text(json.dumps({"token": tokens[0]}))
        ws.receive_json()
        ws.send_text("[" * 1000 + "]" * 1000)
        answer = ws.receive_json()
        while answer.get("type") != "error":
            answer = ws.receive_json()
        assert answer["status"] == 400 and "nested too deeply" in answer["detail"]
        ws.send_text(json.dumps({"type": "ping"}))
        answer = ws.receive_json()
        while answer.get("type") != "pong":
            answer = ws.receive_json()
