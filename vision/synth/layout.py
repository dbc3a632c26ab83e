"""Play-like layouts on the table plane (millimetres): seats around the middle, battle cards in
the seat zones at any rotation, war piles (face-down cards under a face-up one, slightly offset),
herds and won piles, fanned hands at the players' edges, loose cards, players' hands reaching in,
and stray cups, dice and phones. With ``rows`` (``warref synth --rows``) also cards laid out in
overlapping rows and columns, as a hand laid down to show or count, where only a strip of most
cards shows (the real photos in ../shared/realcards/edje/ are full of them). With ``close_ups``
(``warref synth --close-ups``) no game at all: one to four cards under a phone held close
(``close_up``), often cut by the frame's edge.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from vision.art import CARD_H, CARD_W, CardImage

from . import objects
from .camera import Camera

PLAY = {  # how each deck's games look on the table
    "woolly": {"players": (2, 3), "war_down": (2,), "hands": 0.7, "won_face_up": 0.0},
    "standard": {"players": (2, 4), "war_down": (1, 3), "hands": 0.15, "won_face_up": 0.15},
    "namikopy": {"players": (2, 5), "war_down": (3,), "hands": 0.1, "won_face_up": 0.6},
}


@dataclass
class Item:
    sprite: np.ndarray                 # RGBA uint8
    size: tuple[float, float]          # width, height in mm
    centre: tuple[float, float]        # mm
    angle: float                       # radians, counter-clockwise seen from above
    card: str | None = None            # card code, "BACK", or None for a non-card thing
    artwork: str = ""
    role: str = ""
    lift: float = 0.4                  # mm above the table, for its shadow
    glossy: bool = False

    def sprite_to_table(self) -> np.ndarray:
        """3x3 matrix: sprite pixels (x right, y down) to table mm (x right, y up)."""
        h, w = self.sprite.shape[:2]
        sx, sy = self.size[0] / w, self.size[1] / h
        c, s = np.cos(self.angle), np.sin(self.angle)
        return (np.array([[1, 0, self.centre[0]], [0, 1, self.centre[1]], [0, 0, 1]])
                @ np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])
                @ np.diag([sx, -sy, 1.0])
                @ np.array([[1, 0, -w / 2], [0, 1, -h / 2], [0, 0, 1]]))

    def corners(self) -> np.ndarray:
        """The sprite's corners on the table, in sprite order: top-left, top-right, bottom-right,
        bottom-left (for a card: as the card is printed)."""
        h, w = self.sprite.shape[:2]
        pts = np.array([[0, 0, 1], [w, 0, 1], [w, h, 1], [0, h, 1]], float).T
        out = self.sprite_to_table() @ pts
        return (out[:2] / out[2]).T


@dataclass
class Deck:
    """The art available for one scene's deck: faces by code, and backs."""
    faces: dict[str, list[CardImage]]
    backs: list[CardImage]
    codes: list[str] = field(init=False)        # derived: the classes, sorted

    def __post_init__(self):
        self.codes = sorted(self.faces)


class Builder:
    def __init__(self, rng: np.random.Generator, deck: Deck, featured: list[str]):
        self.rng = rng
        self.deck = deck
        self.featured = list(featured)
        artworks = sorted({c.artwork for cs in deck.faces.values() for c in cs})
        self.artwork = artworks[rng.integers(len(artworks))]     # one printed deck per table
        self.back = deck.backs[rng.integers(len(deck.backs))]
        width = rng.uniform(56, 65)
        self.card_size = (width, width * CARD_H / CARD_W)
        self.glossy = rng.random() < 0.6
        self.items: list[Item] = []

    def face(self, code: str | None = None) -> CardImage:
        if code is None:
            code = self.deck.codes[self.rng.integers(len(self.deck.codes))]
        choices = [c for c in self.deck.faces[code] if c.artwork == self.artwork] or self.deck.faces[code]
        return choices[self.rng.integers(len(choices))]

    def card(self, at, angle, face_up: bool, role: str, code: str | None = None) -> Item:
        art = self.face(code) if face_up else self.back
        item = Item(art.image, self.card_size, (float(at[0]), float(at[1])), float(angle),
                    art.code, art.artwork, role, lift=self.rng.uniform(0.2, 1.0), glossy=self.glossy)
        self.items.append(item)
        return item

    def battle_code(self) -> str | None:
        return self.featured.pop(0) if self.featured else None

    def stack(self, at, angle, count: int, top_face_up: bool, role: str) -> None:
        """A squared pile: edges of the cards below peek out by a millimetre or so."""
        direction = self.rng.uniform(0, 2 * np.pi)
        for k in range(count):
            last = k == count - 1
            off = (count - 1 - k) * self.rng.uniform(0.3, 1.0)
            pos = np.asarray(at) + off * np.array([np.cos(direction), np.sin(direction)])
            self.card(pos, angle + self.rng.normal(0, 0.02), face_up=last and top_face_up, role=role)

    def war_pile(self, at, angle, downs: int, rounds: int) -> None:
        step = self.rng.uniform(5, 16)
        direction = self.rng.uniform(0, 2 * np.pi)
        offset = np.array([np.cos(direction), np.sin(direction)]) * step
        pos = np.asarray(at, float)
        for _ in range(rounds):
            self.card(pos, angle + self.rng.normal(0, 0.08), True, "war_up")
            for _ in range(downs):
                pos = pos + offset
                self.card(pos, angle + self.rng.normal(0, 0.08), False, "war_down")
            pos = pos + offset
        flipped = self.rng.random() < 0.8
        self.card(pos, angle + self.rng.normal(0, 0.08), flipped, "battle",
                  self.battle_code() if flipped else None)

    def fan(self, pivot, angle, count: int, face_up: bool) -> None:
        spread = self.rng.uniform(0.15, 0.35)
        h = self.card_size[1]
        for k in range(count):
            a = angle + (k - (count - 1) / 2) * spread
            # the card's centre sits half a card above the pivot, along its own up direction
            centre = np.asarray(pivot) + np.array([-np.sin(a), np.cos(a)]) * h * 0.42
            self.card(centre, a, face_up, "hand")

    def row(self, at, angle, count: int) -> None:
        """Cards laid out overlapping in a line, each slid from the one below along its width (or,
        less often, its length), so that only a strip of each shows but the last: a hand laid
        down. Mostly face up; the cards sit square to each other, give or take a few degrees."""
        w, h = self.card_size
        if self.rng.random() < 0.7:
            step, direction = self.rng.uniform(0.15, 0.6) * w, np.array([np.cos(angle), np.sin(angle)])
        else:
            step, direction = self.rng.uniform(0.12, 0.45) * h, np.array([-np.sin(angle), np.cos(angle)])
        direction *= 1 if self.rng.random() < 0.5 else -1
        start = np.asarray(at, float) - direction * step * (count - 1) / 2
        for k in range(count):
            pos = start + direction * step * k + self.rng.normal(0, 1.0, 2)
            self.card(pos, angle + self.rng.normal(0, 0.04), self.rng.random() < 0.9, "row")

    def thing(self, kind: str, at, angle) -> None:
        sprite, size = objects.OBJECTS[kind](self.rng)
        self.items.append(Item(sprite, size, (float(at[0]), float(at[1])), float(angle), None, kind, kind,
                               lift=self.rng.uniform(15, 40)))

    def arm(self, fingertip, direction) -> None:
        sprite, size = objects.hand(self.rng)
        u = np.asarray(direction, float) / np.linalg.norm(direction)
        angle = np.arctan2(-u[0], u[1])          # the sprite's up (fingers) along u
        centre = np.asarray(fingertip, float) - u * (size[1] / 2 - 8)
        self.items.append(Item(sprite, size, (float(centre[0]), float(centre[1])), float(angle), None,
                               "hand", "player_hand", lift=self.rng.uniform(30, 90)))


ROWS = 0.45       # with rows: the chance that a seat has a row of cards laid out (Builder.row)


def build(rng: np.random.Generator, deck_id: str, deck: Deck, camera: Camera, featured: list[str],
          rows: bool = False, close_ups: bool = False) -> list[Item]:
    """The items of one scene, bottom to top. ``rows``: lay out rows of overlapping cards too
    (off, a seed gives the scenes it gave before rows existed). ``close_ups``: a few cards seen
    close (``close_up``) instead of a game."""
    if close_ups:
        return close_up(rng, deck, camera, featured)
    play = PLAY[deck_id]
    b = Builder(rng, deck, featured)
    w, h = camera.width, camera.height
    footprint = camera.to_table(np.array([[0, 0], [w, 0], [w, h], [0, h]], float))
    reach = float(np.median(np.linalg.norm(footprint, axis=1))) * rng.uniform(0.75, 1.1)
    lo, hi = play["players"]
    seats = int(rng.integers(lo, hi + 1))
    first = rng.uniform(0, 2 * np.pi)
    at_war = rng.random() < 0.35
    middle = np.array([rng.normal(0, 25), rng.normal(0, 25)])

    for k in range(seats):
        a = first + 2 * np.pi * k / seats + rng.normal(0, 0.15)
        d = np.array([np.cos(a), np.sin(a)])
        facing = a + np.pi / 2                     # the card's top points away from its player
        if rng.random() < 0.9:                     # the herd / playing pile
            b.stack(middle + d * reach * rng.uniform(0.45, 0.75) + rng.normal(0, 20, 2),
                    facing + rng.normal(0, 0.3), int(rng.integers(2, 5)), False, "pile")
        if rng.random() < play["won_face_up"]:     # a won pile kept face up
            b.stack(middle + d * reach * rng.uniform(0.45, 0.75) + rng.normal(0, 40, 2),
                    facing + rng.normal(0, 0.4), int(rng.integers(1, 4)), True, "won")
    for k in range(seats):
        a = first + 2 * np.pi * k / seats + rng.normal(0, 0.15)
        d = np.array([np.cos(a), np.sin(a)])
        spot = middle + d * reach * rng.uniform(0.12, 0.32) + rng.normal(0, 10, 2)
        angle = rng.uniform(0, 2 * np.pi) if rng.random() < 0.5 else a + np.pi / 2 + rng.normal(0, 0.3)
        if at_war:
            downs = int(rng.choice(play["war_down"]))
            b.war_pile(spot, angle, downs, 1 if rng.random() < 0.8 else 2)
        else:
            b.card(spot, angle, True, "battle", b.battle_code())
        if rng.random() < play["hands"]:            # a fanned hand at the player's edge
            b.fan(middle + d * reach * rng.uniform(0.8, 1.05), a + np.pi / 2 + rng.normal(0, 0.2),
                  int(rng.integers(2, 4)), rng.random() < 0.35)
        if rows and rng.random() < ROWS:            # a row laid out between the player and the middle
            facing = a + np.pi / 2 + rng.normal(0, 0.3) if rng.random() < 0.6 else rng.uniform(0, 2 * np.pi)
            b.row(middle + d * reach * rng.uniform(0.3, 0.9) + rng.normal(0, 15, 2), facing,
                  int(rng.integers(2, 7)))
    for _ in range(int(rng.choice([0, 1, 2, 3], p=[0.4, 0.3, 0.2, 0.1]))):   # loose cards, edges too
        at = footprint[rng.integers(4)] * rng.uniform(0, 1) + rng.normal(0, 60, 2)
        b.card(at, rng.uniform(0, 2 * np.pi), rng.random() < 0.6, "loose")
    while b.featured:                                       # every featured card shows up
        b.card(middle + rng.normal(0, reach * 0.3, 2), rng.uniform(0, 2 * np.pi), True, "loose",
               b.battle_code())
    cards = [it for it in b.items if it.card]
    for _ in range(int(rng.choice([0, 1, 2], p=[0.45, 0.4, 0.15]))):
        kind = ("cup", "die", "phone")[rng.integers(3)]
        at = footprint[rng.integers(4)] * rng.uniform(0.3, 0.9) + rng.normal(0, 40, 2)
        b.thing(kind, at, rng.uniform(0, 2 * np.pi))
    for _ in range(int(rng.choice([0, 1, 2], p=[0.5, 0.38, 0.12]))):
        a = first + 2 * np.pi * rng.integers(seats) / seats + rng.normal(0, 0.3)
        target = cards[rng.integers(len(cards))].centre if cards and rng.random() < 0.7 else \
            middle + rng.normal(0, reach * 0.3, 2)
        tip = np.asarray(target) + rng.normal(0, 25, 2)
        b.arm(tip, -np.array([np.cos(a), np.sin(a)]))
    return b.items


CLOSE_CARDS = (0.3, 0.3, 0.22, 0.18)   # close-ups: the chances of 1, 2, 3 and 4 cards
CLOSE_BACK = 0.08                      # ... that a card is a back


def close_up(rng: np.random.Generator, deck: Deck, camera: Camera, featured: list[str]) -> list[Item]:
    """One to four cards where the phone looks: scattered (often reaching past the frame's edge),
    slid along each other as a hand laid down, or dropped over each other; a card is turned square
    to the photo half the time, as people frame them. Sometimes a hand reaching in or a thing."""
    b = Builder(rng, deck, featured)
    w, h = camera.width, camera.height
    card_w, card_h = b.card_size

    def table(fx: float, fy: float) -> np.ndarray:
        """Where a point of the frame (as fractions of its width and height) lies on the table."""
        return camera.to_table(np.array([[fx * w, fy * h]], float))[0]

    centre = table(0.5, 0.5)
    up = centre - table(0.5, 0.6)
    square = float(np.arctan2(-up[0], up[1]))     # the angle at which a card stands upright in the photo

    def angle() -> float:
        if rng.random() < 0.5:
            return square + np.pi / 2 * rng.integers(4) + rng.normal(0, 0.12)
        return rng.uniform(0, 2 * np.pi)

    def face_up() -> bool:
        return rng.random() >= CLOSE_BACK

    def code() -> str:
        """The next featured card, or one not on the table yet."""
        if b.featured:
            return b.battle_code()
        shown = {it.card for it in b.items}
        free = [c for c in deck.codes if c not in shown] or deck.codes
        return free[rng.integers(len(free))]

    count = int(rng.choice(len(CLOSE_CARDS), p=CLOSE_CARDS)) + 1
    style = rng.choice(["scatter", "slide", "drop"], p=[0.45, 0.35, 0.2])
    lo, hi = (0.3, 0.7) if rng.random() < 0.6 else (0.15, 0.85)     # the first card: well in the frame
    pos, a = table(rng.uniform(lo, hi), rng.uniform(lo, hi)), angle()
    up_ = face_up()
    b.card(pos, a, up_, "close", code() if up_ else None)
    step = rng.uniform(0.2, 0.65) * (card_w if rng.random() < 0.7 else card_h)
    heading = rng.uniform(0, 2 * np.pi)
    for _ in range(count - 1):
        if style == "scatter":               # anywhere in the frame, past its edges too
            pos, a = table(rng.uniform(-0.15, 1.15), rng.uniform(-0.15, 1.15)), angle()
        elif style == "slide":               # a hand laid down: each slid along from the last
            pos = pos + step * np.array([np.cos(heading), np.sin(heading)]) + rng.normal(0, 1.5, 2)
            a = a + rng.normal(0, 0.08)
        else:                                # dropped over the last one, any way round
            d = rng.uniform(0.2, 0.7) * card_h
            direction = rng.uniform(0, 2 * np.pi)
            pos, a = pos + d * np.array([np.cos(direction), np.sin(direction)]), angle()
        up_ = face_up()
        b.card(pos, a, up_, "close", code() if up_ else None)
    cards = [it for it in b.items if it.card]
    if rng.random() < 0.08:                  # a cup, a die or a phone at the frame's edge
        kind = ("cup", "die", "phone")[rng.integers(3)]
        edge = rng.uniform(-0.1, 1.1, 2)
        edge[rng.integers(2)] = rng.choice([-0.05, 1.05])
        b.thing(kind, table(*edge), rng.uniform(0, 2 * np.pi))
    if rng.random() < 0.07 and camera.distance > 150:    # fingers reaching in from the edge to a card
        card = cards[rng.integers(len(cards))]
        side = rng.uniform(0, 2 * np.pi)
        tip = np.asarray(card.centre) + np.array([np.cos(side), np.sin(side)]) * rng.uniform(0.45, 0.7) * card_h
        edge = rng.uniform(0, 1, 2)
        edge[rng.integers(2)] = rng.choice([-0.3, 1.3])
        direction = tip - table(*edge)
        if np.linalg.norm(direction) > 1:
            b.arm(tip, direction)
    return b.items
