"""Every answer of the dashboard the same before and after a change to the referee (issue 62): a hash
over what web.session.Session answers (each entry's rulings as the web layer serialises them, the log
entries, views, history pages) for the logs of 3 simulated games each of 11 game/option cases,
replayed through a Session with an undo and the entry again after every 7th entry and a checkpoint
every 50 entries; also the log entries as JSON text and how an undo names them. Compare two trees:

    cd TREE && python /path/to/bench/session_hash.py

At be18735 (and 4713969): items 13296, hash 47703de2efe5...
"""
import hashlib
import json
import os
import sys

sys.path.insert(0, os.getcwd())

import referee  # noqa: E402
from referee.events import parse_event  # noqa: E402
from referee.sim.stats import SIMULATORS  # noqa: E402
from referee.table import Table, describe_event  # noqa: E402
from web.session import Session  # noqa: E402
from web.store import ClockState, GameRecord  # noqa: E402

assert referee.__file__.startswith(os.getcwd()), referee.__file__

CASES = [("classic", 2, None, {}), ("classic", 3, {"war_down": "3"}, {}), ("classic", 4, {"war_down": "rank"}, {}),
         ("classic", 2, {"war": "race"}, {}), ("classic", 2, {"war_down": "3", "fewest_cards_fix": True, "jokers": True, "short": "last_card_once"}, {"time_up_at": 40}),
         ("woolly", 2, None, {}), ("namikopy", 3, None, {}), ("namikopy", 5, {"deck": "standard", "war_cards": True, "max_battles": 80}, {}),
         ("casino", 3, None, {}), ("guerra", 2, None, {}), ("guerra", 4, {"cut": "required"}, {})]
h = hashlib.sha256()
n = 0


def feed(x):
    global n
    h.update(json.dumps(x, sort_keys=False, ensure_ascii=False, default=repr).encode())
    h.update(b"\n")
    n += 1


tables = []
real = Table.__init__


def keep(self, *a, **k):
    real(self, *a, **k)
    tables.append(self)


for game, k, options, extra in CASES:
    for i in range(3):
        Table.__init__ = keep
        tables.clear()
        SIMULATORS[game]([f"P{j + 1}" for j in range(k)], f"wh62:{game}:{i}", options, **extra)
        Table.__init__ = real
        t = tables[0]
        log = list(t.log)[:1500]
        feed([json.dumps(e) for e in log])
        feed([describe_event(parse_event(e)) for e in log[:200]])
        rec = GameRecord(1, game, [{"name": p, "colour": "red"} for p in t.players], dict(t.options), 0.0, None, None, ClockState())
        s = Session(rec, checkpoint_every=50)
        for j, e in enumerate(log):
            feed(s.submit(e))
            if j % 7 == 3:
                feed(s.submit({"type": "undo"}))
                feed(s.submit(e))
            if j % 97 == 0:
                feed(s.view({}, 5))
        feed(s.view({}, 50)); feed(s.history_page(None, 30))
        feed(s.table.log)
        feed([json.dumps(e) for e in s.table.log])
        feed([r for r in s.entry_rulings])
print("items", n, "hash", h.hexdigest())
