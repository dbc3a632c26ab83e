"""The Guerra rooms' limits (issue 60): how many rooms one address and everyone together may make, how
many seats one address may join and how many unknown codes it may try, measured through the HTTP API
of a real app over one simulated hour (a fake clock: every request is answered by the real code and
the real SQLite store); then how long guessing a live room's code takes at the allowed rate against
how long a room lives.

    python bench/bench_rooms_limits.py [--hours 1]

Each measurement sends requests as fast as they are allowed: whenever a request is refused (429)
the clock moves on by its Retry-After. "Everyone together" uses a new address each time one
address's own allowance runs out.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from fastapi.testclient import TestClient  # noqa: E402

from web.rooms import ABANDONED_S, CODE_LENGTH, CODE_LETTERS, LIMITS, Rooms, SQLiteRoomStore  # noqa: E402
from web.server import create_app  # noqa: E402


class Clock:
    def __init__(self) -> None:
        self.t = 1_000_000.0

    def __call__(self) -> float:
        return self.t


def measure(app, clock: Clock, seconds: float, send, new_address: bool = False, answered: int = 200) -> int:
    """Requests ``send(client)`` answered ``answered`` (not refused) in ``seconds`` of the fake clock,
    each sent as soon as allowed."""
    start, ok, k = clock.t, 0, 0
    client = TestClient(app, base_url="http://localhost", client=("198.51.100.1", 40000))
    while clock.t < start + seconds:
        r = send(client)
        if r.status_code == answered:
            ok += 1
            continue
        if r.status_code != 429:
            raise SystemExit(f"unexpected answer {r.status_code}: {r.text}")
        if new_address and "This device" in r.json()["detail"]:
            k += 1
            client = TestClient(app, base_url="http://localhost", client=(f"10.{k // 65536}.{k // 256 % 256}.{k % 256}", 40000))
            continue
        clock.t += float(r.headers["retry-after"])
    return ok


def human(seconds: float) -> str:
    for unit, size in (("years", 365 * 86400), ("days", 86400), ("hours", 3600), ("minutes", 60)):
        if seconds >= size:
            return f"{seconds / size:,.1f} {unit}"
    return f"{seconds:,.0f} s"


def main(args: argparse.Namespace) -> None:
    span = args.hours * 3600
    with tempfile.TemporaryDirectory() as tmp:
        clock = Clock()
        app = create_app(Path(tmp) / "w.db", "1357", now=clock, tick_s=3600)
        with TestClient(app, base_url="http://localhost"):
            maker = Rooms(SQLiteRoomStore(Path(tmp) / "w.db"), now=clock)       # rooms to join: the server's own
            seats = iter([])

            def join(client):
                nonlocal seats
                try:
                    code, seat = next(seats)
                except StopIteration:
                    made = maker.create("Alex", players=6)
                    seats = iter([(made["code"], s) for s in range(1, 6)])
                    code, seat = next(seats)
                return client.post(f"/api/rooms/{code}/join", json={"name": f"P{seat}", "seat": seat})

            guesses = iter(range(10 ** 9))
            figures = {
                "rooms made by one address": measure(app, clock, span, lambda c: c.post("/api/rooms", json={"name": "Alex"})),
                "rooms made by everyone together": measure(app, clock, span, lambda c: c.post("/api/rooms", json={"name": "Alex"}),
                                                           new_address=True),
                "seats joined by one address": measure(app, clock, span, join),
                "unknown codes tried by one address": measure(app, clock, span,
                                                              lambda c: c.get(f"/api/rooms/QQQ{next(guesses) % 1000:03d}"),
                                                              answered=404),
            }
    print(f"Allowed in {args.hours:g} simulated hour(s), measured through the HTTP API (web/rooms.py LIMITS):")
    rules = {"rooms made by one address": "create", "rooms made by everyone together": "create-all",
             "seats joined by one address": "join", "unknown codes tried by one address": "miss"}
    for what, n in figures.items():
        rule = LIMITS[rules[what]]
        per_day = rule.burst + 86400 / rule.every
        print(f"  {what:36s} {n:6d}   (rule: {rule.burst} at once, then 1 every {rule.every:g} s: "
              f"{3600 / rule.every:,.0f}/hour, {per_day:,.0f} in a day)")
    space = len(CODE_LETTERS) ** CODE_LENGTH
    miss = LIMITS["miss"]
    flood = LIMITS["create-all"].burst + ABANDONED_S / LIMITS["create-all"].every
    print(f"\nCodes: {CODE_LENGTH} of {len(CODE_LETTERS)} letters and digits = {space:,} codes (4 letters were 160,000).")
    print(f"A room nobody is connected to lives {human(ABANDONED_S)} (then it is deleted and its code is free);")
    print(f"at the allowed rate of everyone together at most ~{flood:,.0f} such rooms are alive at once.")
    print(f"One address guesses {miss.burst} codes at once, then 1 every {miss.every:g} s "
          f"({86400 / miss.every:,.0f} a day). Expected time to hit a live room:")
    for n, what in ((1, "one given room"), (100, "any of 100 live rooms"), (int(flood), f"any of {int(flood):,} (the flood most)")):
        tries = space / (n + 1) if n > 1 else space / 2
        t = max(0.0, tries - miss.burst) * miss.every
        verdict = "longer" if t > ABANDONED_S else "SHORTER"
        print(f"  {what:34s} {tries:14,.0f} tries  {human(t):>14s}  ({verdict} than the {human(ABANDONED_S)} a room lives)")
    print("  (k addresses guessing together divide these times by k; before the limits one address tried ~1,250 codes/s)")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hours", type=float, default=1.0)
    main(ap.parse_args())
