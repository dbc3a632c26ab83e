import os

# One OpenBLAS thread in every test process (and the servers they start), set before numpy is first
# imported: the suite runs on both cores (pytest -n 2), and with its default of a thread per core
# OpenBLAS spins waiting for a core that another worker holds. Measured on 2 cores, the other busy:
# teaching a deck's last-layer fit (vision/teach.py fit, a 1811 x 192 by 17 matrix, 400 steps) took
# 4.7 s with two threads and 0.33 s with one. What any test checks is the same either way.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

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


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory):
    """A real redis-server of this test session's own (each xdist worker starts its own): a free port
    on 127.0.0.1, no persistence, in a temporary folder; stopped at the end. Yields its URL."""
    import shutil
    import socket
    import subprocess
    import time

    if shutil.which("redis-server") is None:
        pytest.fail("redis-server is not installed: `make system-deps` installs it (Debian's redis-server)")
    folder = tmp_path_factory.mktemp("redis")

    def answers(port):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5) as s:
                s.sendall(b"PING\r\n")
                return s.recv(64).startswith(b"+PONG")
        except OSError:
            return False

    for attempt in range(3):      # a free port can be taken by someone else before redis binds it
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        logfile = folder / f"redis-{port}.log"
        with open(logfile, "wb") as out:
            server = subprocess.Popen(
                ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                 "--dir", str(folder), "--daemonize", "no"],
                stdout=out, stderr=subprocess.STDOUT, cwd=folder)
        deadline = time.monotonic() + 10
        while server.poll() is None and time.monotonic() < deadline and not answers(port):
            time.sleep(0.02)
        if server.poll() is None and answers(port):
            break
        if server.poll() is None:
            server.kill()
        server.wait()
    else:
        pytest.fail(f"redis-server did not start; its log: {logfile.read_text(errors='replace')[-2000:]}")
    try:
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        server.terminate()
        try:
            server.wait(timeout=5)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


# The fast loop (`make test-fast`: pytest -m "not browser and not slow") leaves these out; `make test`
# runs everything. A test file is slow as a whole when most of its time is real processes, training
# or long games; measured with `pytest --durations` (docs/development.md).
SLOW = {"test_server_restart.py", "test_server_workers.py", "test_fuzz.py", "test_long_games.py", "test_teach_deck.py",
        "test_train_detector.py", "test_gpu_job.py", "test_standard_readers.py", "test_teach.py", "test_live.py",
        "test_rooms_restart.py", "test_eval.py", "test_photos.py", "test_decode.py", "test_reader.py",
        "test_art_aisleriot.py", "test_art_own.py", "test_synth.py", "test_synth_clutter.py", "test_words.py",
        "test_index_fonts.py", "test_suit_shapes.py", "test_occlusion.py"}


def pytest_collection_modifyitems(config, items):
    for item in items:
        name = item.path.name
        if name.startswith("test_browser"):
            item.add_marker(pytest.mark.browser)
        if name in SLOW:
            item.add_marker(pytest.mark.slow)
