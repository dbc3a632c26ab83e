"""Safe on a home network (web/guard.py): the PIN's limits, paired devices, the host allow-list,
the browser's security headers, and bad input answered with a 4xx and a sentence."""
from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from web import guard
from web.server import create_app

PIN = "4321"
GAME = {"game": "classic", "players": [{"name": "Alex"}, {"name": "Olivia"}]}


@pytest.fixture
def client(tmp_path):
    app = create_app(tmp_path / "warref.db", PIN, tick_s=0.05, static_dir=tmp_path / "static")
    (tmp_path / "static").mkdir()
    (tmp_path / "static" / "index.html").write_text("<!doctype html><title>t</title>")
    with TestClient(app, base_url="http://localhost") as c:
        yield c


PAGE = {"Origin": "http://localhost", "Content-Type": "application/json"}   # what the dashboard's page sends


def post(client, path, body=None, pin=PIN, **headers):
    if pin is not None:
        headers["X-Warref-Pin"] = pin
    return client.post(path, content=json.dumps(body if body is not None else {}), headers=headers)


def test_wrong_pins_lock_a_device_out_with_a_growing_wait_and_the_right_pin_waits_too(client):
    for k in range(guard.FREE):
        answer = post(client, "/api/games", GAME, pin=f"{k:04d}")
        assert answer.status_code == 401 and "PIN" in answer.json()["detail"]
    answer = post(client, "/api/games", GAME, pin="9998")            # the first wrong one past the free ones
    assert answer.status_code == 401 and "Wait 60 seconds" in answer.json()["detail"]
    locked = post(client, "/api/games", GAME)                          # now even the right PIN is not checked
    assert locked.status_code == 429 and locked.headers["retry-after"] in {"59", "60"}
    assert "Too many wrong PINs from this device: try again in" in locked.json()["detail"]
    assert client.get("/api/state").json()["game"] is None              # nothing was set up
    # no PIN at all is not a guess: it says what is needed and counts nothing
    assert post(client, "/api/games", GAME, pin=None).status_code == 401


def test_the_limits_make_guessing_a_four_digit_pin_take_more_than_a_year():
    """An attacker with as many devices as it likes, each trying whenever the limits allow."""
    clock = [0.0]
    limits = guard.PinLimits(now=lambda: clock[0])
    tries, device, used = 0, 0, 0
    while tries < 10_000:
        try:
            limits.check(f"device-{device}")
        except guard.Locked as err:
            if used == 0:                      # a device that never tried: the overall bucket, wait for it
                clock[0] += err.seconds
            else:
                device, used = device + 1, 0                           # this device waits: take another
            continue
        limits.wrong(f"device-{device}")
        tries, used = tries + 1, used + 1
    assert clock[0] > 365 * 24 * 3600, f"all 10,000 PINs tried in {clock[0] / 86400:.1f} days"
    # and one device alone waits longer with each wrong PIN: 20 take more than 4 days, then one a day
    clock[0] = 0.0
    one = guard.PinLimits(now=lambda: clock[0], overall=10 ** 9)
    for _ in range(20):
        try:
            one.check("me")
        except guard.Locked as err:
            clock[0] += err.seconds
        one.wrong("me")
    assert clock[0] > 4 * 24 * 3600


def test_a_paired_device_needs_no_pin_until_it_is_unpaired(client):
    answer = post(client, "/api/pair", {"name": "Kitchen tablet"})
    assert answer.status_code == 200
    cookie = answer.headers["set-cookie"]
    assert "warref_device=" in cookie and "HttpOnly" in cookie and "SameSite=strict" in cookie
    token = answer.json()["token"]
    assert client.cookies.get("warref_device") == token
    # the cookie alone (the dashboard's own page) and the header alone (an API client) both work
    assert post(client, "/api/games", GAME, pin=None, **PAGE).status_code == 200
    other = TestClient(client.app, base_url="http://localhost")
    other.portal = client.portal              # the app's own event loop, as a server has one
    assert post(other, "/api/events", {"type": "flip", "seat": "Alex", "card": "8S"}, pin=None).status_code == 401
    assert post(other, "/api/events", {"type": "flip", "seat": "Alex", "card": "8S"}, pin=None,
                **{"X-Warref-Device": token}).status_code == 200
    devices = client.get("/api/devices").json()["devices"]
    assert [(d["name"], d["this"]) for d in devices] == [("Kitchen tablet", True)]
    assert other.get("/api/devices").status_code == 401                 # who is paired is not public
    # unpair it: the same token no longer works, anywhere
    assert client.delete(f"/api/devices/{devices[0]['id']}", headers={"Origin": "http://localhost"}).status_code == 200
    assert post(other, "/api/undo", pin=None, **{"X-Warref-Device": token}).status_code == 401
    assert post(client, "/api/undo", pin=None, **PAGE).status_code == 401
    assert post(client, "/api/pair", pin="0000").status_code == 401     # pairing needs the right PIN
    assert client.delete("/api/devices/99999999999999999999999", headers={"X-Warref-Pin": PIN}).status_code == 404
    assert client.delete("/api/devices/%C2%B2", headers={"X-Warref-Pin": PIN}).status_code == 404   # '²' is a digit to str.isdigit


def test_another_site_cannot_make_a_change_with_the_paired_cookie(client):
    """Cross-site request forgery (issue 60, point 8): a page elsewhere can make the browser send
    the cookie with a form or a text/plain body, or from its own origin; each is refused with a
    sentence and changes nothing. The dashboard's own page (same origin, JSON) gets through."""
    assert post(client, "/api/pair", {"name": "Tablet"}).status_code == 200
    event = json.dumps({"type": "flip", "seat": "Alex", "card": "8S"})
    assert post(client, "/api/games", GAME, pin=None, **PAGE).status_code == 200
    forged = [
        {"Origin": "http://localhost", "Content-Type": "text/plain"},
        {"Origin": "http://localhost", "Content-Type": "application/x-www-form-urlencoded"},
        {"Origin": "http://evil.example", "Content-Type": "application/json"},
        {"Origin": "http://localhost:9999", "Content-Type": "application/json"},     # another port
        {"Origin": "https://localhost", "Content-Type": "application/json"},         # another scheme
        {"Origin": "null", "Content-Type": "application/json"},
        {"Content-Type": "application/json"},                                        # no Origin at all
    ]
    for headers in forged:
        answer = client.post("/api/events", content=event, headers=headers)
        assert answer.status_code == 403, headers
        assert "dashboard's own pages" in answer.json()["detail"] or "as JSON" in answer.json()["detail"]
    assert client.get("/api/state").json()["log_length"] == 0
    assert client.post("/api/events", content=event, headers=PAGE).status_code == 200


def test_host_and_origin_are_read_by_one_strict_rule(client):
    """Point 10: Host values with text after the address, user info or an open bracket are refused,
    the refusal carries the security headers, and /ws and /ws/rooms compare Origin the same way
    (scheme, name and port)."""
    for host in ("[::1]evil.example", "127.0.0.1:8000@evil.example", "[::1", "localhost:8000 x", "local\\host"):
        answer = client.get("/api/state", headers={"Host": host})
        assert answer.status_code == 400, host
        assert answer.headers["x-frame-options"] == "DENY" and "default-src 'self'" in answer.headers[
            "content-security-policy"]
    assert client.get("/api/state", headers={"Host": "[::1]:8000"}).status_code == 200
    for path in ("ws://localhost/ws", "ws://localhost/ws/rooms/ABCD"):
        for origin in ("https://localhost", "http://localhost:8001", "http://localhost.evil.example"):
            with pytest.raises(WebSocketDisconnect):
                with client.websocket_connect(path, headers={"Origin": origin}) as ws:
                    ws.receive_text()
    with client.websocket_connect("ws://localhost/ws", headers={"Origin": "http://localhost"}) as ws:
        assert json.loads(ws.receive_text())["type"] == "hello"


def test_only_this_machines_names_are_answered_on_http_and_websocket(client):
    answer = client.get("/api/state", headers={"Host": "evil.example:8000"})
    assert answer.status_code == 400
    assert "does not answer to the name 'evil.example'" in answer.json()["detail"]
    assert "--allow-host evil.example" in answer.json()["detail"]
    assert client.get("/api/state", headers={"Host": "127.0.0.1:8000"}).status_code == 200
    with pytest.raises(WebSocketDisconnect):
        with client.websocket_connect("ws://evil.example/ws") as ws:
            ws.receive_text()
    with client.websocket_connect("ws://localhost/ws") as ws:
        assert json.loads(ws.receive_text())["type"] == "hello"
    assert "127.0.0.1" in guard.allowed_hosts() and "tablet.lan" in guard.allowed_hosts(["tablet.lan"])
    assert guard.host_of("[::1]:8000") == "::1" and guard.host_of("Box.Local:80") == "box.local"


def test_every_answer_carries_the_security_headers(client):
    for answer in (client.get("/"), client.get("/api/state"), client.get("/api/nothing-here")):
        assert "script-src 'self'" in answer.headers["content-security-policy"]
        assert "frame-ancestors 'none'" in answer.headers["content-security-policy"]
        assert "unsafe-inline" not in answer.headers["content-security-policy"]
        assert answer.headers["x-frame-options"] == "DENY"
        assert answer.headers["x-content-type-options"] == "nosniff"
        assert answer.headers["referrer-policy"] == "no-referrer"


def test_bad_input_gets_a_4xx_and_a_sentence_never_a_500(client):
    nested = "[" * 1000 + "]" * 1000
    answer = client.post("/api/events", content=nested, headers={"X-Warref-Pin": PIN})
    assert answer.status_code == 400 and "nested too deeply" in answer.json()["detail"]
    assert client.get("/api/games/12345678901234567890123").status_code == 404
    assert client.get("/api/photos/12345678901234567890123/1.jpg").status_code == 404
    assert client.get("/api/photos/1/123456789012345678901234.jpg").status_code == 404
    for name, why in (("A" * 60_000, "1-24 characters"), ("Al\u202eex", "U+202E"), ("Ol\u200bivia", "U+200B"),
                      ("Sam\x00", "U+0000"), ("", "needs a name")):
        answer = post(client, "/api/games", {"game": "classic", "players": [{"name": name}, {"name": "Mia"}]})
        assert answer.status_code == 422 and why in answer.json()["detail"], (name[:10], answer.json())
    assert post(client, "/api/games", {**GAME, "clock_minutes": 1e-300}).status_code == 422
    assert post(client, "/api/games", {**GAME, "clock_minutes": 24 * 60 + 1}).status_code == 422
    assert post(client, "/api/games", {**GAME, "clock_minutes": 1 / 60}).status_code == 200
    post(client, "/api/games", {"game": "woolly", "players": [{"name": "Alex"}, {"name": "Olivia"}]})
    answer = post(client, "/api/events", {"type": "recount", "seat": "Alex", "count": 1_000_000_000})
    assert answer.status_code == 422 and "more than the deck's 71 cards" in answer.json()["detail"]
    assert client.get("/api/state").json()["log_length"] == 0


def test_a_viewer_that_sends_a_big_message_is_cut_off(client):
    with client.websocket_connect("ws://localhost/ws") as ws:
        ws.receive_text()
        ws.send_text("x" * 100)                          # small: read and ignored
        ws.send_text("x" * 100_000)
        with pytest.raises(WebSocketDisconnect) as closed:
            while True:
                ws.receive_text()
    assert closed.value.code == 1009


def test_warref_serve_answers_to_an_allowed_host_and_refuses_others(tmp_path):
    import socket
    import subprocess
    import sys
    import time
    import urllib.error
    import urllib.request
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "web.cli", "serve", "--host", "127.0.0.1", "--port", str(port),
                             "--db", str(tmp_path / "w.db"), "--pin", PIN, "--no-qr", "--allow-host", "tablet.lan"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        def status(host: str) -> int:
            req = urllib.request.Request(f"http://127.0.0.1:{port}/api/state", headers={"Host": host})
            try:
                return urllib.request.urlopen(req, timeout=5).status
            except urllib.error.HTTPError as err:
                return err.code
        for _ in range(100):
            try:
                status("localhost")
                break
            except OSError:
                time.sleep(0.1)
        assert status(f"tablet.lan:{port}") == 200 and status(f"127.0.0.1:{port}") == 200
        assert status("evil.example") == 400
    finally:
        proc.terminate()
        proc.wait(10)


def test_strangers_wrong_pins_never_lock_out_the_owner():
    """Ten wrong PINs from strangers empty the bucket: a new device waits, but the machine itself and
    a device that gave the right PIN before are still checked (issue 60, point 3)."""
    clock = [0.0]
    limits = guard.PinLimits(now=lambda: clock[0])
    limits.right("192.168.1.20")                                  # the owner's tablet, some day before
    for k in range(guard.OVERALL):
        limits.check(f"10.0.0.{k}")
        limits.wrong(f"10.0.0.{k}")
    with pytest.raises(guard.Locked, match="does not know"):
        limits.check("10.0.0.99")
    limits.check("192.168.1.20")
    limits.check("127.0.0.1")
    clock[0] += 3600 / guard.REFILL                               # and a new device, after an hour
    limits.check("10.0.0.99")


def test_strangers_wrong_pins_over_http_leave_the_owner_working(client):
    """Point 3 through the API: ten strangers' wrong PINs spend everyone's allowance; a new device
    then waits even with the right PIN, but the owner's tablet (it gave the right PIN before), the
    machine running warref and a paired device still get in (before, the right PIN got 429 for all)."""
    def from_(ip: str) -> TestClient:
        other = TestClient(client.app, base_url="http://localhost", client=(ip, 40000))
        other.portal = client.portal          # the app's own event loop (its locks belong to it), as a server has one
        return other

    tablet = from_("192.168.1.20")
    assert post(tablet, "/api/games", GAME).status_code == 200                    # the owner, some day before
    paired = post(from_("192.168.1.21"), "/api/pair", {"name": "Kitchen"}).json()["token"]
    for k in range(guard.OVERALL):
        assert post(from_(f"10.0.0.{k}"), "/api/games", GAME, pin="0000").status_code == 401
    assert post(tablet, "/api/games", GAME).status_code == 200
    assert post(from_("127.0.0.1"), "/api/games", GAME).status_code == 200
    assert post(from_("10.0.0.98"), "/api/games", GAME, pin=None, **{"X-Warref-Device": paired}).status_code == 200
    stranger = post(from_("10.0.0.99"), "/api/games", GAME)
    assert stranger.status_code == 429 and "does not know" in stranger.json()["detail"]


def test_the_limits_hold_across_a_restart(tmp_path):
    """The counts live in the database: a server started again (or another worker) keeps them."""
    first = guard.PinLimits(tmp_path / "warref.db")
    for _ in range(guard.FREE + 1):
        first.wrong("10.0.0.7")
    with pytest.raises(guard.Locked, match="this device"):
        guard.PinLimits(tmp_path / "warref.db").check("10.0.0.7")


def test_a_killed_and_restarted_server_still_makes_the_device_wait(tmp_path):
    """Point 2, for real: wrong PINs sent to `warref serve`, the server killed (kill -9) and started
    again on the same database: the device still waits, even with the right PIN (the limits used to
    live in the process's memory, so any restart started them afresh)."""
    import httpx
    from test_server_restart import free_port, kill9, start

    def status(url: str, pin: str) -> int:
        with httpx.Client(timeout=5) as c:
            return c.post(url + "/api/games", json=GAME, headers={"X-Warref-Pin": pin}).status_code

    port = free_port()
    proc = start(tmp_path / "w.db", port, pin=PIN)
    try:
        assert [status(f"http://127.0.0.1:{port}", "0000") for _ in range(guard.FREE + 1)] == [401] * (guard.FREE + 1)
    finally:
        kill9(proc)
    port = free_port()
    proc = start(tmp_path / "w.db", port, pin=PIN)
    try:
        assert status(f"http://127.0.0.1:{port}", PIN) == 429
    finally:
        kill9(proc)


def test_the_client_is_the_connection_not_what_it_says_it_forwards(tmp_path):
    """`warref serve` counts wrong PINs by the socket's address: a new X-Forwarded-For on each guess
    does not make a new client, unless --forwarded-allow-ips names the proxy (point 2)."""
    import httpx
    from test_server_restart import free_port, kill9, start

    def guesses(url: str) -> int:
        codes = []
        for k in range(guard.FREE + 2):
            with httpx.Client(timeout=5) as c:
                codes.append(c.post(url + "/api/games", json=GAME, headers={
                    "X-Warref-Pin": "0000" if k <= guard.FREE else PIN,
                    "X-Forwarded-For": f"203.0.113.{k}"}).status_code)
        return codes[-1]

    port = free_port()
    proc = start(tmp_path / "one.db", port, pin=PIN)
    try:
        assert guesses(f"http://127.0.0.1:{port}") == 429
    finally:
        kill9(proc)
    port = free_port()
    proc = start(tmp_path / "two.db", port, pin=PIN, extra=["--forwarded-allow-ips", "127.0.0.1"])
    try:
        assert guesses(f"http://127.0.0.1:{port}") == 200          # behind a named proxy each is its own
    finally:
        kill9(proc)
