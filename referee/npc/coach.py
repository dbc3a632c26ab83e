"""The coach: the hard level's move for a seat that asks, and one sentence why.

``advise(view, kind, moves, rng)`` returns an :class:`Advice`: the move the hard NPC would make in
the seat's place (it sees only the seat's :class:`~.view.SeatView`, so the advice knows what the
seat knows and no more) and a sentence a child can follow: "Keep your 10: Zé's 7 already wins this
rodada." A sentence names only cards the seat has seen (its own hand, cards played face up, a hand
shown in a failed troca), by their numbers: suits never rank in Guerra.
"""
from __future__ import annotations

import random
from dataclasses import dataclass

from .players import Hard, best_so_far, opponents_after, partner_signals, signal_move
from ..games.guerra import points
from ..say import say
from .view import Move, SeatView


@dataclass(frozen=True)
class Advice:
    move: Move
    text: str

    def to_json(self) -> dict:
        return {"move": self.move.to_json(), "text": self.text}


def advise(view: SeatView, kind: str, moves: list[Move], rng: random.Random) -> Advice:
    """The hard level's choice among ``moves`` (the seat's legal moves of decision ``kind``) and
    why, from what ``view`` lets the seat see."""
    if kind == "abstain" and Move("pass") in moves:
        # blind: a new unseen hand is no better, so the coach never advises throwing one away
        return Advice(Move("pass"), say("Keep these cards: you may not look at them first, and a new hand you "
                                        "haven't seen is no better on average."))
    hard = Hard(rng)
    move = hard.decide(view, kind, moves)
    return Advice(move, _why(view, kind, move, moves, hard))


def _often(p: float):
    """How often, in words: "about 70% of the time", "almost every time", "almost never"."""
    if p >= 0.975:
        return say("almost every time")
    if p <= 0.025:
        return say("almost never")
    return say("about {percent}% of the time", percent=round(20 * p) * 5)


def _wins(view: SeatView, p: float):
    if view.teams:
        return say("your team's cards win this confronto {often}", often=_often(p))
    return say("your cards win this confronto {often}", often=_often(p))


def _why(view: SeatView, kind: str, move: Move, moves: list[Move], hard: Hard):
    if kind == "cut":
        if move.kind == "pass":
            return say("Leave the cut: nobody knows the order of the cards, so cutting changes nothing you can "
                       "count on.")
        return (say("Cut up: nobody knows the order of the cards, so either way is as good.") if move.choice == "up"
                else say("Cut down: nobody knows the order of the cards, so either way is as good."))
    if kind == "troca":
        if move.kind == "call":
            return say("Show your run and call {parity}: a new hand should do better than these three cards in a "
                       "row.", parity=say(move.parity))
        return say("Keep your hand: it should do better than a new one after the call.")
    if kind in ("answer", "fim"):
        p = hard.chance(view)
        wins = _wins(view, p)
        if kind == "fim":
            if move.kind == "accept":
                return say("Accept Fim de Guerra: {wins}.", wins=wins)
            return say("Refuse Fim de Guerra: {wins}, so give the other side 1 point rather than 2.", wins=wins)
        proposed = view.pending[1] if view.pending else view.value + 1
        if move.kind == "raise":
            return say("Raise again: {wins}.", wins=wins)
        if move.kind == "accept":
            if p >= 0.5:
                return say("Accept: {wins}, enough to play for {points}.", wins=wins, points=points(proposed))
            if view.their_score + view.value >= 6:
                return say("Accept: refusing would give the other side the game, and {wins}.", wins=wins)
            return say("Accept: {wins}, and refusing would give the other side {points} anyway.", wins=wins,
                       points=points(view.value))
        return say("Refuse: {wins}; refusing gives the other side {points}, less than losing {proposed}.",
                   wins=wins, points=points(view.value), proposed=points(proposed))
    return _why_turn(view, move, moves, hard)


def _why_turn(view: SeatView, move: Move, moves: list[Move], hard: Hard):
    if move.kind == "raise":
        p = hard.chance(view)
        if p >= 0.5:
            return say("Propose an Ofensiva: {wins}, so play for more.", wins=_wins(view, p))
        return say("Propose an Ofensiva: {wins}, but the other side may refuse, and then your side scores "
                   "{points} at once.", wins=_wins(view, p), points=points(view.value))
    val = view.values()
    card = view.hand[move.slot]
    if card is None:
        return say("Nobody may look at their cards now: any card is as good as another.")
    mine = val[card]
    held = sorted(val[c] for c in view.hand if c is not None)
    best = held[-1]
    ours, theirs = best_so_far(view)
    if move.down:
        if move == signal_move(view, moves):
            return say("Play your {card} face down: it tells your partner you keep a winner for the 3rd rodada.",
                       card=mine)
        if ours > max(theirs, 0):
            return say("Play your {card} face down: {winner} already wins this rodada, and the other side "
                       "doesn't see your card.", card=mine, winner=_winner(view, ours))
        if theirs > 0 and best < theirs:
            return say("Play your {card} face down: nothing in your hand beats the {theirs}, and face down the "
                       "other side doesn't learn your card.", card=mine, theirs=theirs)
        return say("Play your {card} face down: keep your stronger cards for the rodadas to come.", card=mine)
    if not view.plays:
        if mine == best:
            return say("Lead with your {card}, your strongest card: the other side must beat it to take this "
                       "rodada.", card=mine)
        return say("Lead with your {card} and keep your {best} for a later rodada.", card=mine, best=best)
    if ours > max(theirs, 0) and mine < best and opponents_after(view) == 0:
        return say("Keep your {best}: {winner} already wins this rodada.", best=best, winner=_winner(view, ours))
    if theirs > 0 and mine > theirs:
        higher = [v for v in held if v > mine]
        if opponents_after(view):
            return say("Play your {card}: it beats the {theirs}, and the players after you must beat it too.",
                       card=mine, theirs=theirs)
        if higher:
            return say("Play your {card}: it beats the {theirs} and keeps your {higher} for later.", card=mine,
                       theirs=theirs, higher=higher[-1])
        return say("Play your {card}: it beats the {theirs}.", card=mine, theirs=theirs)
    if theirs == 0 and ours <= 0 and mine == held[0]:
        return say("Play your {card}: the other side played face down, worth 0, so your weakest card wins this "
                   "rodada.", card=mine)
    if theirs > 0 and mine == theirs:
        if view.results and view.results[0] == view.side:
            return say("Play your {card}: it ties the {theirs}, and a tie after your side won the 1st rodada "
                       "wins the confronto.", card=mine, theirs=theirs)
        return say("Play your {card}: it ties the {theirs}.", card=mine, theirs=theirs)
    if theirs > 0 and best < theirs:
        return say("Throw your {card}: nothing in your hand beats the {theirs}, so give away your weakest card.",
                   card=mine, theirs=theirs)
    if ours > max(theirs, 0) and mine == held[0]:
        return say("Play your {card}: {winner} already wins this rodada, so give away your weakest card.",
                   card=mine, winner=_winner(view, ours))
    if partner_signals(view):
        return say("Play your {card}: your partner signalled a winner for the 3rd rodada.", card=mine)
    return say("Play your {card}: of your cards it gives your side the best chance to win this confronto.",
               card=mine)


def _winner(view: SeatView, value: int):
    """Who holds the rodada for this seat's side: "Zé's 7" (a partner's card played face up)."""
    val = view.values()
    for s, c in view.plays:
        if c is not None and val[c] == value and view.side_of(s) == view.side:
            return say("{seat}'s {card}", seat=s, card=value)
    return say("your side")


__all__ = ["Advice", "advise"]
