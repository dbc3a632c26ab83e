"""What more than one group of commands shares: the default game, the --players flag, and saying a
command's complaint in the language of its --lang."""
from __future__ import annotations

import argparse
import sys

from referee.say import say

from ..i18n import LANGUAGES, check_language, say_in

DEFAULT_GAME = "woolly"      # `warref referee` and `warref run` without --game
PLAYERS_EXAMPLE = "--players Alex,Olivia"


def player_names(text: str | None) -> list[str]:
    return [p.strip() for p in (text or "").split(",") if p.strip()]


def fail(prog: str, text: str, lang: str = "en") -> int:
    """``warref PROG: TEXT`` on stderr, the text in ``lang`` where it is a message (say()); returns 2."""
    print(f"warref {prog}: {say_in(text, lang)}", file=sys.stderr)
    return 2


def why(err: Exception) -> str:
    """What an error says: its message as raised (a say() sentence keeps its message), else its text."""
    return err.args[0] if len(err.args) == 1 and isinstance(err.args[0], str) else str(err)


def language(prog: str, lang: str | None) -> str | None:
    """--lang as one of web.i18n's LANGUAGES, or None after saying on stderr which there are."""
    try:
        return check_language(lang)
    except ValueError as err:
        print(f"warref {prog}: --lang: {err}", file=sys.stderr)
        return None


def lang_flag(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument("--lang", default="en", help=f"{what}: {', '.join(LANGUAGES)} (default en)")


def missing_players(prog: str, lang: str = "en") -> int:
    return fail(prog, say("--players is missing: give the players' names in seat order, e.g. {example}",
                          example=PLAYERS_EXAMPLE), lang)
