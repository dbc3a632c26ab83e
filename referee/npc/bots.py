"""Hand-written Guerra players for measuring the NPC levels against (bench/bench_npc.py's ladder):
plain rules of thumb, no sampling, each from its seat's view only. Not levels a family picks.

- ``greedy``: the highest card face up, accepts everything, never raises, cuts, abstains or calls
  a troca (a child who has just learnt the rules).
- ``steady``: a careful adult: wins each rodada with the cheapest card that wins it and throws or
  covers its lowest card when it can't; leads its highest; raises once with a strong hand; accepts
  an Ofensiva with a fair hand; calls a troca with a low run.
- ``bold``: a player who presses: raises first whenever it holds a top card and bluffs now and then,
  raises again when answering with a top card, accepts unless its hand is poor; saves its best card
  when it won the first rodada.
"""
from __future__ import annotations

from .players import Npc, best_so_far, flips, opponents_after, top_values
from .view import Move, SeatView


def _hand_values(view: SeatView) -> list[int]:
    val = view.values()
    return sorted(val[c] for c in view.hand if c is not None)


def _lowest_throw(up, down) -> Move:
    """Cover the lowest card where the rules allow it, else show the lowest."""
    return min(down, key=lambda vm: vm[0])[1] if down else min(up, key=lambda vm: vm[0])[1]


class Greedy(Npc):
    level = "greedy"

    def _cut(self, view, moves):
        return Move("pass") if Move("pass") in moves else moves[0]

    def _abstain(self, view, moves):
        return Move("pass")

    def _troca(self, view, moves):
        return Move("pass")

    def _fim(self, view, moves):
        return Move("accept")

    def _answer(self, view, moves):
        return Move("accept")

    def _turn(self, view, moves):
        up, down = flips(moves, view)
        if not up:
            return down[0][1]
        return max(up, key=lambda vm: vm[0])[1]


class Steady(Greedy):
    level = "steady"

    def strong(self, view: SeatView) -> bool:
        """Holds one of the deck's two highest numbers and another card of 7 or more (of 10)."""
        hand = _hand_values(view)
        top, second = top_values(view)
        return len(hand) >= 2 and hand[-1] >= second and hand[-2] >= top - 3

    def fair(self, view: SeatView) -> bool:
        hand = _hand_values(view)
        won_first = bool(view.results) and view.results[0] == view.side
        return won_first or (bool(hand) and hand[-1] >= top_values(view)[1])

    def _troca(self, view, moves):
        hand = _hand_values(view)
        calls = [m for m in moves if m.kind == "call"]
        return calls[0] if calls and hand and hand[-1] < top_values(view)[0] - 3 else Move("pass")

    def _fim(self, view, moves):
        return Move("accept") if self.fair(view) else Move("refuse")

    def _answer(self, view, moves):
        return Move("accept") if self.fair(view) else Move("refuse")

    def _turn(self, view, moves):
        up, down = flips(moves, view)
        if view.mode == "fria" or not up:
            return (up or down)[0][1]
        if Move("raise") in moves and view.last_raise != view.side and view.value == 1 and self.strong(view):
            return Move("raise")
        up = sorted(up, key=lambda vm: vm[0])
        if not view.plays:
            return up[-1][1]
        mine, theirs = best_so_far(view)
        if mine > theirs and opponents_after(view) == 0:
            return _lowest_throw(up, down)
        winners = [vm for vm in up if vm[0] > theirs]
        return winners[0][1] if winners else _lowest_throw(up, down)


class Bold(Greedy):
    level = "bold"
    BLUFF = 0.2

    def _troca(self, view, moves):
        calls = [m for m in moves if m.kind == "call"]
        return self.rng.choice(calls) if calls else Move("pass")

    def _fim(self, view, moves):
        return Move("accept")

    def _answer(self, view, moves):
        hand = _hand_values(view)
        top, second = top_values(view)
        if Move("raise") in moves and hand and hand[-1] >= second:
            return Move("raise")
        poor = not hand or hand[-1] < top - 4
        return Move("refuse") if poor and not (view.results and view.results[0] == view.side) else Move("accept")

    def _turn(self, view, moves):
        up, down = flips(moves, view)
        if view.mode == "fria" or not up:
            return (up or down)[0][1]
        hand = _hand_values(view)
        if Move("raise") in moves and view.last_raise != view.side:
            if (hand and hand[-1] >= top_values(view)[1]) or self.rng.random() < self.BLUFF:
                return Move("raise")
        up = sorted(up, key=lambda vm: vm[0])
        if not view.plays:                     # lead: the best card first, unless the 1st rodada is ours
            won_first = bool(view.results) and view.results[0] == view.side
            return (up[0] if won_first and len(up) > 1 else up[-1])[1]
        mine, theirs = best_so_far(view)
        if mine > theirs and opponents_after(view) == 0:
            return _lowest_throw(up, down)
        winners = [vm for vm in up if vm[0] > theirs]
        return winners[0][1] if winners else _lowest_throw(up, down)


BOTS: dict[str, type[Npc]] = {"greedy": Greedy, "steady": Steady, "bold": Bold}
