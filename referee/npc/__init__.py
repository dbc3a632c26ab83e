"""NPC players for Guerra (pure: no I/O; their only randomness is a seeded random.Random).

``seat_view`` keeps what one seat may see of the table; ``moves_for`` lists its legal moves (from
the referee's ``legal_events``); ``make_npc(level, rng)`` makes a player (random, easy, normal,
hard, or one of the ladder's hand-written bots: greedy, steady, bold) whose ``decide(view, kind,
moves)`` returns one of them. ``referee.sim.guerra.NpcMatch`` plays whole matches of NPCs through
the real referee.
"""
from __future__ import annotations

import random

from ..say import say
from .bots import BOTS
from .players import LEVELS, PLAYERS, Npc
from .view import KINDS, Move, SeatView, moves_for, seat_view

NAMES = LEVELS + tuple(BOTS)     # every player make_npc makes: the levels, then the ladder's bots


def check_level(name: str) -> str:
    """``name`` as a player make_npc makes (trimmed, lower case), or ValueError naming them all."""
    key = name.strip().lower()
    if key not in NAMES:
        raise ValueError(say("no NPC level {name}: {levels} (or a bot of the strength ladder: {bots})",
                             name=repr(name), levels=", ".join(LEVELS), bots=", ".join(BOTS)))
    return key


def make_npc(level: str, rng: random.Random) -> Npc:
    """An NPC of ``level`` (a level or a bot, ``NAMES``) drawing only on ``rng``."""
    return {**PLAYERS, **BOTS}[check_level(level)](rng)


__all__ = ["LEVELS", "KINDS", "NAMES", "Move", "Npc", "SeatView", "check_level", "make_npc", "moves_for", "seat_view"]
