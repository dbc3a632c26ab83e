"""Decks as data: each deck is a TOML file in referee/decks/ listing its cards.

A card row has a ``code`` (what the camera and players report), a ``kind``, an optional ``value``,
a ``count`` (copies in the box), a ``name`` and an optional ``also``: a shorter code that stands
for any card sharing it, for when a card is read without its colour or suit.
"""
from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Iterable

from .errors import SetupError, UnknownCard
from .say import Card as SaidCard
from .say import Said, say


@dataclass(frozen=True)
class Card:
    """One printed card design in a deck."""
    code: str
    kind: str
    count: int
    name: str
    value: int | None = None
    also: str | None = None


@dataclass(frozen=True)
class Face:
    """What a reported code means: one exact card, or any card of an ``also`` group."""
    code: str
    kind: str
    name: str
    value: int | None
    members: tuple[str, ...]  # the exact card codes this face may be

    @property
    def exact(self) -> bool:
        return self.members == (self.code,)

    @property
    def label(self) -> str:
        """How the card is said aloud in a ruling: its number, or its name."""
        return str(self.value) if self.value is not None else self.name


class Deck:
    def __init__(self, deck_id: str, name: str, cards: Iterable[Card], hint: str = ""):
        self.id = deck_id
        self.name = name
        self.cards = tuple(cards)
        self.hint = hint
        self.by_code = {c.code: c for c in self.cards}
        if len(self.by_code) != len(self.cards):
            raise SetupError(f"Deck {deck_id} lists a card code twice.")
        self.faces: dict[str, Face] = {
            c.code: Face(c.code, c.kind, c.name, c.value, (c.code,)) for c in self.cards}
        groups: dict[str, list[Card]] = {}
        for c in self.cards:
            if c.also:
                groups.setdefault(c.also, []).append(c)
        for also, members in groups.items():
            if also in self.by_code:
                raise SetupError(f"Deck {deck_id}: {also!r} is both a card and a group code.")
            kinds = {m.kind for m in members}
            values = {m.value for m in members}
            if len(kinds) != 1 or len(values) != 1:
                raise SetupError(f"Deck {deck_id}: the cards grouped as {also!r} differ in kind or value.")
            first = members[0]
            self.faces[also] = Face(also, first.kind, str(first.value) if first.value is not None
                                    else first.name, first.value, tuple(m.code for m in members))
        self.size = sum(c.count for c in self.cards)
        self._once = frozenset(c.code for c in self.cards if c.count == 1)   # exact codes of one card

    def count(self, kind: str | None = None, code: str | None = None) -> int:
        return sum(c.count for c in self.cards
                   if (kind is None or c.kind == kind) and (code is None or c.code == code))

    def read(self, code: str) -> Face:
        """The face for a reported code (case and spaces ignored), or UnknownCard."""
        face = self.faces.get(code) if type(code) is str else None   # as the camera sends it: no work
        if face is not None:
            return face
        key = str(code).strip().upper().replace(" ", "")
        face = self.faces.get(key)
        if face is None:
            # the deck's name and hint are messages too (a translator finds them: web/i18n.py reads the deck files;
            # a name made with say() is one already)
            name = self.name if isinstance(self.name, Said) else say(self.name)
            raise UnknownCard(say("Unknown card {code}. {deck} cards are {hint}.", code=repr(code), deck=name,
                                  hint=say(self.hint)) if self.hint else say("Unknown card {code}.", code=repr(code)))
        return face

    def cannot_coexist(self, faces: Iterable[Face]) -> str | None:
        """None if these face-up cards can all be on the table at once; otherwise why not.

        Each exact code may appear at most ``count`` times; a group code together with the exact
        codes of its members may appear at most as many times as the group has cards.
        """
        if type(faces) is not list:
            faces = list(faces)
        codes = set()
        for f in faces:
            codes.add(f.code)
        if len(codes) == len(faces) and self._once.issuperset(codes):
            return None                  # each a different card the deck holds once: the common case
        exact: dict[str, int] = {}       # how many times each exact code is up, and each group code
        group: dict[str, int] = {}
        for f in faces:
            counted = exact if f.code in self.by_code else group     # (f.exact: a group's code is no card's)
            counted[f.code] = counted.get(f.code, 0) + 1
        for code, n in exact.items():
            have = self.by_code[code].count
            if n > have:
                return self._too_many(SaidCard(code, self.by_code[code].name), have)
        for code, n in group.items():
            face = self.faces[code]
            total = n + sum(exact.get(m, 0) for m in face.members)
            have = sum(self.by_code[m].count for m in face.members)
            if total > have:
                return self._too_many(SaidCard(face.code, face.label, face.value), have, group=True)
        return None

    @staticmethod
    def _too_many(name: str, have: int, group: bool = False) -> str:
        if have == 1:
            return say("There is only one {card} in the deck, and it is already on the table.", card=name)
        if group:
            return say("There are only {n} cards that read {card} in the deck, and all of them are already on the "
                       "table.", n=have, card=name)
        return say("There are only {n} {card} cards in the deck, and all of them are already on the table.", n=have,
                   card=name)


def load_deck_file(path: str | Path) -> Deck:
    data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    return _deck_from_data(data, str(path))


def _deck_from_data(data: dict, where: str) -> Deck:
    try:
        cards = [Card(code=str(row["code"]).upper(), kind=row["kind"], count=int(row.get("count", 1)),
                      name=row.get("name", row["code"]), value=row.get("value"),
                      also=str(row["also"]).upper() if row.get("also") is not None else None)
                 for row in data["cards"]]
        return Deck(data["id"], data.get("name", data["id"]), cards, data.get("hint", ""))
    except (KeyError, TypeError, ValueError) as err:
        raise SetupError(f"Deck file {where} is not valid: {err}") from err


@cache
def load_deck(deck_id: str) -> Deck:
    """A deck shipped with warref, by id (the file name in referee/decks/ without .toml)."""
    ref = resources.files("referee") / "decks" / f"{deck_id}.toml"
    if not ref.is_file():
        raise SetupError(f"No deck called {deck_id!r}.")
    return _deck_from_data(tomllib.loads(ref.read_text(encoding="utf-8")), f"decks/{deck_id}.toml")
