"""A simulated Casino War table: a real shuffled shoe, players betting and deciding at random.

The simulator is the table, not the referee. It holds the real shoe, deals the real cards, settles
every bet itself (a second, independent reading of the rules) and feeds the referee only what a
camera would see: the bets, the cards dealt face up and the dealer's burn. After every event it
checks the referee's chip counts and the house's balance against its own, and at every settlement
it checks the referee's ruling (win, loss, tie, who is out, game over). Any disagreement raises
Mismatch.

``house_edge`` plays one seat with a fixed bet and a fixed tie strategy for many rounds through
the referee, to check the rules against the published house edge; ``exact_house_edge`` computes
the same figure by enumerating the shoe.

    python -m referee.sim.casino --rounds 1000000 --decks 6
"""
from __future__ import annotations

import argparse
import random
import time
from collections import Counter
from fractions import Fraction
from typing import Any

from ..deck import load_deck
from ..events import Bet, Event, Down, Flip, GoToWar, Surrender
from ..games.casino import BURN, DEALER, TIE_PAYS, surrender_loss
from ..rulings import Ruling
from .base import GameRecord, Mismatch, Stop, TableSim

VALUES = {c.code: c.value for c in load_deck("standard").cards if c.kind == "number"}


class CasinoSim(TableSim):
    def __init__(self, players: list[str], rng: random.Random, options: dict[str, Any] | None = None,
                 war_rate: float = 0.7, tie_bet_rate: float = 0.2, split_burn: float = 0.2,
                 time_up_at: int | None = None, max_rounds: int = 5_000, fixed_bet: int | None = None,
                 check: bool = True):
        super().__init__("casino", players, rng, options)
        self.war_rate = war_rate
        self.tie_bet_rate = tie_bet_rate if self.options["tie_bet"] else 0.0
        self.split_burn = split_burn
        self.time_up_at = time_up_at          # round number at whose start (or during which) time runs out
        self.max_rounds = max_rounds
        self.fixed_bet = fixed_bet
        self.check = check
        self.shoe_cards = [code for code in VALUES for _ in range(self.options["decks"])]
        self.shoe: list[str] = []
        self.chips = {s: self.options["bankroll"] for s in self.names}
        self.house = 0

    # ----------------------------------------------------------- bookkeeping
    def send(self, event: Event, check: bool = True) -> list[Ruling]:
        """No event cap here (``run`` caps the rounds); the chips are checked after each event."""
        self.last = self.table.submit(event)   # an illegal event here is a bug: let it raise
        self.record.events += 1
        if self.check and check:
            self.check_chips(event)
        return self.last

    def check_chips(self, event: Any) -> None:
        state = self.table.state
        ref = state.counts()
        if ref != self.chips or state.house != self.house:
            raise Mismatch(f"after {event}: the referee has chips {ref}, house {state.house}; the table "
                           f"has {self.chips}, house {self.house}")
        if state.chip_total() != state.expected_total():
            raise Mismatch(f"after {event}: the referee's chips add up to {state.chip_total()}, "
                           f"not {state.expected_total()}")

    def settled(self, what: str) -> None:
        """Called once the table has settled a deal: players who are broke are out at the round's
        end, so only chips and the house are compared here (and everything once the round ends)."""
        if not self.check:
            return
        state = self.table.state
        if state.counts() != self.chips or state.house != self.house:
            raise Mismatch(f"after {what}: the referee has chips {state.counts()}, house {state.house}; "
                           f"the table has {self.chips}, house {self.house}")

    def draw(self) -> str:
        return self.shoe.pop()

    def deal(self, seats: list[str]) -> dict[str, str]:
        """One card face up to each seat (the dealer last, as at a casino); the camera may report
        them in any order. The last card settles bets: the caller checks the chips after settling
        them itself."""
        cards = {s: self.draw() for s in seats}
        order = list(seats)
        self.rng.shuffle(order)
        for i, s in enumerate(order):
            self.send(Flip(s, cards[s]), check=i < len(order) - 1)
        return cards

    def choose_bet(self, s: str) -> tuple[int, int]:
        low, top = self.options["min_bet"], self.options["max_bet"]
        even = self.options["odd_surrender"] == "even_bets"
        chips = self.chips[s]
        if self.fixed_bet is not None:
            return self.fixed_bet, 0
        tie = 0
        if self.rng.random() < self.tie_bet_rate and chips > low:
            tie = self.rng.randint(1, max(1, min(chips - low, top or chips, 5)))
        limit = min(chips - tie, top if top is not None else chips)
        style = self.rng.random()
        if style < 0.4:
            amount = low
        elif style < 0.9:
            amount = max(low, chips // self.rng.choice((10, 5, 4)))
        else:
            amount = limit
        amount = min(max(amount, low), limit)
        if even and amount % 2:
            amount -= 1
        return amount, tie

    # ----------------------------------------------------------- the table's play
    def run(self) -> GameRecord:
        try:
            seats = list(self.names)
            contenders: list[str] | None = None
            while True:
                if self.record.battles >= self.max_rounds:
                    raise Stop
                time_up_now = self.time_up_due()
                if time_up_now and self.rng.random() < 0.5:   # between rounds: scored at once
                    self.say_time_up()
                    if contenders is None:
                        nxt = self.score(list(self.names))
                        if nxt is None:
                            break
                        seats = contenders = nxt
                    time_up_now = False
                over = self.round(seats, time_up_now)
                if over:
                    break
                cap = self.options["max_battles"]
                if contenders is not None or self.time_up or (cap is not None and self.record.battles >= cap):
                    nxt = self.score(contenders if contenders is not None else list(self.names))
                    if nxt is None:
                        break
                    seats = contenders = nxt
                else:
                    seats = self.active()
        except Stop:
            self.record.finished = False
        return self.record

    def round(self, seats: list[str], time_up_now: bool) -> bool:
        """One round and any wars in it. True when everyone is broke and the game is over."""
        self.shoe = list(self.shoe_cards)      # reshuffled between rounds
        self.rng.shuffle(self.shoe)
        self.record.rounds += 1
        bets: dict[str, int] = {}
        ties: dict[str, int] = {}
        for s in self.rng.sample(seats, len(seats)):
            amount, tie = self.choose_bet(s)
            bets[s], ties[s] = amount, tie
            self.chips[s] -= amount + tie
            self.send(Bet(s, amount, tie or None))
            if time_up_now and not self.time_up and self.rng.random() < 0.5:
                self.say_time_up()                # mid-round: the round is finished first
        if time_up_now and not self.time_up:
            self.say_time_up()
        cards = self.deal(seats + [DEALER])
        dealer = VALUES[cards[DEALER]]
        tied: list[str] = []
        for s in seats:
            mine, tie = VALUES[cards[s]], ties[s]
            if tie and mine == dealer:
                self.chips[s] += tie + TIE_PAYS * tie
                self.house -= TIE_PAYS * tie
            elif tie:
                self.house += tie
            if mine == dealer:
                tied.append(s)
                result = "tie"
            elif mine > dealer:
                self.chips[s] += 2 * bets[s]
                self.house -= bets[s]
                result = "win"
            else:
                self.house += bets[s]
                result = "loss"
            self.expect("battle", seat=s, result=result, war=False, chips=self.chips[s])
        self.settled("the deal")
        warriors: list[str] = []
        for s in self.rng.sample(tied, len(tied)):
            if self.chips[s] >= bets[s] and self.rng.random() < self.war_rate:
                warriors.append(s)
                self.chips[s] -= bets[s]
                self.record.wars += 1
                self.send(GoToWar(s))
            else:
                loss = surrender_loss(bets[s], self.options["odd_surrender"])
                self.chips[s] += bets[s] - loss
                self.house += loss
                self.send(Surrender(s))
                self.expect("surrender", seat=s, lost=loss)
        if warriors:
            for n in ([1, 2] if self.rng.random() < self.split_burn else [BURN]):
                for _ in range(n):
                    self.draw()
                self.send(Down(DEALER, n))
            order = [s for s in seats if s in warriors]
            cards = self.deal(order + [DEALER])
            dealer = VALUES[cards[DEALER]]
            for s in order:
                if VALUES[cards[s]] >= dealer:
                    self.chips[s] += 3 * bets[s]
                    self.house -= bets[s]
                    result = "win" if VALUES[cards[s]] > dealer else "tie"
                else:
                    self.house += 2 * bets[s]
                    result = "loss"
                self.expect("battle", seat=s, result=result, war=True, chips=self.chips[s])
            self.settled("the war")
        self.record.battles += 1
        for s in self.names:
            if s not in self.out and self.chips[s] < self.options["min_bet"]:
                self.out.add(s)
                self.expect("out", seat=s)
        if self.check:
            outs = {s for s, p in self.table.state.players.items() if p.out}
            if outs != self.out:
                raise Mismatch(f"after round {self.record.battles}: the referee has {sorted(outs)} out, "
                               f"the table {sorted(self.out)}")
        if len(self.out) == len(self.names):
            self.expect("game_over", winner=None, reason="broke")
            return self.finish()
        return False

    def score(self, pool: list[str]) -> list[str] | None:
        """Time is up or the cap is reached: the tied players for a sudden death, or None at the end."""
        if len(self.names) == 1:
            s = self.names[0]
            ahead = self.chips[s] > self.options["bankroll"]
            self.expect("game_over", winner=s if ahead else None)
            self.finish()
            return None
        chips = {s: self.chips[s] for s in pool}
        return self.score_by(chips, share=max(chips.values()) < self.options["min_bet"])

    def finish(self) -> bool:
        self.check_chips("at the end")
        if self.table.state.house != -(sum(self.chips.values()) - self.options["bankroll"] * len(self.names)):
            raise Mismatch("the house's balance is not the players' losses")
        return self.close_record("rounds")


def simulate_casino(players: list[str], seed: Any, options: dict[str, Any] | None = None,
                    **kwargs: Any) -> GameRecord:
    return CasinoSim(players, random.Random(seed), options, **kwargs).run()


# ------------------------------------------------------------------------- the house edge
def house_edge(rounds: int, decks: int = 6, strategy: str = "war", seed: Any = 1, bet: int = 10,
               check: bool = False) -> dict[str, Any]:
    """One seat, a fixed bet, no tie bet, always going to war (or always surrendering), for
    ``rounds`` rounds through the referee. The edge is the house's winnings per chip of first bet."""
    options = {"decks": decks, "bankroll": bet * 4 * rounds, "max_battles": rounds}
    sim = CasinoSim(["Player"], random.Random(seed), options, war_rate=1.0 if strategy == "war" else 0.0,
                    tie_bet_rate=0.0, fixed_bet=bet, max_rounds=rounds + 1, check=check)
    start = time.perf_counter()
    record = sim.run()
    seconds = time.perf_counter() - start
    state = sim.table.state
    assert record.finished and state.battles == rounds
    return {"rounds": rounds, "decks": decks, "strategy": strategy, "house": state.house,
            "edge": state.house / (bet * rounds), "wars": record.wars, "seconds": seconds}


def exact_house_edge(decks: int = 6, strategy: str = "war") -> Fraction:
    """The same figure by enumeration: the two first cards from a full shoe, and on a tie the two
    war cards from what is left (burned cards, unseen, change no probability)."""
    ranks = Counter(v for v in VALUES.values() for _ in range(decks))
    n = sum(ranks.values())
    edge = Fraction(0)
    for a, ca in ranks.items():
        for b, cb in ranks.items():
            p = Fraction(ca, n) * Fraction(cb - (a == b), n - 1)
            if a != b:
                edge += p * (1 if b > a else -1)     # player a, dealer b: +1 when the house wins
                continue
            if strategy != "war":
                edge += p * Fraction(1, 2)
                continue
            left = ranks.copy()
            left[a] -= 2
            m = n - 2
            for c, cc in left.items():
                for d, cd in left.items():
                    q = Fraction(cc, m) * Fraction(cd - (c == d), m - 1)
                    edge += p * q * (2 if d > c else -1)
    return edge


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Casino War's house edge, played through the referee.")
    parser.add_argument("--rounds", type=int, default=1_000_000)
    parser.add_argument("--decks", type=int, default=6)
    parser.add_argument("--seed", default="edge")
    args = parser.parse_args(argv)
    for strategy in ("war", "surrender"):
        r = house_edge(args.rounds, args.decks, strategy, args.seed)
        exact = float(exact_house_edge(args.decks, strategy))
        se = 1.05 / (args.rounds ** 0.5)
        print(f"{strategy:9} {args.decks} decks: simulated {100 * r['edge']:.3f}% "
              f"(± {100 * 1.96 * se:.2f}% at 95%) over {r['rounds']:,} rounds, {r['wars']:,} wars, "
              f"{r['seconds']:.0f} s; exact {100 * exact:.3f}%")


if __name__ == "__main__":
    main()
