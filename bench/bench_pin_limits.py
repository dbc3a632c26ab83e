"""How fast an attacker can guess the table's PIN against the limits (web/guard.py's PinLimits), with the
server restarted every 10 minutes and with 2 worker processes (a benchmark, not a timed test).

    python bench/bench_pin_limits.py [--days 30]

The attacker has as many network addresses as it likes and tries a wrong PIN whenever the limits let
one of them: a fresh address while its own waits, else it waits for the shared allowance. The limits
are the real class on a real SQLite file, on a simulated clock. "Restarts" opens the limits again
from the file every 10 simulated minutes (a restarted server); "2 workers" has two instances on the
same file take turns (each request to either process). Prints wrong PINs per day and the days all
10,000 four-digit PINs would take at that rate (target: more than a year).
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from web import guard  # noqa: E402

DAY = 24 * 3600.0


def attack(days: float, restart_every: float | None, workers: int) -> int:
    """Wrong PINs tried in ``days`` simulated days."""
    clock = [0.0]
    folder = tempfile.TemporaryDirectory()
    db = Path(folder.name) / "warref.db"

    def opened() -> list[guard.PinLimits]:
        return [guard.PinLimits(db, now=lambda: clock[0]) for _ in range(workers)]

    processes, started, tries, address, turn = opened(), 0.0, 0, 0, 0
    while clock[0] < days * DAY:
        if restart_every and clock[0] - started >= restart_every:
            for p in processes:
                p.db.close()
            processes, started = opened(), clock[0]
        limits = processes[turn % workers]
        turn += 1
        try:
            limits.check(f"10.{address // 65536 % 256}.{address // 256 % 256}.{address % 256}")
        except guard.Locked as err:
            if "does not know" in str(err):
                clock[0] += err.seconds                   # everyone's allowance is spent: wait for it
            else:
                address += 1                              # this address waits: take another
            continue
        limits.wrong(f"10.{address // 65536 % 256}.{address // 256 % 256}.{address % 256}")
        tries += 1
    for p in processes:
        p.db.close()
    folder.cleanup()
    return tries


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--days", type=float, default=30.0, help="simulated days of attack per case")
    args = ap.parse_args()
    print(f"limits: {guard.FREE} wrong PINs per address, then waits doubling from {guard.FIRST_WAIT:g} s; "
          f"all addresses together {guard.OVERALL} at once, then {guard.REFILL:g} an hour")
    print(f"{'case':<34} {'wrong PINs in ' + format(args.days, 'g') + ' days':>22} {'per day':>9} "
          f"{'days for all 10,000':>20}")
    for name, restart, workers in (("one process", None, 1), ("restarted every 10 minutes", 600.0, 1),
                                   ("2 workers", None, 2), ("2 workers, restarted every 10 min", 600.0, 2)):
        tries = attack(args.days, restart, workers)
        per_day = tries / args.days
        # the first OVERALL come at once; after that the allowance's refill sets the pace
        steady = max(per_day - guard.OVERALL / args.days, 1e-9)
        print(f"{name:<34} {tries:>22,} {per_day:>9.1f} {(10_000 - guard.OVERALL) / steady:>20,.0f}")


if __name__ == "__main__":
    main()
