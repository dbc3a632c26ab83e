"""Guerra rules: unit tests through the Table (the golden transcripts in tests/referee/golden/guerra/ show
every rule line of the document; these check the pieces and the corners)."""
import pytest

from referee import IllegalEvent, SetupError, Table, get_game
from referee.deck import load_deck
from referee.games.guerra import normalize
from referee.sim.guerra import simulate_guerra

A, O = "Alex", "Olivia"


def flip(seat, card):
    return {"type": "flip", "seat": seat, "card": card}


def ev(kind, seat, **kw):
    return {"type": kind, "seat": seat, **kw}


def table(players=(A, O), **options):
    return Table("guerra", list(players), options)


def play(t, *pairs):
    for seat, card in pairs:
        t.submit(flip(seat, card))


def test_decks_are_data():
    basic, advanced = load_deck("guerra"), load_deck("guerra-advanced")
    assert basic.size == 40 and advanced.size == 46
    assert sorted({c.value for c in basic.cards}) == list(range(1, 11))
    assert sorted(c.code for c in advanced.cards if c.value > 10) == ["JC", "JD", "JH", "QC", "QD", "QH"]
    assert normalize("1s") == "AS" and normalize("12") == "Q" and normalize("11H") == "JH"
    assert normalize("10C") == "10C"


def test_player_counts_and_deck_choice():
    game = get_game("guerra")
    for bad in ([A], [A, O, "Sam"], list("ABCDE"), list("ABCDEFG")):
        with pytest.raises(SetupError):
            Table("guerra", bad)
    assert table(list("ABCDEF")).state.deck.size == 46
    assert table(list("ABCD")).state.deck.size == 40
    assert table(deck="advanced").state.deck.size == 46
    assert table(list("ABCDEF"), deck="basic").state.deck.size == 40
    assert game.rule_sheet(game.resolve_options({}))


def test_deal_counts_and_turns():
    t = table()
    assert t.state.counts() == {A: 3, O: 3}
    with pytest.raises(IllegalEvent):
        t.submit(flip(A, "7C"))            # Olivia, after the dealer, leads
    play(t, (O, "7S"))
    assert t.state.counts() == {A: 3, O: 2}


@pytest.mark.parametrize("cards, score", [
    ([(O, "9S"), (A, "2C"), (O, "8S"), (A, "3C")], [0, 1]),                      # two rodadas
    ([(O, "9S"), (A, "2C"), (O, "8S"), (A, "8C")], [0, 1]),                      # 1st and a tie
    ([(O, "9S"), (A, "9C"), (O, "2S"), (A, "3C")], [1, 0]),                      # tied 1st, next decides
    ([(O, "9S"), (A, "2C"), (O, "2S"), (A, "3C"), (A, "5C"), (O, "5S")], [0, 1]),  # 3rd tie: 1st decides
    ([(O, "9S"), (A, "9C"), (O, "2S"), (A, "2C"), (O, "5S"), (A, "6C")], [1, 0]),  # two ties, 3rd decides
    ([(O, "9S"), (A, "2C"), (O, "2S"), (A, "3C"), (A, "5C"), (O, "6S")], [0, 1]),  # two of three
])
def test_confronto_winner(cards, score):
    t = table()
    play(t, *cards)
    assert t.state.scores == score
    assert t.state.confrontos == 1


def test_three_ties_carry_two_then_one():
    t = table()
    play(t, (O, "9S"), (A, "9C"), (O, "2S"), (A, "2C"), (O, "5S"), (A, "5C"))
    assert t.state.scores == [0, 0] and t.state.value == 2
    play(t, (A, "9C"), (O, "2S"), (A, "8C"), (O, "3S"))
    assert t.state.scores == [2, 0] and t.state.value == 1


def test_ofensiva_ladder_and_refusals():
    t = table()
    t.submit(ev("raise", A))
    before = (t.state.snapshot(), list(t.log))
    for bad in (ev("raise", A), flip(O, "7S"), ev("accept", A), ev("refuse", A)):
        with pytest.raises(IllegalEvent):
            t.submit(bad)
        assert (t.state.snapshot(), list(t.log)) == before
    t.submit(ev("accept", O))
    assert t.state.value == 2
    with pytest.raises(IllegalEvent):
        t.submit(ev("raise", A))           # no two in a row
    for seat in (O, A, O, A):
        t.submit(ev("raise", seat))
    t.submit(ev("accept", O))              # Alex's 6 accepted (Olivia's 3 and 5 went through)
    assert t.state.value == 6
    with pytest.raises(IllegalEvent, match="more than 6"):
        t.submit(ev("raise", O))


def test_refusal_scores_last_accepted_value():
    t = table()
    t.submit(ev("raise", O))
    t.submit(ev("raise", A))               # accepts 2, proposes 3
    t.submit(ev("refuse", O))
    assert t.state.scores == [2, 0]


def test_encoberta():
    t = table()
    with pytest.raises(IllegalEvent, match="1st rodada"):
        t.submit(flip(O, "BACK"))
    play(t, (O, "6S"), (A, "2C"), (O, "BACK"))
    with pytest.raises(IllegalEvent, match="must show"):
        t.submit(flip(A, "BACK"))
    play(t, (A, "AC"))                     # 1 beats a face-down card
    assert t.state.results == [1, 0]


def test_encoberta_teams_last_must_show():
    t = table([A, O, "Sam", "Mia"])
    play(t, (O, "2S"), ("Sam", "9C"), ("Mia", "3S"), (A, "4C"))      # Sam leads the 2nd
    play(t, ("Sam", "BACK"), ("Mia", "BACK"), (A, "BACK"))
    with pytest.raises(IllegalEvent, match="must show"):
        t.submit(flip(O, "BACK"))
    play(t, (O, "AS"))                     # Olivia's 1 beats three face-down cards
    assert t.state.results == [0, 1]


def test_troca_and_known_hand():
    t = table()
    with pytest.raises(IllegalEvent):
        t.submit(ev("call", A, cards="9C 10C AC", parity="odd"))     # no wrap-around
    t.submit(ev("call", A, cards="9C 10C 8D", parity="odd"))
    with pytest.raises(IllegalEvent):
        t.submit(ev("roll", A, die=7))
    t.submit(ev("roll", A, die=2))
    assert [f.code for f in t.state.players[A].known] == ["9C", "10C", "8D"]
    play(t, (O, "7S"))
    with pytest.raises(IllegalEvent, match="failed troca"):
        t.submit(flip(A, "7C"))
    play(t, (A, "10"))                     # a rank alone matches the known 10C
    assert [f.code for f in t.state.players[A].known] == ["9C", "8D"]


def test_abstencao_limits_and_stock():
    t = table()
    t.submit(ev("abstain", O))
    t.submit(ev("abstain", O))
    assert t.state.stock == 40 - 6 - 9
    with pytest.raises(IllegalEvent):
        t.submit(ev("abstain", O))


def test_fim_de_guerra_and_guerra_fria():
    t = table()
    for seat in (A, O, A, O):
        t.submit(ev("raise", seat))
    t.submit(ev("accept", A))
    play(t, (O, "2S"), (A, "9C"), (A, "8C"), (O, "3S"))
    assert t.state.scores == [5, 0] and t.state.mode == "fim"
    for bad in (ev("raise", A), ev("raise", O), flip(A, "7C"), ev("accept", O), ev("abstain", A)):
        with pytest.raises(IllegalEvent):
            t.submit(bad)
    t.submit(ev("accept", A))
    play(t, (A, "2C"), (O, "3S"), (O, "8S"), (A, "4C"))
    assert t.state.scores == [5, 2]
    t.submit(ev("refuse", A))
    assert t.state.scores == [5, 3]


def test_fim_de_guerra_refusal_scores_one():
    t = table()
    for seat in (O, A, O, A):
        t.submit(ev("raise", seat))
    t.submit(ev("accept", O))              # Alex's 5
    play(t, (O, "2S"), (A, "9C"), (A, "8C"), (O, "3S"))       # Alex 5
    t.submit(ev("refuse", A))              # Olivia 1
    st = t.state
    assert st.scores == [5, 1] and st.mode == "fim"


def test_cut_required_and_rotation():
    t = table(cut="required")
    with pytest.raises(IllegalEvent, match="cut"):
        t.submit(ev("raise", A))
    with pytest.raises(IllegalEvent):
        t.submit(ev("cut", A, choice="up"))
    t.submit(ev("cut", O, choice="up"))
    play(t, (O, "9S"), (A, "2C"), (O, "8S"), (A, "3C"))
    assert t.state.dealer == 1 and t.state.phase == "cut"
    t.submit(ev("cut", A, choice="down"))
    assert t.state.to_play() == A


def test_time_up_shared_and_sudden_death():
    t = table()
    t.submit({"type": "time_up"})
    play(t, (O, "9S"), (A, "9C"), (O, "2S"), (A, "2C"), (O, "5S"), (A, "5C"))
    assert t.state.over and t.state.result["winner"] is None
    t = table(timed_tie="sudden_death")
    t.submit({"type": "time_up"})
    play(t, (O, "9S"), (A, "9C"), (O, "2S"), (A, "2C"), (O, "5S"), (A, "5C"))
    assert not t.state.over
    play(t, (A, "9C"), (O, "2S"), (A, "8C"), (O, "3S"))
    assert t.state.over and t.state.result["winners"] == [A]


def test_teams_winners_and_answers():
    t = table([A, O, "Sam", "Mia"])
    t.submit(ev("raise", "Sam"))
    with pytest.raises(IllegalEvent):
        t.submit(ev("accept", A))
    t.submit(ev("refuse", "Mia"))
    assert t.state.score() == {"Alex and Sam": 1, "Olivia and Mia": 0}


@pytest.mark.parametrize("players", [2, 4, 6])
def test_simulated_matches(players):
    for seed in range(30):
        r = simulate_guerra([f"P{i + 1}" for i in range(players)], seed)
        assert r.finished and r.reason == "six_points" and r.battles >= 1
