"""The coach (referee/npc/coach.py): the hard level's move for the seat that asks and one sentence
why, naming no card the seat has not seen (tested like the rooms' leak test, at every decision of
whole matches of 2, 4 and 6 players)."""
import random
import re

import pytest

from referee import Table
from referee.npc import Move, moves_for, seat_view
from referee.npc.coach import advise
from referee.npc.players import Hard
from referee.sim.guerra import NpcMatch

A, O, S, M = "Alex", "Olivia", "Sam", "Mia"
CARD = re.compile(r"(?:\byour|\bthe|\ba|\ban|'s) (1[0-2]|[1-9])\b(?!%)")      # a card named by the coach
SUITS = re.compile(r"(?i:club|diamond|heart|spade)|\b(?:[2-9]|10|A)[CDHS]\b")


def flip(seat, card):
    return {"type": "flip", "seat": seat, "card": card}


def seen_values(view) -> set[str]:
    """The numbers of every card ``view``'s seat has seen: its hand (once looked at), cards played
    face up or swapped away in a troca, the cards it laid face down, hands shown to it."""
    val = view.values()
    codes = {c for c in view.hand if c is not None} | set(view.out_cards) | set(view.my_down)
    codes |= {c for _, c in view.plays if c is not None}
    for _, cards in view.known:
        codes |= set(cards)
    return {str(val[c]) for c in codes}


class CoachedMatch(NpcMatch):
    """A match of NPCs where, at every decision, the deciding seat also asks the coach."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.asked = 0
        self.kinds = set()

    def ask(self, seat, kind, looked=True):
        moves = moves_for(self.state, seat, self.hands[seat], kind)
        if moves:
            view = seat_view(self.state, seat, self.hands, self.down, looked=looked)
            advice = advise(view, kind, moves, random.Random(self.asked))
            assert advice.move in moves
            named = set(CARD.findall(advice.text))
            assert named <= seen_values(view), (f"{seat} was told of {named - seen_values(view)}: "
                                                f"{advice.text!r} (hand {view.hand}, table {view.plays})")
            assert not SUITS.search(advice.text), advice.text
            assert advice.text.endswith(".") and advice.text[0].isupper() and ". " not in advice.text
            self.asked += 1
            self.kinds.add(kind)
        return super().ask(seat, kind, looked)


@pytest.mark.parametrize("players, lineup", [(2, ["hard", "normal"]), (4, ["easy", "hard"]), (6, ["normal"])])
def test_the_coach_names_only_cards_the_seat_has_seen(players, lineup):
    names = [f"P{i + 1}" for i in range(players)]
    asked, kinds = 0, set()
    for i in range(3):
        match = CoachedMatch(names, lineup, f"coach{players}:{i}")
        match.run()
        asked, kinds = asked + match.asked, kinds | match.kinds
    assert asked > 60 and {"turn", "answer", "cut"} <= kinds


def test_the_coach_gives_the_hard_level_s_move():
    t = Table("guerra", [A, O])
    t.submit(flip(O, "4S"))
    hand = ["2C", "5D", "7H"]
    view, moves = seat_view(t.state, A, {A: hand, O: ["2S", "3S"]}), moves_for(t.state, A, hand, "turn")
    for seed in range(5):
        advice = advise(view, "turn", moves, random.Random(seed))
        assert advice.move == Hard(random.Random(seed)).decide(view, "turn", moves)


def test_keep_your_best_card_when_your_partner_already_wins_the_rodada():
    t = Table("guerra", [A, O, S, M])
    for seat, card in ((O, "3C"), (S, "9C"), (M, "5C")):     # Olivia leads; Alex (Sam's partner) plays last
        t.submit(flip(seat, card))
    hand = ["2D", "10D", "6H"]
    view = seat_view(t.state, A, {A: hand})
    moves = moves_for(t.state, A, hand, "turn")
    advice = advise(view, "turn", [m for m in moves if m.kind == "flip"], random.Random(3))
    assert advice.move == Move("flip", slot=0, down=True) or advice.move == Move("flip", slot=0)
    assert advice.text in ("Keep your 10: Sam's 9 already wins this rodada.",
                           "Play your 2 face down: Sam's 9 already wins this rodada, and the other side "
                           "doesn't see your card.")


def test_cheapest_winner_keeps_the_big_card():
    t = Table("guerra", [A, O])
    t.submit(flip(O, "4S"))
    hand = ["2C", "5D", "10H"]
    view, moves = seat_view(t.state, A, {A: hand}), moves_for(t.state, A, hand, "turn")
    advice = advise(view, "turn", [m for m in moves if m.kind == "flip"], random.Random(1))
    assert advice.move == Move("flip", slot=1)
    assert advice.text == "Play your 5: it beats the 4 and keeps your 10 for later."


def test_nothing_beats_their_card_so_the_weakest_goes():
    t = Table("guerra", [A, O])
    t.submit(flip(O, "10S"))
    hand = ["2C", "5D", "9H"]
    view, moves = seat_view(t.state, A, {A: hand}), moves_for(t.state, A, hand, "turn")
    advice = advise(view, "turn", [m for m in moves if m.kind == "flip" and not m.down], random.Random(1))
    assert advice.move == Move("flip", slot=0)
    assert advice.text == "Throw your 2: nothing in your hand beats the 10, so give away your weakest card."


def test_a_blind_first_receiver_is_told_to_keep_the_cards():
    t = Table("guerra", [A, O])
    view = seat_view(t.state, A, {A: ["2C", "5D", "9H"]}, looked=False)
    advice = advise(view, "abstain", [Move("abstain"), Move("pass")], random.Random(1))
    assert advice.move == Move("pass") and "no better" in advice.text
