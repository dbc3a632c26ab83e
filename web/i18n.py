"""The referee's sentences in other languages: the translators' gettext catalogs applied to the
messages rulings carry (``referee/say.py``). A translator edits ``web/locale/LANG.po``; ``make locale``
(``python -m web.make_locale``, with Babel) compiles it into ``web/locale/LANG.mo``, which the run time reads
with the standard library's ``gettext`` (no Babel at run time).

English is the language the referee speaks: a ruling's ``text`` is already English, and a
language without a catalog entry for a message falls back to it. ``say_in(text, "pt")`` renders a
ruling's text in Portuguese; ``message_in(message, "pt")`` does it from the message's plain-data
form (what the pages get). docs/translating.md says how to add or correct a sentence.
"""
from __future__ import annotations

import errno
import functools
import gettext
import io
import json
import socket
import string
import tomllib
from html.parser import HTMLParser
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable

from referee.say import Said, message

if TYPE_CHECKING:                   # Babel is for make locale and the tests only: imported where they use it
    from babel.messages.catalog import Catalog, Message

LOCALE = Path(__file__).resolve().parent / "locale"
LANGUAGES = {"en": "English", "pt": "Português"}
# how each language says a list of names, a decimal number and a card (the code's rank and suit)
AND = {"en": " and ", "pt": " e "}
DECIMAL_MARK = {"en": ".", "pt": ","}
RANKS_PT = {"A": ("o", "ás"), "J": ("o", "valete"), "Q": ("a", "dama"), "K": ("o", "rei")}
SUITS_PT = {"C": "paus", "D": "ouros", "H": "copas", "S": "espadas"}


def check_language(lang: str | None) -> str:
    """``lang`` as one of LANGUAGES ("pt-PT", "pt_BR" and "PT" are "pt"), or ValueError naming them."""
    key = str(lang or "en").strip().lower().replace("_", "-").split("-")[0]
    if key not in LANGUAGES:
        raise ValueError(f"no language {lang!r}: {', '.join(LANGUAGES)}")
    return key


@functools.cache
def translations(lang: str) -> gettext.NullTranslations:
    """The run time's catalog of ``lang``: web/locale/LANG.mo (what make locale compiles from LANG.po)
    read by the standard library, its plurals chosen by the .mo's Plural-Forms; for English, or a
    language without a .mo, none (every message is said in English)."""
    path = LOCALE / f"{lang}.mo"
    if lang == "en" or not path.exists():
        return gettext.NullTranslations()
    with path.open("rb") as f:
        return gettext.GNUTranslations(f)


def said(m: Message) -> bool:
    """Whether a .po entry is said: translated (every form of a plural) and not fuzzy (a PO editor's
    "needs work": msgfmt and pybabel compile leave those out of a .mo too)."""
    return bool(m.id and not m.fuzzy and m.string and not (isinstance(m.string, tuple) and not all(m.string)))


@functools.cache
def catalog(lang: str) -> dict[str, str | tuple[str, ...]]:
    """English template -> its translation (a tuple of forms for a plural), read from web/locale/LANG.po
    with Babel (make locale and the tests; the run time reads the .mo: :func:`translations`); empty for
    English. Untranslated entries are left out, and so are fuzzy ones, as in the .mo."""
    path = LOCALE / f"{lang}.po"
    if lang == "en" or not path.exists():
        return {}
    out: dict[str, str | tuple[str, ...]] = {}
    for m in read_catalog(lang):
        if not said(m):
            continue
        key = m.id[0] if isinstance(m.id, tuple) else m.id
        out[key] = tuple(m.string) if isinstance(m.string, (tuple, list)) else m.string
    return out


def plural_form(n: Any) -> int:
    """Which plural form a count takes: English and Portuguese both say 1 point, 0 and 2 points (the
    .mo's Plural-Forms, ``n != 1``, says the same)."""
    return 0 if n == 1 else 1


def count(n: Any) -> int:
    """A message's ``n`` as gettext's ngettext takes it (an int): itself, or for anything else (none, a
    decimal) 1 where it equals 1 and 2 where not, so that it takes the form :func:`plural_form` says."""
    return n if type(n) is int else (1 if n == 1 else 2)


def message_in(msg: Any, lang: str, top: bool = True) -> str:
    """A message (``{"id", "args", "plural"?}``), a list of names, a card or a plain value, in ``lang``."""
    if not isinstance(msg, dict):
        return str(msg)
    if "names" in msg:
        names = list(msg["names"])
        return "".join(names) if len(names) <= 1 else ", ".join(names[:-1]) + AND[lang] + names[-1]
    if "card" in msg:
        return card_in(msg, lang)
    if "decimal" in msg:                # a number as the language writes it: 0.5, 0,5
        return str(msg["decimal"]).replace(".", DECIMAL_MARK.get(lang, "."))
    args = msg.get("args", {})
    text = template_in(msg, lang).format(**{k: message_in(v, lang, top=False) for k, v in args.items()})
    return text[:1].upper() + text[1:] if top else text


def template_in(msg: dict[str, Any], lang: str) -> str:
    """A message's template in ``lang``: the catalog's (its form for the count, for a plural), else the English."""
    if msg.get("plural"):               # the catalog's form for the count; not translated: the English one
        return translations(lang).ngettext(msg["id"], msg["plural"], count(msg.get("args", {}).get("n")))
    # (an empty id is no entry: gettext would give the .mo's header)
    return translations(lang).gettext(msg["id"]) if msg["id"] else msg["id"]


def starts_as_typed(msg: Any, lang: str) -> bool:
    """Whether a message's sentence in ``lang`` begins with an argument put in as it is (a plain string: a
    file's path, a deck's name), which capitalising would change."""
    if not isinstance(msg, dict) or "id" not in msg:
        return False
    first = next(string.Formatter().parse(template_in(msg, lang)), None)
    return bool(first and first[0] == "" and first[1] and not isinstance(msg.get("args", {}).get(first[1]), dict))


def card_in(msg: dict[str, Any], lang: str) -> str:
    """A card in words: by its number where the game plays numbers (Guerra's "o 7"), else by rank and
    suit ("o valete de copas", "o ás de espadas")."""
    code = str(msg["card"])
    if lang != "pt":
        return str(msg.get("number") if msg.get("number") is not None else code)
    if msg.get("number") is not None:
        return f"o {msg['number']}"
    if code == "JOKER":
        return "o jóquer"
    if code in RANKS_PT or code.isdigit() or code == "T":       # a rank reported without its suit
        article, word = RANKS_PT.get(code, ("o", {"T": "10"}.get(code, code)))
        return f"{article} {word}"
    rank, suit = code[:-1], code[-1:]
    if suit in SUITS_PT and rank:
        article, word = RANKS_PT.get(rank, ("o", {"T": "10"}.get(rank, rank)))
        return f"{article} {word} de {SUITS_PT[suit]}"
    return code


def text_in(text: str, lang: str) -> str:
    """A plain sentence marked ``to_translate`` (a rule option's label) in ``lang``; as it is where the
    catalog has none."""
    return str(translations(lang).gettext(text)) if lang != "en" and text else str(text)


def say_in(text: str, lang: str) -> str:
    """A ruling's text in ``lang``: its message rendered, or the text itself (English, or a sentence
    made without a message)."""
    if lang == "en" or not isinstance(text, Said):
        return str(text)
    return message_in(message(text), lang)


# -- the catalogs kept up to date with the sources (make locale) ---------------------------------------
ROOT = Path(__file__).resolve().parent.parent
KEYWORDS = {"say": None, "say_n": (1, 2), "to_translate": None}
# the server's own sentences a page shows (the rooms' refusals, the waits of the limits), and the command line's
WEB_SOURCES = ("rooms.py", "rooms_api.py", "rooms_redis.py", "errors.py", "guard.py", "keeper.py", "server.py",
               "teach.py", "bodies.py", "session.py", "demo.py", "cli.py", "system_words.py", "commands/common.py",
               "commands/games.py", "commands/serve.py", "commands/camera.py", "commands/cards.py", "commands/lab.py")
# the vision run time's sentences the dashboard shows: the camera's status, a photo's card not found, why a
# training failed, the warning after a deck is ready; and the command line's `warref teach`, `detect` and `decks`
# meet: a photo that cannot be read, a model file missing, an unknown deck; and why `warref demo` cannot draw the
# standard deck's cards (a tool or an npm package missing: art/standard.py's ArtFetchError)
VISION_SOURCES = ("sources.py", "flatten.py", "teach.py", "decks.py", "photos.py", "reader.py", "detector.py",
                  "words.py", "art/standard.py")
# messages whose id is chosen at run time (say(parity)): no source line names them
RUN_TIME = ("even", "odd")
# argparse's own words, said through gettext (its module's _() and ngettext(): CPython 3.11's argparse.py),
# that the command line's user meets: its help's headings, its usage line and its errors (the command line
# installs warref's catalog for them: web/commands/common.py's argparse_in). The --version action's help
# is a plain default (not an _() call) that the help formatter looks up as any help.
ARGPARSE = ("usage: ", "positional arguments", "options", "show this help message and exit",
            "show program's version number and exit", "%(prog)s: error: %(message)s\n",
            "argument %(argument_name)s: %(message)s", "the following arguments are required: %s",
            "one of the arguments %s is required", "unrecognized arguments: %s",
            "invalid choice: %(value)r (choose from %(choices)s)", "invalid %(type)s value: %(value)r",
            "expected one argument", "expected at most one argument", "expected at least one argument",
            ("expected %s argument", "expected %s arguments"), "ambiguous option: %(option)s could match %(matches)s",
            "ignored explicit argument %r", "not allowed with argument %s", "unexpected option string: %s",
            "unknown parser %(parser_name)r (choices: %(choices)s)")
# the system's own words for the errors the command line meets, by errno, as Linux's and macOS's strerror say them
# (a system that says them otherwise is said as it says them: web/system_words.py's os_words)
OS_WORDS = {errno.ENOENT: "No such file or directory", errno.EACCES: "Permission denied",
            errno.EPERM: "Operation not permitted", errno.EISDIR: "Is a directory", errno.ENOTDIR: "Not a directory",
            errno.EEXIST: "File exists", errno.ENOSPC: "No space left on device", errno.EROFS: "Read-only file system",
            errno.ENAMETOOLONG: "File name too long", errno.EADDRNOTAVAIL: "Cannot assign requested address",
            socket.EAI_NONAME: "Name or service not known", socket.EAI_AGAIN: "Temporary failure in name resolution"}
# the JSON parser's words (CPython 3.11's json module: JSONDecodeError's msg), said before a place in the text
# (web/system_words.py's json_words: the command line's messages and the server's)
JSON_WORDS = ("Expecting value", "Expecting property name enclosed in double quotes", "Expecting ':' delimiter",
              "Expecting ',' delimiter", "Unterminated string starting at", "Invalid control character at",
              "Invalid \\escape", "Invalid \\uXXXX escape", "Extra data")
# the names of the types argparse puts into "invalid %(type)s value: %(value)r" (the command line gives its
# options these types' own names in another language: web/commands/common.py's help_in)
ARGPARSE_TYPES = ("int", "float")


# the pages' own words: t("...")/tn("...", "...", n) in their scripts, data-i18n in their HTML
# (web/static/i18n.js renders them; docs/translating.md)
STATIC = Path(__file__).resolve().parent / "static"
PAGE_KEYWORDS = {"t": None, "tn": (1, 2), "tr": None}
PAGE_SCRIPTS = ("room.js", "dom.js", "app.js")
PAGE_HTML = ("room.html", "index.html")
JSON_DIR = STATIC / "i18n"


def words(text: str) -> str:
    """A text as the page's data-i18n looks it up: its whitespace runs as one space, trimmed (i18n.js
    does the same)."""
    return " ".join(text.split())


class MarkedWords(HTMLParser):
    """The words of an HTML page a translator translates: the text of every element marked
    ``data-i18n`` (text only: a marked element holds no other element) and the attributes named in
    an element's ``data-i18n-attr`` (``placeholder title aria-label``). ``found``: (line, text)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[int, str]] = []
        self.open: tuple[str, int, list[str]] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        line = self.getpos()[0]
        if self.open is not None:
            raise ValueError(f"line {line}: <{tag}> inside an element marked data-i18n (line {self.open[1]}): "
                             "mark the texts around it instead")
        given = dict(attrs)
        for name in (given.get("data-i18n-attr") or "").split():
            if given.get(name):
                self.found.append((line, words(given[name])))
        if "data-i18n" in given:
            self.open = (tag, line, [])

    def handle_data(self, data: str) -> None:
        if self.open is not None:
            self.open[2].append(data)

    def handle_endtag(self, tag: str) -> None:
        if self.open is not None and tag == self.open[0]:
            text = words("".join(self.open[2]))
            if text:
                self.found.append((self.open[1], text))
            self.open = None


def page_words(path: Path) -> list[tuple[int, str | tuple[str, str]]]:
    """(line, message id) for each word a page's file says: a script's t()/tn() calls (inside template
    literals too, but not a call inside another's arguments: Babel skips those, so a test looks), an
    HTML file's data-i18n texts and attributes."""
    if path.suffix == ".js":
        from babel.messages.extract import extract_from_file  # make locale and tests only
        return [(line, msgid) for line, msgid, _, _ in extract_from_file(
            "javascript", str(path), keywords=PAGE_KEYWORDS, options={"parse_template_string": True})]
    parser = MarkedWords()
    parser.feed(path.read_text(encoding="utf-8"))
    parser.close()
    return list(parser.found)


def deck_words() -> list[tuple[Path, int, str]]:
    """(file, line, text) of each shipped deck's name and hint (referee/decks/*.toml): the referee says them
    (an unknown card's refusal names the deck and how its cards are written)."""
    found = []
    for path in sorted((ROOT / "referee" / "decks").glob("*.toml")):
        for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            key, _, value = line.partition("=")
            if key.strip() in ("name", "hint") and value.strip().startswith('"'):
                found.append((path, lineno, tomllib.loads(f"v = {value.strip()}")["v"]))
    return found


def template(placeholders: Iterable[str] = ()) -> Catalog:
    """Every message the sources say, where they say it (the .pot a translator starts from): the
    referee's say()/say_n() and the pages' t()/tn()/data-i18n."""
    from babel.messages.catalog import Catalog  # make locale and tests only
    from babel.messages.extract import extract_from_file  # make locale and tests only

    pot = Catalog(project="warref", charset="utf-8")
    for path in (sorted((ROOT / "referee").rglob("*.py")) + [ROOT / "web" / name for name in WEB_SOURCES]
                 + [ROOT / "vision" / name for name in VISION_SOURCES]):
        for lineno, msgid, _, _ in extract_from_file("python", str(path), keywords=KEYWORDS):
            pot.add(msgid, locations=[(str(path.relative_to(ROOT)), lineno)])
    for msgid in RUN_TIME:
        pot.add(msgid, auto_comments=["said with a value chosen at run time (say(parity), say(rolled))"])
    for msgid in ARGPARSE:
        pot.add(msgid, auto_comments=["argparse's own words (the command line's help and errors): keep its "
                                      "%(name)s and %s as they are"])
    for msgid in OS_WORDS.values():
        pot.add(msgid, auto_comments=["the system's own words for an error (strerror), said inside a message"])
    for msgid in JSON_WORDS:
        pot.add(msgid, auto_comments=["the JSON parser's own words, said before where in the text it stopped (line, "
                                      "column)"])
    for msgid in ARGPARSE_TYPES:
        pot.add(msgid, auto_comments=["a type's name in argparse's 'invalid %(type)s value: %(value)r' (an "
                                      "adjective: valor inteiro inválido)"])
    for msgid in placeholders:
        pot.add(msgid, auto_comments=["a placeholder in the command line's help: what an option takes, upper-case "
                                      "(--players PLAYERS, KEY=VALUE), or a positional's name, lower-case (name), "
                                      "which argparse's errors say too"])
    for path, lineno, msgid in deck_words():
        pot.add(msgid, locations=[(str(path.relative_to(ROOT)), lineno)],
                auto_comments=["a deck's name (said as 'the {deck} deck') or how its cards are written"])
    for name in PAGE_SCRIPTS + PAGE_HTML:
        path = STATIC / name
        for lineno, msgid in page_words(path):
            pot.add(msgid, locations=[(str(path.relative_to(ROOT)), lineno)])
    return pot


def page_catalog(lang: str) -> dict[str, str | list[str]]:
    """What web/static/i18n/LANG.json holds: every translated entry of web/locale/LANG.po, English ->
    the translation (a list of forms for a plural), for the pages (their words and the referee's)."""
    return {k: list(v) if isinstance(v, tuple) else v for k, v in sorted(catalog(lang).items())}


def write_json(lang: str) -> Path:
    """web/static/i18n/LANG.json written from web/locale/LANG.po (the translator edits the .po only)."""
    JSON_DIR.mkdir(exist_ok=True)
    path = JSON_DIR / f"{lang}.json"
    path.write_text(json.dumps(page_catalog(lang), ensure_ascii=False, indent=0, sort_keys=True) + "\n", encoding="utf-8")
    return path


def read_catalog(lang: str) -> Catalog:
    """web/locale/LANG.po as Babel reads it."""
    from babel.messages.pofile import read_po  # make locale and tests only

    with (LOCALE / f"{lang}.po").open("rb") as f:
        return read_po(f)


def mo_bytes(lang: str) -> bytes:
    """What web/locale/LANG.mo holds: LANG.po compiled by Babel's write_mo, only the entries said
    (:func:`said`: an untranslated, half-translated or fuzzy one is left out, so the English is said)."""
    from babel.messages.mofile import write_mo  # make locale and tests only

    po = read_catalog(lang)
    for m in [m for m in po if m.id and not said(m)]:
        po.delete(m.id, m.context)
    out = io.BytesIO()
    write_mo(out, po, use_fuzzy=False)
    return out.getvalue()


def write_mo_file(lang: str) -> Path:
    """web/locale/LANG.mo written from web/locale/LANG.po (committed, and shipped in the wheel)."""
    path = LOCALE / f"{lang}.mo"
    part = path.with_suffix(".mo.part")             # whole or not at all for a process reading it meanwhile
    part.write_bytes(mo_bytes(lang))
    part.replace(path)
    translations.cache_clear()
    return path


def update(lang: str, placeholders: Iterable[str]) -> list[str]:
    """web/locale/LANG.po brought up to date with the sources and the command line's ``placeholders``
    (``web.cli.placeholders()``: web.make_locale passes them, since the command line imports this
    module): new sentences added untranslated, translations kept, sentences no source says any more
    dropped. Returns the untranslated (or fuzzy) ids."""
    from babel.messages.pofile import write_po  # make locale and tests only

    path = LOCALE / f"{lang}.po"
    po = read_catalog(lang)
    po.update(template(placeholders), no_fuzzy_matching=True, update_header_comment=False)
    po.obsolete.clear()
    with path.open("wb") as f:
        write_po(f, po, width=100, omit_header=False, include_previous=False)
    catalog.cache_clear()
    return [m.id for m in po
            if m.id and (m.fuzzy or not m.string or (isinstance(m.string, tuple) and not all(m.string)))]


__all__ = ["LANGUAGES", "catalog", "check_language", "message_in", "mo_bytes", "page_catalog", "page_words", "say_in",
           "starts_as_typed", "template", "template_in", "text_in", "translations", "update", "write_json",
           "write_mo_file"]

