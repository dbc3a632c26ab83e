"""Many simulated games, and what they add up to. Pure computation: the CLI adds progress and output."""
from __future__ import annotations

import statistics
from collections import Counter
from typing import Any, Callable, Iterator

from .casino import simulate_casino
from .classic import simulate_classic
from .guerra import simulate_guerra
from .namikopy import simulate_namikopy
from .base import GameRecord, run_chunks
from .woolly import simulate_woolly

SIMULATORS: dict[str, Callable[..., GameRecord]] = {"woolly": simulate_woolly, "casino": simulate_casino,
                                                     "classic": simulate_classic, "namikopy": simulate_namikopy,
                                                     "guerra": simulate_guerra}

CHUNK = 50


def seat_names(players: int) -> list[str]:
    return [f"P{i + 1}" for i in range(players)]


def _chunk(args: tuple[str, int, Any, int, int, dict | None, dict]) -> list[GameRecord]:
    game, players, seed, start, stop, options, table = args
    simulate = SIMULATORS[game]
    names = seat_names(players)
    return [simulate(names, f"{seed}:{i}", options, **table) for i in range(start, stop)]


def run_games(game: str, players: int, games: int, seed: Any, options: dict | None = None,
              jobs: int = 1, table: dict | None = None) -> Iterator[list[GameRecord]]:
    """Yield records in chunks, in game order. Game i is seeded with f"{seed}:{i}", so results do
    not depend on the number of jobs. ``table``: how the simulated players behave where the rules
    leave it to them (Classic War: ``returns`` = shuffle | fixed)."""
    if game not in SIMULATORS:
        raise ValueError(f"No simulator for {game!r}; there is one for {', '.join(SIMULATORS)}.")
    tasks = [(game, players, seed, a, min(a + CHUNK, games), options, dict(table or {}))
             for a in range(0, games, CHUNK)]
    yield from run_chunks(_chunk, tasks, jobs)


def percentile(values: list[int], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    k = (len(ordered) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def summarize(records: list[GameRecord]) -> dict[str, Any]:
    battles = [r.battles for r in records]
    wars = [r.wars for r in records]
    seats = records[0].players if records else []
    wins = Counter(r.winner for r in records if r.winner is not None)
    house = sum(1 for r in records if r.reason == "broke")
    shared = sum(1 for r in records if r.winner is None and r.winners and r.reason != "draw" and r.finished)
    draws = sum(1 for r in records if r.reason == "draw")
    n = len(records)

    def describe(values: list[int]) -> dict[str, float]:
        return {"mean": statistics.fmean(values), "median": statistics.median(values),
                "p10": percentile(values, 0.1), "p90": percentile(values, 0.9),
                "min": min(values), "max": max(values)}

    return {
        "games": n,
        "battles": describe(battles),
        "wars": describe(wars),
        "wars_per_battle": sum(wars) / max(sum(battles), 1),
        "actions_per_game": statistics.fmean(r.actions for r in records),
        "wins": {s: wins.get(s, 0) / n for s in seats},
        "shared_wins": shared / n,
        "house_wins": house / n,
        "draws": draws / n,
        "unfinished": sum(1 for r in records if not r.finished),
        "endings": dict(Counter(r.reason or "unfinished" for r in records)),
        "total_battles": sum(battles),
    }
