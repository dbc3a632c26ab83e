"""Woolly Warfare rules through the Python API: what the golden transcripts can't show (hand and
herd split, the verify/can/apply trio, restore), plus the readings warref makes where the
documents are silent (docs/woolly.md)."""
import pytest

from referee import IllegalEvent, RefereeBug, Table
from referee.events import parse_event

from conftest import down, flip, play, recount, reveal, steal


def hands(table):
    return {n: (p.hand, p.herd) for n, p in table.state.players.items()}


def test_deal_is_as_even_as_possible_first_seats_get_the_extra_cards(two, three):
    assert hands(two) == {"Alex": (3, 33), "Olivia": (3, 32)}
    assert hands(three) == {"Alex": (3, 21), "Olivia": (3, 21), "Sam": (3, 20)}


def test_verify_can_apply_trio_leaves_state_alone_on_refusal(two):
    state = two.state
    before = state.snapshot()
    bad = parse_event(flip("Alex", "STEAL"))
    assert not state.can(bad)
    with pytest.raises(IllegalEvent, match="can't be a battle card"):
        state.verify(bad)
    with pytest.raises(IllegalEvent):
        state.apply(bad)
    assert state.snapshot() == before
    good = parse_event(flip("Alex", "8"))
    assert state.can(good) and state.snapshot() == before
    state.apply(good)
    assert state.snapshot()["flips"] == {"Alex": "8"}


def test_steal_from_hand_waits_for_the_battle_end_to_refill(two):
    play(two, steal("Alex", "Olivia", "hand"))
    assert hands(two) == {"Alex": (3, 33), "Olivia": (2, 32)}
    assert two.state.players["Olivia"].robbed
    play(two, flip("Alex", "9"), flip("Olivia", "3"))
    assert hands(two) == {"Alex": (3, 34), "Olivia": (3, 30)}
    assert not two.state.players["Olivia"].robbed


def test_a_robbed_hand_refills_when_a_war_starts(two):
    play(two, steal("Olivia", "Alex", "hand"), flip("Alex", "5"), flip("Olivia", "5"))
    # Alex: 36 cards, 1 stolen, 1 flipped: his hand was down to 1 and is refilled to 3 for the war
    assert hands(two) == {"Alex": (3, 31), "Olivia": (3, 31)}


def test_steal_from_herd_and_reveal_keep_hands_at_three(two):
    play(two, steal("Alex", "Olivia", "herd"), reveal("Olivia"))
    assert hands(two) == {"Alex": (3, 33), "Olivia": (3, 30)}
    assert two.state.card_total() == 71 - 2


def test_empty_hand_flips_the_top_of_the_herd(three):
    play(three, *[steal(s, "Sam", "hand") for s in ("Alex", "Olivia", "Alex")])
    assert hands(three)["Sam"] == (0, 20)
    play(three, flip("Sam", "4"))
    assert hands(three)["Sam"] == (0, 19)


def test_war_cards_come_from_the_herd_then_the_hand(two):
    play(two, recount("Olivia", hand=3, herd=2), flip("Alex", "7"), flip("Olivia", "7"))
    assert hands(two)["Olivia"] == (3, 1)
    play(two, down("Olivia", 2))
    assert hands(two)["Olivia"] == (2, 0)


def test_empty_hand_plays_an_action_from_the_top_of_the_herd(three):
    play(three, *[steal(s, "Sam", "hand") for s in ("Alex", "Olivia", "Alex")])
    play(three, reveal("Sam"))      # the top of his herd was a Reveal: played, then he draws 1
    assert hands(three)["Sam"] == (1, 18)


def test_late_action_only_when_provably_forced(three):
    play(three, steal("Alex", "Olivia", "hand"), steal("Alex", "Olivia", "hand"), flip("Alex", "3"))
    with pytest.raises(IllegalEvent, match="Too late"):
        three.submit(reveal("Sam"))           # a full hand: Sam chose not to play it in time
    three.submit(reveal("Olivia"))            # her only hand card: she could not flip it
    assert hands(three)["Olivia"] == (1, 20)


def test_late_action_only_when_it_is_the_very_last_card(three):
    play(three, recount("Sam", count=1), flip("Alex", "3"))
    with pytest.raises(IllegalEvent, match="Too late"):
        three.submit(reveal("Olivia"))
    rulings = three.submit(reveal("Sam"))
    assert [r.type for r in rulings] == ["action", "out"]
    rulings = three.submit(flip("Olivia", "2"))
    assert rulings[0].data["winner"] == "Alex"


def test_a_steal_of_the_last_card_puts_the_victim_out_and_can_end_the_game(two):
    rulings = play(two, recount("Olivia", hand=1, herd=0), steal("Alex", "Olivia", "hand"))
    assert [r.type for r in rulings] == ["action", "out", "game_over"]
    assert rulings[-1].data["winner"] == "Alex"


def test_a_steal_during_a_war_can_leave_one_player_who_takes_the_pile(two):
    play(two, recount("Olivia", hand=3, herd=1), flip("Alex", "4"), flip("Olivia", "4"))
    play(two, down("Alex"), down("Olivia"))          # Olivia is left with 1 card
    rulings = two.submit(steal("Alex", "Olivia", "hand"))
    assert [r.type for r in rulings] == ["action", "out", "battle", "game_over"]
    assert rulings[2].data == {**rulings[2].data, "winner": "Alex", "cards": 6}


def test_no_actions_while_face_down_cards_are_being_laid(two):
    play(two, flip("Alex", "2"), flip("Olivia", "2"))
    with pytest.raises(IllegalEvent, match="after everyone has laid"):
        two.submit(reveal("Alex"))


def test_recount_mid_war_that_leaves_too_few_cards_puts_the_player_out(two):
    play(two, flip("Alex", "2"), flip("Olivia", "2"), down("Alex", 1))
    rulings = two.submit(recount("Alex", count=1))
    assert [r.type for r in rulings] == ["recount", "out", "battle", "game_over"]
    assert rulings[2].data["winner"] == "Olivia"


def test_restore_replays_the_log_to_the_same_state(three):
    play(three, steal("Alex", "Sam", "herd"), flip("Alex", "WAR"), flip("Olivia", "3"), flip("Sam", "9"),
         down("Alex"), down("Olivia", 1), {"type": "undo"}, down("Olivia"), down("Sam"), reveal("Sam"))
    again = Table.restore("woolly", ["Alex", "Olivia", "Sam"], {}, three.log)
    assert again.state.snapshot() == three.state.snapshot()
    assert again.log == three.log


def test_undo_after_game_over_reopens_the_game(two):
    play(two, recount("Olivia", count=1), flip("Alex", "9"))
    assert two.submit(flip("Olivia", "2"))[-1].type == "game_over"
    two.submit({"type": "undo"})
    assert not two.state.over
    assert two.submit(flip("Olivia", "10"))[0].data["winner"] == "Olivia"


def test_a_bug_in_the_rules_code_never_leaves_a_half_applied_state(two, monkeypatch):
    play(two, flip("Alex", "9"))
    before = two.state.snapshot()

    def broken(event):
        two.state.players["Alex"].herd = -99
        raise ZeroDivisionError("boom")

    monkeypatch.setattr(two.state, "_apply", broken)
    with pytest.raises(RefereeBug, match="boom"):
        two.submit(flip("Olivia", "3"))
    assert two.state.snapshot() == before
    assert len(two.log) == 1


def test_prompts_say_who_the_table_is_waiting_for(three):
    assert three.state.prompt().data["waiting"] == ["Alex", "Olivia", "Sam"]
    play(three, flip("Olivia", "5"))
    assert three.state.prompt().text == "Waiting for Alex and Sam to flip."
    play(three, flip("Alex", "5"), flip("Sam", "1"), down("Sam"))
    prompt = three.state.prompt()
    assert prompt.data["phase"] == "down" and prompt.data["waiting"] == ["Alex", "Olivia"]


def test_time_up_during_a_pending_sudden_death_lets_it_decide():
    table = Table("woolly", ["Alex", "Olivia"], {"max_battles": 1, "timed_tie": "sudden_death"})
    rulings = play(table, recount("Olivia", count=34), flip("Alex", "2"), flip("Olivia", "3"))
    assert [r.type for r in rulings] == ["battle", "tie", "prompt"]     # 35 cards each at the cap
    assert [r.type for r in table.submit({"type": "time_up"})] == ["time_up"]
    rulings = play(table, flip("Alex", "9"), flip("Olivia", "1"))
    assert rulings[-1].type == "game_over" and rulings[-1].data["winner"] == "Alex"


def test_a_prompt_after_an_undo_in_a_war_counts_the_cards_already_down(two):
    play(two, flip("Alex", "8"), flip("Olivia", "8"), down("Alex", 1), down("Olivia"))
    rulings = two.submit({"type": "undo"})          # Olivia's two cards come back; Alex's one stays down
    prompt = rulings[-1]
    assert prompt.type == "prompt" and prompt.data["waiting"] == ["Alex", "Olivia"]
    assert prompt.text == ("War! Alex and Olivia: lay face down from the top of your herd (from your hand if "
                           "the herd runs out): Alex 1 more card, Olivia 2 cards.")
    assert two.state.prompt().text == prompt.text
    play(two, down("Olivia"))
    assert two.state.prompt().text.startswith("War! Alex: lay face down") and "Alex 1 more card." in \
        two.state.prompt().text
    play(two, down("Alex", 1))
    assert two.state.prompt().data["phase"] == "play"
