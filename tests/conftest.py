import pytest

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
