"""Rulings: what the referee says after each event, for players and for programs."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True)
class Ruling:
    type: str
    text: str
    data: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "text": self.text, **self.data}


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def article(label: str) -> str:
    """'an 8', 'an 11', 'a 12', 'a War card' - as it is said aloud."""
    spoken_vowel = label[:1] in "8" or label in ("11", "18") or label[:1].lower() in "aeiou"
    return ("an " if spoken_vowel else "a ") + label
