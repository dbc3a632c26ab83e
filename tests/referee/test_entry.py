"""The entry panel each game declares (referee/entry.py, issue 42): the dashboard draws its card keys
and its action buttons from it, and greys what the referee would refuse now, with its sentence.

- every game's panel has the cards and the events of its rules module, with their choices;
- along whole simulated games, every event the table really entered next is one the panel offered
  as possible (never greyed), and asking changes nothing;
- a game with no hints at all still gets a panel (a new game needs no new page);
- every ruling type the referee gives has its banner and words in the page (web/static/app.js).
"""
from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest

from referee import GAMES, Table
from referee.entry import ENTRY_HINTS, now, panel
from referee.games.namikopy import NamikopyWar

ROOT = Path(__file__).resolve().parents[2]


def keys(p) -> list[str]:
    return [k["code"] for k in p["cards"]["keys"]]


def action(p, id_):
    return next(a for a in p["actions"] if a["id"] == id_)


def test_every_game_declares_its_cards_and_events():
    panels = {gid: panel(g) for gid, g in GAMES.items()}
    assert set(panels) == {"classic", "woolly", "namikopy", "casino", "guerra"}
    classic, woolly, namikopy, casino, guerra = (panels[g] for g in ("classic", "woolly", "namikopy", "casino", "guerra"))
    assert keys(classic) == ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
    assert [m["symbol"] for m in classic["cards"]["marks"]] == ["♣", "♦", "♥", "♠"]
    assert [s["code"] for s in classic["cards"]["specials"]] == ["JOKER"]
    assert [a["id"] for a in classic["actions"]] == ["flip", "down", "recount"]
    # Woolly: 1-12 in five colours, the War card, Steal (whom, where from) and Reveal
    assert keys(woolly) == [str(n) for n in range(1, 13)]
    assert [(m["code"], m["name"]) for m in woolly["cards"]["marks"]] == [
        ("R", "red"), ("O", "orange"), ("Y", "yellow"), ("G", "green"), ("B", "blue")]
    assert woolly["cards"]["mark_kind"] == "colour" and [s["code"] for s in woolly["cards"]["specials"]] == ["WAR"]
    steal = action(woolly, "steal")
    assert [(f["name"], f["kind"]) for f in steal["fields"]] == [("card", "fixed"), ("target", "seat"), ("from", "choice")]
    assert [f["name"] for f in action(woolly, "reveal")["fields"]] == ["card"]
    # Namikopy: numbers and birds, and choosing an opponent
    assert [s["code"] for s in namikopy["cards"]["specials"]] == ["MALLARD", "FLAMINGO", "TURKEY"]
    assert [f["kind"] for f in action(namikopy, "choose")["fields"]] == ["seat"]
    # Casino War: bets (and the tie bet), going to war, surrendering; the dealer is dealt and burns
    assert casino["extra_seats"] == ["Dealer"] and casino["unit"] == "chips" and not casino["middle"]
    bet = action(casino, "bet")
    assert [(f["name"], f["min"], f["default"]) for f in bet["fields"]] == [("amount", 1, 1), ("tie", 0, 0)]
    assert {a["id"]: a["who"] for a in casino["actions"]} == {
        "flip": "both", "down": "extra", "bet": "players", "go_to_war": "players", "surrender": "players",
        "recount": "players"}
    # Guerra: 1-10, a card face down, the cut, abstencao, the troca (a run, even or odd), the die, Ofensivas
    assert [k["label"] for k in guerra["cards"]["keys"]] == [str(n) for n in range(1, 11)]
    assert [s["code"] for s in guerra["cards"]["specials"]] == ["BACK"]
    assert [a["id"] for a in guerra["actions"]] == ["flip", "cut", "abstain", "call", "roll", "raise", "accept", "refuse"]
    call = action(guerra, "call")
    assert call["fields"][0]["choices"][0] == {"value": "A 2 3", "label": "1-2-3"} and len(call["fields"][0]["choices"]) == 8
    assert [c["value"] for c in action(guerra, "roll")["fields"][0]["choices"]] == [1, 2, 3, 4, 5, 6]


def test_the_panel_follows_the_options_and_players():
    standard = panel(GAMES["namikopy"], GAMES["namikopy"].resolve_options({"deck": "standard", "war_cards": "on"}))
    assert keys(standard)[-1] == "A" and [s["code"] for s in standard["cards"]["specials"]] == ["JOKER"]
    six = Table("guerra", ["A1", "B1", "A2", "B2", "A3", "B3"])
    assert keys(panel(six.game, six.options, six.players, six.state))[-2:] == ["J", "Q"]
    no_tie = GAMES["casino"].resolve_options({"tie_bet": "off", "min_bet": 5, "max_bet": 50})
    assert [(f["name"], f["min"], f["max"]) for f in action(panel(GAMES["casino"], no_tie), "bet")["fields"]] == [("amount", 5, 50)]


def test_a_game_without_hints_still_gets_its_panel():
    class Newcomer(NamikopyWar):
        id = "newcomer"
        name = "Newcomer War"

    assert "newcomer" not in ENTRY_HINTS
    p = panel(Newcomer())
    assert keys(p) == [str(n) for n in range(1, 13)]
    assert [a["id"] for a in p["actions"]] == ["flip", "down", "choose", "recount"]
    assert all(a["label"] for a in p["actions"])


def sim_table(game: str, seed: int):
    """A whole simulated game's table (the simulators play by the real rules with real cards)."""
    rng = random.Random(seed)
    if game == "classic":
        from referee.sim.classic import ClassicSim as Sim
        sim = Sim(["Alex", "Olivia", "Sam"], rng, {"war_down": "3"})
    elif game == "woolly":
        from referee.sim.woolly import WoollySim as Sim
        sim = Sim(["Alex", "Olivia", "Sam"], rng, {"max_battles": 40})
    elif game == "namikopy":
        from referee.sim.namikopy import NamikopySim as Sim
        sim = Sim(["Alex", "Olivia", "Sam"], rng, {"war_cards": "on", "max_battles": 40})
    elif game == "casino":
        from referee.sim.casino import CasinoSim as Sim
        sim = Sim(["Alex", "Olivia"], rng, {"max_battles": 25})
    else:
        from referee.sim.guerra import GuerraSim as Sim
        sim = Sim(["Alex", "Olivia", "Sam", "Mia"], rng)
    try:
        sim.run()
    except Exception:   # a simulator's own limit: the log so far is real play all the same
        pass
    return sim.table


@pytest.mark.parametrize("game", ["classic", "woolly", "namikopy", "casino", "guerra"])
def test_what_the_table_entered_next_was_never_greyed(game):
    checked = 0
    for seed in (7, 8, 9):
        checked += replay_checking(game, seed)
    assert checked >= 60


def replay_checking(game: str, seed: int) -> int:
    played = sim_table(game, seed)
    log = [e for e in played.log if e["type"] != "undo"][:300]
    table = Table(game, played.players, played.options)
    p = panel(table.game, table.options, table.players, table.state)
    ids = {a["id"] for a in p["actions"]}
    checked = 0
    for event in log:
        state = table.state
        before = json.dumps(state.snapshot(), sort_keys=True, default=str)
        n = now(state, p, table.players, state.prompt().data.get("waiting", []))
        assert json.dumps(state.snapshot(), sort_keys=True, default=str) == before      # asking changes nothing
        kind = event["type"]
        act = event.get("card", "").lower() if kind == "action" else kind
        if act in ids:
            seat = next(s for s in n["can"] if s.lower() == event["seat"].strip().lower())
            assert n["can"][seat][act] is None, (event, n["can"][seat][act])
            tried = n["combos"].get(seat, {}).get(act)
            fields = action(p, act)["fields"]
            if tried and all(f["kind"] in ("fixed", "seat", "choice", "count") for f in fields):
                values = [event.get(f["name"], f.get("value")) for f in fields]
                if isinstance(values[-1], str) and fields[-1]["kind"] == "choice":
                    values[-1] = values[-1].lower()
                key = json.dumps(values)
                assert key in tried and tried[key] is None, (event, tried)
            checked += 1
        if kind == "flip":
            assert event["card"].strip().upper() not in n["cards"], (event, n["cards"])
        table.submit(event)
    return checked


def test_every_ruling_type_has_its_banner_and_words():
    """Each Ruling("type", ...) of the referee is in the page's RULINGS table (its kicker and banner
    colour); the page says every ruling's sentence whatever its type."""
    made = set()
    for path in (ROOT / "referee").rglob("*.py"):
        made |= set(re.findall(r'Ruling\(\s*"([a-z_]+)"', path.read_text(encoding="utf-8")))
    assert {"battle", "war", "action", "bet", "raise", "roll", "fim_de_guerra"} <= made
    js = (ROOT / "web" / "static" / "app.js").read_text(encoding="utf-8")
    table = js[js.index("const RULINGS = {"):]
    table = table[:table.index("\n};")]
    listed = set(re.findall(r"^\s+([a-z_]+): \{", table, re.M))
    assert made - {"prompt", "error"} <= listed, sorted(made - {"prompt", "error"} - listed)
