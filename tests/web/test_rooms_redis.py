"""The Redis room store (web/rooms_redis.py) against a real redis-server (tests/conftest.py's
redis_url): documents, compare-and-swap, due times, pub/sub between two stores, and a save that
exactly one of several racing stores wins."""
import queue
import socket
import threading
import time
import uuid

import pytest
import redis

from web.rooms_redis import RedisRoomStore


@pytest.fixture
def prefix():
    return f"test-{uuid.uuid4().hex[:12]}"      # each test its own keys and channel on the shared server


@pytest.fixture
def store(redis_url, prefix):
    s = RedisRoomStore(redis_url, prefix=prefix)
    yield s
    s.close()


@pytest.fixture
def other(redis_url, prefix):
    """A second store on the same Redis and prefix: another server process."""
    s = RedisRoomStore(redis_url, prefix=prefix)
    yield s
    s.close()


def test_create_and_load(store, other):
    doc = {"game": "guerra", "seats": ["Alex", None], "n": 1.5, "text": "ç"}
    assert store.load("ABCD") is None
    assert store.create("ABCD", doc) is True
    assert store.load("ABCD") == (1, doc)
    assert other.load("ABCD") == (1, doc)


def test_create_twice_is_refused(store, other):
    assert store.create("ROOM", {"first": True})
    assert not other.create("ROOM", {"first": False})
    assert not store.create("ROOM", {"first": False})
    assert store.load("ROOM") == (1, {"first": True})
    assert store.codes() == ["ROOM"]


def test_save_is_compare_and_swap(store, other):
    store.create("R1", {"turn": 0})
    assert store.save("R1", 1, {"turn": 1}, None)
    assert other.load("R1") == (2, {"turn": 1})
    # a stale version writes nothing: not the doc, not the version, not the due time
    assert not other.save("R1", 1, {"turn": 99}, 123.0)
    assert store.load("R1") == (2, {"turn": 1})
    assert store.due(1e12) == []
    assert not store.save("R1", 3, {"turn": 99}, 123.0)     # a version from the future neither
    assert store.load("R1") == (2, {"turn": 1})
    assert other.save("R1", 2, {"turn": 2}, None)
    assert store.load("R1") == (3, {"turn": 2})


def test_save_of_a_room_that_does_not_exist_is_refused(store):
    assert not store.save("NOPE", 1, {"x": 1}, 10.0)
    assert store.load("NOPE") is None
    assert store.due(1e12) == [] and store.codes() == []


def test_due_times(store, other):
    for code in ("A", "B", "C", "D"):
        store.create(code, {"code": code})
    assert store.due(1e12) == []                               # nothing due until a save says so
    store.save("A", 1, {"code": "A"}, 100.0)
    store.save("B", 1, {"code": "B"}, 50.5)
    store.save("C", 1, {"code": "C"}, 200.0)
    store.save("D", 1, {"code": "D"}, None)
    assert other.due(49.0) == []
    assert other.due(50.5) == ["B"]                            # due <= now
    assert other.due(100.0) == ["B", "A"]                      # earliest first
    assert other.due(1e12) == ["B", "A", "C"]
    # a new due time moves the room; None clears it
    other.save("A", 2, {"code": "A"}, 300.0)
    store.save("B", 2, {"code": "B"}, None)
    assert store.due(250.0) == ["C"]
    assert store.due(1e12) == ["C", "A"]
    store.save("C", 2, {"code": "C"}, None)
    store.save("A", 3, {"code": "A"}, None)
    assert store.due(1e12) == []
    # a refused save leaves the due time as it was
    store.save("D", 2, {"code": "D"}, 10.0)
    assert not other.save("D", 2, {"code": "D"}, None)
    assert store.due(10.0) == ["D"]


def test_precise_due_times(store):
    store.create("X", {})
    now = time.time()
    store.save("X", 1, {}, now + 0.001)
    assert store.due(now) == []
    assert store.due(now + 0.001) == ["X"]


def test_codes(store, other, redis_url):
    assert store.codes() == []
    for code in ("KQZT", "ABCD", "MNPR"):
        other.create(code, {})
    assert store.codes() == ["ABCD", "KQZT", "MNPR"]
    elsewhere = RedisRoomStore(redis_url, prefix="elsewhere-" + uuid.uuid4().hex)
    try:
        assert elsewhere.codes() == []                         # another prefix sees none of them
    finally:
        elsewhere.close()


def test_publish_reaches_every_subscriber(store, other):
    here, there = queue.Queue(), queue.Queue()
    store.subscribe(here.put)
    other.subscribe(there.put)
    threads = set()
    other.subscribe(lambda m: threads.add(threading.current_thread().name))
    store.publish({"room": "ABCD", "version": 7, "text": "Olivia joga"})
    expected = {"room": "ABCD", "version": 7, "text": "Olivia joga"}
    assert there.get(timeout=5) == expected                   # the other process
    assert here.get(timeout=5) == expected                    # and the publisher itself
    other.publish({"n": 2})
    assert here.get(timeout=5) == {"n": 2} and there.get(timeout=5) == {"n": 2}
    assert threads and threading.current_thread().name not in threads   # a background thread
    assert here.empty() and there.empty()


def test_subscriber_survives_idle_time_a_failing_callback_and_a_dropped_connection(store, other, redis_url):
    got = queue.Queue()

    def bad(message):
        raise ValueError("a bug in someone's callback")

    other.subscribe(bad)
    other.subscribe(got.put)
    time.sleep(1.5)                                            # idle: several listener polls with nothing
    store.publish({"n": 1})
    assert got.get(timeout=5) == {"n": 1}
    # Redis drops the subscriber's connection: the listener reconnects and subscribes again
    admin = redis.Redis.from_url(redis_url)
    assert admin.client_kill_filter(_type="pubsub") >= 1
    deadline = time.monotonic() + 10
    while admin.pubsub_numsub(other.channel)[0][1] < 1:
        assert time.monotonic() < deadline, "the listener did not subscribe again"
        time.sleep(0.05)
    admin.close()
    store.publish({"n": 2})
    assert got.get(timeout=5) == {"n": 2}


def test_close_stops_the_listener(redis_url, prefix):
    s = RedisRoomStore(redis_url, prefix=prefix)
    s.subscribe(lambda m: None)
    thread = s._thread
    assert thread.is_alive()
    s.close()
    assert not thread.is_alive()
    s.close()                                                  # twice is fine


def test_exactly_one_of_racing_threads_wins(store, redis_url, prefix):
    """Many threads, each with its own store (its own connections, like separate processes), all load
    the same version of a room that is due and try to claim it: exactly one save succeeds, every
    round."""
    n = 8
    stores = [RedisRoomStore(redis_url, prefix=prefix) for _ in range(n)]
    try:
        store.create("T", {"fired": []})
        store.save("T", 1, {"fired": []}, 0.0)
        for round_ in range(20):
            barrier = threading.Barrier(n)
            wins = []

            def claim(i):
                s = stores[i]
                assert s.due(time.time()) == ["T"]
                version, doc = s.load("T")
                doc["fired"].append(i)
                barrier.wait()
                if s.save("T", version, doc, 0.0 if round_ < 19 else None):
                    wins.append(i)

            threads = [threading.Thread(target=claim, args=(i,)) for i in range(n)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            assert len(wins) == 1, wins
            version, doc = store.load("T")
            assert version == round_ + 3 and doc["fired"][-1] == wins[0]
        assert len(store.load("T")[1]["fired"]) == 20
        assert store.due(time.time()) == []
    finally:
        for s in stores:
            s.close()


def test_no_lost_update_between_two_stores_under_threads(store, other):
    """The same race between two store instances, each hammered from several threads at once."""
    store.create("P", {"count": 0})
    wins = {"store": 0, "other": 0}
    lock = threading.Lock()

    def worker(s, name):
        for _ in range(50):
            version, doc = s.load("P")
            if s.save("P", version, {"count": doc["count"] + 1}, None):
                with lock:
                    wins[name] += 1

    threads = [threading.Thread(target=worker, args=(s, name))
               for s, name in [(store, "store"), (other, "other")] * 3]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    version, doc = store.load("P")
    total = wins["store"] + wins["other"]
    assert doc["count"] == total and version == total + 1     # no lost update, no double count


def test_unreachable_redis_names_the_url():
    with socket.socket() as s:                                 # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"redis://127.0.0.1:{port}/0"
    with pytest.raises(RuntimeError, match=f"127.0.0.1:{port}/0"):
        RedisRoomStore(url, timeout=1)


def test_the_error_hides_a_password():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(RuntimeError) as err:
        RedisRoomStore(f"redis://:secret@127.0.0.1:{port}/0", timeout=1)
    assert "secret" not in str(err.value) and f"redis://:***@127.0.0.1:{port}/0" in str(err.value)


def test_a_url_that_is_not_redis_names_the_url():
    with pytest.raises(RuntimeError, match="http://example.invalid"):
        RedisRoomStore("http://example.invalid/", timeout=1)
