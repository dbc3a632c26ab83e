"""Rulings: what the referee says after each event, for players and for programs."""
from __future__ import annotations

from typing import Any, Callable


class Ruling:
    """A ruling's ``type``, its sentence (``text``) and its ``data`` for programs.

    ``text`` may be given as a function of no arguments that makes the sentence: it is made the
    first time it is read (a simulation reads the data of thousands of rulings a second and hardly
    any sentence). Such a function must hold the values it says, not read the state later."""

    __slots__ = ("type", "_text", "data")

    def __init__(self, type: str, text: str | Callable[[], str], data: dict[str, Any] | None = None):
        self.type = type
        self._text = text
        self.data = {} if data is None else data

    @property
    def text(self) -> str:
        text = self._text
        if callable(text):
            text = self._text = text()
        return text

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "text": self.text, **self.data}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Ruling):
            return NotImplemented
        return (self.type, self.text, self.data) == (other.type, other.text, other.data)

    __hash__ = None                      # type: ignore[assignment]   (mutable, as the dataclass was)

    def __repr__(self) -> str:
        return f"Ruling(type={self.type!r}, text={self.text!r}, data={self.data!r})"

    def __reduce__(self):
        return Ruling, (self.type, self.text, self.data)


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def article(label: str) -> str:
    """'an 8', 'an 11', 'a 12', 'a War card' - as it is said aloud."""
    spoken_vowel = label[:1] in "8" or label in ("11", "18") or label[:1].lower() in "aeiou"
    return ("an " if spoken_vowel else "a ") + label
