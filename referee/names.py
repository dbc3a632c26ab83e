"""One rule for the names people read at a table: every game's players (the dashboard, the command
line) and the seats of the phone rooms.

- ``clean(name)``: the name as the table keeps it (NFC, spaces tidied) or ValueError with a sentence
  a child's parent understands: 1-24 characters, nothing invisible (zero-width and other
  default-ignorable characters such as U+3164 HANGUL FILLER, direction overrides, control
  characters such as NUL and ESC) and no pile of combining marks on one letter.
- ``alike(a, b)`` / ``find_alike(names)``: names that are the same (any case, composed or not) or
  look the same on a screen, such as ``Alex``, Cyrillic ``Аlex`` and ``Aleх``. Look-alikes are
  Unicode's confusables (UTS #39, confusables.txt) as the ``confusable_homoglyphs`` package ships
  them: two names look alike when their skeletons (every character replaced by the one its
  confusable class is written with) are equal, with or without case.

Pure Python, no I/O of its own (the confusables table is read from its package on first use).
"""
from __future__ import annotations

import unicodedata
from functools import lru_cache
from typing import Iterable, Sequence

from .say import say

LIMIT = 24                # characters in a name
MARKS = 3                 # combining marks on one letter (Vietnamese needs 2; 23 is a smear over the line)
# control characters, format characters (direction overrides, zero-width spaces and joiners), surrogates,
# private use and unassigned code points, line and paragraph separators
NOT_IN_NAMES = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}
# Unicode's Default_Ignorable_Code_Point (DerivedCoreProperties.txt): characters shown as nothing at all,
# some of them letters (U+3164 HANGUL FILLER) or marks (U+034F) rather than format characters
IGNORABLE = ((0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5),
             (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x3164, 0x3164),
             (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3),
             (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF))
BLANK = {0x2800}          # BRAILLE PATTERN BLANK: a symbol that shows nothing
EMOJI_STYLE = {0xFE0E, 0xFE0F}   # text/emoji style after a symbol (a phone's ❤️): kept, as it shows nothing new
MARK = {"Mn", "Me"}


def invisible(c: str) -> bool:
    """A character that shows nothing, or changes what the others show (direction, joining)."""
    o = ord(c)
    return (unicodedata.category(c) in NOT_IN_NAMES or o in BLANK
            or any(lo <= o <= hi for lo, hi in IGNORABLE))


def clean(name: str, what: str | None = None, limit: int = LIMIT) -> str:
    """``name`` as the table keeps it: NFC, trimmed, every run of spaces one plain space. ValueError
    with a sentence when it is empty or longer than ``limit`` characters, holds an invisible or
    direction-changing character, or piles more than 3 combining marks on a letter."""
    what = say("A player's name") if what is None else what
    if not isinstance(name, str):
        raise ValueError(say("{what} is text.", what=what))
    text = unicodedata.normalize("NFC", name)
    text = " ".join(part for part in "".join(" " if unicodedata.category(c) == "Zs" else c for c in text).split(" ")
                    if part)
    if not 1 <= len(text) <= limit:
        raise ValueError(say("{what} is 1-{limit} characters (got {n}: {start}...).", what=what, limit=limit,
                             n=len(text), start=repr(text[:30])))
    bad = [c for i, c in enumerate(text)
           if invisible(c) and not (ord(c) in EMOJI_STYLE and i and unicodedata.category(text[i - 1]) == "So")]
    if bad:
        codes = ", ".join(f"U+{ord(c):04X}" for c in dict.fromkeys(bad))
        raise ValueError(say("{what} can't hold invisible or direction-changing characters ({codes} in {text}): "
                             "type it again with letters only.", what=what, codes=codes, text=repr(text)))
    run = 0
    for i, c in enumerate(text):
        if unicodedata.category(c) in MARK:
            run += 1
            if i == run - 1:
                raise ValueError(say("{what} can't start with a mark that belongs on a letter ({text}).", what=what,
                                     text=repr(text)))
            if run > MARKS:
                base, end = i - run, i
                while end < len(text) and unicodedata.category(text[end]) in MARK:
                    end += 1
                raise ValueError(say("{what} can't pile {n} marks on one letter ({letter}): at most {most}, as "
                                     "written words have.", what=what, n=end - base - 1, letter=repr(text[base]),
                                     most=MARKS))
        else:
            run = 0
    return text


# ---------------------------------------------------------------------- look-alikes
def _neighbours(c: str) -> list[str]:
    from confusable_homoglyphs import confusables      # Unicode's confusables.txt, both ways
    found = confusables.is_confusable(c, greedy=True)
    if not found:
        return []
    # the table writes right-to-left characters between U+200E marks for display: they are not part of it
    return [h["c"].replace("\u200e", "").replace("\u200f", "") for h in found[0]["homoglyphs"]]


@lru_cache(maxsize=8192)
def _class_of(c: str) -> str:
    """What ``c`` is written as in a skeleton: the same string for every character of one confusable
    class. confusables.txt maps each character to a prototype; the package keeps each line both ways,
    so a class is the characters reached one to one, and a character mapped to a longer prototype
    (``m`` to ``rn``) is that prototype's characters."""
    near = [n for n in _neighbours(c) if n]
    longer = [n for n in near if len(n) > 1]
    if len(near) == 1 and longer:
        return "".join(_class_of(x) for x in unicodedata.normalize("NFD", longer[0]))
    seen, todo = {c}, [c]
    while todo:
        for n in _neighbours(todo.pop()):
            if len(n) == 1 and n not in seen:
                seen.add(n)
                todo.append(n)
    return min(seen)


@lru_cache(maxsize=4096)
def skeleton(text: str) -> str:
    """UTS #39's skeleton of ``text``: equal skeletons look the same on a screen."""
    return unicodedata.normalize("NFD", "".join(_class_of(c) for c in unicodedata.normalize("NFD", text)))


def same(a: str, b: str) -> bool:
    """The same name, whatever the case and whether accents are composed or not."""
    return unicodedata.normalize("NFC", a).casefold() == unicodedata.normalize("NFC", b).casefold()


def alike(a: str, b: str) -> bool:
    """``a`` and ``b`` are the same name or look the same (Alex, Cyrillic Аlex, Aleх; rn and m; full-width
    ＮＰＣ ４ and NPC 4): equal skeletons as written, in lower case, or in compatibility form (NFKC)."""
    if same(a, b):
        return True
    a, b = unicodedata.normalize("NFC", a), unicodedata.normalize("NFC", b)
    return any(skeleton(f(a)) == skeleton(f(b)) for f in (
        str, str.casefold, lambda x: unicodedata.normalize("NFKC", x).casefold()))


def find_alike(names: Iterable[str]) -> tuple[str, str] | None:
    """The first two of ``names`` that are the same or look alike, or None."""
    seen: list[str] = []
    for n in names:
        for m in seen:
            if alike(m, n):
                return m, n
        seen.append(n)
    return None


def why_alike(a: str, b: str) -> str:
    """A sentence for two names ``alike`` finds: the same name, or which letter only looks the same."""
    if same(a, b):
        return say("Two players have the same name ({a} and {b}); give each a different one.", a=a, b=b)
    x, y = unicodedata.normalize("NFC", a), unicodedata.normalize("NFC", b)
    diff = next(((p, q) for p, q in zip(x, y) if p != q), None) if len(x) == len(y) else None
    if not diff:
        return say("Two players have names that look the same on a screen, {a} and {b}; give each a name that "
                   "looks different.", a=x, b=y)
    p, q = diff
    return say("Two players have names that look the same on a screen, {a} and {b} ({char} in {b} is {looks}, "
               "not {is_}); give each a name that looks different.", a=x, b=y, char=repr(q),
               looks=unicodedata.name(q, "another character").title(),
               is_=unicodedata.name(p, "the same character").title())


def check_all(names: Sequence[str]) -> None:
    """ValueError with ``why_alike``'s sentence when two of ``names`` are the same or look alike."""
    pair = find_alike(names)
    if pair:
        raise ValueError(why_alike(*pair))
