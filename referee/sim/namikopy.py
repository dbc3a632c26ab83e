"""A simulated Namikopy War table: real shuffled cards, players making random legal choices.

The simulator is the table, not the referee. It holds every real card (each player's face-down
playing pile and face-up won pile, the middle, the cards set aside), plays the rules on the real
cards itself (a second, independent reading of namikopy-war.txt and docs/namikopy.md), and feeds
the referee only what a camera and the dashboard would give: the cards turned face up, how many
cards go face down, who a WAR card's player picks. After every event it checks the referee's pile
and face-up pile counts against the real cards, and at every resolution it checks the referee's
ruling (winner and cards taken, war and who fights it, reshuffles, who is out, game over) against
its own. Any disagreement raises Mismatch.
"""
from __future__ import annotations

import random
from collections import deque
from typing import Any

from ..deck import load_deck
from ..events import Choose, Down, Flip
from .base import GameRecord, Mismatch, TableSim

WAR_DOWN = 3


class NamikopySim(TableSim):
    def __init__(self, players: list[str], rng: random.Random, options: dict[str, Any] | None = None,
                 split_downs: float = 0.3, rank_only: float = 0.3, time_up_at: int | None = None,
                 max_events: int = 200_000):
        super().__init__("namikopy", players, rng, options, max_events)
        self.split_downs = split_downs
        self.rank_only = rank_only            # how often a card is reported without its suit
        self.time_up_at = time_up_at
        deck = load_deck(self.options["deck"])
        self.values = {c.code: c.value for c in deck.cards}
        self.war_codes = {c.code for c in deck.cards if c.kind in ("war", "joker")}
        self.also = {c.code: c.also for c in deck.cards}
        numbers = [c.code for c in deck.cards if c.kind == "number" for _ in range(c.count)]
        wars = ([c.code for c in deck.cards if c.kind in ("war", "joker") for _ in range(c.count)]
                if self.options["war_cards"] else [])
        used = self.options["cards"] or len(numbers) + len(wars)
        rng.shuffle(numbers)
        cards = (wars + numbers)[:used]       # the WAR cards are collected on purpose, then numbers
        rng.shuffle(cards)
        per = used // len(self.names)
        self.piles: dict[str, deque[str]] = {}   # index 0 is the top of the playing pile
        self.won: dict[str, list[str]] = {}
        for i, name in enumerate(self.names):
            self.piles[name] = deque(cards[i * per:(i + 1) * per])
            self.won[name] = []
        self.aside = cards[len(self.names) * per:]
        self.dealt = per * len(self.names)
        self.middle: list[tuple[str, str]] = []   # (seat, real card), face up or down

    # ----------------------------------------------------------- bookkeeping
    def total(self, s: str) -> int:
        return len(self.piles[s]) + len(self.won[s])

    def value(self, card: str) -> int:
        return 0 if card in self.war_codes else self.values[card]

    def check_counts(self, event: Any) -> None:
        """The referee's counts equal the real cards (called once the table has caught up)."""
        state = self.table.state
        real_total = len(self.middle)
        for s in self.names:
            ref = state.players[s]
            real = (len(self.piles[s]), len(self.won[s]), s in self.out)
            if (ref.pile, ref.won, ref.out) != real:
                raise Mismatch(f"after {event}: referee has {s} at pile {ref.pile} won {ref.won} out "
                               f"{ref.out}; the table has {real}")
            real_total += real[0] + real[1]
        referee_total = state.card_total()
        if real_total != self.dealt or referee_total != real_total:
            raise Mismatch(f"after {event}: the table holds {real_total} cards of {self.dealt} dealt; "
                           f"the referee counts {referee_total}")
        if referee_total != state.expected_total():
            raise Mismatch(f"after {event}: referee's cards add up to {referee_total}, "
                           f"not {state.expected_total()}")

    def reshuffle(self, s: str, announced: bool = True) -> None:
        """The playing pile ran out: the face-up pile is shuffled and becomes the playing pile."""
        if self.piles[s] or not self.won[s]:
            return
        cards = self.won[s]
        self.rng.shuffle(cards)
        self.piles[s] = deque(cards)
        self.won[s] = []
        if announced:
            self.expect("reshuffle", seat=s, cards=len(cards))

    def draw(self, s: str) -> str:
        if not self.piles[s]:
            self.reshuffle(s, announced=False)
        return self.piles[s].popleft()

    def report(self, card: str) -> str:
        """What the card reader reports: the exact card, or sometimes the rank alone."""
        if self.also.get(card) and self.rng.random() < self.rank_only:
            return self.also[card]
        return card

    # ----------------------------------------------------------- the table's play
    def battle(self, fighters: list[str]) -> bool:
        """One battle and any war it starts, on the real cards. True when the game ended."""
        time_up_now = self.time_up_due()
        self.record.rounds += 1
        flips: dict[str, str] = {}
        for s in self.rng.sample(fighters, len(fighters)):
            card = self.draw(s)
            flips[s] = card
            self.middle.append((s, card))
            self.send(Flip(s, self.report(card)))
            if len(flips) < len(fighters):
                self.check_counts(flips)
            if time_up_now and not self.time_up:     # mid-battle: this battle is finished first
                self.say_time_up()
        wars = [s for s in fighters if flips[s] in self.war_codes]
        if len(wars) == 1:
            others = [s for s in fighters if s != wars[0]]
            if len(others) == 1:
                at_war = [wars[0], others[0]]
            else:
                self.expect("war_card", seat=wars[0], choices=others)
                self.check_counts("WAR card")
                pick = self.rng.choice(others)
                self.send(Choose(wars[0], pick))
                at_war = [wars[0], pick]
            reason = "war_card"
        elif wars:
            at_war, reason = wars, "war_cards"
        else:
            top = max(self.value(c) for c in flips.values())
            at_war = [s for s in fighters if self.value(flips[s]) == top]
            reason = "tie"
            if len(at_war) == 1:
                self.expect("battle", winner=at_war[0], cards=len(self.middle))
                return self.take(at_war[0])
        self.expect("war", fighters=at_war, reason=reason)
        for s in fighters:       # the others take their own card back onto the face-up pile
            if s not in at_war:
                self.middle.remove((s, flips[s]))
                self.won[s].append(flips[s])
        return self.war(at_war, {s: flips[s] for s in at_war})

    def war(self, fighters: list[str], shown: dict[str, str]) -> bool:
        while True:
            self.record.wars += 1
            for s in fighters:
                self.reshuffle(s)
            have = {s: self.total(s) for s in fighters}
            for s in fighters:
                if have[s] < WAR_DOWN + 1:
                    self.expect("short", seat=s, cards=have[s])
            if any(have[s] >= 1 for s in fighters):
                self.check_counts(("war", fighters))
            for s in self.rng.sample(fighters, len(fighters)):
                n = min(WAR_DOWN, max(have[s] - 1, 0))
                while n:
                    part = self.rng.randint(1, n) if self.rng.random() < self.split_downs else n
                    midway = []          # the playing pile ran out while laying: shuffle and go on
                    for _ in range(part):
                        if not self.piles[s]:
                            midway.append(len(self.won[s]))
                        self.middle.append((s, self.draw(s)))
                    n -= part
                    self.send(Down(s, part))
                    for cards in midway:
                        self.expect("reshuffle", seat=s, cards=cards)
                    self.reshuffle(s)
                    self.check_counts(("down", s, part))
            turned: dict[str, str] = {}
            flippers = [s for s in fighters if have[s] >= 1]
            for s in self.rng.sample(flippers, len(flippers)):
                card = self.draw(s)
                turned[s] = card
                shown[s] = card
                self.middle.append((s, card))
                self.send(Flip(s, self.report(card)))
                if len(turned) < len(flippers):
                    self.check_counts(("war flip", s))
            if any(c in self.war_codes for c in turned.values()):
                self.expect("war", fighters=fighters, reason="war_card")
                continue
            top = max(self.value(shown[s]) for s in fighters)
            tied = [s for s in fighters if self.value(shown[s]) == top]
            if len(tied) == 1:
                self.expect("battle", winner=tied[0], cards=len(self.middle))
                return self.take(tied[0])
            if all(have[s] == 0 for s in tied):
                return self.call_off(tied)
            self.expect("war", fighters=tied, reason="tie")
            fighters = tied

    def take(self, winner: str) -> bool:
        self.won[winner].extend(c for _, c in self.middle)
        self.middle = []
        self.record.battles += 1
        return self.after_battle()

    def call_off(self, tied: list[str]) -> bool:
        self.expect("called_off", tied=tied)
        for s, c in self.middle:
            self.won[s].append(c)
        self.middle = []
        self.record.battles += 1
        if self.sudden:
            return self.score(final=True) is None
        if not [s for s in self.active() if s not in tied and self.total(s) > 0]:
            self.expect("game_over", winner=None, reason="draw", winners=tied)
            return self.finish()
        return self.after_battle()

    def after_battle(self) -> bool:
        if self.last_one_standing():
            return True
        cap = self.options["max_battles"]
        if self.time_up or self.sudden or (cap is not None and self.record.battles >= cap):
            return False           # scored by run()
        for s in self.active():
            self.reshuffle(s)
        self.check_counts("after the battle")
        return False

    def score(self, final: bool = False) -> list[str] | None:
        """Time is up or the cap is reached: the tied players for a sudden death, or None at the end
        (``final``: a tie is shared)."""
        top = self.score_by({s: self.total(s) for s in self.active()}, share=final)
        if top is not None:
            for s in top:
                self.reshuffle(s)
            self.check_counts("sudden death")
        return top


def simulate_namikopy(players: list[str], seed: Any, options: dict[str, Any] | None = None,
                      **kwargs: Any) -> GameRecord:
    return NamikopySim(players, random.Random(seed), options, **kwargs).run()
