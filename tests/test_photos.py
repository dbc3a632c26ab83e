"""Many photos read at once (vision/photos.py): the same readings, in order, as one by one."""
import json

import cv2
import pytest

from vision.detector import Detector
from vision.photos import jobs_for, read_photos
from vision.reader import MODELS, PHOTO_PASSES, TableReader
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
    reader = TableReader("standard", passes=PHOTO_PASSES, cut=True)
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
    reader.passes, reader.cut, reader.zoom, reader.indices = PHOTO_PASSES, True, 6, True   # as warref eval sets it
    again = TableReader(**reader.settings())
    assert again.settings() == reader.settings()
    assert (again.passes, again.cut, again.zoom, again.indices) == (PHOTO_PASSES, True, 6, True)


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
