"""warref's referee: pure rules, no I/O. Decks are data, games are rule sets with typed options,
tables keep an append-only event log and replay it for undo and restore."""
from .errors import BadEvent, IllegalEvent, OptionError, SetupError, UnknownCard
from .events import parse_event
from .games import GAMES, get_game
from .rulings import Ruling
from .table import RefereeBug, Table

__all__ = ["BadEvent", "IllegalEvent", "OptionError", "SetupError", "UnknownCard", "parse_event",
           "GAMES", "get_game", "Ruling", "RefereeBug", "Table"]
