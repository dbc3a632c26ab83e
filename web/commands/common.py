"""What more than one group of commands shares: the default game, the --players flag, saying a
command's complaint in the language of its --lang, and the help and argparse's own words in that
language (:func:`argv_language`, :func:`argparse_in`, :class:`HelpIn`)."""
from __future__ import annotations

import argparse
import contextlib
import functools
import sys
from collections.abc import Callable, Collection, Iterator
from typing import Any

from referee.say import Said, message, say

from ..i18n import DECIMAL_MARK, LANGUAGES, check_language, message_in, starts_as_typed, text_in, translations
from ..system_words import system_words, why  # noqa: F401  (the commands say errors through these, from here)

DEFAULT_GAME = "woolly"      # `warref referee` and `warref run` without --game
PLAYERS_EXAMPLE = "--players Alex,Olivia"


def player_names(text: str | None) -> list[str]:
    return [p.strip() for p in (text or "").split(",") if p.strip()]


def said_here(text: str, lang: str) -> str:
    """A line the command line prints, in ``lang`` where it is a message (say()), its first letter capitalised
    as web/i18n.py's say_in does, except where the sentence begins with what was put in as it is: a file's
    path or a deck's name is said as typed ("fotos/qh.png: ...", "fam: como o standard")."""
    if lang == "en" or not isinstance(text, Said):
        return str(text)
    said = message(text)
    return message_in(said, lang, top=not starts_as_typed(said, lang))


def fail(prog: str, text: str, lang: str = "en") -> int:
    """``warref PROG: TEXT`` on stderr, the text in ``lang`` where it is a message (say()); returns 2."""
    print(f"warref {prog}: {said_here(text, lang)}", file=sys.stderr)
    return 2


def language(prog: str, lang: str | None) -> str | None:
    """--lang as one of web.i18n's LANGUAGES, or None after saying on stderr which there are."""
    try:
        return check_language(lang)
    except ValueError as err:
        print(f"warref {prog}: --lang: {err}", file=sys.stderr)
        return None


def lang_flag(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument("--lang", default="en", help=say("{what}: {languages} (default en)", what=say(what),
                                                    languages=", ".join(LANGUAGES)))


# -- the help and argparse's own words in the language asked for (docs/translating.md) -----------------
# the lab's commands (web/commands/lab.py) are developers' tools: their help and errors stay English
LAB_COMMANDS = ("synth", "train", "score", "eval", "judge")


def names_lang(arg: str, options: Collection[str] = ()) -> bool:
    """Whether a word of the command line is ``--lang`` (or ``--lang=X``) as a parser with these long
    ``options`` reads it: itself, or shortened as argparse allows (``--lan``: a prefix of no other option
    of that parser; an option of its own name is its own)."""
    given = arg.partition("=")[0]
    if given == "--lang":
        return True
    if len(given) < 3 or not "--lang".startswith(given) or given in options:
        return False
    return [o for o in options if o.startswith(given)] == ["--lang"]


def lang_given(argv: list[str], options: Callable[[str | None], Collection[str]] | None = None
               ) -> tuple[str | None, str | None]:
    """(the command, the value of the last ``--lang X`` or ``--lang=X``) on the command line, before a
    ``--``; either None where there is none. ``options(command)``: the long options of the parser reading a
    word (None: warref's own, before the command), to know a ``--lang`` shortened as argparse allows
    (``--lan pt``, :func:`names_lang`); without it, ``--lang`` alone counts."""
    command, found, i = None, None, 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            break
        if arg.startswith("--") and names_lang(arg, options(command) if options else ()):
            if "=" in arg:
                found = arg.partition("=")[2]
            elif i + 1 < len(argv):
                found, i = argv[i + 1], i + 1
        elif command is None and not arg.startswith("-"):
            command = arg
        i += 1
    return command, found


def last_lang(argv: list[str], options: Callable[[str | None], Collection[str]] | None = None) -> str | None:
    """The value of the last ``--lang`` on the command line (:func:`lang_given`), or None."""
    return lang_given(argv, options)[1]


def argv_language(argv: list[str], options: Callable[[str | None], Collection[str]] | None = None) -> str:
    """The language of the help and of argparse's errors, known before the parsers are made: the last
    ``--lang`` given anywhere on the command line (shortened too, where ``options`` says the parsers'
    long options: :func:`lang_given`), checked; English without one (warref does not read the
    environment's LANG), with one it does not know (the command then says so), and for the lab's
    commands."""
    command, given = lang_given(argv, options)
    try:
        lang = check_language(given)
    except ValueError:
        return "en"
    return "en" if command in LAB_COMMANDS else lang


@contextlib.contextmanager
def argparse_in(lang: str) -> Iterator[None]:
    """argparse's own words ("usage: ", "options", "show this help message and exit", its errors) in
    ``lang`` while the parsers are made and read the command line: argparse says them through gettext
    (its module's ``_`` and ``ngettext``), here warref's catalog's (the msgids are web/i18n.py's
    ``ARGPARSE``). English: argparse as it is."""
    if lang == "en":
        yield
        return
    words = translations(lang)
    saved = argparse._, argparse.ngettext
    argparse._, argparse.ngettext = words.gettext, words.ngettext
    try:
        yield
    finally:
        argparse._, argparse.ngettext = saved


def said_in(text: str | None, lang: str) -> str | None:
    """A help text in ``lang``: made with say() (its words put in), or marked to_translate; lower-case
    as written (a help is not a sentence)."""
    if text is None or lang == "en":
        return text
    if isinstance(text, Said):
        return message_in(message(text), lang, top=False)
    return text_in(text, lang)


class HelpIn(argparse.HelpFormatter):
    """argparse's help formatter saying each option's and command's help, and the description, in ``lang``
    (argparse's own words come from :func:`argparse_in`)."""

    def __init__(self, prog: str, lang: str = "en", **kwargs) -> None:
        super().__init__(prog, **kwargs)
        self.lang = lang

    def _get_help_string(self, action: argparse.Action) -> str:
        return said_in(action.help, self.lang) or ""

    def _format_text(self, text: str) -> str:
        return super()._format_text(said_in(text, self.lang) or "")


def placeholder(action: argparse.Action) -> str | None:
    """The word argparse shows for what an option or positional takes (``--players PLAYERS``, ``KEY=VALUE``,
    a positional's name ``name``), as written in English; None where it shows none (a flag, the commands,
    a hidden option) or shows its choices as they are typed (``{standard,woolly}``)."""
    if isinstance(action, argparse._SubParsersAction) or action.nargs == 0 or action.help == argparse.SUPPRESS:
        return None
    if action.metavar is not None:
        return action.metavar if isinstance(action.metavar, str) else None
    if action.choices is not None:
        return None
    return action.dest.upper() if action.option_strings else action.dest


def number(text: str) -> float:
    """A number as a person writes it, with a decimal point or, as Portuguese writes it, a decimal comma
    ("2.5", "2,5"): the type of the user commands' fractional options. argparse names it ``float`` in
    its refusal, as it named the type before."""
    return float(text.replace(",", ".", 1) if text.count(",") == 1 and "." not in text else text)


number.__name__ = number.__qualname__ = "float"


def named_type(kind: type, name: str) -> Callable[[str], Any]:
    """``kind`` (int, float) as argparse calls it, named ``name`` where argparse names it in an error
    ("invalid %(type)s value": "valor inteiro inválido")."""
    def convert(text: str) -> Any:
        return kind(text)
    convert.__name__ = convert.__qualname__ = name
    return convert


def help_in(parsers: list[argparse.ArgumentParser], lang: str) -> None:
    """Each parser's help said in ``lang`` (English: argparse as it always was): its helps and description by
    :class:`HelpIn`, each placeholder in the language's words (argparse's usage line and errors name a
    positional by it too: "faltam estes argumentos obrigatórios: nome"), and the types argparse names in an
    error (web/i18n.py's ``ARGPARSE_TYPES``)."""
    if lang == "en":
        return
    for p in {id(p): p for p in parsers}.values():          # a command's old name is the same parser
        p.formatter_class = functools.partial(HelpIn, lang=lang)
        for action in p._actions:
            word = placeholder(action)
            if word is not None:
                action.metavar = text_in(word, lang)
            if action.type in (int, float, number):
                action.type = named_type(action.type, text_in(action.type.__name__, lang))


# -- progress bars (tqdm, on stderr) in the language asked for ----------------------------------------------
def bar_in(lang: str) -> type:
    """tqdm's progress bar; in a language other than English, one that writes its numbers (the rate: "1,25s/foto")
    with the language's decimal mark. English: tqdm itself, as it always was."""
    # imported here: tqdm is slow to start (`warref --help` stays fast)
    from tqdm import tqdm
    mark = DECIMAL_MARK.get(lang, ".")
    return tqdm if mark == "." else _marked_bar(tqdm, mark)


@functools.cache
def _marked_bar(base: type, mark: str) -> type:
    class MarkedBar(base):
        """A tqdm bar whose numbers after its name have ``mark`` for a decimal point."""

        @staticmethod
        def format_meter(*args: Any, **kwargs: Any) -> str:
            text, name = base.format_meter(*args, **kwargs), kwargs.get("prefix") or ""
            return name + text[len(name):].replace(".", mark) if text.startswith(name) else text.replace(".", mark)
    return MarkedBar


def missing_players(prog: str, lang: str = "en") -> int:
    return fail(prog, say("--players is missing: give the players' names in seat order, e.g. {example}",
                          example=PLAYERS_EXAMPLE), lang)
