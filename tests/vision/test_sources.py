"""Frame sources (vision/sources.py): files, folders, bad specs, and the watched live source on a fake clock."""
import time

import cv2
import numpy as np
import pytest

from vision.errors import VisionError
from vision.sources import (FakeSource, Frame, FolderSource, ListSource, SourceError, WatchedSource,
                            open_source)


def pictures(n, size=(64, 48)):
    w, h = size
    out = []
    for i in range(n):
        img = np.zeros((h, w, 3), np.uint8)
        img[:, :, 1] = 20 * i
        cv2.putText(img, str(i), (5, 40), cv2.FONT_HERSHEY_SIMPLEX, 1.2, (255, 255, 255), 2)
        out.append(img)
    return out


class Clock:
    def __init__(self, t=100.0):
        self.t = t

    def __call__(self):
        return self.t

    def advance(self, dt):
        self.t += dt


def run_for(cam, clock, seconds, step=0.05):
    """Poll `cam` every `step` s of fake time for `seconds`; return the frames it gave."""
    got = []
    for _ in range(round(seconds / step)):
        clock.advance(step)
        f = cam.poll()
        if f is not None:
            got.append(f)
    return got


def poll_while_ok(cam, clock, step=0.05):
    """Poll `cam` every `step` s of fake time until its status is no longer ok, checking that no
    frame comes meanwhile; return the fake seconds it took."""
    t0 = clock.t
    while cam.status == "ok":
        clock.advance(step)
        assert cam.poll() is None
    return clock.t - t0


# -- files and folders ---------------------------------------------------------------------------

def test_folder_gives_images_in_name_order_then_none(tmp_path):
    imgs = pictures(3)
    for name, img in zip(["b.png", "a.png", "c.jpg"], [imgs[1], imgs[0], imgs[2]]):
        cv2.imwrite(str(tmp_path / name), img)
    (tmp_path / "notes.txt").write_text("not a picture")
    src = open_source(str(tmp_path))
    assert isinstance(src, FolderSource) and "3 images" in src.describe()
    frames = list(src)
    assert [f.index for f in frames] == [0, 1, 2]
    assert np.array_equal(frames[0].image, imgs[0]) and np.array_equal(frames[1].image, imgs[1])
    assert all(isinstance(f, Frame) and f.t <= time.monotonic() for f in frames)
    assert src.read() is None
    src.close()


def test_folder_can_loop(tmp_path):
    for i, img in enumerate(pictures(2)):
        cv2.imwrite(str(tmp_path / f"{i}.png"), img)
    src = open_source(str(tmp_path), loop=True)
    frames = [src.read() for _ in range(5)]
    assert [f.index for f in frames] == [0, 1, 2, 3, 4]
    assert np.array_equal(frames[2].image, frames[0].image)


def test_video_file_plays_then_ends(tmp_path):
    path = tmp_path / "tiny.avi"
    out = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (64, 48))
    assert out.isOpened()
    for img in pictures(5):
        out.write(img)
    out.release()
    src = open_source(str(path))
    assert "tiny.avi" in src.describe()
    frames = list(src)
    assert len(frames) == 5 and frames[0].image.shape == (48, 64, 3)
    assert src.read() is None
    src.close()
    looped = open_source(str(path), loop=True)
    assert len([looped.read() for _ in range(8)]) == 8
    looped.close()


@pytest.mark.parametrize("make, words", [
    (lambda p: str(p / "missing.mp4"), "no such file"),
    (lambda p: (p / "empty").mkdir() or str(p / "empty"), "no images"),
    (lambda p: (p / "fake.mp4").write_text("hello") and str(p / "fake.mp4"), "not a video"),
    (lambda p: cv2.imwrite(str(p / "one.png"), pictures(1)[0]) and str(p / "one.png"), "single image"),
    (lambda p: "", "No camera or video given"),
    (lambda p: "97", "Camera 97 is not available"),
    (lambda p: "²", "no such file or folder"),          # a digit to str.isdigit, not a camera index
])
def test_bad_specs_say_what_is_wrong_in_a_sentence(tmp_path, make, words):
    spec = make(tmp_path)
    with pytest.raises(SourceError) as e:
        open_source(spec)
    assert isinstance(e.value, VisionError)
    assert words in str(e.value) and str(e.value).rstrip().endswith(".")


def test_list_source_fails_and_freezes_on_its_clock():
    clock = Clock()
    src = FakeSource(pictures(4), clock=clock)
    assert src.read().index == 0
    src.fail(1.0)
    with pytest.raises(SourceError):
        src.read()
    clock.advance(1.0)
    f = src.read()
    assert f.index == 1 and f.t == clock.t
    src.freeze(0.5)
    assert np.array_equal(src.read().image, f.image)
    clock.advance(0.5)
    assert not np.array_equal(src.read().image, f.image)
    src.read()
    assert src.read() is None                # 4 pictures, no loop
    assert ListSource(lambda i: pictures(1)[0] if i < 2 else None).read().index == 0


# -- the watched live source -----------------------------------------------------------------------

def watched(frames=None, **kw):
    clock = Clock()
    src = ListSource(frames if frames is not None else (lambda i: pictures(1)[0] + (i % 200)), clock=clock)
    seen = []
    cam = WatchedSource(src.reopen, source="0", clock=clock, on_status=seen.append, **kw)
    return cam, src, clock, seen


def test_watched_source_reports_ok_fps_and_frame_numbers():
    cam, src, clock, seen = watched()
    assert cam.status_dict()["status"] == "off"
    got = run_for(cam, clock, 2.0, step=0.04)           # 25 frames per second
    assert [f.index for f in got] == list(range(50))
    d = cam.status_dict()
    assert set(d) == {"status", "source", "fps", "frame", "message"}
    assert d["status"] == "ok" and d["source"] == "0" and d["frame"] == 49
    assert d["fps"] == pytest.approx(25, abs=1)
    assert [s["status"] for s in seen] == ["ok"]          # called on changes only
    assert cam.latest() is got[-1]


def test_watched_source_notices_an_unplugged_camera_within_a_second_and_reconnects():
    cam, src, clock, seen = watched()
    run_for(cam, clock, 0.5)
    src.fail(3.0)
    took = poll_while_ok(cam, clock)
    assert cam.status == "lost" and took <= 1.0
    assert "stopped sending pictures" in cam.message
    assert cam.status_dict()["fps"] == pytest.approx(0, abs=10)
    run_for(cam, clock, 1.0)
    assert cam.status_dict()["fps"] == 0
    assert cam.status == "reconnecting"
    got = run_for(cam, clock, 5.0)
    assert cam.status == "ok" and got
    statuses = [s["status"] for s in seen]
    assert statuses[0] == "ok" and "lost" in statuses and "reconnecting" in statuses and statuses[-1] == "ok"
    assert statuses.index("lost") < statuses.index("reconnecting")
    idx = [f.index for f in got]
    assert idx == sorted(idx) and idx[0] > 0                # numbered on across the reconnect


def test_a_camera_that_cannot_be_opened_is_retried_with_backoff():
    clock = Clock()
    tries = []
    plugged = {"in": False}
    frames = pictures(3)

    def factory():
        tries.append(clock.t)
        if not plugged["in"]:
            raise SourceError("Camera 0 is not available: check that it is plugged in.")
        return ListSource(frames, loop=True, clock=clock)

    seen = []
    cam = WatchedSource(factory, source="0", clock=clock, on_status=seen.append)
    run_for(cam, clock, 8.0)
    assert cam.status in ("lost", "reconnecting") and "not available" in cam.message
    gaps = np.diff(tries)
    assert len(tries) >= 4 and all(b >= a - 1e-9 for a, b in zip(gaps, gaps[1:]))   # waits grow
    assert gaps.max() <= 5.0 + 0.06
    plugged["in"] = True
    run_for(cam, clock, 6.0)
    assert cam.status == "ok" and seen[-1]["status"] == "ok"


def test_a_permanent_fault_turns_the_camera_off_without_retrying():
    clock = Clock()
    calls = []

    def factory():
        calls.append(1)
        return open_source("/no/such/video.mp4")

    cam = WatchedSource(factory, clock=clock)
    run_for(cam, clock, 3.0)
    assert cam.status == "off" and "no such file" in cam.message and len(calls) == 1


def test_watched_source_notices_a_frozen_picture_within_a_second():
    cam, src, clock, seen = watched()
    run_for(cam, clock, 0.5)
    src.freeze(2.0)
    took = poll_while_ok(cam, clock)                      # the same bytes again: no new frame
    assert cam.status == "frozen" and took <= 1.0 + 0.06
    assert "not changed" in cam.message
    run_for(cam, clock, 1.6)
    assert cam.status == "ok"
    assert [s["status"] for s in seen] == ["ok", "frozen", "ok"]


def test_a_picture_frozen_for_long_is_reopened():
    cam, src, clock, seen = watched()
    run_for(cam, clock, 0.5)
    src.freeze(None)
    run_for(cam, clock, 5.0)
    statuses = [s["status"] for s in seen]
    assert "frozen" in statuses and "reconnecting" in statuses
    src.recover()
    run_for(cam, clock, 2.0)
    assert cam.status == "ok"


def test_the_end_of_a_video_turns_the_camera_off():
    cam, src, clock, seen = watched(pictures(3))
    got = run_for(cam, clock, 1.0)
    assert len(got) == 3 and cam.status == "off" and cam.ended and "ended" in cam.message


def test_status_callbacks_that_raise_do_not_stop_the_camera():
    clock = Clock()

    def bad(_):
        raise RuntimeError("listener broke")

    cam = WatchedSource(lambda: ListSource(pictures(5), clock=clock), clock=clock, on_status=bad)
    assert len(run_for(cam, clock, 0.3)) == 5


def test_a_source_that_raises_anything_is_reported_not_raised():
    clock = Clock()

    class Broken(ListSource):
        def read(self):
            raise OSError("USB device disconnected")

    cam = WatchedSource(lambda: Broken(pictures(2), clock=clock), source="usb", clock=clock)
    run_for(cam, clock, 1.0)
    assert cam.status in ("lost", "reconnecting")


def test_the_background_thread_delivers_frames_and_closes():
    seen = []
    cam = WatchedSource(lambda: ListSource(pictures(10), fps=100),
                        source="fake", on_status=seen.append)
    frames = []
    with cam:
        while (f := cam.read(timeout=1.0)) is not None:
            frames.append(f)
    idx = [f.index for f in frames]
    assert idx == sorted(set(idx)) and idx[-1] == 9 and len(idx) >= 5     # the latest is never skipped
    assert cam.status == "off"
    assert seen[0]["status"] == "ok" and seen[-1]["status"] == "off"


def test_a_watched_video_file_in_the_background(tmp_path):
    path = tmp_path / "tiny.avi"
    out = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (64, 48))
    for img in pictures(4):
        out.write(img)
    out.release()
    cam = WatchedSource.of(str(path)).start()
    frames = []
    while (f := cam.read(timeout=2.0)) is not None:
        frames.append(f)
    assert frames and frames[-1].index == 3 and cam.status_dict()["source"] == str(path)
    assert cam.status == "off" and "ended" in cam.message
    cam.close()
    bad = WatchedSource.of(str(tmp_path / "nope.mp4")).start()
    assert bad.read(timeout=2.0) is None and bad.status == "off" and "no such file" in bad.message
    bad.close()


def test_a_recording_is_paced_as_a_camera_sends_it(tmp_path):
    """`warref run --camera FOLDER --loop --fps 4`: at most 4 pictures a second, then again from the start."""
    from vision.sources import Paced
    for i in range(2):
        cv2.imwrite(str(tmp_path / f"{i}.png"), np.full((8, 8, 3), 50 * i, np.uint8))
    now = [0.0]
    slept = []

    def sleep(s):
        slept.append(s)
        now[0] += s
    src = Paced(FolderSource(tmp_path, loop=True, clock=lambda: now[0]), 4, sleep=sleep)
    frames = [src.read() for _ in range(5)]
    assert [int(f.image[0, 0, 0]) for f in frames] == [0, 50, 0, 50, 0]
    assert slept == pytest.approx([0.25] * 4) and now[0] == pytest.approx(1.0)
    now[0] += 2.0                                           # a slow reader: no sleeping to catch up
    src.read()
    assert len(slept) == 4 and "at 4 fps" in src.describe()
    with pytest.raises(ValueError):
        Paced(open_source(str(tmp_path)), 0)
