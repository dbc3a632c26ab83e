"""Many photos read at once (vision/photos.py): the same readings, in order, as one by one; a
photo of any size read in bounded memory, its readings in its own pixels; a photo that fails, or
whose worker process dies, costs only itself."""
import json
import os
import signal
import struct
import time
import zlib

import cv2
import numpy as np
import pytest
from PIL import Image

from vision import photos
from vision.config import PHOTO, ReaderConfig
from vision.detector import Detector
from vision.photos import MAX_SIDE, MAX_SQUARE, jobs_for, load_bounded, read_one, read_photos
from vision.reader import MODELS, Read, TableReader
from vision.synth.flat import flat_table


def _photos(tmp_path):
    paths = []
    for i, cards in enumerate([[("7D", (320, 240), 10)], [("KS", (200, 200), -20), ("3H", (450, 260), 5)],
                               [("AC", (330, 250), 80)]]):
        image, _ = flat_table("standard", cards, size=(640, 480), card_h=260, seed=i)
        path = tmp_path / f"photo{i}.jpg"
        cv2.imwrite(str(path), image)
        paths.append(path)
    broken = tmp_path / "broken.jpg"
    broken.write_bytes(b"not a photo")
    return paths[:2] + [broken] + paths[2:]


def _plain(results):
    return [(path, size, reads if isinstance(reads, str) else [r.as_json() for r in reads])
            for path, size, reads in results]


def test_photos_read_on_two_processes_read_as_one_by_one_in_order(tmp_path):
    paths = _photos(tmp_path)
    reader = TableReader("standard", ReaderConfig(passes=PHOTO.passes, cut=True))
    alone = _plain(read_photos(reader, paths, 0.05, jobs=1))
    together = _plain(read_photos(reader, paths, 0.05, jobs=2))
    assert together == alone
    assert [p for p, _, _ in together] == [str(p) for p in paths]
    # the broken file keeps its place, with why it could not be read; the photos are read
    path, size, why = together[2]
    assert size is None and isinstance(why, str) and "broken.jpg" in why
    assert [sorted(c["card"] for c in reads if c["confidence"] >= 0.5) for _, _, reads in together[:2]] == [
        ["7D"], ["3H", "KS"]]
    assert together[3][1] == (640, 480)


def test_a_reader_remade_from_its_settings_reads_as_it_is_set():
    reader = TableReader("standard")
    reader.config = PHOTO.without("words")              # as warref eval sets it
    again = TableReader(**reader.settings())
    assert again.settings() == reader.settings()
    assert again.config == PHOTO.without("words") != TableReader("standard").config


def test_a_reader_with_its_own_detector_reads_in_this_process(tmp_path):
    paths = _photos(tmp_path)[:2]
    reader = TableReader("standard", detector=Detector(MODELS / "detector.onnx"))
    with pytest.raises(ValueError, match="own detector"):
        reader.settings()
    assert [p for p, _, _ in read_photos(reader, paths, 0.5, jobs=2)] == [str(p) for p in paths]


def test_jobs_are_one_per_core_and_never_more_than_photos(monkeypatch):
    monkeypatch.setattr("os.cpu_count", lambda: 4)
    assert jobs_for(10) == 4
    assert jobs_for(2) == 2
    assert jobs_for(10, 1) == 1
    assert jobs_for(0) == 1


def test_detect_reads_many_photos_at_once_and_writes_them_in_order(tmp_path, capsys):
    from web import cli

    paths = [str(p) for p in _photos(tmp_path) if p.name != "broken.jpg"]
    assert cli.main(["detect", *paths, "--json", "--jobs", "2"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line["image"] for line in lines] == paths
    assert sorted(c["card"] for c in lines[1]["cards"]) == ["3H", "KS"]
    assert cli.main(["detect", *paths, "--json", "--jobs", "1"]) == 0
    assert [json.loads(line) for line in capsys.readouterr().out.splitlines()] == lines


# ------------------------------------------------------------------------------ photos of any size
TABLE = [("7D", (170, 170), 10), ("KS", (480, 180), -20), ("3H", (780, 200), 5), ("AC", (330, 470), 80),
         ("QH", (700, 460), -35)]


def _big_and_small(tmp_path):
    """The same card table as a 960x640 PNG and a 6000x4000 JPEG (as a phone takes it)."""
    small, _ = flat_table("standard", TABLE, size=(960, 640), card_h=230, seed=4)
    cv2.imwrite(str(tmp_path / "small.png"), small)
    cv2.imwrite(str(tmp_path / "big.jpg"), cv2.resize(small, (6000, 4000), interpolation=cv2.INTER_CUBIC),
                [cv2.IMWRITE_JPEG_QUALITY, 90])
    return tmp_path / "small.png", tmp_path / "big.jpg"


def test_a_big_photo_is_read_shrunk_and_its_readings_are_in_its_own_pixels(tmp_path, monkeypatch):
    small_path, big_path = _big_and_small(tmp_path)
    reader = TableReader("standard")
    _, size, small = read_one(reader, small_path, 0.05)
    assert size == (960, 640)
    decoded, read_at, read = [], [], reader.read

    def decode(data, flags):
        image = imdecode(data, flags)
        decoded.append(image.shape)
        return image

    def reading(image, threshold):
        read_at.append(image.shape)
        return read(image, threshold)

    imdecode = cv2.imdecode
    monkeypatch.setattr(cv2, "imdecode", decode)
    monkeypatch.setattr(reader, "read", reading)
    _, size, big = read_one(reader, big_path, 0.05)
    assert size == (6000, 4000)                                       # the photo's own size
    reduced = max(r for r in (1, 2, 4, 8) if 6000 / r >= MAX_SIDE)
    assert reduced > 1 and decoded == [(4000 // reduced, 6000 // reduced, 3)]   # decoded already reduced
    assert read_at == [(round(4000 * MAX_SIDE / 6000), MAX_SIDE, 3)]  # and read at the bounded size
    sure = {r.card: r for r in small if r.confidence >= 0.5}
    assert sorted(sure) == sorted(code for code, _, _ in TABLE)
    found = {r.card: r for r in big if r.confidence >= 0.5}
    assert sorted(found) == sorted(sure)
    scale = 6000 / 960
    for card, r in found.items():
        assert 0 <= r.box[0] < r.box[2] <= 6000 and 0 <= r.box[1] < r.box[3] <= 4000
        # the same card where the small photo has it, within 2% of the photo's width
        assert np.abs(np.array(r.box) / scale - sure[card].box).max() < 0.02 * 960, card
        assert np.abs(np.array(r.corners) / scale - np.array(sure[card].corners)).max() < 0.02 * 960, card
        assert abs((r.angle - sure[card].angle + 90) % 180 - 90) < 5, card


class _Fixed:
    """A reader that finds one card where it is told, in the pixels of the image it is given, and
    notes the size of each image it is given."""

    def __init__(self):
        self.shapes = []

    def read(self, image, threshold):
        self.shapes.append(image.shape[:2])
        h, w = image.shape[:2]
        corners = [[w * 0.5, h * 0.25], [w * 1.2, h * 0.25], [w * 1.2, h * 0.75], [w * 0.5, h * 0.75]]
        return [Read("7D", 0.9, [w // 2, h // 4, w, 3 * h // 4], corners, 12.5, 0.8)]


@pytest.mark.parametrize("width, height, turned", [(4000, 3000, False), (3200, 2400, True), (2000, 2000, False),
                                                    (900, 600, False)])
def test_readings_come_back_scaled_to_the_photo_turned_as_its_exif_says(tmp_path, width, height, turned):
    path = tmp_path / "photo.jpg"
    exif = Image.Exif()
    exif[0x0112] = 6 if turned else 1                                 # 6: shown turned a quarter
    Image.new("RGB", (width, height), (90, 120, 40)).save(path, exif=exif)
    w, h = (height, width) if turned else (width, height)            # as OpenCV (and load_image) turn it
    reader = _Fixed()
    name, size, (r,) = read_one(reader, path, 0.05)
    assert (name, size) == (str(path), (w, h))
    limit = MAX_SQUARE if w == h else MAX_SIDE
    shown = reader.shapes[0]
    assert max(shown) == min(limit, max(w, h)) and abs(shown[1] / shown[0] - w / h) < 0.01
    assert r.box == [w // 2, h // 4, w, 3 * h // 4] or max(w, h) > limit
    assert abs(r.box[0] - w / 2) <= 3 and abs(r.box[1] - h / 4) <= 3 and r.box[2] == w
    assert abs(r.box[3] - 3 * h / 4) <= 3
    assert np.allclose(r.corners, [[w * 0.5, h * 0.25], [w * 1.2, h * 0.25], [w * 1.2, h * 0.75],
                                   [w * 0.5, h * 0.75]], atol=3)
    assert (r.card, r.confidence, r.angle, r.detector) == ("7D", 0.9, 12.5, 0.8)


def _png_claiming(width, height):
    """A PNG file whose header claims ``width`` x ``height``, with a few bytes of pixels."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(bytes(64))) + chunk(b"IEND", b""))


def _jpeg_claiming(width, height):
    """A small real JPEG whose frame header (SOF0) is made to claim ``width`` x ``height``."""
    data = bytearray(cv2.imencode(".jpg", np.full((16, 16, 3), 128, np.uint8))[1].tobytes())
    at = data.index(b"\xff\xc0")
    data[at + 5:at + 9] = struct.pack(">HH", height, width)
    return bytes(data)


def test_a_file_whose_header_claims_an_absurd_size_is_refused_unread(tmp_path, monkeypatch):
    (tmp_path / "bomb.png").write_bytes(_png_claiming(50_000, 50_000))
    (tmp_path / "bomb.jpg").write_bytes(_jpeg_claiming(20_000, 15_000))       # 300 megapixels
    (tmp_path / "fine.jpg").write_bytes(_jpeg_claiming(16, 16))

    def decode(*_):
        raise AssertionError("decoded")

    imdecode = cv2.imdecode

    for name, said in (("bomb.png", "decompression bomb"), ("bomb.jpg", "20000x15000")):
        with monkeypatch.context() as m:
            m.setattr(cv2, "imdecode", decode)
            _, size, why = read_one(_Fixed(), tmp_path / name, 0.05)
        assert size is None and name in why and "refused unread" in why and said in why, why
    assert read_one(_Fixed(), tmp_path / "fine.jpg", 0.05)[1] == (16, 16)
    _, size, why = read_one(_Fixed(), tmp_path / "missing.jpg", 0.05)
    assert size is None and "no such image file" in why
    # a 200 MP phone photo passes (Pillow's own check would refuse it as a bomb), decoded at an
    # eighth of its size (its data is 16x16 pixels: libjpeg fills in the rest grey)
    (tmp_path / "phone.jpg").write_bytes(_jpeg_claiming(16320, 12240))
    decoded = []
    monkeypatch.setattr(cv2, "imdecode", lambda data, flags: decoded.append(flags) or imdecode(data, flags))
    image, size = load_bounded(tmp_path / "phone.jpg")
    assert size == (16320, 12240) and image.shape == (round(12240 * MAX_SIDE / 16320), MAX_SIDE, 3)
    assert decoded == [cv2.IMREAD_REDUCED_COLOR_8]


# --------------------------------------------------------------------- a photo that fails, alone
DIES, FAILS, HANGS = (321, 123), (322, 123), (323, 123)      # photos of these sizes are the bad ones


class Flaky(TableReader):
    """A reader that is killed at once (as when memory runs out), raises, or hangs on a photo of
    one of the sizes above, and reads any other as the reader it is. Defined at the top of the
    module, so that worker processes make it again from its settings, as they make the reader."""

    def read(self, image, threshold):
        h, w = image.shape[:2]
        if (w, h) == DIES:
            os.kill(os.getpid(), signal.SIGKILL)
        if (w, h) == FAILS:
            raise RuntimeError("a bug in one step")
        if (w, h) == HANGS:
            time.sleep(600)
        return super().read(image, threshold)


def _flaky_photos(tmp_path):
    paths = _photos(tmp_path)
    for (w, h), name in ((DIES, "dies.png"), (FAILS, "fails.png"), (HANGS, "hangs.png")):
        cv2.imwrite(str(tmp_path / name), np.full((h, w, 3), 200, np.uint8))
    d, f, hg = (str(tmp_path / n) for n in ("dies.png", "fails.png", "hangs.png"))
    return [str(paths[0]), d, str(paths[1]), f, hg, str(paths[2]), str(paths[3])]


def test_a_reader_that_fails_on_one_photo_costs_only_that_photo_one_by_one(tmp_path):
    paths = [p for p in _flaky_photos(tmp_path) if not p.endswith(("dies.png", "hangs.png"))]
    got = _plain(read_photos(Flaky("standard"), paths, 0.05, jobs=1))
    assert [p for p, _, _ in got] == paths
    fails = paths.index(str(tmp_path / "fails.png"))
    assert got[fails][1] is None and "fails.png" in got[fails][2] and "RuntimeError: a bug in one step" in got[fails][2]
    assert got[:fails] + got[fails + 1:] == _plain(read_photos(TableReader("standard"), paths[:fails] + paths[fails + 1:],
                                                               0.05, jobs=1))


def test_a_worker_that_dies_fails_or_hangs_costs_only_its_photo(tmp_path):
    paths = _flaky_photos(tmp_path)
    got = _plain(read_photos(Flaky("standard"), paths, 0.05, jobs=2, timeout=8))
    assert [p for p, _, _ in got] == paths
    why = {os.path.basename(p): reads for p, size, reads in got if size is None}
    assert sorted(why) == ["broken.jpg", "dies.png", "fails.png", "hangs.png"]
    assert "died" in why["dies.png"] and "SIGKILL" in why["dies.png"]
    assert "time limit of 8 s" in why["hangs.png"]
    # an error is told as it is when read in this process; the other photos read as one by one
    assert why["fails.png"] == read_one(Flaky("standard"), str(tmp_path / "fails.png"), 0.05)[2]
    good = [p for p in paths if os.path.basename(p) not in why]
    assert [g for g in got if g[1] is not None] == _plain(read_photos(TableReader("standard"), good, 0.05, jobs=1))
    assert len(good) == 3


def test_a_reader_whose_class_cannot_be_made_again_reads_in_this_process(tmp_path):
    class Local(TableReader):                  # not importable by a worker process
        pass

    paths = _photos(tmp_path)[:2]
    assert photos._remade(Local("standard")) is None
    assert [p for p, _, _ in read_photos(Local("standard"), paths, 0.5, jobs=2)] == [str(p) for p in paths]
