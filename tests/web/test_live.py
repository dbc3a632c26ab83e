"""The live table (web/live.py, web/demo.py): rendered Classic War games through the real card reader,
tracker, glue and referee, checked ruling by ruling against the simulator; the glue's checks through
the server (referee/observe.py wired by web/live.py's Glue; on its own: tests/referee/test_observe.py); battle
photos; a camera that dies mid-battle and comes back."""
from __future__ import annotations

import time

import cv2
import numpy as np
import pytest
from fastapi.testclient import TestClient

from vision.config import LIVE, PHOTO
from vision.reader import Read, TableReader
from vision.sources import Frame, ListSource
from vision.tracker import Observation
from web.demo import run_sync, script_classic
from web.live import Glue, Live
from web.keeper import GameKeeper
from web.server import create_app
from web.store import Store

PIN = "2468"
H = {"X-Warref-Pin": PIN}


@pytest.fixture(scope="module")
def reader():
    return TableReader("standard")


def play(tmp_path, reader, seed, battles, name="game.db", **kwargs):
    return run_sync(tmp_path / name, seed=seed, battles=battles, reader=reader, **kwargs)


@pytest.fixture(scope="module")
def clean_5_3(tmp_path_factory, reader):
    """Seed 5's 3 battles played once with a camera that never fails: checked ruling by ruling in
    test_simulated_games_are_ruled_right_or_reasked[5-3], and the game a camera that dies must match."""
    return play(tmp_path_factory.mktemp("clean"), reader, 5, 3)


# ----------------------------------------------------------------------------------- end to end
@pytest.mark.parametrize("seed,battles", [(5, 3), (11, 5)])      # 5: a war at once; 11: two wars
def test_simulated_games_are_ruled_right_or_reasked(tmp_path, reader, seed, battles, request):
    summary, keeper, table = (request.getfixturevalue("clean_5_3") if (seed, battles) == (5, 3)
                              else play(tmp_path, reader, seed, battles))
    truth = script_classic(["Alex", "Olivia"], seed, battles)
    ruled = [b["ruling"] for b in table.glue.battles]
    assert len(ruled) == len(truth) == battles
    for r, t in zip(ruled, truth):              # every ruling is the simulator's; none is a guess
        assert (r["winner"], r["cards"], r["counts"]) == (t["winner"], t["cards"], t["counts"])
    assert summary["wrong_rulings"] == 0 and summary["battles"] == battles
    assert any(e["type"] == "down" for t in truth for e in t["events"])         # wars were played
    # nothing but what the camera saw reached the referee: the live log is the simulator's cards
    sim_cards = [(e.get("seat"), e.get("card")) for t in truth for e in t["events"] if e["type"] == "flip"]
    live_cards = [(e.get("seat"), e.get("card")) for e in keeper.session.table.log if e["type"] == "flip"]
    assert set(live_cards) <= {(s, c) for s, c in sim_cards} | {
        (s, c) for t in truth for e in t["events"] if e["type"] == "flips" for s, c in e["cards"].items()}
    assert summary["frames"] > 0 and summary["latency_ms"]["n"] == battles


def test_the_live_reader_keeping_reads_of_still_frames_rules_right(tmp_path):
    seed, battles = 11, 5
    lives = []
    summary, keeper, table = play(tmp_path, TableReader("standard", LIVE), seed, battles,
                                   live_hook=lambda live, step: lives.append(live) if step == 0 else None)
    truth = script_classic(["Alex", "Olivia"], seed, battles)
    ruled = [b["ruling"] for b in table.glue.battles]
    assert [(r["winner"], r["cards"], r["counts"]) for r in ruled] == [
        (t["winner"], t["cards"], t["counts"]) for t in truth]
    assert summary["wrong_rulings"] == 0 and summary["reasks"] == 0
    live = lives[0]
    assert live.kept > summary["frames"] / 2             # a still table is not read again frame after frame
    assert live.dropped == 0                              # an unpaced feed: every frame is taken


class CountingReader:
    """A reader that reads one card wherever the picture is bright, and counts its reads."""

    def __init__(self, config=LIVE):
        self.config, self.calls = config, 0

    def read(self, image):
        self.calls += 1
        ys, xs = np.nonzero(image[:, :, 0] > 128)
        if not len(xs):
            return []
        box = [int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1]
        x0, y0, x1, y1 = box
        return [Read("8S", 0.9, box, [[x0, y0], [x1, y0], [x1, y1], [x0, y1]], 0.0, 0.9)]


def test_a_still_picture_keeps_its_reads_and_a_changed_one_is_read_again():
    rng = np.random.default_rng(0)
    table = np.full((720, 1280, 3), 60, np.uint8)
    card = table.copy()
    card[440:610, 580:700] = 230
    noisy = lambda image: cv2.add(image, rng.integers(0, 4, image.shape, dtype=np.uint8))   # noqa: E731
    reader = CountingReader()
    live = Live(None, reader, threaded=False)
    assert live.read(noisy(table)) == [] and reader.calls == 1
    assert live.read(noisy(table)) == [] and reader.calls == 1 and live.kept == 1    # sensor noise only
    first = live.read(noisy(card))                                                    # a card laid
    assert reader.calls == 2 and [r.card for r in first] == ["8S"]
    assert live.read(noisy(card)) == first and reader.calls == 2 and live.kept == 2
    moved = card.copy()
    moved[440:610, 580:700] = 60
    moved[444:614, 584:704] = 230                                                     # pushed 4 pixels
    assert live.read(noisy(moved))[0].box == [584, 444, 704, 614] and reader.calls == 3
    dimmer = np.clip(moved.astype(int) - 8, 0, 255).astype(np.uint8)
    live.read(noisy(dimmer))                                                          # a slow drift...
    assert reader.calls == 3
    live.read(noisy(np.clip(moved.astype(int) - 24, 0, 255).astype(np.uint8)))        # ...adds up
    assert reader.calls == 4
    # a hand passes over the card and goes: the table as it was before keeps its reads
    reader = CountingReader()
    live = Live(None, reader, threaded=False)
    first = live.read(noisy(card))
    hand = card.copy()
    hand[500:720, 600:800] = 160
    assert live.read(noisy(hand))[0].box != first[0].box and reader.calls == 2
    assert live.read(noisy(card)) == first and reader.calls == 2
    # a reader that is not a live one (no ``reuse``) reads every frame
    photo = CountingReader(PHOTO)
    live = Live(None, photo, threaded=False)
    live.read(card)
    live.read(card)
    assert photo.calls == 2 and live.kept == 0


def test_frames_never_taken_are_counted_as_dropped(tmp_path):
    keeper = GameKeeper(Store(tmp_path / "drop.db"), time.time)
    live = Live(None, CountingReader(), threaded=False)
    live.attach(keeper)
    image = np.zeros((720, 1280, 3), np.uint8)
    for index in (0, 1, 4, 5, 9):                          # 2, 3, 6, 7 and 8 came while it was busy
        live.apply(Frame(image, index, 0.0), [])
    assert live.frames == 5 and live.dropped == 5


# ----------------------------------------------------------------------------------- the glue
@pytest.fixture
def keeper(tmp_path):
    keeper = GameKeeper(Store(tmp_path / "glue.db"), time.time)
    keeper.pushed = []
    keeper.hub.broadcast = keeper.pushed.append
    return keeper


def new_game(keeper, players=("Alex", "Olivia")):
    keeper.new_game({"game": "classic", "players": [{"name": p} for p in players]})
    return Glue(keeper, threshold=0.8)


def flip(seat, card, conf=0.95, box=None, frame=1):
    return Observation("flip", seat, card, confidence=conf, frame=frame, box=box or [0, 0, 10, 10], reads=[])


def reasks(keeper):
    return [m for m in keeper.pushed if m.get("type") == "reask"]


def test_an_impossible_card_is_reasked_and_nothing_submitted(keeper):
    glue = new_game(keeper)
    glue.handle([flip("Alex", "AS", box=[100, 400, 220, 570])])
    log = list(keeper.session.table.log)
    out = glue.handle([flip("Olivia", "AS", box=[100, 100, 220, 270])])          # a second ace of spades
    assert out[0]["result"] == "reask" and keeper.session.table.log == log
    msg = reasks(keeper)[-1]
    assert msg == {"type": "reask", "seat": "Olivia", "card": "AS", "text": msg["text"], "msg": msg["msg"]}
    assert msg["text"].startswith("Olivia, please show your card again: ")
    out = glue.handle([flip("Olivia", "8G", box=[100, 100, 220, 270])])          # a Woolly card
    assert out[0]["result"] == "reask" and keeper.session.table.log == log


def test_a_low_confidence_read_and_an_unsure_card_are_reasked(keeper):
    glue = new_game(keeper)
    out = glue.handle([flip("Alex", "8S", conf=0.6)])
    assert out[0]["result"] == "reask" and keeper.session.table.log == []
    assert reasks(keeper)[-1]["text"] == "Alex, please show your card again: it could not be read for sure."
    out = glue.handle([Observation("unsure", "Olivia", "QH", confidence=0.5, frame=3)])
    assert out[0]["result"] == "reask" and reasks(keeper)[-1]["card"] == "QH"
    assert keeper.session.table.log == []


def test_a_flip_by_a_player_who_is_out_or_not_in_the_battle_is_reasked(keeper):
    glue = new_game(keeper, ("Alex", "Olivia", "Sam"))
    keeper.submit({"type": "recount", "seat": "Sam", "count": 0})               # Sam is out
    n = len(keeper.session.table.log)
    assert glue.handle([flip("Sam", "2C")])[0]["result"] == "reask"
    assert "out" in reasks(keeper)[-1]["text"]
    glue.handle([flip("Alex", "9S", box=[0, 0, 10, 10])])
    assert glue.handle([flip("Alex", "3D", box=[50, 0, 60, 10])])[0]["result"] == "reask"   # twice in a round
    assert len(keeper.session.table.log) == n + 1


def test_flips_and_downs_become_events_clipped_to_what_the_referee_expects(keeper):
    glue = new_game(keeper)
    out = glue.handle([flip("Alex", "7S", box=[0, 0, 10, 10]), flip("Olivia", "7H", box=[0, 50, 10, 60])])
    assert [o["result"] for o in out] == ["event", "event"]
    assert keeper.session.table.log[-1] == {"type": "flips", "cards": {"Alex": "7S", "Olivia": "7H"}}
    assert keeper.session.table.state.prompt().to_json()["phase"] == "down"
    out = glue.handle([Observation("down", "Alex", None, count=3, confidence=0.9, frame=5)])
    assert out[0]["result"] == "event" and keeper.session.table.log[-1] == {"type": "down", "seat": "Alex", "count": 1}
    out = glue.handle([Observation("down", "Alex", None, count=1, confidence=0.9, frame=6)])   # owes nothing now
    assert out[0]["result"] == "reask" and out[0]["card"] is None
    # the same card seen again (uncovered after a hand passed) is not news
    assert glue.handle([flip("Alex", "7S", box=[0, 0, 10, 10])])[0]["result"] == "ignored"


# ----------------------------------------------------------------------------------- photos
def test_every_battle_keeps_its_photo_and_the_server_serves_it(tmp_path, reader):
    summary, keeper, table = play(tmp_path, reader, 1, 2, name="photos.db")
    assert summary["battles"] == 2
    app = create_app(tmp_path / "photos.db", PIN, static_dir=tmp_path / "static")
    with TestClient(app, base_url="http://localhost") as client:
        view = client.get("/api/state").json()
        assert len(view["history"]) == 2
        for entry in view["history"]:
            assert entry["photo"] == f"/api/photos/{view['game_id']}/{entry['seq']}.jpg"
            r = client.get(entry["photo"])
            assert r.status_code == 200 and r.headers["content-type"] == "image/jpeg"
            assert r.content[:2] == b"\xff\xd8"
        assert client.get(f"/api/photos/{view['game_id']}/999.jpg").status_code == 404
        # no camera attached: status off, no preview
        assert client.get("/api/camera").json()["status"] == "off"
        assert client.get("/api/preview.jpg").status_code == 404
        # zones: defaults, then the table's own, saved with the game
        zones = client.get("/api/zones").json()["seats"]
        assert set(zones) == {"Alex", "Olivia"} and all(0 <= v <= 1 for p in zones.values() for pt in p for v in pt)
        mine = {"Alex": [[0.1, 0.5], [0.9, 0.5], [0.9, 0.95], [0.1, 0.95]],
                "Olivia": [[0.1, 0.05], [0.9, 0.05], [0.9, 0.5], [0.1, 0.5]]}
        assert client.put("/api/zones", json={"seats": mine}).status_code == 401
        assert client.put("/api/zones", json={"seats": {"Alex": [[0, 0], [2, 0], [0, 1]]}}, headers=H).status_code == 422
        assert client.put("/api/zones", json={"seats": mine}, headers=H).json() == {"seats": mine}
    with TestClient(create_app(tmp_path / "photos.db", PIN, static_dir=tmp_path / "static"), base_url="http://localhost") as client:
        assert client.get("/api/zones").json() == {"seats": mine}


# ----------------------------------------------------------------------------------- camera faults
def test_a_camera_that_dies_mid_battle_and_comes_back_loses_nothing(tmp_path, reader, clean_5_3):
    seed, battles = 5, 3
    clean, keeper_clean, _ = clean_5_3

    sources: list[ListSource] = []

    def factory(table):
        def open_():
            src = ListSource(table.image, name="demo table")
            sources.append(src)
            return src
        return open_

    pushed: list[dict] = []

    def hook(live, step):
        if step == 0:
            live.keeper.hub.broadcast = pushed.append
        if step == 30:                      # mid-battle: the cable is pulled for 0.3 s
            assert live.keeper.session.table.log          # some of the game has been played
            sources[-1].fail(0.3)

    faulty, keeper_faulty, _ = play(tmp_path, reader, seed, battles, name="faulty.db", source_factory=factory,
                                 live_hook=hook, max_frames=200000,
                                 watch={"lost_after": 0.1, "backoff": (0.05,)})
    statuses = [m["camera"]["status"] for m in pushed if m.get("type") == "camera"]
    assert "lost" in statuses and statuses.index("lost") < len(statuses) - 1
    assert "ok" in statuses[statuses.index("lost"):]                 # it came back
    assert len(sources) >= 2                                          # reconnected
    assert keeper_faulty.session.table.log == keeper_clean.session.table.log
    assert keeper_faulty.session.table.state.snapshot() == keeper_clean.session.table.state.snapshot()
    assert faulty["wrong_rulings"] == 0 and faulty["battles"] == clean["battles"] == battles


def test_the_server_runs_the_camera_loop_with_preview_and_camera_messages(tmp_path, reader):
    from web.demo import make_live

    table, live = make_live(tmp_path / "served.db", ["Alex", "Olivia"], 5, 1, reader=reader)
    app = create_app(tmp_path / "served.db", PIN, static_dir=tmp_path / "static", live=live)
    with TestClient(app, base_url="http://localhost") as client:
        with client.websocket_connect("ws://localhost/ws") as ws:
            assert ws.receive_json()["type"] in ("hello", "setup")
            end = time.monotonic() + 30
            while not table.done and time.monotonic() < end:
                time.sleep(0.05)
            kinds = set()
            while "rulings" not in kinds or "camera" not in kinds:
                kinds.add(ws.receive_json()["type"])
        assert table.done and table.glue.battles
        camera = client.get("/api/camera").json()
        assert set(camera) >= {"status", "source", "fps", "frame", "message"} and camera["source"] == "demo table"
        for path in ("/api/preview.jpg", "/api/snapshot.jpg"):
            r = client.get(path)
            assert r.status_code == 200 and r.content[:2] == b"\xff\xd8"
        assert client.get("/api/state").json()["history"][0]["photo"].endswith(".jpg")
