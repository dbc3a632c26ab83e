"""Digital Guerra (referee/digital.py): the table deals, seats decide; a seed and the moves replay it."""
from __future__ import annotations

import random

import pytest

from referee.digital import DigitalGuerra
from referee.errors import IllegalEvent
from referee.npc import Move

A, O, S, M = "Alex", "Olivia", "Sam", "Mia"


def play(game: DigitalGuerra, rng: random.Random, stop: int | None = None) -> None:
    """Random legal moves, each by a random seat among those the table waits for."""
    while not game.over and (stop is None or len(game.moves_made) < stop):
        kind, seats = game.waiting()
        seat = rng.choice(seats)
        game.act(seat, rng.choice(game.moves(seat)))
        game.check()


@pytest.mark.parametrize("players", [2, 4, 6])
def test_random_games_end_and_replay_from_the_seed_and_the_moves(players):
    names = [f"P{i + 1}" for i in range(players)]
    for seed in range(3):
        game = DigitalGuerra(names, f"d{seed}", {"cut": "required"} if seed == 2 else None)
        play(game, random.Random(seed))
        assert game.over and max(game.state.scores) >= 6
        again = DigitalGuerra(names, f"d{seed}", {"cut": "required"} if seed == 2 else None)
        again.replay(game.moves_made)
        assert again.table.log == game.table.log and again.hands == game.hands


def test_a_move_that_is_not_the_seats_changes_nothing():
    game = DigitalGuerra([A, O], "x")
    kind, seats = game.waiting()
    other = O if seats == [A] else A
    before = (list(game.moves_made), list(game.table.log), {s: list(h) for s, h in game.hands.items()})
    with pytest.raises(IllegalEvent, match="not .*decision"):
        game.act(other, Move("pass"))
    with pytest.raises(IllegalEvent, match="cannot do that"):
        game.act(seats[0], Move("flip", slot=7))
    with pytest.raises(IllegalEvent, match="no seat"):
        game.act("Nobody", Move("pass"))
    assert before == (game.moves_made, game.table.log, game.hands)


def test_any_seat_of_a_team_answers_an_ofensiva_and_its_time_out_is_a_refusal():
    rng = random.Random(3)
    for seed in range(30):
        game = DigitalGuerra([A, O, S, M], f"o{seed}")
        while not game.over:
            kind, seats = game.waiting()
            if kind == "turn" and any(m.kind == "raise" for m in game.moves(seats[0])):
                game.act(seats[0], Move("raise"))
                kind, seats = game.waiting()
                assert kind == "answer" and len(seats) == 2
                assert {game.names.index(s) % 2 for s in seats} == {1 - game.names.index(game.state.pending["seat"]) % 2}
                assert all(game.moves(s) for s in seats)               # either partner may answer
                assert game.timeout_move(seats[1]) == Move("refuse")
                return
            game.act(seats[0], rng.choice(game.moves(seats[0])))
    pytest.fail("no Ofensiva could be raised in 30 games")


def test_a_card_timed_out_is_the_weakest_face_up():
    game = DigitalGuerra([A, O], "w")
    while game.waiting()[0] != "turn":
        kind, seats = game.waiting()
        game.act(seats[0], Move("pass") if Move("pass") in game.moves(seats[0]) else game.moves(seats[0])[0])
    seat = game.waiting()[1][0]
    hand = list(game.hands[seat])
    move = game.timeout_move(seat)
    assert move.kind == "flip" and not move.down
    assert game.values[hand[move.slot]] == min(game.values[c] for c in hand)


def test_the_first_receiver_abstains_without_looking():
    for seed in range(20):
        game = DigitalGuerra([A, O], f"a{seed}")
        if game.waiting()[0] == "cut":
            game.act(game.first, Move("pass"))
        if game.waiting() == ("abstain", [game.first]):
            view = game.view(game.first)
            assert view.hand == (None, None, None) and not view.looked
            other = O if game.first == A else A
            assert game.view(other).hand == tuple(game.hands[other])
            return
    pytest.fail("no abstencao was offered")


def test_every_timed_decision_says_the_timer_made_it_and_replays_so():
    """A move the timer makes is said as the timer's ("Time ran out for Tiago: the weakest card, 1, is
    played face up."), never as the seat's own choice, for every kind of decision the table times."""
    expected = {"turn": "the weakest card, ", "answer": "the Ofensiva is refused", "fim": "Fim de Guerra is refused",
                "troca": "no troca", "abstain": "no abstenção", "cut": "no cut: the deal is from the top"}
    seen: dict[str, str] = {}
    for seed in range(200):
        rng = random.Random(seed)
        game = DigitalGuerra(["Tiago", "Zé", "Nina", "Rui"] if seed % 2 else ["Tiago", "Zé"], seed,
                             {"cut": "required"} if seed % 4 == 1 else None)
        saved = []
        while not game.over and len(saved) < 400:
            kind, seats = game.waiting()
            seat = seats[0]
            timed = kind not in seen and game.timeout_move(seat) is not None and rng.random() < 0.5
            move = game.timeout_move(seat) if timed else rng.choice(game.moves(seat))
            said = game.act(seat, move, timed_out=timed)
            saved.append({"seat": seat, "move": move.to_json(), **({"by": "timer"} if timed else {})})
            if timed:
                first = said[0]
                assert first.type == "timeout" and first.text.startswith(f"Time ran out for {seat}: ")
                assert expected[kind] in first.text, (kind, first.text)
                seen[kind] = first.text
        again = DigitalGuerra(game.names, seed, {"cut": "required"} if seed % 4 == 1 else None)
        again.replay(saved)
        assert [r.text for r in again.rulings] == [r.text for r in game.rulings]
        if len(seen) == len(expected):
            break
    assert sorted(seen) == sorted(expected), seen
    assert any(t.endswith(", is played face up.") for t in seen.values())
