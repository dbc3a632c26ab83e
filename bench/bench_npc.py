"""Guerra NPC strength: whole matches of NPCs through the real referee (referee/sim/guerra.py's
NpcMatch), seeded, the levels changing sides every other match to cancel the first lead.

    python bench/bench_npc.py [--matches 1000] [--seed 1] [--players 2] [--jobs 1]
                              [--pair hard,easy --pair normal,random | --ladder]
    python bench/bench_npc.py --decision-times hard [--matches 30]
    python bench/bench_npc.py --oracle easy [--matches 1000]
    python bench/bench_npc.py --answers normal [--matches 400]

For each pair A,B: A's win rate with a 95% Wilson interval, the target where one is set (TARGETS:
issue 63's), confrontos per match and the time per match (wall clock over the pair, divided by the
matches; with --jobs N, N processes share it). ``--ladder`` plays every pair of LADDER: random legal
play, the hand-written bots (referee/npc/bots.py: greedy, steady, bold) and the levels. With 4 or 6
players the targets are TEAM_TARGETS. ``--decision-times LEVEL``: how long that level takes to decide
(p50, p95, max over every decision of --matches matches against normal, at 2, 4 and 6 players; one
process, one core). ``--oracle LEVEL``: hard given every real hand (what no seat may know) against LEVEL,
beside hard itself on the same deals: the most a player deciding as hard does could win against it
(2 players, one process). ``--answers LEVEL``: hard against LEVEL, each confronto in which LEVEL
proposed an Ofensiva counted by hard's first answer (accept, raise again, refuse) and who scored it.
"""
from __future__ import annotations

import argparse
import math
import statistics
from collections import Counter
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tqdm import tqdm  # noqa: E402

from referee.npc.players import Hard, World  # noqa: E402
from referee.sim.guerra import NpcMatch, npc_games  # noqa: E402

LADDER = ("random", "greedy", "steady", "bold", "easy", "normal", "hard")
# the least win rate of the first against the second (with 2 players); a target under 0.5 is the
# most: easy must lose to greedy play
TARGETS = {("hard", "greedy"): 0.70, ("hard", "steady"): 0.70, ("hard", "bold"): 0.70, ("hard", "normal"): 0.70,
           ("hard", "easy"): 0.95, ("normal", "greedy"): 0.85, ("normal", "steady"): 0.55,
           ("normal", "bold"): 0.55, ("normal", "random"): 0.80, ("easy", "greedy"): 0.40}
# with teams of 2 (or 3): hard beats every heuristic and normal 65% of the time
TEAM_TARGETS = {("hard", b): 0.65 for b in ("greedy", "steady", "bold", "normal")}


def decision_times(level: str, players: int, matches: int, seed: str) -> list[float]:
    """Seconds each decision of ``level`` took, over ``matches`` matches against normal play."""
    times: list[float] = []
    for i in range(matches):
        lineup = [level, "normal"] if i % 2 == 0 else ["normal", level]
        match = NpcMatch([f"P{k + 1}" for k in range(players)], lineup, f"{seed}:times:{i}")
        for npc in match.npcs.values():
            if npc.level == level:
                decide = npc.decide

                def timed(view, kind, moves, decide=decide):
                    start = time.perf_counter()
                    try:
                        return decide(view, kind, moves)
                    finally:
                        times.append(time.perf_counter() - start)

                npc.decide = timed
        match.run()
    return times


class TrueWorld(World):
    """Every "deal" of the unseen cards is the real one: the match's hands and its stock."""
    match: NpcMatch

    def deal(self) -> tuple[list[list[int]], list[int]]:
        hands = [sorted(self.val[c] for c in self.match.hands[s] if c is not None) for s in self.seats]
        return hands, [self.val[c] for c in self.match.pack if c in self.val]


class Oracle(Hard):
    """Hard's search on the real hands: not a level (it sees what no seat may see), a measuring rod."""
    match: NpcMatch

    def world(self, view):
        w = TrueWorld(view, self.rng)
        w.match = self.match
        return w


def oracle(level: str, matches: int, seed: str) -> dict[str, float]:
    """The win rates of the oracle and of hard against ``level`` on the same seeded matches (sides
    swapped every other match)."""
    rates = {}
    for who in ("oracle", "hard"):
        wins = 0.0
        for i in tqdm(range(matches), desc=f"{who} vs {level}", unit="match", file=sys.stderr):
            lineup = ["hard", level] if i % 2 == 0 else [level, "hard"]
            match = NpcMatch(["P1", "P2"], lineup, f"{seed}:oracle:{level}:{i}")
            if who == "oracle":
                seat = match.names[i % 2]
                match.npcs[seat] = Oracle(match.npcs[seat].rng)
                match.npcs[seat].match = match
            winner = match.run().winner
            wins += 1.0 if winner == i % 2 else 0.5 if winner is None else 0.0
        rates[who] = wins / matches
    return rates


def answers(level: str, matches: int, seed: str) -> tuple[Counter[tuple[str, str]], float]:
    """How hard answered ``level``'s Ofensivas and who scored the confronto: {(accept | raise | refuse,
    "hard" | level): confrontos}, and hard's win rate (2 players, sides swapped every other match)."""
    counts: Counter[tuple[str, str]] = Counter()
    wins = 0.0
    for i in tqdm(range(matches), desc=f"hard answering {level}", unit="match", file=sys.stderr):
        lineup = ["hard", level] if i % 2 == 0 else [level, "hard"]
        match = NpcMatch(["P1", "P2"], lineup, f"{seed}:answers:{level}:{i}")
        game, state = match.game, match.state
        hard = match.names[i % 2]
        before, confronto, answer = list(state.scores), state.confrontos, None
        while not game.over:
            kind, seats = game.waiting()
            move = match.ask(seats[0], kind, game.looked(seats[0]))
            if kind == "answer" and seats[0] == hard and answer is None:
                answer = move.kind                   # its first answer in the confronto
            game.act(seats[0], move)
            if state.scores != before and answer is not None:
                scorer = "hard" if state.scores[i % 2] > before[i % 2] else level
                counts[answer, scorer] += 1
            if state.confrontos != confronto or state.scores != before:
                before, confronto, answer = list(state.scores), state.confrontos, None
        winner = match.run().winner                  # the match is over: run() only reads its result
        wins += 1.0 if winner == i % 2 else 0.5 if winner is None else 0.0
    return counts, wins / matches


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return 0.0, 0.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def run_pair(a: str, b: str, args: argparse.Namespace) -> dict:
    players = [f"P{i + 1}" for i in range(args.players)]
    results = []
    start = time.perf_counter()
    with tqdm(total=args.matches, desc=f"{a} vs {b}", unit="match", file=sys.stderr) as bar:
        for chunk in npc_games(players, [a, b], args.matches, f"{args.seed}:{a}:{b}", jobs=args.jobs):
            results.extend(chunk)
            bar.update(len(chunk))
    seconds = time.perf_counter() - start
    wins = shared = 0
    for i, r in enumerate(results):
        a_side = 0 if i % 2 == 0 else 1               # npc_games swaps the sides every other match
        if r.winner is None:
            shared += 1
        elif r.winner == a_side:
            wins += 1
    n = len(results)
    lo, hi = wilson(wins + 0.5 * shared, n)
    unfinished = sum(1 for r in results if not r.finished)
    return {"pair": (a, b), "n": n, "rate": (wins + 0.5 * shared) / n, "lo": lo, "hi": hi, "shared": shared,
            "unfinished": unfinished, "confrontos": statistics.fmean(r.confrontos for r in results),
            "ms": 1000 * seconds / n, "seconds": seconds}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=1000)
    parser.add_argument("--seed", default="1")
    parser.add_argument("--players", type=int, default=2, choices=(2, 4, 6))
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--pair", action="append", help="A,B: two levels (default: hard,easy and normal,random)")
    parser.add_argument("--ladder", action="store_true", help="every pair of random, the bots and the levels")
    parser.add_argument("--decision-times", metavar="LEVEL", help="how long LEVEL takes per decision")
    parser.add_argument("--oracle", metavar="LEVEL", help="hard given every real hand, and hard, against LEVEL")
    parser.add_argument("--answers", metavar="LEVEL", help="how hard answers LEVEL's Ofensivas, and who then scores")
    args = parser.parse_args()
    if args.oracle:
        rates = oracle(args.oracle, args.matches, args.seed)
        for who, rate in rates.items():
            lo, hi = wilson(rate * args.matches, args.matches)
            print(f"  {who:>6} vs {args.oracle:<6} {100 * rate:5.1f}%  (95% CI {100 * lo:.1f}-{100 * hi:.1f}%)"
                  f"  {args.matches} matches, 2 players, seed {args.seed}")
        return
    if args.answers:
        counts, rate = answers(args.answers, args.matches, args.seed)
        print(f"hard answering {args.answers}'s Ofensivas: {args.matches} matches, 2 players, seed {args.seed}; "
              f"hard wins {100 * rate:.1f}% of the matches")
        for answer in ("accept", "raise", "refuse"):
            won, lost = counts[answer, "hard"], counts[answer, args.answers]
            print(f"  {answer:>6}: {won + lost:4d} confrontos, hard scores in {won}, {args.answers} in {lost}")
        return
    if args.decision_times:
        print(f"{args.decision_times}'s time per decision, against normal, {args.matches} matches each, one core")
        for players in (2, 4, 6):
            times = sorted(decision_times(args.decision_times, players, args.matches, args.seed))
            pct = lambda q: 1000 * times[min(len(times) - 1, int(q * len(times)))]  # noqa: E731
            print(f"  {players} players: {len(times)} decisions, p50 {pct(0.5):.1f} ms, p95 {pct(0.95):.1f} ms, "
                  f"max {1000 * times[-1]:.1f} ms")
        return
    if args.ladder:
        pairs = [(LADDER[j], LADDER[i]) for j in range(len(LADDER)) for i in range(j)]
    else:
        pairs = [tuple(p.split(",")) for p in args.pair] if args.pair else [("hard", "easy"), ("normal", "random")]
    rows = [run_pair(a, b, args) for a, b in pairs]
    print(f"Guerra NPCs, {args.players} players, {args.matches} matches per pair, seed {args.seed}, "
          f"sides swapped every other match, {args.jobs} job(s)")
    for r in rows:
        a, b = r["pair"]
        target = (TEAM_TARGETS if args.players > 2 else TARGETS).get((a, b))
        if target is None:
            verdict = ""
        elif target >= 0.5:
            verdict = f"  target >= {100 * target:.0f}%: {'met' if r['rate'] >= target else 'MISSED'}"
        else:
            verdict = f"  target <= {100 * target:.0f}%: {'met' if r['rate'] <= target else 'MISSED'}"
        print(f"  {a:>6} vs {b:<6} {a} wins {100 * r['rate']:5.1f}%  (95% CI {100 * r['lo']:.1f}-{100 * r['hi']:.1f}%)"
              f"  {r['confrontos']:.1f} confrontos/match  {r['ms']:.1f} ms/match"
              + (f"  shared {r['shared']}" if r["shared"] else "")
              + (f"  UNFINISHED {r['unfinished']}" if r["unfinished"] else "") + verdict)


if __name__ == "__main__":
    main()
