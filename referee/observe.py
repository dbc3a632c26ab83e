"""What a camera saw, turned into referee events (pure: no I/O, no vision, no web).

A table tracker (``vision.tracker.TableTracker``) reports what became certain on the table, one
observation at a time: a card turned up at a seat (``flip``), cards laid face down there (``down``,
``count`` of them), a card it could not read for sure (``unsure``), the middle collected
(``collected``). ``Observer`` decides which referee event each one makes and checks it first: a
read below ``threshold``, an ``unsure`` observation, a card lying on one the seat has already turned
this battle, or an event the referee refuses (``Table.verify``: a second ace of spades, a card of
another deck, a flip by a player who is out or not in the battle) becomes a ``reask`` message
("Alex, please show your card again: ...") and nothing is sent to the referee. It never announces
a guess. The same card seen again (uncovered after a hand passed over it) is not news. Cards turned
up in one frame go as one ``flips`` event in a game whose seats flip together (two aces in one frame
keep a race for an ace going); a face-down count is clipped to what the referee expects.

The caller gives the table of the game under way, a ``submit`` that applies an event (keeping the
photo of the frame when it decides a battle), a ``push`` for messages and a clock: web/live.py wires
them to the dashboard's server.
"""
from __future__ import annotations

from collections import Counter
from typing import Any, Callable, Protocol, Sequence, runtime_checkable

from .errors import IllegalEvent
from .say import Card, say
from .table import Table

NOT_SURE = say("it could not be read for sure.")       # why a card is asked for again

OVERLAP = 0.3    # a card whose box overlaps one turned at its seat this battle by more than this lies on it


@runtime_checkable
class Observation(Protocol):
    """What the tracker saw become certain (``vision.tracker.Observation`` has this shape)."""

    @property
    def kind(self) -> str: ...                      # "flip" | "down" | "unsure" | "collected"
    @property
    def seat(self) -> str | None: ...
    @property
    def card(self) -> str | None: ...               # flip, unsure: the card's code
    @property
    def count(self) -> int: ...                     # down: cards laid face down
    @property
    def confidence(self) -> float: ...
    @property
    def frame(self) -> int: ...                     # the frame that confirmed it
    @property
    def box(self) -> Sequence[float] | None: ...    # pixels x0, y0, x1, y1


def overlap(a: Sequence[float], b: Sequence[float]) -> float:
    """Intersection over union of two boxes (x0, y0, x1, y1): ``vision.reading.iou``'s twin, kept
    here because the referee imports no vision and this is all the geometry it needs
    (tests/referee/test_observe.py checks that the two agree)."""
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


class Observer:
    """From observations to referee events, checked against the rules and the deck first.

    ``table()``: the Table of the game under way (None: no game); ``submit(event, photo)`` applies an
    event and returns its rulings as JSON (it may raise: a refusal, whose ``detail`` or text is
    read out); ``push(message)`` sends a message to the players; ``clock()`` stamps each battle
    ruling. ``handle`` returns one outcome per observation: ``{"result": "event" | "reask" |
    "ignored", ...}``. What it has done so far: ``events`` (sent), ``accepted`` (cards per seat, face
    up and face down), ``battles`` (``{"seq", "ruling", "t", "frame"}`` per battle ruling),
    ``rulings`` (how many, prompts left out) and ``reasks`` (every reask message with its frame and kind)."""

    def __init__(self, table: Callable[[], Table | None], submit: Callable[[dict[str, Any], Any], list[dict[str, Any]]],
                 push: Callable[[dict[str, Any]], None], *, threshold: float, clock: Callable[[], float]):
        self.table = table
        self.submit = submit
        self.push = push
        self.threshold = threshold
        self.clock = clock
        self.reset()

    def reset(self) -> None:
        self.turned: dict[str, list[tuple[str, list[int]]]] = {}   # cards accepted since the last collection
        self.accepted: Counter[str] = Counter()    # cards accepted per seat (face up and face down)
        self.battles: list[dict[str, Any]] = []    # {"seq", "ruling", "t", "frame"} per battle ruling
        self.rulings = 0
        self.reasks: list[dict[str, Any]] = []
        self.events: list[dict[str, Any]] = []

    # -- helpers -------------------------------------------------------------------------------
    def _reask(self, obs: Observation, why: str, card: str | None = None, down: bool = False) -> dict[str, Any]:
        seat = obs.seat
        text = (say("{seat}, please lay your face-down cards again: {why}", seat=seat, why=why) if down
                else say("{seat}, please show your card again: {why}", seat=seat, why=why))
        pushed = {"type": "reask", "seat": seat, "card": card, "text": text}
        self.reasks.append({**pushed, "frame": obs.frame, "kind": obs.kind})
        self.push(pushed)
        return {"result": "reask", "kind": obs.kind, "seat": seat, "card": card, "text": text}

    def _why_not(self, event: dict[str, Any]) -> str | None:
        table = self.table()
        if table is None:
            return say("no game is under way.")
        try:
            table.verify(event)
        except IllegalEvent as err:
            return err.message
        return None

    def _submit(self, event: dict[str, Any], photo: Any, frame: int) -> list[dict[str, Any]]:
        rulings = self.submit(event, photo)
        self.events.append(event)
        self.rulings += sum(1 for r in rulings if r.get("type") != "prompt")
        now = self.clock()
        for r in rulings:
            if r.get("type") == "battle":
                self.battles.append({"seq": r.get("seq"), "ruling": r, "t": now, "frame": frame})
        return rulings

    # -- the work ------------------------------------------------------------------------------
    def handle(self, observations: list[Observation], photo: Any = None) -> list[dict[str, Any]]:
        """Check and send what ``observations`` (one frame's) make. ``photo`` goes with every event
        to ``submit`` (the web passes a function giving the frame as a JPEG)."""
        table = self.table()
        if table is None or table.state.over:
            return [{"result": "ignored", "kind": o.kind, "seat": o.seat, "card": o.card,
                     "why": "no game under way"} for o in observations]
        out = []
        flips = [o for o in observations if o.kind == "flip"]
        if len(flips) > 1 and table.game.flips_together:
            combined = self._flips_together(flips, photo)
            if combined is not None:
                out += combined
                observations = [o for o in observations if o.kind != "flip"]
        for obs in observations:
            out.append(self._one(obs, photo))
        return out

    def _flips_together(self, flips: list[Observation], photo: Any) -> list[dict[str, Any]] | None:
        """Cards turned up in the same frame go as one ``flips`` event when each would be accepted
        (two aces in one frame keep a race for an ace going)."""
        if any(self._flip_problem(o) for o in flips) or len({o.seat for o in flips}) != len(flips):
            return None
        event = {"type": "flips", "cards": {o.seat: o.card for o in flips}}
        if self._why_not(event) is not None:
            return None
        rulings = self._submit(event, photo, flips[0].frame)
        for o in flips:
            self._accept_flip(o)
        return [{"result": "event", "kind": "flip", "seat": o.seat, "card": o.card, "event": event,
                 "rulings": rulings} for o in flips]

    def _flip_problem(self, obs: Observation) -> str | None:
        if obs.confidence < self.threshold or not obs.card:
            return NOT_SURE
        for card, box in self.turned.get(obs.seat, []):
            if card == obs.card:
                return "seen"
            if box and obs.box and overlap(box, obs.box) > OVERLAP:
                return say("your {card} lies there already.", card=Card(card, card))
        return self._why_not({"type": "flip", "seat": obs.seat, "card": obs.card})

    def _accept_flip(self, obs: Observation) -> None:
        self.turned.setdefault(obs.seat, []).append((obs.card, list(obs.box or [])))
        self.accepted[obs.seat] += 1

    def _one(self, obs: Observation, photo: Any) -> dict[str, Any]:
        base = {"kind": obs.kind, "seat": obs.seat, "card": obs.card}
        if obs.kind == "collected":
            self.turned = {}
            return {"result": "ignored", **base, "why": "the middle was collected"}
        if obs.kind == "unsure":
            return self._reask(obs, NOT_SURE, obs.card)
        if obs.kind == "flip":
            problem = self._flip_problem(obs)
            if problem == "seen":        # the camera sees a card it already announced: not news
                return {"result": "ignored", **base, "why": "already announced"}
            if problem is not None:
                return self._reask(obs, problem, obs.card)
            event = {"type": "flip", "seat": obs.seat, "card": obs.card}
            try:
                rulings = self._submit(event, photo, obs.frame)
            except Exception as err:  # refused: the referee had the last word
                return self._reask(obs, getattr(err, "detail", str(err)), obs.card)
            self._accept_flip(obs)
            return {"result": "event", **base, "event": event, "rulings": rulings}
        if obs.kind == "down":
            count = max(1, int(obs.count or 1))
            why = None
            for c in range(count, 0, -1):                      # clip to what the referee expects
                event = {"type": "down", "seat": obs.seat, "count": c}
                problem = self._why_not(event)
                if problem is None:
                    try:
                        rulings = self._submit(event, photo, obs.frame)
                    except Exception as err:
                        return self._reask(obs, getattr(err, "detail", str(err)), None, down=True)
                    self.accepted[obs.seat] += c
                    return {"result": "event", **base, "event": event, "rulings": rulings}
                why = why or problem
            return self._reask(obs, why or say("the referee expects no face-down cards now."), None, down=True)
        return {"result": "ignored", **base, "why": f"unknown observation {obs.kind!r}"}
