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
        return Advice(Move("pass"), "Keep these cards: you may not look at them first, and a new "
                                    "hand you haven't seen is no better on average.")
    hard = Hard(rng)
    move = hard.decide(view, kind, moves)
    return Advice(move, _why(view, kind, move, moves, hard))


def card_word(value: int) -> str:
    """A card as the coach says it: by its number, as the rooms page shows it (the ace is 1, the
    advanced deck's jack and queen 11 and 12); suits never rank in Guerra."""
    return str(value)


def _often(p: float) -> str:
    """How often, in words: "about 70% of the time", "almost every time", "almost never"."""
    if p >= 0.975:
        return "almost every time"
    if p <= 0.025:
        return "almost never"
    return f"about {round(20 * p) * 5}% of the time"


def _wins(view: SeatView, p: float) -> str:
    whose = "your team's" if view.teams else "your"
    return f"{whose} cards win this confronto {_often(p)}"


def _points(n: int) -> str:
    return "1 point" if n == 1 else f"{n} points"


def _why(view: SeatView, kind: str, move: Move, moves: list[Move], hard: Hard) -> str:
    if kind == "cut":
        if move.kind == "pass":
            return "Leave the cut: nobody knows the order of the cards, so cutting changes nothing you can count on."
        return f"Cut {move.choice}: nobody knows the order of the cards, so either way is as good."
    if kind == "troca":
        if move.kind == "call":
            return (f"Show your run and call {move.parity}: a new hand should do better than these three "
                    f"cards in a row.")
        return "Keep your hand: it should do better than a new one after the call."
    if kind in ("answer", "fim"):
        p = hard.chance(view)
        wins = _wins(view, p)
        if kind == "fim":
            if move.kind == "accept":
                return f"Accept Fim de Guerra: {wins}."
            return f"Refuse Fim de Guerra: {wins}, so give the other side 1 point rather than 2."
        proposed = view.pending[1] if view.pending else view.value + 1
        if move.kind == "raise":
            return f"Raise again: {wins}."
        if move.kind == "accept":
            if p >= 0.5:
                return f"Accept: {wins}, enough to play for {_points(proposed)}."
            if view.their_score + view.value >= 6:
                return f"Accept: refusing would give the other side the game, and {wins}."
            return f"Accept: {wins}, and refusing would give the other side {_points(view.value)} anyway."
        return (f"Refuse: {wins}; refusing gives the other side {_points(view.value)}, less than losing "
                f"{_points(proposed)}.")
    return _why_turn(view, move, moves, hard)


def _why_turn(view: SeatView, move: Move, moves: list[Move], hard: Hard) -> str:
    if move.kind == "raise":
        p = hard.chance(view)
        if p >= 0.5:
            return f"Propose an Ofensiva: {_wins(view, p)}, so play for more."
        return (f"Propose an Ofensiva: {_wins(view, p)}, but the other side may "
                f"refuse, and then your side scores {_points(view.value)} at once.")
    val = view.values()
    card = view.hand[move.slot]
    if card is None:
        return "Nobody may look at their cards now: any card is as good as another."
    mine_v = val[card]
    mine = card_word(mine_v)
    held = sorted(val[c] for c in view.hand if c is not None)
    best = card_word(held[-1])
    ours, theirs = best_so_far(view)
    theirs_word = card_word(theirs) if theirs > 0 else None
    if move.down:
        if move == signal_move(view, moves):
            return (f"Play your {mine} face down: it tells your partner you keep a winner for the 3rd "
                    f"rodada.")
        if ours > max(theirs, 0):
            return (f"Play your {mine} face down: {_winner(view, ours)} already wins this rodada, and the "
                    f"other side doesn't see your card.")
        if theirs > 0 and held[-1] < theirs:
            return (f"Play your {mine} face down: nothing in your hand beats the {theirs_word}, and face "
                    f"down the other side doesn't learn your card.")
        return f"Play your {mine} face down: keep your stronger cards for the rodadas to come."
    if not view.plays:
        if mine_v == held[-1]:
            return f"Lead with your {mine}, your strongest card: the other side must beat it to take this rodada."
        return f"Lead with your {mine} and keep your {best} for a later rodada."
    if ours > max(theirs, 0) and mine_v < held[-1] and opponents_after(view) == 0:
        return f"Keep your {best}: {_winner(view, ours)} already wins this rodada."
    if theirs > 0 and mine_v > theirs:
        higher = [v for v in held if v > mine_v]
        if opponents_after(view):
            return f"Play your {mine}: it beats the {theirs_word}, and the players after you must beat it too."
        if higher:
            return f"Play your {mine}: it beats the {theirs_word} and keeps your {card_word(higher[-1])} for later."
        return f"Play your {mine}: it beats the {theirs_word}."
    if theirs == 0 and ours <= 0 and mine_v == held[0]:
        return f"Play your {mine}: the other side played face down, worth 0, so your weakest card wins this rodada."
    if theirs > 0 and mine_v == theirs:
        if view.results and view.results[0] == view.side:
            return (f"Play your {mine}: it ties the {theirs_word}, and a tie after your side won the 1st "
                    f"rodada wins the confronto.")
        return f"Play your {mine}: it ties the {theirs_word}."
    if theirs > 0 and held[-1] < theirs:
        return f"Throw your {mine}: nothing in your hand beats the {theirs_word}, so give away your weakest card."
    if ours > max(theirs, 0) and mine_v == held[0]:
        return f"Play your {mine}: {_winner(view, ours)} already wins this rodada, so give away your weakest card."
    if partner_signals(view):
        return f"Play your {mine}: your partner signalled a winner for the 3rd rodada."
    return f"Play your {mine}: of your cards it gives your side the best chance to win this confronto."


def _winner(view: SeatView, value: int) -> str:
    """Who holds the rodada for this seat's side: "Zé's 7" (a partner's card played face up)."""
    val = view.values()
    for s, c in view.plays:
        if c is not None and val[c] == value and view.side_of(s) == view.side:
            return f"{s}'s {card_word(value)}"
    return "your side"


__all__ = ["Advice", "advise", "card_word"]
