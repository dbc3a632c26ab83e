"""Simulation and referee throughput, every game, one process; Classic War beside a plain model.

    python bench/bench_simulate.py [--games 100] [--repeats 5] [--game classic woolly ...]

Prints medians over the repeats (these machines are shared and noisy: read the ratios, which are
measured in the same run):
- Classic War, 2 players, default rules: games/s of ``plain_classic`` below (the same rules in a
  few lines of plain Python, no referee) beside warref's simulation, and the ratio;
- for every game: the whole simulation (real cards + referee + cross-checks, as `warref simulate`
  plays it) in games/s and events/s, and the referee alone replaying the same event logs (events/s),
  and with a bad event before each real one (every refusal priced).
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from collections import deque
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from referee import Table  # noqa: E402
from referee.events import parse_event  # noqa: E402
from referee.rulings import Ruling  # noqa: E402
from referee.sim.stats import SIMULATORS, seat_names  # noqa: E402

PLAYERS = {"classic": 2, "woolly": 2, "namikopy": 3, "casino": 2, "guerra": 2}
BAD = [{"type": "flip", "seat": "Nobody", "card": "8"}, {"type": "flip", "seat": "P1", "card": "ZZ"},
       {"type": "down", "seat": "P1", "count": 50}, {"type": "action", "seat": "P2", "card": "8"}]
RANKS = "23456789TJQKA"


def plain_classic(rng: random.Random) -> int:
    """Classic War, two players, warref's default rules, as small as one can read: each turns the
    top card up, the higher takes the middle (shuffled, under the stack); a tie is a war, one card
    down and one up each; a player down to the last card lets it stand and fight on, and one with no
    card at all has lost. Returns the battles played."""
    deck = [v for v in range(13) for _ in range(4)]
    rng.shuffle(deck)
    stacks = [deque(deck[0::2]), deque(deck[1::2])]
    battles = 0
    while stacks[0] and stacks[1]:
        battles += 1
        middle = []
        up = [stacks[0].popleft(), stacks[1].popleft()]
        middle += up
        while up[0] == up[1]:                      # war: one down and one up, a last card stands
            for i in (0, 1):
                if len(stacks[i]) >= 2:
                    middle.append(stacks[i].popleft())
                if stacks[i]:
                    up[i] = stacks[i].popleft()
                    middle.append(up[i])
            if not stacks[0] and not stacks[1] and up[0] == up[1]:
                return battles                     # nothing left to turn: a draw
        winner = 0 if up[0] > up[1] else 1
        rng.shuffle(middle)
        stacks[winner].extend(middle)
    return battles


def timed(fn, *args) -> float:
    start = time.perf_counter()
    fn(*args)
    return time.perf_counter() - start


def simulate(game: str, games: int, seed: int):
    names = seat_names(PLAYERS[game])
    play = SIMULATORS[game]
    tables = []
    real = Table.__init__

    def keep(self, *a, **k):                       # the logs, for the referee-alone replay
        real(self, *a, **k)
        tables.append(self)
    Table.__init__ = keep
    try:
        start = time.perf_counter()
        for i in range(games):
            play(names, f"{seed}:{i}")
        seconds = time.perf_counter() - start
    finally:
        Table.__init__ = real
    return seconds, [(t.game.id, t.players, t.options, t.log) for t in tables]


def replay(logs, with_bad: bool) -> float:
    start = time.perf_counter()
    for game, names, options, log in logs:
        table = Table(game, names, options)
        for i, event in enumerate(log):
            if with_bad:
                table.handle(BAD[i % len(BAD)])
            table.submit(event)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--game", nargs="+", default=list(PLAYERS), choices=list(PLAYERS))
    args = parser.parse_args()
    load = os.getloadavg()[0]
    print(f"one process; {args.games} games a run, median of {args.repeats} runs; load average {load:.1f} "
          f"on {os.cpu_count()} cores")
    med = statistics.median
    if "classic" in args.game:
        plain, ours = [], []
        for r in range(args.repeats):
            plain.append(args.games / timed(lambda: [plain_classic(random.Random(f"{r}:{i}"))
                                                     for i in range(args.games)]))
            ours.append(args.games / simulate("classic", args.games, r)[0])
        print(f"Classic War, 2 players: plain model {med(plain):.0f} games/s, warref {med(ours):.1f} "
              f"games/s: {med(plain) / med(ours):.1f}x slower")
        # the least any referee of real events costs: each event parsed from its dict, one ruling
        # made and the event logged, no rules at all; at Classic War's events per game
        _, logs = simulate("classic", args.games, 0)
        events = [e for *_, log in logs for e in log]
        floor = []
        for _ in range(args.repeats):
            start = time.perf_counter()
            log = []
            for e in events:
                event = parse_event(e)
                Ruling("flip", f"{e.get('seat')} turns up {e.get('card')}.", {"counts": {}})
                log.append(event.to_json())
            floor.append((time.perf_counter() - start) / len(events))
        per_game = med(floor) * len(events) / args.games
        print(f"  floor: parse + one ruling + log, no rules: {med(floor) * 1e6:.1f} us an event, "
              f"{len(events) / args.games:.0f} events a game: at most {1 / per_game:.0f} games/s, "
              f"{med(plain) * per_game:.1f}x the plain model")
    print(f"{'game':>9} {'players':>7} {'sim games/s':>12} {'sim events/s':>13} {'ref events/s':>13} "
          f"{'ref+bad ev/s':>13} {'referee share':>14}")
    for game in args.game:
        rows = []
        for r in range(args.repeats):
            seconds, logs = simulate(game, args.games, r)
            events = sum(len(log) for *_, log in logs)
            alone = replay(logs, with_bad=False)
            rows.append((args.games / seconds, events / seconds, events / alone,
                         2 * events / replay(logs, with_bad=True), alone / seconds))
        cols = [med([row[k] for row in rows]) for k in range(5)]
        print(f"{game:>9} {PLAYERS[game]:>7} {cols[0]:>12.1f} {cols[1]:>13.0f} {cols[2]:>13.0f} "
              f"{cols[3]:>13.0f} {cols[4]:>13.0%}")


if __name__ == "__main__":
    main()
