"""The `warref` command line: its parser, `--version` and `main`; the commands are in web/commands/.

    warref referee --game woolly --players Alex,Olivia [--option KEY=VALUE ...] [--log FILE]
    warref simulate --game woolly --players 3 --games 10000 --seed 1 [--plot FILE.png] [--json]
    warref simulate --game guerra --players 2 --npc hard,easy [--games N]
    warref rules --game woolly [--option KEY=VALUE ...]
    warref serve [--host 0.0.0.0] [--port 8000] [--db warref.db] [--pin 1234] [--https]
    warref demo [--battles 20] [--seed 1] [--no-browser]
    warref run --camera 0 --game woolly --players Alex,Olivia [--zones FILE] [--deck NAME] [--loop] [--fps N]
    warref teach NAME --like standard --cards DIR [--labelled DIR] [--minutes 10] [--allow-missing]
    warref decks [--forget NAME]
    warref --version

`--lang pt` anywhere on the command line says the help and argparse's own words (its usage line, its
errors) in Portuguese too (web/commands/common.py's argv_language; docs/translating.md).

web/commands/: games.py (referee, rules, simulate), serve.py (serve), camera.py (demo, run),
cards.py (detect, teach, decks), lab.py (synth, train, score, eval, judge), common.py (shared).
"""
from __future__ import annotations

import argparse
import os
import sys
import tomllib
from collections.abc import Callable, Collection
from importlib import metadata
from pathlib import Path

from referee.say import say, to_translate
from web.commands import camera, cards, games, lab, serve
from web.commands.cards import photo_config      # tests import it from here
from web.commands.common import LAB_COMMANDS, argparse_in, argv_language, fail, help_in, last_lang, placeholder

__all__ = ["build_parser", "main", "photo_config", "placeholders"]

# the subcommands in the order `warref --help` lists them
ADD_PARSERS = (games.add_referee, games.add_simulate, lab.add_synth, lab.add_score, cards.add_detect, lab.add_eval,
               lab.add_judge, lab.add_train, games.add_rules, serve.add_serve, camera.add_demo, camera.add_run,
               cards.add_teach, cards.add_decks)


def _version() -> str:
    """The installed package's version; pyproject.toml's in a checkout that is not installed."""
    try:
        return metadata.version("warref")
    except metadata.PackageNotFoundError:
        try:
            with open(Path(__file__).resolve().parent.parent / "pyproject.toml", "rb") as f:
                return str(tomllib.load(f)["project"]["version"])
        except (OSError, KeyError, ValueError):
            return "unknown"


def build_parser(lang: str = "en") -> argparse.ArgumentParser:
    """warref's parser, its help and argparse's own words in ``lang`` (as :func:`main` reads the command
    line, argparse's errors too)."""
    with argparse_in(lang):
        parser = argparse.ArgumentParser(prog="warref",
                                         description=to_translate("A referee for War and its relatives."))
        parser.add_argument("--version", action="version", version=f"warref {_version()}")
        # `warref --lang pt referee ...`: the language before the command, unlisted (each command lists its own)
        parser.add_argument("--lang", dest="top_lang", help=argparse.SUPPRESS)
        sub = parser.add_subparsers(dest="command", required=True)
        for add in ADD_PARSERS:
            add(sub)
    help_in([parser, *sub.choices.values()], lang)
    # a command's old name, kept as an alias so that scripts go on working (`warref teach` has
    # one), runs it but is not listed: not in the usage line, not beside its new name
    first: dict[int, str] = {}
    names = [name for name, p in sub.choices.items() if first.setdefault(id(p), name) == name]
    sub.metavar = "{" + ",".join(names) + "}"
    for listed in sub._get_subactions():
        listed.metavar = listed.dest
    return parser


def shortened_options(argv: list[str]) -> Callable[[str | None], Collection[str]] | None:
    """Where a word of the command line may be ``--lang`` shortened as argparse allows (``--lan pt``): the long
    options of warref's parser (for None) and of each command's, from an English parser, to tell which it
    is (web/commands/common.py's lang_given); None for any other command line (nothing is built)."""
    if not any(arg.startswith("--l") and "--lang".startswith(arg.partition("=")[0]) and arg != "--lang"
               and not arg.startswith("--lang=") for arg in argv):
        return None
    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices
    return lambda command: tuple(parser._option_string_actions if command is None
                                 else getattr(commands.get(command), "_option_string_actions", ()))


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    options = shortened_options(argv)
    lang = argv_language(argv, options)     # known before the parsers are made: their help is in it
    with argparse_in(lang):
        args = build_parser(lang).parse_args(argv)
    if args.top_lang is not None and hasattr(args, "lang"):
        args.lang = last_lang(argv, options)    # given before the command, or after it too: the last one
    try:
        return args.func(args)
    except BrokenPipeError:          # the reader went away (e.g. `| head`): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())   # no flush error at exit
        return 0
    except KeyboardInterrupt:        # Ctrl-C: no traceback
        fail(args.command, say("stopped"), lang)
        return 130


def placeholders() -> list[str]:
    """The placeholders of the help of warref and of its user's commands (``--players PLAYERS``, ``name``), as
    written in English: make locale keeps them in the catalogs (web/i18n.py); the lab's stay English."""
    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices
    found = [placeholder(action) for name, p in [("", parser), *commands.items()] if name not in LAB_COMMANDS
             for action in p._actions]
    return list(dict.fromkeys(word for word in found if word is not None))


if __name__ == "__main__":
    sys.exit(main())
