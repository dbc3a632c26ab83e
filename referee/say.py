"""What the referee says, in a form every language can render (pure: no catalogs, no I/O).

A ruling's text is an English sentence, exactly as before; made with :func:`say` it also carries
its message: the English template it was made from (the message id a translator translates) and
the arguments put into it. ``web/i18n.py`` renders a message in another language from the
translators' catalog (``web/locale/pt.po``); the pages do the same from its JSON copy.

    say("{seat} accepts: the confronto is now worth {points}.", seat="Alex", points=points(2))
    -> "Alex accepts: the confronto is now worth 2 points."   (a str)
       .message() -> {"id": "{seat} accepts: ...", "args": {"seat": "Alex",
                      "points": {"id": "{n} point", "plural": "{n} points", "args": {"n": 2}}}}

Plurals are the catalog's business (:func:`say_n`: a singular and a plural template and the count
that picks one, as gettext's ngettext), and so are lists of names (:class:`Names`: "Alex and Sam",
"Alex e Sam") and cards (:class:`Card`: a code, said by each language in its own words), and so is a decimal mark
(:class:`Decimal`: "0.5 s", "0,5 s"). A plain
string argument (a player's name) is put in as it is.
"""
from __future__ import annotations

from typing import Any


class Said(str):
    """An English sentence and the message it was made from (``id``, ``args``, ``plural``). Made
    by :func:`say` and :func:`say_n` only (each sentence a ruling says is one: they are kept cheap)."""

    id: str
    args: dict[str, Any]
    plural: str | None = None

    def message(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "args": {k: message_of(v) for k, v in self.args.items()}}
        if self.plural is not None:
            out["plural"] = self.plural
        return out


class Names(str):
    """Names said as a list: "Alex", "Alex and Sam", "Alex, Sam and Mia"."""

    def __new__(cls, names: list[str]):
        names = list(names)
        text = "".join(names) if len(names) <= 1 else ", ".join(names[:-1]) + " and " + names[-1]
        self = super().__new__(cls, text)
        self.names = names
        return self

    def __reduce__(self):               # pickled as what made it (a checkpoint of a state holds some)
        return Names, (self.names,)

    def message(self) -> dict[str, Any]:
        return {"names": list(self.names)}


class Card(str):
    """A card, said in English as ``label``: by its ``number`` where the game ranks cards by number
    (Guerra's "10"), else by its name ("ace of spades"); ``code`` lets each language name it."""

    def __new__(cls, code: str, label: str, number: int | None = None):
        self = super().__new__(cls, label)
        self.code, self.number = code, number
        return self

    def __reduce__(self):
        return Card, (self.code, str(self), self.number)

    def message(self) -> dict[str, Any]:
        return {"card": self.code, "number": self.number} if self.number is not None else {"card": self.code}


class Decimal(str):
    """A number with a fractional part, said in English as written ("0.5"); each language writes its
    own decimal mark (Portuguese: "0,5")."""

    def message(self) -> dict[str, Any]:
        return {"decimal": str(self)}

    def __reduce__(self):
        return Decimal, (str(self),)


def message_of(value: Any) -> Any:
    """An argument as plain data: a message, names or a card as their dicts, anything else as it is."""
    found = getattr(value, "message", None)
    if found is not None and isinstance(value, str):
        return found()
    return value if isinstance(value, (int, float, bool)) or value is None else str(value)


_new = str.__new__


def say(template: str, **args: Any) -> Said:
    """``template`` with ``args`` put in (str.format), keeping both for other languages."""
    said = _new(Said, template.format_map(args) if args else template)
    said.id, said.args = template, args
    return said


def say_n(singular: str, plural: str, n: int, **args: Any) -> Said:
    """The singular template when ``n`` is 1, else the plural one; ``n`` is an argument too."""
    args = {"n": n, **args}
    said = _new(Said, (singular if n == 1 else plural).format_map(args))
    said.id, said.args, said.plural = singular, args, plural
    return said


def to_translate(text: str) -> str:
    """``text`` as it is, marked for the translators: a sentence a page shows in its own language (a
    game's how-to-play sheet), found by ``make locale`` like ``say``'s."""
    return text


def message_field(text: Any, key: str = "msg") -> dict[str, Any]:
    """``{key: text's message}`` for a sentence made with :func:`say` (a card or names too), to put
    beside its English in an answer; empty for plain text."""
    found = message_of(text)
    return {key: found} if isinstance(found, dict) else {}


def sentence_of(err: BaseException) -> str:
    """What an error says: its sentence as raised (one made with :func:`say` keeps its message), else its
    text."""
    return err.args[0] if len(err.args) == 1 and isinstance(err.args[0], str) else str(err)


def message(text: str) -> dict[str, Any] | None:
    """The message a ruling's text carries, or None for text made without :func:`say`."""
    return text.message() if isinstance(text, Said) else None


__all__ = ["Card", "Decimal", "Names", "Said", "message", "message_field", "message_of", "say", "say_n", "sentence_of", "to_translate"]
