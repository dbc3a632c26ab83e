import pytest
from hypothesis import strategies as st

from referee import Table


@pytest.fixture
def two():
    return Table("woolly", ["Alex", "Olivia"])


@pytest.fixture
def three():
    return Table("woolly", ["Alex", "Olivia", "Sam"])


def play(table, *events):
    """Submit events given as compact tuples or dicts; return the rulings of the last one."""
    rulings = []
    for e in events:
        rulings = table.submit(e)
    return rulings


def flip(seat, card):
    return {"type": "flip", "seat": seat, "card": card}


def down(seat, count=2):
    return {"type": "down", "seat": seat, "count": count}


def steal(seat, target, source):
    return {"type": "action", "seat": seat, "card": "STEAL", "target": target, "from": source}


def reveal(seat):
    return {"type": "action", "seat": seat, "card": "REVEAL"}


def recount(seat, **kw):
    return {"type": "recount", "seat": seat, **kw}


def next_event(data, table, names, legal_event, random_event):
    """For random event streams: half the time a legal event (when there is one), else a random,
    mostly illegal one."""
    if data.draw(st.booleans()):
        return legal_event(data, table) or random_event(data, names)
    return random_event(data, names)


def handle_checked(table, event, endings=(".", "!")):
    """Hand an event to the table. A refusal must be one sentence (ending in one of ``endings``) that
    changes neither the state nor the log: None is returned. An accepted event adds one log entry
    and its rulings are returned."""
    before, log_before = table.state.snapshot(), list(table.log)
    rulings = table.handle(event)
    if rulings[0].type == "error":
        assert len(rulings) == 1 and not rulings[0].data.get("bug"), rulings[0].text
        assert rulings[0].text.endswith(endings), rulings[0].text
        assert table.state.snapshot() == before and table.log == log_before
        return None
    assert len(table.log) == len(log_before) + 1
    return rulings


@pytest.fixture(scope="session")
def namikopy_cards():
    """One picture per Namikopy card (warref's own art), BGR on white: the card alone (tests/cardpics.py)."""
    from cardpics import namikopy_pictures
    return namikopy_pictures()
