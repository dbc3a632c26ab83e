"""The real `warref serve` with a Guerra room: `kill -9` it mid-rodada, start it again, and every phone
reconnects to the same seat, the same hand and the same timer."""
from __future__ import annotations

import json

import httpx
from websockets.sync.client import connect

from tests.web.test_server_restart import kill9, server  # noqa: F401  (the fixture)


def hello(base: str, code: str, token: str) -> dict:
    with connect(base.replace("http", "ws") + f"/ws/rooms/{code}", open_timeout=10) as ws:
        ws.send(json.dumps({"token": token}))
        while True:
            message = json.loads(ws.recv(timeout=10))
            if message["type"] == "view":
                return message


def test_kill_9_mid_rodada_and_every_phone_comes_back_to_the_same_table(server):  # noqa: F811
    base, proc = server()
    made = httpx.post(f"{base}/api/rooms", json={"name": "Alex", "players": 4}).json()
    code, tokens = made["code"], [made["token"]]
    for name in ("Olivia", "Sam", "Mia"):
        tokens.append(httpx.post(f"{base}/api/rooms/{code}/join", json={"name": name}).json()["token"])
    assert httpx.post(f"{base}/api/rooms/{code}/start", json={}, headers={"X-Seat-Token": tokens[0]}).status_code == 200
    names = ["Alex", "Olivia", "Sam", "Mia"]
    played = 0
    while True:                                    # into the first rodada: a card or two on the table
        v = httpx.get(f"{base}/api/rooms/{code}").json()
        if v["waiting"]["kind"] == "turn" and v["table"]["plays"]:
            break
        seat = names.index(v["waiting"]["seats"][0])
        moves = httpx.get(f"{base}/api/rooms/{code}", headers={"X-Seat-Token": tokens[seat]}).json()["moves"]
        move = next((m for m in moves if m["kind"] == "pass"), moves[0])
        r = httpx.post(f"{base}/api/rooms/{code}/act", headers={"X-Seat-Token": tokens[seat]},
                       json={"move": {k: x for k, x in move.items() if k != "label"}})
        assert r.status_code == 200, r.text
        played += 1
    before = [hello(base, code, t) for t in tokens]
    kill9(proc)
    base, proc = server()
    after = [hello(base, code, t) for t in tokens]
    for b, a in zip(before, after):
        assert a["room"]["you"] == b["room"]["you"] and a["room"]["moves"] == b["room"]["moves"] == played
        assert a["table"] == b["table"] and a["moves"] == b["moves"]
        assert a["waiting"]["deadline"] == b["waiting"]["deadline"]       # the timer goes on where it was
    assert a["table"]["plays"] and a["waiting"]["deadline"] > a["now"]
