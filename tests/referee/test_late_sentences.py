"""A ruling's sentence may be made when it is first read (referee/rulings.py): it must say what it
would have said at once, however many events later it is read."""
from __future__ import annotations

import pytest

from referee.rulings import Ruling
from referee.table import Table
from referee.say import message
from referee.sim.stats import SIMULATORS

CASES = [("classic", 2, None), ("classic", 3, {"war_down": "3"}), ("classic", 4, {"war_down": "rank"}),
         ("classic", 2, {"war": "race"}), ("classic", 2, {"max_battles": 20}), ("woolly", 2, None),
         ("namikopy", 3, None), ("casino", 3, None), ("casino", 1, {"decks": 6}),
         ("casino", 2, {"odd_surrender": "player_keeps", "max_battles": 15, "timed_tie": "sudden_death"}),
         ("casino", 4, {"odd_surrender": "even_bets", "min_bet": 2, "tie_bet": False}), ("guerra", 2, None),
         ("guerra", 4, {"cut": "required"}), ("guerra", 6, {"timed_tie": "sudden_death"})]


def rulings_of(game: str, players: int, options, seed: str, read_at_once: bool) -> list[tuple]:
    said: list[Ruling] = []
    real = Table.submit

    def submit(self, event):
        rulings = real(self, event)
        if read_at_once:
            for r in rulings:
                r.text
        said.extend(rulings)
        return rulings

    Table.submit = submit
    try:
        SIMULATORS[game]([f"P{i + 1}" for i in range(players)], seed, options)
    finally:
        Table.submit = real
    return [(r.type, r.text, message(r.text), r.data) for r in said]


@pytest.mark.parametrize("game,players,options", CASES)
def test_a_sentence_read_late_says_what_it_said_at_once(game, players, options):
    for i in range(3):
        at_once = rulings_of(game, players, options, f"late:{i}", True)
        late = rulings_of(game, players, options, f"late:{i}", False)
        assert len(at_once) > 10
        assert late == at_once


def test_a_ruling_made_later_is_equal_printed_and_pickled_as_its_sentence():
    import pickle                                    # why here: only this test pickles

    made = []
    r = Ruling("battle", lambda: made.append(1) or "Alex takes 2 cards.", {"winner": "Alex"})
    assert not made                                  # not made until read
    assert r == Ruling("battle", "Alex takes 2 cards.", {"winner": "Alex"})
    assert "Alex takes 2 cards." in repr(r) and made == [1]
    assert r.to_json() == {"type": "battle", "text": "Alex takes 2 cards.", "winner": "Alex"} and made == [1]
    assert pickle.loads(pickle.dumps(r)) == r


# the rulings a simulation says most, each said when read (the speed of issue 62): a sentence made at once
# again would still be right, only slower
LATE = {"casino": {"bet", "flip", "battle", "surrender", "war", "down"},
        "guerra": {"flip", "rodada", "confronto", "score", "cut", "raise"}}


@pytest.mark.parametrize("game,players", [("casino", 3), ("guerra", 2), ("guerra", 4)])
def test_the_common_rulings_are_said_when_read(game, players):
    said: list[Ruling] = []
    real = Table.submit

    def submit(self, event):
        rulings = real(self, event)
        said.extend(rulings)
        return rulings

    Table.submit = submit
    try:
        for i in range(3):
            SIMULATORS[game]([f"P{i + 1}" for i in range(players)], f"lazy:{i}")
    finally:
        Table.submit = real
    common = [r for r in said if r.type in LATE[game]]
    assert len(common) > 50 and {r.type for r in common} >= {"flip"}
    assert all(callable(r._text) for r in common), sorted({r.type for r in common if not callable(r._text)})
    prompts = [r for r in said if r.type == "prompt"]
    assert sum(callable(r._text) for r in prompts) > 0.9 * len(prompts)
