"""Table events: parsing and validating the JSON objects that come from the camera or the dashboard.

An event is a JSON object with a ``type``. Each type is a small dataclass; its fields say which
keys are required and what they hold. Unknown keys (a frame number, a confidence) are kept aside
and ignored by the rules.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar

from .errors import BadEvent

EVENT_TYPES: dict[str, type["Event"]] = {}


def event_type(name: str):
    def register(cls):
        cls.TYPE = name
        EVENT_TYPES[name] = cls
        return cls

    return register


@dataclass(frozen=True)
class Event:
    TYPE: ClassVar[str] = ""
    # JSON keys that differ from the field name (``from`` is a Python keyword).
    ALIASES: ClassVar[dict[str, str]] = {}

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.TYPE}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if value is not None:
                out[self.ALIASES.get(f.name, f.name)] = value
        return out


@event_type("flip")
@dataclass(frozen=True)
class Flip(Event):
    """A battle card turned face up at a seat."""
    seat: str
    card: str


@event_type("down")
@dataclass(frozen=True)
class Down(Event):
    """Cards laid face down at a seat during a war."""
    seat: str
    count: int


@event_type("action")
@dataclass(frozen=True)
class Action(Event):
    """An action card (Steal, Reveal) played face up."""
    ALIASES: ClassVar[dict[str, str]] = {"source": "from"}
    seat: str
    card: str
    target: str | None = None
    source: str | None = None


@event_type("recount")
@dataclass(frozen=True)
class Recount(Event):
    """A correction entered by players: how many cards a seat really holds."""
    seat: str
    count: int | None = None
    hand: int | None = None
    herd: int | None = None


@event_type("time_up")
@dataclass(frozen=True)
class TimeUp(Event):
    """The agreed time for a timed game has run out."""


@event_type("undo")
@dataclass(frozen=True)
class Undo(Event):
    """Take back the last accepted event (handled by the table's log, not by the rules)."""


def _check(value: Any, annotation: str) -> bool:
    if value is None:
        return "None" in annotation
    if annotation.startswith("int"):
        return isinstance(value, int) and not isinstance(value, bool)
    if annotation.startswith("str"):
        return isinstance(value, str)
    return True


def parse_event(obj: Any) -> Event:
    """Turn a decoded JSON object into an Event, or raise BadEvent with a readable sentence."""
    if not isinstance(obj, dict):
        raise BadEvent("An event must be a JSON object such as {\"type\": \"flip\", ...}.")
    kind = obj.get("type")
    if not isinstance(kind, str) or kind not in EVENT_TYPES:
        known = ", ".join(sorted(EVENT_TYPES))
        shown = "no type" if kind is None else f"type {kind!r}"
        raise BadEvent(f"Unknown event ({shown}); the event types are {known}.")
    cls = EVENT_TYPES[kind]
    values: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        key = cls.ALIASES.get(f.name, f.name)
        required = f.default is dataclasses.MISSING
        if key not in obj or obj[key] is None:
            if required:
                raise BadEvent(f"A {kind} event needs a {key!r} field.")
            continue
        value = obj[key]
        if not _check(value, str(f.type)):
            want = "a whole number" if str(f.type).startswith("int") else "text"
            raise BadEvent(f"In a {kind} event, {key!r} must be {want} (got {value!r}).")
        values[f.name] = value.strip() if isinstance(value, str) else value
    return cls(**values)


__all__ = ["Event", "EVENT_TYPES", "event_type", "parse_event", "Flip", "Down", "Action",
           "Recount", "TimeUp", "Undo"]
