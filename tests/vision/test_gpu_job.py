"""The prepared GPU call (vision/train/gpu.py): its bundle holds what the GPU machine lacks, puts it
where this machine has it without overwriting anything, and fits in one call."""
import subprocess

import numpy as np
import pytest

from vision.art import own
from vision.synth import clutter
from vision.train import gpu
from test_synth_clutter import write_pattern


@pytest.fixture
def pictures(tmp_path, monkeypatch):
    """Made-up patterns and photographs in place of the Debian packages', one photo larger than the
    clutter keeps."""
    import cv2
    rng = np.random.default_rng(5)
    (tmp_path / "pat" / "Stone").mkdir(parents=True)
    (tmp_path / "photos").mkdir()
    write_pattern(tmp_path / "pat" / "Stone" / "s.pat", rng.integers(0, 256, (40, 50, 3)))
    cv2.imwrite(str(tmp_path / "photos" / "big.png"),
                cv2.GaussianBlur(rng.integers(0, 256, (1200, 1600, 3)).astype(np.uint8), (0, 0), 4))
    cv2.imwrite(str(tmp_path / "photos" / "small.jpg"),
                cv2.GaussianBlur(rng.integers(0, 256, (200, 300, 3)).astype(np.uint8), (0, 0), 4))
    monkeypatch.setattr(clutter, "PATTERNS", tmp_path / "pat")
    monkeypatch.setattr(clutter, "PHOTOS", tmp_path / "photos")
    yield tmp_path
    clutter._pictures.cache_clear()


def test_the_fonts_are_every_font_the_own_decks_are_drawn_in():
    fonts = set(gpu.font_files())
    named = {getattr(st, f) for st in own.STYLES for f in ("index_font", "big_font", "word_font")}
    assert {str(f) for f in fonts} == named
    assert all(f.is_file() for f in fonts)


def test_the_bundle_puts_fonts_and_pictures_where_they_are_here_and_overwrites_nothing(pictures, tmp_path):
    bundle = gpu.bundle(tmp_path / "bundle", wheels=False)
    rootfs = bundle / "root"
    for font in gpu.font_files():
        assert (rootfs / font.relative_to("/")).read_bytes() == font.read_bytes()
    target = tmp_path / "machine"
    pattern = (pictures / "pat" / "Stone" / "s.pat").relative_to("/")
    (target / pattern).parent.mkdir(parents=True)
    (target / pattern).write_bytes(b"already there")
    put = gpu.install_files(rootfs, target)
    assert put == sum(1 for p in rootfs.rglob("*") if p.is_file()) - 1
    assert (target / pattern).read_bytes() == b"already there"
    assert gpu.install_files(rootfs, target) == 0
    (target / pattern).unlink()
    gpu.install_files(rootfs, target)
    here = clutter._pictures(pictures / "pat", pictures / "photos")
    there = clutter._pictures(target / pictures.relative_to("/") / "pat", target / pictures.relative_to("/") / "photos")
    assert len(here[0]) == len(there[0]) == 1 and np.array_equal(here[0][0], there[0][0])
    assert len(here[1]) == len(there[1]) == 2
    for a, b in zip(here[1], there[1]):            # the photos travel shrunk, as JPEG: the same size, nearly the same
        assert a.shape == b.shape and max(a.shape[:2]) <= clutter.LONGEST
        assert np.abs(a.astype(int) - b.astype(int)).mean() < 3


def test_without_the_pictures_the_bundle_says_which_packages(tmp_path, monkeypatch):
    monkeypatch.setattr(clutter, "PATTERNS", tmp_path / "none")
    monkeypatch.setattr(clutter, "PHOTOS", tmp_path / "none")
    clutter._pictures.cache_clear()
    with pytest.raises(clutter.ClutterMissing, match="gimp-data"):
        gpu.bundle(tmp_path / "bundle", wheels=False)
    clutter._pictures.cache_clear()


def test_results_are_read_as_polars_would_give_them_to_the_checkpoint(tmp_path):
    path = tmp_path / "results.csv"
    path.write_text("                  epoch,  train/box_loss,  metrics/mAP50(B),note\n"
                    "                      1,         0.873,           0.761,a\n"
                    "                      2,         0.851,           0.77,b\n")
    assert gpu.read_results(path) == {"epoch": [1.0, 2.0], "train/box_loss": [0.873, 0.851],
                                      "metrics/mAP50(B)": [0.761, 0.77], "note": ["a", "b"]}
    assert gpu.read_results(tmp_path / "none.csv") == {}


def test_the_call_fits_and_carries_only_ignored_paths():
    assert gpu.tracked_mb() < gpu.LIMIT_MB - 25      # room for the standard art (13 MiB) and the bundle (8 MiB)
    for path in gpu.CARRY:
        assert subprocess.run(["git", "check-ignore", "-q", path], cwd=gpu.ROOT).returncode == 0, path
    seeds = [seed for _, _, seed, _ in gpu.RECIPE]
    assert len(set(seeds)) == len(seeds)
    assert "--minutes 9" in gpu.COMMAND.format(minutes=9) and "$OUT/log.txt" in gpu.COMMAND


def test_loading_workers_are_as_many_as_the_shared_memory_holds(tmp_path, monkeypatch):
    batch_bytes = 128 * 3 * 320 * 320                   # one batch of images, uint8
    free = {"bytes": 64 * 2 ** 20}                       # a container's default /dev/shm
    monkeypatch.setattr(gpu.shutil, "disk_usage", lambda path: type("U", (), {"free": free["bytes"]})())
    assert gpu.loader_workers(14, 128, shm=tmp_path) == 0
    free["bytes"] = 2 * 2 * batch_bytes * 5              # five workers' two batches, twice over
    assert gpu.loader_workers(14, 128, shm=tmp_path) == 5
    free["bytes"] = 2 ** 40
    assert gpu.loader_workers(14, 128, shm=tmp_path) == 14
    monkeypatch.undo()
    assert gpu.loader_workers(14, 128, shm=tmp_path / "missing") == 0
