"""`warref demo`: a simulated Classic War game played on a rendered table, refereed through the camera.

The simulator (referee/sim/classic.py) holds the real shuffled cards and plays the rules on them; it
is the truth. ``DemoTable`` renders, frame by frame, what its players do: each card turned up in
front of its player, war piles (the face-down card beside the tied one, then the new face-up card
beside it: the reader needs a little table between cards), the middle collected after each battle,
and now and then a hand passing over the cards. Those frames go through the real card reader, the
tracker, the glue (referee/observe.py, wired in web/live.py) and the referee, exactly as a camera's would. The players wait for
the referee (each card acknowledged, each battle announced) before going on, and show a card
again when asked. At the end each battle the referee ruled is compared with the simulator's.
"""
from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from referee.events import Event
from referee.say import say
from referee.sim.classic import ClassicSim
from vision import decks
from vision.config import LIVE
from vision.reader import TableReader
from vision.sources import ListSource, WatchedSource
from vision.synth.fast import FastTable, Hand
from vision.tracker import default_zones

from .keeper import GameKeeper
from .live import Live
from .store import Store

GAP = 60                  # pixels of table between neighbouring cards (the reader needs it)


# ----------------------------------------------------------------------------------- the truth
class _Recorder(ClassicSim):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.current: list[dict] = []

    def send(self, event: Event) -> list:
        self.current.append(event.to_json())
        return super().send(event)


def script_classic(players: list[str], seed: Any, battles: int, options: dict | None = None) -> list[dict]:
    """The first ``battles`` battles of a simulated game: per battle the events a camera would see
    and the simulator's truth (winner, cards won, every player's total after it)."""
    sim = _Recorder(players, random.Random(f"demo:{seed}"), options, batch_rate=0.3, split_downs=0.0)
    out = []
    fighters = sim.active()
    for _ in range(battles):
        sim.current = []
        rulings = sim.battle(fighters)
        battle = sim.find(rulings, "battle")
        sim.check("demo")
        out.append({"events": sim.current, "winner": battle.data["winner"] if battle else None,
                    "cards": battle.data["cards"] if battle else None,
                    "counts": dict(sim.table.state.counts()), "over": bool(sim.table.state.over)})
        if sim.table.state.over:
            break
        for s in sim.active():
            if sim.total(s) == 0:
                sim.out.add(s)
        fighters = sim.active()
        if len(fighters) < 2:
            break
    return out


# ----------------------------------------------------------------------------------- the table
@dataclass
class _Item:
    code: str                 # a card or "BACK"
    slot: int
    dy: float = 0.0
    angle: float = 0.0
    hidden: int = 0           # frames it is lifted off the table (being shown again)


@dataclass
class _Step:
    places: dict[str, list[str]]       # seat -> codes laid this step
    last: bool = False                 # the battle's last step


@dataclass
class _Battle:
    steps: list[_Step]
    truth: dict
    slots: int                          # most slots any seat needs
    shown_at: float | None = None      # when the battle's last card was first on a frame


@dataclass
class DemoStats:
    frames: int = 0
    hands: int = 0
    reshows: int = 0
    timeouts: int = 0
    latencies: list[float] = field(default_factory=list)


class DemoTable:
    """The simulated players and what the camera sees of them. ``image(i)`` is the next frame (a
    ListSource callable); ``glue`` (set by the demo) says what the referee has accepted so far."""

    def __init__(self, players: list[str], seed: int, battles: int, *, size=(1280, 720), hold: int = 5,
                 patience: int = 45, hands: float = 0.35, card_h: float = 170, deck: str = "standard",
                 faces: dict | None = None, give_up: int | None = None):
        """``deck``: the deck's name (the summary says it); ``faces``: a taught deck's card pictures by
        code (``Taught.pictures``), drawn in place of warref's own art (a code without one in the
        ``svg-cards`` art). ``give_up``: the players stop (the table is done, ``stalled``) after
        showing the cards again this many times in one battle (None: they never do)."""
        self.players = list(players)
        self.rng = random.Random(f"table:{seed}")
        self.script = [self._battle(b) for b in script_classic(self.players, seed, battles)]
        self.size = size
        self.table = FastTable("standard", size=size, card_h=card_h, seed=seed, artwork="svg-cards", faces=faces)
        self.table.sprite("AS")     # the art now: a missing tool is said at once, not as a camera showing nothing
        self.deck = deck
        self.zones = default_zones(self.players)
        self.hold, self.patience, self.hands = hold, patience, hands
        self.glue: Any = None
        self.stats = DemoStats()
        w, h = size
        self._noise = [np.random.default_rng(k).integers(0, 4, (h, w, 3), dtype=np.uint8) for k in range(6)]
        self.items: dict[str, list[_Item]] = {s: [] for s in self.players}
        self.battle_i = 0
        self.step_i = -1
        self.phase = "start"            # "lay", "wait", "ruled", "collect", "done"
        self.timer = 0
        self.waited = 0
        self.expected: dict[str, int] = {s: 0 for s in self.players}
        self.reasks_seen = 0
        self.hand: tuple[Hand, int] | None = None
        self.done = False
        self.give_up, self.stuck, self.stalled = give_up, 0, False
        self._mark_last = False

    @staticmethod
    def _battle(truth: dict) -> _Battle:
        steps: list[_Step] = []
        count: dict[str, int] = {}
        for e in truth["events"]:
            if e["type"] == "flip":
                steps.append(_Step({e["seat"]: [e["card"]]}))
                count[e["seat"]] = count.get(e["seat"], 0) + 1
            elif e["type"] == "flips":
                steps.append(_Step({s: [c] for s, c in e["cards"].items()}))
                for s in e["cards"]:
                    count[s] = count.get(s, 0) + 1
            elif e["type"] == "down":
                steps.append(_Step({e["seat"]: ["BACK"] * e["count"]}))
                count[e["seat"]] = count.get(e["seat"], 0) + e["count"]
        if steps:
            steps[-1].last = True
        return _Battle(steps, truth, max(count.values(), default=1))

    # -- where cards lie ---------------------------------------------------------------------------
    def _place(self, seat: str, item: _Item, slots: int) -> tuple[float, float, float]:
        w, h = self.size
        poly = np.array(self.zones[seat], np.float64) * (w, h)
        x0, y0 = poly.min(0)
        x1, y1 = poly.max(0)
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        cw = self.table.card_w
        pitch = min(cw + GAP, (x1 - x0 - cw - 20) / max(1, slots - 1)) if slots > 1 else 0
        start = cx - pitch * (slots - 1) / 2
        top = cy < h / 2
        x = start + pitch * item.slot if not top else start + pitch * (slots - 1 - item.slot)
        return x, cy + item.dy, (180.0 if top else 0.0) + item.angle

    def _lay(self, seat: str, code: str) -> None:
        slot = len(self.items[seat])
        self.items[seat].append(_Item(code, slot, 0.0, self.rng.uniform(-5, 5)))

    def _reshow(self, seat: str, code: str | None = None) -> None:
        """The player picks up a card (the one asked about, else the latest) and puts it down again,
        a bit differently (another place in front of them, another angle)."""
        items = self.items[seat]
        pick = [it for it in items if code is None or it.code == code]
        if not pick:
            pick = items
        if not pick:
            return
        it = pick[-1]
        it.hidden = 4
        limit = 0.5 * (self._zone_height(seat) - self.table.card_h) - 4
        it.dy = -it.dy if abs(it.dy) > 1 else self.rng.choice((-1, 1)) * min(limit, 0.42 * self.table.card_h)
        it.angle = self.rng.uniform(-6, 6)
        self.stats.reshows += 1

    def _zone_height(self, seat: str) -> float:
        poly = np.array(self.zones[seat]) * self.size
        return float(poly[:, 1].max() - poly[:, 1].min())

    # -- what the referee has done (from the glue) -------------------------------------------------
    def _accepted(self) -> dict[str, int]:
        return dict(self.glue.accepted) if self.glue is not None else {}

    def _ruled(self) -> int:
        return len(self.glue.battles) if self.glue is not None else 0

    def _caught_up(self) -> bool:
        acc = self._accepted()
        return all(acc.get(s, 0) >= n for s, n in self.expected.items())

    # -- one frame ---------------------------------------------------------------------------------
    def _advance(self) -> None:
        if self.glue is not None and len(self.glue.reasks) > self.reasks_seen:
            acc = self._accepted()
            for r in self.glue.reasks[self.reasks_seen:]:
                seat = r.get("seat")
                if seat in self.items and acc.get(seat, 0) < self.expected.get(seat, 0):
                    self._reshow(seat, r.get("card") if r.get("kind") != "down" else "BACK")
            self.reasks_seen = len(self.glue.reasks)
        if self.timer > 0:
            self.timer -= 1
            return
        if self.phase in ("start", "collect"):
            if self.battle_i >= len(self.script):
                self.phase, self.done = "done", True
                return
            self.phase, self.step_i = "lay", -1
        if self.phase == "lay":
            battle = self.script[self.battle_i]
            if self.step_i >= 0 and not self._caught_up():
                self.waited += 1
                if self.waited > self.patience:       # nobody said anything: show the cards again
                    self.stats.timeouts += 1
                    if self._gave_up():
                        return
                    acc = self._accepted()
                    for s, n in self.expected.items():
                        if acc.get(s, 0) < n:
                            self._reshow(s)
                    self.waited = 0
                return
            self.waited = 0
            self.step_i += 1
            if self.step_i >= len(battle.steps):
                self.phase = "wait"
                return
            step = battle.steps[self.step_i]
            for seat, codes in step.places.items():
                for code in codes:
                    self._lay(seat, code)
                self.expected[seat] += len(codes)
            if step.last:
                battle.shown_at = None          # set by the first frame that shows it
                self._mark_last = True
            self.timer = self.hold
            return
        if self.phase == "wait":
            if self._ruled() > self.battle_i or (self.script[self.battle_i].truth["winner"] is None
                                                 and self._caught_up()):
                self.phase, self.timer = "ruled", self.hold
            else:
                self.waited += 1
                if self.waited > self.patience:
                    self.stats.timeouts += 1
                    if self._gave_up():
                        return
                    for s in self.players:
                        self._reshow(s)
                    self.waited = 0
            return
        if self.phase == "ruled":                     # the winner takes the middle
            for s in self.players:
                self.items[s] = []
            self.battle_i += 1
            self.stuck = 0
            self.phase, self.timer = "collect", self.hold + 1
            return

    def _gave_up(self) -> bool:
        """One more time the cards were shown again in this battle; True (and the table done) once
        that is ``give_up`` times: the deck's cards are not being read."""
        self.stuck += 1
        if self.give_up is not None and self.stuck >= self.give_up:
            self.phase, self.done, self.stalled = "done", True, True
        return self.stalled

    def _maybe_hand(self) -> list[Hand]:
        if self.hand is not None:
            hand, left = self.hand
            self.hand = (hand, left - 1) if left > 1 else None
            return [hand]
        if self.phase == "lay" and self.timer == self.hold - 1 and self.rng.random() < self.hands / 3:
            seat = self.rng.choice(self.players)
            if self.items[seat]:
                it = self.rng.choice(self.items[seat])
                slots = self.script[min(self.battle_i, len(self.script) - 1)].slots
                x, y, _ = self._place(seat, it, slots)
                w, h = self.size
                top = y < h / 2
                root = (x + self.rng.uniform(-200, 200), -60.0 if top else h + 60.0)
                palm = (x + self.rng.uniform(-40, 40), y + (-1 if top else 1) * self.rng.uniform(40, 75))
                hand = Hand(root, palm, self.rng.uniform(60, 80))
                self.hand = (hand, self.rng.randint(3, 6))
                self.stats.hands += 1
                return [hand]
        return []

    def image(self, i: int = 0) -> np.ndarray | None:
        """The next frame of the table (None once the scripted battles are over)."""
        self._mark_last = False
        self._advance()
        if self.done:
            return None
        slots = self.script[min(self.battle_i, len(self.script) - 1)].slots if self.script else 1
        cards = []
        for seat in self.players:
            for it in self.items[seat]:
                if it.hidden > 0:
                    it.hidden -= 1
                    continue
                x, y, angle = self._place(seat, it, slots)
                cards.append((it.code, (x, y), angle))
        hands = self._maybe_hand()
        frame, _ = self.table.render(cards, hands)
        frame = cv2.add(frame, self._noise[self.stats.frames % len(self._noise)])   # sensor noise: no two frames alike
        self.stats.frames += 1
        if self._mark_last and self.battle_i < len(self.script):
            self.script[self.battle_i].shown_at = time.monotonic()
        return frame

    # -- the verdict -------------------------------------------------------------------------------
    def summary(self, wall_s: float, cpu_s: float | None = None) -> dict[str, Any]:
        glue = self.glue
        ruled = glue.battles if glue is not None else []
        wrong = 0
        latencies = []
        for i, b in enumerate(ruled):
            truth = self.script[i].truth if i < len(self.script) else None
            r = b["ruling"]
            if truth is None or r.get("winner") != truth["winner"] or r.get("cards") != truth["cards"] \
                    or r.get("counts") != truth["counts"]:
                wrong += 1
            shown = self.script[i].shown_at if i < len(self.script) else None
            if shown is not None:
                latencies.append((b["t"] - shown) * 1000)
        decided = sum(1 for b in self.script if b.truth["winner"] is not None)
        return {
            "game": "classic", "players": self.players, "deck": self.deck,
            "battles": len(ruled), "battles_scripted": decided,
            "wars": sum(1 for b in self.script for e in b.truth["events"] if e["type"] == "down") // max(1, len(self.players)),
            "rulings": glue.rulings if glue is not None else 0,
            "reasks": len(glue.reasks) if glue is not None else 0,
            "reshows": self.stats.reshows, "timeouts": self.stats.timeouts, "hands": self.stats.hands,
            "wrong_rulings": wrong, "stalled": self.stalled,
            "frames": self.stats.frames, "wall_s": round(wall_s, 2),
            "fps": round(self.stats.frames / wall_s, 1) if wall_s > 0 else None,
            "cpu_per_wall": round(cpu_s / wall_s, 2) if cpu_s is not None and wall_s > 0 else None,
            "latency_ms": {"p50": _pct(latencies, 50), "p95": _pct(latencies, 95), "n": len(latencies)},
        }


def _pct(values: list[float], q: float) -> float | None:
    if not values:
        return None
    v = sorted(values)
    k = (len(v) - 1) * q / 100
    lo, hi = math.floor(k), math.ceil(k)
    return round(v[lo] + (v[hi] - v[lo]) * (k - lo), 1)


# ----------------------------------------------------------------------------------- wiring
def deck_faces(deck: str | None) -> dict | None:
    """The card pictures the demo deals for ``deck``: None for warref's own standard deck, a taught
    deck's own (``Taught.pictures``) for one like it; ValueError, saying why, for any other."""
    if deck in (None, "standard"):
        return None
    like = decks.profile(deck).like             # ValueError naming the decks there are
    if like != "standard":
        raise ValueError(f"deck {deck!r} is like the {like} deck; the demo plays Classic War, with a deck "
                         "like standard")
    return decks.find(deck).pictures()


def make_live(db_path, players: list[str], seed: int, battles: int, *, fps: float = 0.0, threshold: float = LIVE.announce,
              hold: int = 5, hands: float = 0.35, reader: Any = None, source_factory=None,
              watch: dict[str, Any] | None = None, deck: str | None = None, give_up: int | None = None):
    """The demo's pieces: the simulated table and the Live loop watching it (through a WatchedSource
    over a ListSource of the table's frames); the caller runs Live with a GameKeeper. ``deck``: a
    taught deck like the standard one (`warref decks`), its own card pictures on the table and read
    by its own readers. ``give_up``: see ``DemoTable``. ``source_factory`` (table -> a function
    opening the source) and ``watch`` (WatchedSource settings) are for tests."""
    table = DemoTable(players, seed, battles, hold=hold, hands=hands, deck=deck or "standard",
                      faces=deck_faces(deck), give_up=give_up)
    source = lambda: ListSource(table.image, name="demo table", fps=fps or None)  # noqa: E731
    camera = WatchedSource(source_factory(table) if source_factory else source, source=say("demo table"), **(watch or {}))

    def start(keeper) -> None:
        keeper.new_game({"game": "classic", "players": [{"name": p} for p in players]})

    def frame_done(live) -> bool:
        if table.glue is None:
            table.glue = live.glue
        return table.done

    live = Live(camera, reader or TableReader(deck or "standard", LIVE), threshold=threshold, threaded=fps > 0,
                on_start=start, on_frame=frame_done)
    return table, live


def run_sync(db_path, players=("Alex", "Olivia"), seed: int = 1, battles: int = 5, *, max_frames: int = 5000,
             live_hook=None, **kwargs) -> tuple[dict[str, Any], Any, Any]:
    """The whole loop without a web server (tests, benchmarks): returns (summary, keeper, table)."""
    store = Store(db_path)
    keeper = GameKeeper(store, time.time)
    table, live = make_live(db_path, list(players), seed, battles, **kwargs)
    live.attach(keeper)
    wall0, cpu0 = time.perf_counter(), time.process_time()
    steps = 0
    while not table.done and steps < max_frames:
        if live_hook is not None:
            live_hook(live, steps)
        live.step()
        if table.glue is None:
            table.glue = live.glue
        steps += 1
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    live.camera.close()
    return table.summary(wall, cpu), keeper, table
