"""Table events: parsing and validating the JSON objects that come from the camera or the dashboard.

An event is a JSON object with a ``type``. Each type is a small dataclass with slots; its fields say
which keys are required and what they hold. Events are not frozen (a frozen dataclass's __init__ costs
three times as much, and a simulation makes thousands a second) but nothing assigns to one: the table
keeps them as given (Table.log's entries are made from them when read). They hash by their fields,
as frozen ones did. Unknown keys (a frame number, a confidence) are kept aside and ignored by the
rules.
"""
from __future__ import annotations

import dataclasses
import unicodedata
from dataclasses import dataclass
from typing import Any, ClassVar

from .errors import BadEvent
from .say import say

EVENT_TYPES: dict[str, type["Event"]] = {}


def event_type(name: str):
    """Make the class below an event dataclass and the event type ``name``."""
    def register(cls):
        cls = dataclass(slots=True, unsafe_hash=True)(cls)
        cls.TYPE = name
        EVENT_TYPES[name] = cls
        return cls

    return register


@dataclass(slots=True, unsafe_hash=True)
class Event:
    TYPE: ClassVar[str] = ""
    # JSON keys that differ from the field name (``from`` is a Python keyword).
    ALIASES: ClassVar[dict[str, str]] = {}

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.TYPE}
        for name, key, _, _ in _FIELDS.get(type(self)) or _fields(type(self)):
            value = getattr(self, name)
            if value is not None:
                out[key] = value
        return out


@dataclass(slots=True, unsafe_hash=True)
class SeatEvent(Event):
    """An event made at a seat."""
    seat: str


@event_type("flip")
class Flip(SeatEvent):
    """A battle card turned face up at a seat."""
    card: str


@event_type("flips")
class Flips(Event):
    """Several cards the camera saw turned up in the same frame: {"Alex": "AS", "Olivia": "7H"}.
    In Classic War's race for an ace, two aces in one frame keep the race going."""
    cards: dict


@event_type("down")
class Down(SeatEvent):
    """Cards laid face down at a seat during a war."""
    count: int


@event_type("action")
class Action(SeatEvent):
    """An action card (Steal, Reveal) played face up."""
    ALIASES: ClassVar[dict[str, str]] = {"source": "from"}
    card: str
    target: str | None = None
    source: str | None = None


@event_type("choose")
class Choose(SeatEvent):
    """A player's choice of opponent (Namikopy War: the flipper of a WAR card picks who to fight)."""
    opponent: str


@event_type("bet")
class Bet(SeatEvent):
    """Chips staked at a seat before the deal (Casino War); ``tie`` is the optional tie side bet."""
    amount: int
    tie: int | None = None


@event_type("surrender")
class Surrender(SeatEvent):
    """Casino War: after a tie with the dealer, give up half the bet instead of going to war."""


@event_type("go_to_war")
class GoToWar(SeatEvent):
    """Casino War: after a tie with the dealer, stake a second bet equal to the first and go to war."""


@event_type("recount")
class Recount(SeatEvent):
    """A correction entered by players: how many cards a seat really holds."""
    count: int | None = None
    hand: int | None = None
    herd: int | None = None


@event_type("time_up")
class TimeUp(Event):
    """The agreed time for a timed game has run out."""


@event_type("undo")
class Undo(Event):
    """Take back the last accepted event (handled by the table's log, not by the rules)."""


@event_type("raise")
class Raise(SeatEvent):
    """Guerra: an Ofensiva, a proposal to raise the confronto's value by 1 (or, answering one, to
    raise it again)."""


@event_type("accept")
class Accept(SeatEvent):
    """Guerra: the answering side accepts an Ofensiva, or the side at 5 points accepts Fim de Guerra."""


@event_type("refuse")
class Refuse(SeatEvent):
    """Guerra: the answering side refuses an Ofensiva, or the side at 5 points refuses Fim de Guerra."""


@event_type("call")
class Call(SeatEvent):
    """Guerra's troca por sequência: a player shows a run of three (``cards``: "7C 8D 9H") and calls
    ``parity`` (even or odd) for the die roll."""
    cards: str
    parity: str


@event_type("roll")
class Roll(SeatEvent):
    """Guerra: the die rolled after a troca por sequência call (``die``: 1-6)."""
    die: int


@event_type("abstain")
class Abstain(SeatEvent):
    """Guerra's abstenção: the first player to receive cards swaps the hand, unseen, for another."""


@event_type("cut")
class Cut(SeatEvent):
    """Guerra: the cut, and the cutter's ``choice``: up (deal from the bottom) or down (from the top)."""
    choice: str


def _check(value: Any, annotation: str) -> bool:
    if value is None:
        return "None" in annotation
    if annotation.startswith("int"):
        return isinstance(value, int) and not isinstance(value, bool)
    if annotation.startswith("str"):
        return isinstance(value, str)
    if annotation == "dict":
        return isinstance(value, dict) and bool(value) and all(
            isinstance(k, str) and isinstance(v, str) for k, v in value.items())
    return True


_FIELDS: dict[type, tuple[tuple[str, str, bool, str], ...]] = {}     # filled by _fields, read per event


def _fields(cls: type[Event]) -> tuple[tuple[str, str, bool, str], ...]:
    """(field name, JSON key, required, annotation) for each field of an event type."""
    found = _FIELDS.get(cls)
    if found is None:
        found = _FIELDS[cls] = tuple((f.name, cls.ALIASES.get(f.name, f.name), f.default is dataclasses.MISSING,
                                      str(f.type)) for f in dataclasses.fields(cls))
    return found


def parse_event(obj: Any) -> Event:
    """Turn a decoded JSON object into an Event, or raise BadEvent with a readable sentence."""
    if not isinstance(obj, dict):
        raise BadEvent(say("An event must be a JSON object such as {example}.", example='{"type": "flip", ...}'))
    kind = obj.get("type")
    cls = EVENT_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        known = ", ".join(sorted(EVENT_TYPES))
        raise BadEvent(say("Unknown event (no type); the event types are {known}.", known=known) if kind is None
                       else say("Unknown event (type {kind}); the event types are {known}.", kind=repr(kind), known=known))
    values: dict[str, Any] = {}
    for name, key, required, annotation in _fields(cls):
        value = obj.get(key)
        if value is None:
            if required:
                raise BadEvent(say("A {kind} event needs a {key} field.", kind=kind, key=repr(key)))
            continue
        if type(value) is str and annotation.startswith("str"):     # the common case, checked at once
            values[name] = _text(value)
            continue
        if not _check(value, annotation):
            want = (say("a whole number") if annotation.startswith("int") else
                    say("an object of seats and cards such as {example}", example='{"Alex": "AS"}')
                    if annotation == "dict" else say("text"))
            raise BadEvent(say("In a {kind} event, {key} must be {want} (got {value}).", kind=kind, key=repr(key),
                               want=want, value=repr(value)))
        if isinstance(value, dict):
            value = {_text(k): _text(v) for k, v in value.items()}
        values[name] = _text(value) if isinstance(value, str) else value
    return cls(**values)


def _text(value: str) -> str:
    """A name or card as the table keeps it: trimmed and in Unicode's composed form (NFC), as players'
    names are (referee/names.py), so "José" typed either way is the same seat."""
    if value.isascii():                 # ASCII is NFC already
        return value.strip()
    return unicodedata.normalize("NFC", value.strip())


__all__ = ["Event", "SeatEvent", "EVENT_TYPES", "event_type", "parse_event", "Flip", "Flips", "Down", "Action",
           "Choose", "Bet", "Surrender", "GoToWar", "Recount", "TimeUp", "Undo",
           "Raise", "Accept", "Refuse", "Call", "Roll", "Abstain", "Cut"]
