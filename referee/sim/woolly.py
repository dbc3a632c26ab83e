"""A simulated Woolly Warfare table: real shuffled cards, players making random legal choices.

The simulator is the table, not the referee. It holds every real card, applies the rules to the
real cards itself (a second, independent reading of the rule documents), and feeds the referee only
what a camera would see: battle cards flipped, action cards played, how many cards go face down.
After every event it checks the referee's hand and herd counts against the real cards, and at
every resolution it checks the referee's ruling (winner, war, who is out, game over) against its
own. Any disagreement raises Mismatch.
"""
from __future__ import annotations

import random
from collections import deque
from typing import Any

from ..deck import load_deck
from ..events import Action, Down, Flip
from ..games.woolly import HAND_SIZE, WAR_DOWN, deal_sizes
from .base import GameRecord, Mismatch, TableSim

ACTIONS = ("STEAL", "REVEAL")


class WoollySim(TableSim):
    def __init__(self, players: list[str], rng: random.Random, options: dict[str, Any] | None = None,
                 action_rate: float = 0.5, split_downs: float = 0.2, time_up_at: int | None = None,
                 max_events: int = 200_000):
        super().__init__("woolly", players, rng, options, max_events)
        self.action_rate = action_rate
        self.split_downs = split_downs
        self.time_up_at = time_up_at
        deck = load_deck("woolly")
        self.kinds = {c.code: c.kind for c in deck.cards}
        self.values = {c.code: c.value for c in deck.cards}
        cards = [c.code for c in deck.cards for _ in range(c.count)]
        rng.shuffle(cards)
        self.hands: dict[str, list[str]] = {}
        self.herds: dict[str, deque[str]] = {}   # index 0 is the top of the herd
        start = 0
        for name, size in zip(self.names, deal_sizes(len(cards), len(self.names))):
            dealt = cards[start:start + size]
            start += size
            self.hands[name] = dealt[:HAND_SIZE]
            self.herds[name] = deque(dealt[HAND_SIZE:])
        self.middle: list[str] = []

    # ----------------------------------------------------------- bookkeeping
    def total(self, s: str) -> int:
        return len(self.hands[s]) + len(self.herds[s])

    def check_counts(self, event: Any) -> None:
        """The referee's counts equal the real cards (called once the table has caught up)."""
        state = self.table.state
        for s in self.names:
            ref = state.players[s]
            if (ref.hand, ref.herd, ref.out) != (len(self.hands[s]), len(self.herds[s]), s in self.out):
                raise Mismatch(f"after {event}: referee has {s} at hand {ref.hand} herd {ref.herd} "
                               f"out {ref.out}; the table has {len(self.hands[s])}, {len(self.herds[s])}, "
                               f"{s in self.out}")
        if state.card_total() != state.expected_total():
            raise Mismatch(f"after {event}: referee's cards add up to {state.card_total()}, "
                           f"not {state.expected_total()}")

    def refill(self, s: str) -> None:
        while len(self.hands[s]) < HAND_SIZE and self.herds[s]:
            self.hands[s].append(self.herds[s].popleft())

    # ----------------------------------------------------------- the table's play
    def battle(self, fighters: list[str]) -> bool:
        """One battle and any wars it starts, on the real cards. True when the game ended."""
        fighters = list(fighters)
        time_up_now = self.time_up_due()
        while True:
            left = self.action_phase(fighters)
            if left is not None:
                return left
            self.record.rounds += 1
            flips: dict[str, str] = {}
            for s in self.rng.sample(fighters, len(fighters)):
                card = self.choose(s)
                flips[s] = card
                self.middle.append(card)
                self.send(Flip(s, card))
                if len(flips) < len(fighters):
                    self.check_counts(flips)
                if time_up_now and not self.time_up:     # mid-battle: this battle is finished first
                    self.say_time_up()
            numbers = [self.values[c] for c in flips.values() if self.kinds[c] == "number"]
            war = any(self.kinds[c] == "war" for c in flips.values()) or len(numbers) != len(set(numbers))
            if not war:
                winner = max(flips, key=lambda s: self.values[flips[s]])
                self.expect("battle", winner=winner, cards=len(self.middle))
                return self.take(winner)
            self.expect("war")
            self.record.wars += 1
            for s in fighters:
                self.refill(s)
            short = [s for s in fighters if self.total(s) < WAR_DOWN + 1]
            for s in short:     # lay what you can before leaving the game
                self.middle += self.hands[s] + list(self.herds[s])
                self.hands[s], self.herds[s] = [], deque()
                self.out.add(s)
                self.expect("out", seat=s)
            fighters = [s for s in fighters if s not in short]
            if not fighters:
                if self.active():
                    self.expect("game_over")
                    return self.finish()
                self.expect("game_over", winner=None, reason="draw")
                return self.finish()
            if len(fighters) == 1:
                self.expect("battle", winner=fighters[0], cards=len(self.middle))
                return self.take(fighters[0])
            self.check_counts({"war": "short players out"})
            for s in self.rng.sample(fighters, len(fighters)):
                parts = [1, 1] if self.rng.random() < self.split_downs else [WAR_DOWN]
                for n in parts:
                    for _ in range(n):
                        pile = self.herds[s] if self.herds[s] else None
                        self.middle.append(pile.popleft() if pile is not None else
                                           self.hands[s].pop(self.rng.randrange(len(self.hands[s]))))
                    self.send(Down(s, n))
                    self.check_counts(("down", s, n))

    def action_phase(self, fighters: list[str]) -> bool | None:
        """Players may play Steal and Reveal; one whose hand holds only actions must play them.
        Returns None to go on flipping, or what ending the battle early returned."""
        def all_actions(f: str) -> bool:
            """Must play an action: the hand holds only actions, or it is empty (Steals took it)
            and the top of the herd, which would be the battle card, is an action."""
            if not self.hands[f]:
                return bool(self.herds[f]) and self.kinds[self.herds[f][0]] == "action"
            for c in self.hands[f]:
                if self.kinds[c] != "action":
                    return False
            return True

        order = self.rng.sample(fighters, len(fighters))
        while True:
            for s in order:
                while s in fighters and (self.hands[s] or all_actions(s)):
                    if not self.hands[s]:            # the top of the herd is an action: play it
                        self.hands[s].append(self.herds[s].popleft())
                    acts = [c for c in self.hands[s] if self.kinds[c] == "action"]
                    if not acts or not (all_actions(s) or self.rng.random() < self.action_rate):
                        break
                    card = self.rng.choice(acts)
                    self.play_action(s, card, fighters)
                    ended = self.departures(fighters)
                    if ended is not None:
                        return ended
                    self.check_counts(("action", s, card))
            # A Steal can leave someone who already had their turn holding only actions.
            order = [f for f in fighters if all_actions(f)]
            if not order:
                return None

    def departures(self, fighters: list[str]) -> bool | None:
        for f in [f for f in fighters if self.total(f) == 0]:
            self.out.add(f)
            fighters.remove(f)
            self.expect("out", seat=f)
        if len(fighters) == 1 and self.middle:
            self.expect("battle", winner=fighters[0], cards=len(self.middle))
            return self.take(fighters[0])
        if len(fighters) == 1:   # nothing in the middle: the battle just ends
            return self.after_battle()
        return None

    def play_action(self, s: str, card: str, fighters: list[str]) -> None:
        self.hands[s].remove(card)
        self.record.actions += 1
        if card == "REVEAL":
            if self.herds[s]:
                self.hands[s].append(self.herds[s].popleft())
            self.send(Action(s, card))
            return
        targets = [f for f in fighters if f != s and self.total(f) > 0]
        if not targets:
            self.send(Action(s, card))
            return
        target = self.rng.choice(targets)
        sources = [k for k in ("hand", "herd") if (self.hands if k == "hand" else self.herds)[target]]
        source = self.rng.choice(sources)
        pile = self.hands[target] if source == "hand" else self.herds[target]
        i = self.rng.randrange(len(pile))
        if source == "hand":
            stolen = pile.pop(i)
        else:
            stolen = pile[i]
            del pile[i]
        self.hands[s].append(stolen)
        self.send(Action(s, card, target, source))

    def choose(self, s: str) -> str:
        """A random battle card from the hand, or the top of the herd if Steals emptied the hand
        (an action on top was already played in the action phase)."""
        battle_cards = [i for i, c in enumerate(self.hands[s]) if self.kinds[c] != "action"]
        if battle_cards:
            return self.hands[s].pop(self.rng.choice(battle_cards))
        assert not self.hands[s], "a hand of only actions is played out before the flip"
        assert self.kinds[self.herds[s][0]] != "action", "an action on top of the herd is played first"
        return self.herds[s].popleft()

    def take(self, winner: str) -> bool:
        won = self.middle
        self.rng.shuffle(won)
        self.herds[winner].extend(won)
        self.middle = []
        self.record.battles += 1
        return self.after_battle()

    def after_battle(self) -> bool:
        for s in self.active():
            self.refill(s)
        if self.last_one_standing():
            return True
        self.check_counts("after the battle")
        return False

    def score(self) -> list[str] | None:
        """Time is up or the cap is reached: the tied players for a sudden death, or None at the end."""
        herd_only = self.options["timed_count"] == "herd_only"
        return self.score_by({s: len(self.herds[s]) if herd_only else self.total(s) for s in self.active()})


def simulate_woolly(players: list[str], seed: Any, options: dict[str, Any] | None = None,
                    **kwargs: Any) -> GameRecord:
    return WoollySim(players, random.Random(seed), options, **kwargs).run()
