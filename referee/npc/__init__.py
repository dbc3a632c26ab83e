"""NPC players for Guerra (pure: no I/O; their only randomness is a seeded random.Random).

``seat_view`` keeps what one seat may see of the table; ``moves_for`` lists its legal moves (from
the referee's ``legal_events``); ``make_npc(level, rng)`` makes a player (random, easy, normal,
hard) whose ``decide(view, kind, moves)`` returns one of them. ``referee.sim.guerra.NpcMatch``
plays whole matches of NPCs through the real referee.
"""
from .players import LEVELS, Npc, make_npc
from .view import KINDS, Move, SeatView, moves_for, seat_view

__all__ = ["LEVELS", "KINDS", "Move", "Npc", "SeatView", "make_npc", "moves_for", "seat_view"]
