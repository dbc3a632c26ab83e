"""The referee's sentences in other languages: the translators' gettext catalogs (``web/locale/*.po``,
read with Babel) applied to the messages rulings carry (``referee/say.py``).

English is the language the referee speaks: a ruling's ``text`` is already English, and a
language without a catalog entry for a message falls back to it. ``say_in(text, "pt")`` renders a
ruling's text in Portuguese; ``message_in(message, "pt")`` does it from the message's plain-data
form (what the pages get). docs/translating.md says how to add or correct a sentence.
"""
from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_file
from babel.messages.pofile import read_po, write_po

from referee.say import Said, message

LOCALE = Path(__file__).resolve().parent / "locale"
LANGUAGES = {"en": "English", "pt": "Português"}
# how each language says a list of names and a card (the code's rank and suit)
AND = {"en": " and ", "pt": " e "}
RANKS_PT = {"A": ("o", "ás"), "J": ("o", "valete"), "Q": ("a", "dama"), "K": ("o", "rei")}
SUITS_PT = {"C": "paus", "D": "ouros", "H": "copas", "S": "espadas"}


def check_language(lang: str | None) -> str:
    """``lang`` as one of LANGUAGES ("pt-PT", "pt_BR" and "PT" are "pt"), or ValueError naming them."""
    key = str(lang or "en").strip().lower().replace("_", "-").split("-")[0]
    if key not in LANGUAGES:
        raise ValueError(f"no language {lang!r}: {', '.join(LANGUAGES)}")
    return key


@functools.cache
def catalog(lang: str) -> dict[str, str | tuple[str, ...]]:
    """English template -> its translation (a tuple of forms for a plural), from web/locale/LANG.po;
    empty for English. Untranslated entries are left out."""
    path = LOCALE / f"{lang}.po"
    if lang == "en" or not path.exists():
        return {}
    with path.open("rb") as f:
        po = read_po(f)
    out: dict[str, str | tuple[str, ...]] = {}
    for m in po:
        if not m.id or not m.string or (isinstance(m.string, tuple) and not all(m.string)):
            continue
        key = m.id[0] if isinstance(m.id, tuple) else m.id
        out[key] = tuple(m.string) if isinstance(m.string, (tuple, list)) else m.string
    return out


def plural_form(n: Any) -> int:
    """Which plural form a count takes: English and Portuguese both say 1 point, 0 and 2 points."""
    return 0 if n == 1 else 1


def message_in(msg: Any, lang: str, top: bool = True) -> str:
    """A message (``{"id", "args", "plural"?}``), a list of names, a card or a plain value, in ``lang``."""
    if not isinstance(msg, dict):
        return str(msg)
    if "names" in msg:
        names = list(msg["names"])
        return "".join(names) if len(names) <= 1 else ", ".join(names[:-1]) + AND[lang] + names[-1]
    if "card" in msg:
        return card_in(msg, lang)
    args = msg.get("args", {})
    found = catalog(lang).get(msg["id"])
    n = args.get("n")
    if isinstance(found, tuple):
        template = found[min(plural_form(n), len(found) - 1)]
    elif found is not None:
        template = found
    else:                               # not translated: the English
        template = msg["plural"] if msg.get("plural") and plural_form(n) else msg["id"]
    text = template.format(**{k: message_in(v, lang, top=False) for k, v in args.items()})
    return text[:1].upper() + text[1:] if top else text


def card_in(msg: dict[str, Any], lang: str) -> str:
    """A card in words: by its number where the game plays numbers (Guerra's "o 7"), else by rank and
    suit ("o valete de copas", "o ás de espadas")."""
    code = str(msg["card"])
    if lang != "pt":
        return str(msg.get("number") if msg.get("number") is not None else code)
    if msg.get("number") is not None:
        return f"o {msg['number']}"
    rank, suit = code[:-1], code[-1:]
    if suit in SUITS_PT and rank:
        article, word = RANKS_PT.get(rank, ("o", {"T": "10"}.get(rank, rank)))
        return f"{article} {word} de {SUITS_PT[suit]}"
    return code


def say_in(text: str, lang: str) -> str:
    """A ruling's text in ``lang``: its message rendered, or the text itself (English, or a sentence
    made without a message)."""
    if lang == "en" or not isinstance(text, Said):
        return str(text)
    return message_in(message(text), lang)


# -- the catalogs kept up to date with the sources (make locale) ---------------------------------------
ROOT = Path(__file__).resolve().parent.parent
KEYWORDS = {"say": None, "say_n": (1, 2)}
# messages whose id is chosen at run time (say(parity)): no source line names them
RUN_TIME = ("even", "odd")


def template() -> Catalog:
    """Every message the sources say, where they say it (the .pot a translator starts from)."""
    pot = Catalog(project="warref", charset="utf-8")
    for path in sorted((ROOT / "referee").rglob("*.py")):
        for lineno, msgid, _, _ in extract_from_file("python", str(path), keywords=KEYWORDS):
            pot.add(msgid, locations=[(str(path.relative_to(ROOT)), lineno)])
    for msgid in RUN_TIME:
        pot.add(msgid, auto_comments=["said with a value chosen at run time (say(parity), say(rolled))"])
    return pot


def update(lang: str) -> list[str]:
    """web/locale/LANG.po brought up to date with the sources: new sentences added untranslated,
    translations kept, sentences no source says any more dropped. Returns the untranslated ids."""
    path = LOCALE / f"{lang}.po"
    with path.open("rb") as f:
        po = read_po(f)
    po.update(template(), no_fuzzy_matching=True, update_header_comment=False)
    po.obsolete.clear()
    with path.open("wb") as f:
        write_po(f, po, width=100, omit_header=False, include_previous=False)
    catalog.cache_clear()
    return [m.id for m in po if m.id and (not m.string or (isinstance(m.string, tuple) and not all(m.string)))]


__all__ = ["LANGUAGES", "catalog", "check_language", "message_in", "say_in", "template", "update"]


if __name__ == "__main__":          # make locale
    for lang in LANGUAGES:
        if lang != "en":
            left = update(lang)
            print(f"web/locale/{lang}.po: up to date with the sources; {len(left)} to translate"
                  + "".join(f"\n  {m!r}" for m in left[:20]))
