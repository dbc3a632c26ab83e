"""Every ruling the same before and after a change to the referee (issue 62): a hash over every ruling
(type, text, data, message, the text's class) of 15 seeded games each of 14 game/option cases, played
by the simulators through the tree in the current directory, sentences read at the game's end (a
sentence made when read must hold its values); then the same logs replayed with a bad event before
each real one: every refusal's sentence and message hashed, and the state's snapshot checked
unchanged by it. Prints the counts and the hash; compare two trees' lines.

    cd TREE && python /path/to/bench/rulings_hash.py

TREE: the checkout to hash (for an older commit: git archive COMMIT referee | tar -x -C /tmp/old).
At 583a052: rulings 105031, items 148908, bad-event rulings 43876, hash e4313af2b6f6...
"""
import hashlib
import json
import os
import sys

sys.path.insert(0, os.getcwd())

import referee  # noqa: E402
from referee.say import message  # noqa: E402
from referee.sim.stats import SIMULATORS  # noqa: E402
from referee.table import Table  # noqa: E402

assert referee.__file__.startswith(os.getcwd()), referee.__file__

CASES = [
    ("classic", 2, None, {}), ("classic", 3, {"war_down": "3"}, {}), ("classic", 4, {"war_down": "rank"}, {}),
    ("classic", 2, {"war": "race"}, {}), ("classic", 3, {"short": "lose", "war_down": "3"}, {}),
    ("classic", 2, {"war_down": "3", "fewest_cards_fix": True, "jokers": True, "short": "last_card_once"},
     {"time_up_at": 40}),
    ("classic", 2, {"max_battles": 60, "timed_tie": "sudden_death"}, {"returns": "fixed"}),
    ("woolly", 2, None, {}), ("woolly", 3, {"timed_count": "herd_only", "max_battles": 40}, {}),
    ("namikopy", 3, None, {}), ("namikopy", 5, {"deck": "standard", "war_cards": True, "max_battles": 80}, {}),
    ("casino", 3, None, {}), ("guerra", 2, None, {}), ("guerra", 4, {"cut": "required"}, {}),
]
BAD = [{"type": "flip", "seat": "Nobody", "card": "8"}, {"type": "flip", "seat": "P1", "card": "ZZ"},
       {"type": "down", "seat": "P1", "count": 50}, {"type": "action", "seat": "P2", "card": "8"},
       {"type": "flip", "seat": "P2", "card": "AS"}, {"type": "down", "seat": "P2", "count": 1},
       {"type": "recount", "seat": "P1", "count": -1}, {"type": "bet", "seat": "P1", "amount": 3},
       {"type": "flips", "cards": {"P1": "2C", "p1": "3C"}}, {"type": "time_up"}, {"type": "undo"},
       {"type": "choose", "seat": "P1", "opponent": "P1"}, {"type": "flip", "seat": "P1", "card": "AS"}]

h = hashlib.sha256()
count = 0
pending = []


def feed(what):
    global count
    h.update(json.dumps(what, default=repr, ensure_ascii=False, sort_keys=False).encode())
    h.update(b"\n")
    count += 1


def ruling(r):
    return [r.to_json(), message(r.text), type(r.text).__name__]


real_submit = Table.submit
tables = []
real_init = Table.__init__


def submit(self, event):
    rulings = real_submit(self, event)
    pending.extend(rulings)
    return rulings


def keep(self, *a, **k):
    real_init(self, *a, **k)
    tables.append(self)


Table.submit = submit
Table.__init__ = keep
records = []
for game, k, options, table in CASES:
    for i in range(15):
        rec = SIMULATORS[game]([f"P{j + 1}" for j in range(k)], f"rh62:{game}:{i}", options, **table)
        records.append(repr(rec))
        for r in pending:
            feed(ruling(r))
        pending.clear()
Table.submit = real_submit
Table.__init__ = real_init
rulings_count = count
feed(records)
bad = 0
for t in tables:
    table = Table(t.game, t.players, t.options)
    for i, event in enumerate(t.log[:300]):
        e = BAD[i % len(BAD)]
        before = json.dumps(table.state.snapshot(), default=repr)
        n = len(table.log)
        for r in table.handle(e):
            feed(["B"] + ruling(r))
            bad += 1
        if len(table.log) != n:            # accepted after all: start again from the real events
            table = Table.restore(t.game, t.players, t.options, t.log[:i])
        elif json.dumps(table.state.snapshot(), default=repr) != before:
            raise SystemExit(f"a refused event changed the state: {e}")
        table.submit(event)
print(f"rulings {rulings_count}, items {count}, bad-event rulings {bad}, hash {h.hexdigest()}")
