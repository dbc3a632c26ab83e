"""What more than one group of commands shares: the default game and the --players flag."""
from __future__ import annotations

import sys

DEFAULT_GAME = "woolly"      # `warref referee` and `warref run` without --game
PLAYERS_EXAMPLE = "--players Alex,Olivia"


def player_names(text: str | None) -> list[str]:
    return [p.strip() for p in (text or "").split(",") if p.strip()]


def missing_players(prog: str) -> int:
    print(f"warref {prog}: --players is missing: give the players' names in seat order, "
          f"e.g. {PLAYERS_EXAMPLE}", file=sys.stderr)
    return 2
