"""The games warref referees, by id."""
from __future__ import annotations

from ..errors import SetupError
from ..game import Game
from ..say import say
from .casino import CasinoWar
from .classic import ClassicWar
from .guerra import Guerra
from .namikopy import NamikopyWar
from .woolly import WoollyWarfare

GAMES: dict[str, Game] = {g.id: g for g in (WoollyWarfare(), ClassicWar(), CasinoWar(), NamikopyWar(), Guerra(),)}


def get_game(game_id: str) -> Game:
    try:
        return GAMES[str(game_id).strip().lower()]
    except KeyError:
        raise SetupError(say("Unknown game {game}; warref referees {games}.", game=repr(game_id),
                             games=", ".join(GAMES))) from None
