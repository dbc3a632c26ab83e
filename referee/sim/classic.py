"""A simulated Classic War table: real shuffled cards, fed to the referee as a camera would see them.

The simulator is the table. It holds every real card, plays the rules on them itself (a second
reading of the rule documents, written apart from referee/games/classic.py) and feeds the referee
only the cards turned up and how many go face down, sometimes all of a round's cards in one
``flips`` event, sometimes one ``flip`` at a time, and face-down cards in one or several ``down``
events. After every event it checks the referee's counts against the real cards, and at every
resolution the referee's winner, and at the end its result. Any disagreement raises Mismatch.

How won cards go back under the stack is the one decision in the game: ``returns="shuffle"``
shuffles each batch first; ``returns="fixed"`` puts them back in the order they were played, and
then a game can cycle forever, which ``run`` notices when a whole position comes back.
"""
from __future__ import annotations

import copy
import random
from collections import deque
from typing import Any

from ..deck import load_deck
from ..events import Down, Event, Flip, Flips, TimeUp
from ..games.classic import ACE, deal, rank_stake
from .base import GameRecord, Mismatch, TableSim

SAFETY_BATTLES = 100_000


class ClassicSim(TableSim):
    def __init__(self, players: list[str], rng: random.Random, options: dict[str, Any] | None = None,
                 returns: str = "shuffle", time_up_at: int | None = None, batch_rate: float = 0.5,
                 split_downs: float = 0.2, detect_loops: bool | None = None):
        super().__init__("classic", players, rng, options)
        self.returns = returns
        self.time_up_at = time_up_at
        self.batch_rate = batch_rate
        self.split_downs = split_downs
        self.detect_loops = returns == "fixed" if detect_loops is None else detect_loops
        deck = load_deck("standard")
        self.value = {c.code: c.value for c in deck.cards}
        cards = [c.code for c in deck.cards for _ in range(c.count)
                 if c.kind != "joker" or self.options["jokers"]]
        rng.shuffle(cards)
        each, aside = deal(len(cards), len(players))
        self.stack = {n: deque(cards[i:each * len(players):len(players)]) for i, n in enumerate(players)}
        self.won: dict[str, list[str]] = {n: [] for n in players}
        self.carried: list[str] = []
        self.race = self.options["war"] == "race"

    # ------------------------------------------------------------------ the real cards
    def total(self, s: str) -> int:
        return len(self.stack[s]) + len(self.won[s])

    def draw(self, s: str) -> str:
        if not self.stack[s]:                     # the face-up won pile, turned over
            self.stack[s] = deque(reversed(self.won[s]))
            self.won[s] = []
        return self.stack[s].popleft()

    def give(self, s: str, cards: list[str]) -> None:
        cards = list(cards)
        if self.returns == "shuffle":
            self.rng.shuffle(cards)
        if self.race:
            self.won[s].extend(cards)
        else:
            self.stack[s].extend(cards)

    # ------------------------------------------------------------------ talking to the referee
    def check(self, when: str) -> None:
        counts = self.table.state.counts()
        if len(counts) != len(self.names):
            self._mismatch(when, counts)
        for n in self.names:                     # seat by seat: no dict of the real counts made
            if counts.get(n) != len(self.stack[n]) + len(self.won[n]):
                self._mismatch(when, counts)

    def _mismatch(self, when: str, counts: dict[str, int]) -> None:
        mine = {n: len(self.stack[n]) + len(self.won[n]) for n in self.names}
        raise Mismatch(f"{when}: referee counts {counts}, real cards {mine}")

    def turn_up(self, seats: list[str], middle: list[str], faces: dict[str, str]) -> list:
        """Each seat turns one card up: one flips event, or single flips in a random order."""
        cards = {}
        for s in seats:
            stack = self.stack[s]
            card = cards[s] = stack.popleft() if stack else self.draw(s)    # draw() turns the won pile over
            middle.append(card)
            faces[s] = card
        if len(seats) > 1 and self.rng.random() < self.batch_rate:
            return self.send(Flips(cards))
        rulings = []
        order = list(seats)
        self.rng.shuffle(order)
        for s in order:
            rulings = self.send(Flip(s, cards[s]))
        return rulings

    def lay_down(self, s: str, n: int, middle: list[str]) -> None:
        while n > 0:
            k = n if self.rng.random() >= self.split_downs else self.rng.randint(1, n)
            for _ in range(k):
                middle.append(self.draw(s))
            self.send(Down(s, k))
            self.check(f"after {s} laid {k} down")
            n -= k

    @staticmethod
    def find(rulings: list, kind: str):
        for r in rulings:
            if r.type == kind:
                return r
        return None

    # ------------------------------------------------------------------ one battle
    def battle(self, fighters: list[str]) -> list:
        middle: list[str] = list(self.carried)
        self.carried = []
        faces: dict[str, str] = {}
        rulings = self.turn_up(fighters, middle, faces)
        self.record.rounds += 1
        standing: set[str] = set()
        value = self.value
        while True:
            tied, top = [], 0                     # the fighters with the highest card, in seat order
            for s in fighters:
                v = value[faces[s]]
                if v > top:
                    tied, top = [s], v
                elif v == top:
                    tied.append(s)
            if len(tied) == 1:
                return self.won_by(tied[0], middle, rulings)
            self.record.wars += 1
            if self.find(rulings, "war") is None:
                raise Mismatch(f"{tied} tie on {top} but the referee called no war: {rulings}")
            if self.race:
                return self.race_for_ace(tied, middle, rulings)
            war_down = self.options["war_down"]
            stake = {"1": 1, "3": 3}.get(war_down) or rank_stake(top)
            covering = war_down == "rank" or (war_down == "3" and self.options["fewest_cards_fix"])
            # the stake fits every stack that stays in the war, an empty one (a last card standing) too
            out_when_empty = self.options["short"] in ("lose", "last_card_once")
            holding = [self.total(s) for s in fighters if self.total(s) > 0 or not out_when_empty]
            if covering and holding and min(holding) < stake + 1:
                stake = max(0, min(holding) - 1)
            short = [s for s in fighters if self.total(s) < stake + 1]
            rule = self.options["short"]
            losers = (short if rule == "lose" else
                      [s for s in short if self.total(s) == 0] if rule == "last_card_once" else [])
            if losers:
                totals = {s: self.total(s) for s in fighters}
                if len(losers) == len(fighters):
                    most = max(totals.values())
                    staying = [s for s in fighters if totals[s] == most]
                    if len(staying) > 1:
                        return self.expect_end(rulings, "draw", None)
                    losers = [s for s in fighters if s not in staying]
                for s in losers:
                    while self.total(s):
                        middle.append(self.draw(s))
                    self.out.add(s)
                fighters = [s for s in fighters if s not in losers]
                if len(fighters) == 1:
                    return self.won_by(fighters[0], middle, rulings)
            self.check("at a war")
            flipping = []
            for s in fighters:
                have = self.total(s)
                if have >= stake + 1:
                    self.lay_down(s, stake, middle)
                elif have > 0:
                    self.lay_down(s, have - 1, middle)
                else:
                    standing.add(s)
                    continue
                standing.discard(s)
                flipping.append(s)
            if not flipping:
                return self.expect_end(rulings, "draw", None)
            rulings = self.turn_up(flipping, middle, faces)
            self.record.rounds += 1

    def race_for_ace(self, racers: list[str], middle: list[str], rulings: list) -> list:
        racers = [s for s in racers if self.total(s) > 0]
        while len(racers) > 1:
            if self.rng.random() < 0.2:           # two racers' cards in the same camera frame
                pair = self.rng.sample(racers, 2)
                cards = {s: self.draw(s) for s in pair}
                middle.extend(cards.values())
                rulings = self.send(Flips(cards))
            else:
                s = self.rng.choice(racers)
                cards = {s: self.draw(s)}
                middle.append(cards[s])
                rulings = self.send(Flip(s, cards[s]))
            aces = [s for s, c in cards.items() if self.value[c] == ACE]
            if len(aces) == 1:
                return self.won_by(aces[0], middle, rulings)
            racers = [s for s in racers if self.total(s) > 0]
        if len(racers) == 1:
            return self.won_by(racers[0], middle, rulings)
        self.carried = middle
        return rulings

    def won_by(self, winner: str, middle: list[str], rulings: list) -> list:
        ruling = self.find(rulings, "battle")
        if ruling is None or ruling.data.get("winner") != winner:
            raise Mismatch(f"{winner} should take the middle; the referee said {rulings}")
        if ruling.data["cards"] != len(middle):
            raise Mismatch(f"{len(middle)} cards in the middle, the referee gave {ruling.data['cards']}")
        self.give(winner, middle)
        return rulings

    def expect_end(self, rulings: list, reason: str, winner: str | None) -> list:
        over = self.find(rulings, "game_over")
        if over is None or over.data["reason"] != reason or over.data["winner"] != winner:
            raise Mismatch(f"expected the game to end ({reason}, {winner}); the referee said {rulings}")
        self.out.update(self.active())
        return rulings

    # ------------------------------------------------------------------ a whole game
    def run(self) -> GameRecord:
        rec = self.record
        seen: set = set()
        fighters = self.active()
        sudden = False
        while True:
            if self.time_up_at is not None and rec.battles + 1 == self.time_up_at and not self.table.state.time_up:
                rulings = self.send(TimeUp())
                if self.table.state.over:
                    return self.finish()
                if self.table.state.sudden_death:
                    best = max(self.total(s) for s in self.active())
                    fighters = [s for s in self.active() if self.total(s) == best]
                    sudden = True
            rulings = self.battle(fighters)
            rec.battles += 1
            self.check(f"after battle {rec.battles}")
            if self.table.state.over:
                return self.finish()
            active = []
            for s in self.names:
                if s in self.out:
                    continue
                if not self.stack[s] and not self.won[s]:          # no card left
                    self.out.add(s)
                else:
                    active.append(s)
            if len(active) <= 1:
                raise Mismatch(f"one player is left but the referee goes on: {rulings}")
            cap = self.options["max_battles"]
            if self.table.state.time_up or (cap is not None and rec.battles >= cap) or sudden:
                best = max(self.total(s) for s in active)
                top = [s for s in active if self.total(s) == best]
                if len(top) > 1 and self.options["timed_tie"] == "sudden_death" and not sudden:
                    sudden = True
                    fighters = top
                    continue
                raise Mismatch(f"the game should have been scored: {rulings}")
            fighters = active
            if self.detect_loops:
                key = tuple((tuple(self.stack[s]), tuple(self.won[s])) for s in self.names)
                if key in seen:
                    rec.finished, rec.reason = False, "loop"
                    return rec
                seen.add(key)
            if rec.battles >= SAFETY_BATTLES:
                rec.finished, rec.reason = False, "safety_cap"
                return rec

    def finish(self) -> GameRecord:
        rec = self.record
        result = self.table.state.result
        rec.winner, rec.winners, rec.reason = result["winner"], result["winners"], result["reason"]
        rec.battles = self.table.state.battles
        live = [s for s in self.names if self.total(s) > 0]
        if rec.reason == "last_standing" and live != [rec.winner]:
            raise Mismatch(f"the referee named {rec.winner} but the cards are with {live}")
        if rec.reason in ("time_up", "max_battles"):
            best = max(self.total(s) for s in live)
            if sorted(rec.winners) != sorted(s for s in live if self.total(s) == best):
                raise Mismatch(f"most cards: {[(s, self.total(s)) for s in live]}, referee: {rec.winners}")
        return rec


def simulate_classic(names: list[str], seed: Any, options: dict | None = None, returns: str = "shuffle",
                     **kwargs) -> GameRecord:
    return ClassicSim(names, random.Random(seed), options, returns=returns, **kwargs).run()


class _Enough(Exception):
    pass


def long_game_events(n: int, seed: int = 0) -> list[dict]:
    """The first ``n`` events of a long two-player Classic War game: the simulator's real cards, won
    cards put back in play order (such a game may go on for ever); a seed whose game ends sooner is
    skipped for the next. For benchmarks and tests of long games."""
    out: list[dict] = []
    while True:
        sim = ClassicSim(["Alex", "Olivia"], random.Random(seed), returns="fixed", detect_loops=False)
        send = sim.send

        def record(event: Event, send=send) -> list:
            out.append(copy.deepcopy(event.to_json()))
            if len(out) >= n:
                raise _Enough
            return send(event)

        sim.send = record
        try:
            sim.run()
        except _Enough:
            return out
        out.clear()
        seed += 1
