"""The glue on its own (referee/observe.py): observations into checked referee events on a plain
Table, with no web server and no camera. The tracker's observations fit it; its box overlap is the
vision layer's."""
from __future__ import annotations

import random
from dataclasses import dataclass

from referee import Table
from referee.observe import Observation, Observer, overlap


@dataclass
class Seen:
    kind: str
    seat: str | None
    card: str | None = None
    count: int = 0
    confidence: float = 0.95
    frame: int = 1
    box: list[int] | None = None


class Desk:
    """A table, what was submitted (with its photo) and what was pushed."""

    def __init__(self, players=("Alex", "Olivia"), game="classic"):
        self.table: Table | None = Table(game, list(players))
        self.sent: list[tuple[dict, object]] = []
        self.pushed: list[dict] = []
        self.refuse: str | None = None          # submit refuses with this sentence
        self.observer = Observer(lambda: self.table, self.submit, self.pushed.append, threshold=0.8,
                                 clock=lambda: 42.0)

    def submit(self, event, photo):
        if self.refuse:
            raise Refusal(self.refuse)
        self.sent.append((event, photo))
        return [r.to_json() for r in self.table.submit(event)]


class Refusal(Exception):
    def __init__(self, detail):
        super().__init__(detail)
        self.detail = detail


def test_the_trackers_observations_fit_and_its_overlap_is_the_same():
    from vision.reading import iou
    from vision.tracker import Observation as Tracked

    assert isinstance(Tracked("flip", "Alex", "8S", box=[0, 0, 10, 10]), Observation)
    assert isinstance(Seen("down", "Alex", count=2), Observation)
    rng = random.Random(1)
    for _ in range(500):
        a, b = ([x0, y0, x0 + rng.randint(0, 60), y0 + rng.randint(0, 60)]
                for x0, y0 in ((rng.randint(0, 50), rng.randint(0, 50)) for _ in range(2)))
        assert overlap(a, b) == iou(a, b)


def test_flips_of_one_frame_go_together_with_their_photo_and_a_war_is_clipped():
    desk = Desk()
    out = desk.observer.handle([Seen("flip", "Alex", "7S", box=[0, 0, 10, 10]),
                                Seen("flip", "Olivia", "7H", box=[0, 50, 10, 60])], photo="frame 1")
    assert [o["result"] for o in out] == ["event", "event"]
    assert desk.sent == [({"type": "flips", "cards": {"Alex": "7S", "Olivia": "7H"}}, "frame 1")]
    out = desk.observer.handle([Seen("down", "Alex", count=3, frame=5)])
    assert out[0]["event"] == {"type": "down", "seat": "Alex", "count": 1}      # Classic's war: one down
    assert desk.observer.accepted == {"Alex": 2, "Olivia": 1}
    out = desk.observer.handle([Seen("down", "Alex", count=1, frame=6)])          # owes nothing now
    assert out[0]["result"] == "reask" and desk.pushed[-1]["text"].startswith("Alex, please lay your face-down cards again: ")
    assert desk.observer.handle([Seen("flip", "Alex", "7S", box=[0, 0, 10, 10])])[0]["result"] == "ignored"


def test_a_card_on_one_already_turned_an_unsure_one_and_a_refusal_are_reasked():
    desk = Desk()
    desk.observer.handle([Seen("flip", "Alex", "9S", box=[0, 0, 100, 100])])
    out = desk.observer.handle([Seen("flip", "Alex", "3D", box=[5, 0, 105, 100])])
    assert out[0]["text"] == "Alex, please show your card again: your 9S lies there already."
    desk.observer.handle([Seen("unsure", "Olivia", "QH", confidence=0.5, frame=3)])
    assert desk.pushed[-1] == {"type": "reask", "seat": "Olivia", "card": "QH",
                               "text": "Olivia, please show your card again: it could not be read for sure."}
    desk.refuse = "The camera may not do that."
    out = desk.observer.handle([Seen("flip", "Olivia", "4C", box=[0, 50, 10, 60])])
    assert out[0]["text"] == "Olivia, please show your card again: The camera may not do that."
    assert [e for e, _ in desk.sent] == [{"type": "flip", "seat": "Alex", "card": "9S"}]
    assert [r["kind"] for r in desk.observer.reasks] == ["flip", "unsure", "flip"]


def test_a_battle_is_stamped_and_a_collection_clears_the_turned_cards():
    desk = Desk()
    desk.observer.handle([Seen("flip", "Alex", "KS", box=[0, 0, 10, 10], frame=4)])
    desk.observer.handle([Seen("flip", "Olivia", "2H", box=[0, 50, 10, 60], frame=7)])
    assert [(b["ruling"]["winner"], b["t"], b["frame"]) for b in desk.observer.battles] == [("Alex", 42.0, 7)]
    out = desk.observer.handle([Seen("collected", None, count=2)])
    assert out[0]["result"] == "ignored" and desk.observer.turned == {}
    out = desk.observer.handle([Seen("flip", "Alex", "KS", box=[0, 0, 10, 10])])   # won back, turned again
    assert out[0]["result"] == "event" and len(desk.sent) == 3


def test_nothing_is_sent_without_a_game_under_way():
    desk = Desk()
    desk.table.submit({"type": "recount", "seat": "Olivia", "count": 0})          # Alex wins
    out = desk.observer.handle([Seen("flip", "Alex", "5S")])
    assert out == [{"result": "ignored", "kind": "flip", "seat": "Alex", "card": "5S", "why": "no game under way"}]
    desk.table = None
    assert desk.observer.handle([Seen("flip", "Alex", "5S")])[0]["why"] == "no game under way"
    assert desk.sent == [] and desk.pushed == []
