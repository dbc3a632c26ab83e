"""Simulation and referee throughput for Woolly Warfare and Classic War.

    python bench/bench_simulate.py [--games 200] [--repeats 5] [--players 2 3] [--game woolly classic]

Prints medians over the repeats (these machines are shared and noisy):
- whole simulation (real-card table + referee + cross-checks), one process: games/s, battles/s;
- the referee alone, replaying the same games' event logs: events/s, battles/s;
- the same with every refused event (a random bad event before each real one) to price refusals;
- the share of the simulation's time spent in the referee.
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from referee import Table  # noqa: E402
from referee.sim.classic import ClassicSim  # noqa: E402
from referee.sim.woolly import WoollySim  # noqa: E402

SIMS = {"woolly": WoollySim, "classic": ClassicSim}
NAMES = {"woolly": "Woolly Warfare", "classic": "Classic War (one down, won cards shuffled)"}

BAD = [{"type": "flip", "seat": "Nobody", "card": "8"}, {"type": "flip", "seat": "P1", "card": "13"},
       {"type": "down", "seat": "P1", "count": 5}, {"type": "action", "seat": "P2", "card": "8"}]


def simulate(game: str, players: int, games: int, seed: int):
    names = [f"P{i + 1}" for i in range(players)]
    start = time.perf_counter()
    sims = [SIMS[game](names, random.Random(f"{seed}:{i}")) for i in range(games)]
    records = [s.run() for s in sims]
    return time.perf_counter() - start, sims, records


def replay(game: str, names, logs, with_bad: bool) -> float:
    start = time.perf_counter()
    for log in logs:
        table = Table(game, names)
        for i, event in enumerate(log):
            if with_bad:
                table.handle(BAD[i % len(BAD)])
            table.submit(event)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--players", type=int, nargs="+", default=[2, 3])
    parser.add_argument("--game", nargs="+", default=["woolly", "classic"], choices=sorted(SIMS))
    args = parser.parse_args()
    for game in args.game:
        run(game, args)


def run(game: str, args) -> None:
    print(f"{NAMES[game]}, {args.games} games per run, median of {args.repeats} runs, one process")
    print(f"{'players':>7} {'sim games/s':>12} {'sim battles/s':>14} {'ref events/s':>13} "
          f"{'ref battles/s':>14} {'ref+bad ev/s':>13} {'referee share':>14}")
    for players in args.players:
        names = [f"P{i + 1}" for i in range(players)]
        sim_t, ref_t, bad_t = [], [], []
        battles = events = 0
        for r in range(args.repeats):
            seconds, sims, records = simulate(game, players, args.games, seed=r)
            logs = [s.table.log for s in sims]
            battles = sum(rec.battles for rec in records)
            events = sum(len(log) for log in logs)
            sim_t.append((args.games / seconds, battles / seconds))
            t = replay(game, names, logs, with_bad=False)
            ref_t.append((events / t, battles / t, t / seconds))
            bad_t.append(2 * events / replay(game, names, logs, with_bad=True))
        med = lambda xs: statistics.median(xs)  # noqa: E731
        print(f"{players:>7} {med([g for g, _ in sim_t]):>12.1f} {med([b for _, b in sim_t]):>14.0f} "
              f"{med([e for e, _, _ in ref_t]):>13.0f} {med([b for _, b, _ in ref_t]):>14.0f} "
              f"{med(bad_t):>13.0f} {med([s for _, _, s in ref_t]):>13.0%}")


if __name__ == "__main__":
    main()
