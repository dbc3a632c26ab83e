"""A cheap webcam's look for the synthetic scenes and reader views (``effects.webcam``), and
webcam-like copies of the labelled real photo sets (``vision.lab.webcam``)."""
import json
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.lab import realcards, webcam
from vision.synth import effects
from vision.train import reader_set

STAGES = ("DEFOCUS", "MOTION", "EXPOSURE", "CAST", "NOISE", "DOTS", "LOW_RES", "JPEG")


def sharp_card(h: int = 240, w: int = 320) -> np.ndarray:
    """A white card with black and red print on a grey table: float32 RGB in [0, 1], sharp edges."""
    img = np.full((h, w, 3), 115, np.uint8)
    cv2.rectangle(img, (60, 30), (260, 220), (242, 242, 237), -1)
    cv2.putText(img, "K", (72, 80), cv2.FONT_HERSHEY_SIMPLEX, 1.6, (12, 12, 12), 3)
    cv2.putText(img, "10", (150, 180), cv2.FONT_HERSHEY_SIMPLEX, 1.4, (204, 25, 25), 3)
    for x in range(80, 250, 12):
        cv2.line(img, (x, 190), (x + 6, 210), (25, 25, 25), 1)
    return img.astype(np.float32) / 255


def sharpness(img: np.ndarray) -> float:
    grey = cv2.cvtColor(np.clip(img * 255, 0, 255).astype(np.uint8), cv2.COLOR_RGB2GRAY)
    return float(cv2.Laplacian(grey, cv2.CV_64F).var())


def noise_sigma(img: np.ndarray) -> float:
    """Immerkaer's estimate of the noise standard deviation of a picture (grey levels 0-255)."""
    grey = cv2.cvtColor(np.clip(img * 255, 0, 255).astype(np.uint8), cv2.COLOR_RGB2GRAY).astype(np.float64)
    m = np.array([[1, -2, 1], [-2, 4, -2], [1, -2, 1]], np.float64)
    h, w = grey.shape
    return float(np.abs(cv2.filter2D(grey, -1, m))[1:-1, 1:-1].sum() * np.sqrt(np.pi / 2) / (6 * (w - 2) * (h - 2)))


def only(monkeypatch, *stages):
    """The webcam look with just these stages, always."""
    for stage in STAGES:
        monkeypatch.setattr(effects, f"WEBCAM_{stage}", 1.0 if stage in stages else 0.0)


def test_webcam_look_keeps_shape_and_dtype_and_is_deterministic_for_a_seed():
    img = sharp_card()
    a = effects.webcam(img, np.random.default_rng(7))
    assert a.shape == img.shape and a.dtype == img.dtype and 0 <= a.min() and a.max() <= 1
    assert np.array_equal(a, effects.webcam(img, np.random.default_rng(7)))
    assert not np.array_equal(a, effects.webcam(img, np.random.default_rng(8)))
    assert np.array_equal(img, sharp_card())                              # the input is left alone
    bgr = (img[..., ::-1] * 255).astype(np.uint8)
    b = effects.webcam(bgr, np.random.default_rng(7), bgr=True)
    assert b.shape == bgr.shape and b.dtype == np.uint8
    grey = bgr[..., 0].copy()
    assert effects.webcam(grey, np.random.default_rng(7)).shape == grey.shape
    # strength 0: at most the JPEG's rounding
    assert np.abs(effects.webcam(img, np.random.default_rng(3), strength=0) - img).mean() < 0.01


def test_webcam_look_on_average_blurs_and_adds_noise():
    img, flat = sharp_card(), np.full((240, 320, 3), 0.5, np.float32)
    seeds = range(24)
    assert np.median([sharpness(effects.webcam(img, np.random.default_rng(s))) for s in seeds]) < 0.5 * sharpness(img)
    noise = [noise_sigma(effects.webcam(flat, np.random.default_rng(s))) for s in seeds]
    assert noise_sigma(flat) == 0 and np.median(noise) > 0.5 and np.mean(np.array(noise) > 0.2) > 2 / 3


def test_webcam_optics_and_low_resolution_blur(monkeypatch):
    img = sharp_card()
    for stages in (("DEFOCUS",), ("MOTION",), ("LOW_RES",)):
        only(monkeypatch, *stages)
        for seed in range(3):
            info = {}
            out = effects.webcam(img, np.random.default_rng(seed), info=info)
            assert sharpness(out) < 0.7 * sharpness(img), (stages, info)
            assert np.abs(out.mean() - img.mean()) < 0.02                  # blur keeps the light


def test_webcam_noise_is_stronger_in_a_dark_picture(monkeypatch):
    only(monkeypatch, "NOISE")
    dark, bright = (np.full((200, 200, 3), v, np.float32) for v in (0.15, 0.6))
    for seed in range(3):
        d, b = (effects.webcam(x, np.random.default_rng(seed)) for x in (dark, bright))
        assert noise_sigma(b) > 0.5
        assert noise_sigma(d) > 1.8 * noise_sigma(b)
        spread = (d - dark).reshape(-1, 3)
        assert not np.allclose(spread[:, 0], spread[:, 1], atol=1e-3)      # colour noise, not only luma


def test_webcam_dots_exposure_cast_and_jpeg(monkeypatch):
    grey = np.full((200, 200, 3), 0.5, np.float32)
    only(monkeypatch, "DOTS")
    info = {}
    out = effects.webcam(grey, np.random.default_rng(1), info=info)
    odd = (np.abs(out - 0.5).max(axis=2) > 0.4).sum()
    assert 0.0003 * 200 * 200 <= odd <= info["dots"] and info["dots"] <= 0.004 * 200 * 200 + 1
    only(monkeypatch, "EXPOSURE")
    levels = [float(effects.webcam(grey, np.random.default_rng(s)).mean()) for s in range(10)]
    assert min(levels) < 0.4 and max(levels) > 0.55                        # under and over exposed
    only(monkeypatch, "CAST")
    out = effects.webcam(grey, np.random.default_rng(2))
    assert np.ptp(out.reshape(-1, 3).mean(0)) > 0.005                       # tinted
    only(monkeypatch, "JPEG")
    info = {}
    out = effects.webcam(sharp_card(), np.random.default_rng(2), info=info)
    assert 30 <= info["jpeg"] <= 80 and 0.002 < np.abs(out - sharp_card()).mean() < 0.05


def test_sensor_gives_a_share_of_scenes_the_webcam_look_and_leaves_the_rest_as_before():
    assert 0.3 <= effects.WEBCAM_SHARE <= 0.4
    img = sharp_card()
    looks = 0
    for seed in range(60):
        plain, look = img.copy(), img.copy()
        r0, r1 = np.random.default_rng([seed, 0]), np.random.default_rng([seed, 0])
        assert set(effects.sensor(plain, r0, webcam_share=0)) == {"awb", "noise"}
        out = effects.sensor(look, r1)
        assert r0.random() == r1.random()       # the scene's own stream goes on as it would have
        if "webcam" in out:
            looks += 1
            assert not np.array_equal(look, plain)
        else:
            assert np.array_equal(look, plain)
    assert 0.2 <= looks / 60 <= 0.5
    always = img.copy()
    assert "webcam" in effects.sensor(always, np.random.default_rng(1), webcam_share=1.0)


def test_reader_set_adds_the_look_only_to_datasets_rendered_without_it(tmp_path):
    for name, records in (("old", [{"cards": []}] * 3), ("new", [{"cards": []}, {"webcam": {}, "cards": []}])):
        folder = tmp_path / name / "scenes" / "train"
        folder.mkdir(parents=True)
        for k, record in enumerate(records):
            (folder / f"{k:06d}.json").write_text(json.dumps(record))
    assert not reader_set.has_webcam_look(tmp_path / "old") and reader_set.has_webcam_look(tmp_path / "new")
    frame = (sharp_card()[..., ::-1] * 255).astype(np.uint8)
    rng = np.random.default_rng(0)
    changed = [not np.array_equal(reader_set.webcam_look(frame, rng, 0.35), frame) for _ in range(40)]
    assert 0.15 < np.mean(changed) < 0.6
    assert reader_set.webcam_look(frame, rng, 0.0) is frame


# --- webcam copies of a labelled photo set ----------------------------------------------------

PHONE = realcards.DEFAULT_ROOT / "phone"
needs_phone = pytest.mark.skipif(not (PHONE / "classes.txt").is_file(), reason="no ../shared/realcards/phone")


def small_set(root: Path, name: str = "phone", count: int = 4) -> Path:
    """A few photos of a real set (or, where the shared photos are missing, drawn ones labelled
    like phone/: corner boxes) under ``root``/``name``."""
    out = root / name
    (out / "images").mkdir(parents=True)
    (out / "labels").mkdir()
    src = realcards.DEFAULT_ROOT / name
    if (src / "classes.txt").is_file():
        shutil.copyfile(src / "classes.txt", out / "classes.txt")
        for image in sorted((src / "images").iterdir())[:count]:
            shutil.copyfile(image, out / "images" / image.name)
            label = src / "labels" / f"{image.stem}.txt"
            if label.is_file():
                shutil.copyfile(label, out / "labels" / label.name)
        return out
    (out / "classes.txt").write_text("AC\nKS\n")
    for k in range(count):
        img = (np.random.default_rng(k).random((640, 640, 3)) * 255).astype(np.uint8)
        cv2.imwrite(str(out / "images" / f"p{k}.jpg"), img)
        (out / "labels" / f"p{k}.txt").write_text(f"0 0.3 0.3 0.1 0.15\n1 0.6 0.6 0.1 {0.12 + 0.02 * k}\n")
    return out


@needs_phone
def test_webcam_copy_of_a_phone_photo_has_indices_20_to_40_px_tall():
    for photo in realcards.load("phone")[:40:8]:
        heights = webcam.index_heights("phone", photo)
        assert heights == [label.box[3] - label.box[1] for label in photo.labels]
        image = cv2.imread(str(photo.path))
        copy = webcam.webcam_copy(image, heights, np.random.default_rng(5))
        assert copy.dtype == np.uint8 and copy.shape[2] == 3
        assert copy.shape[0] <= image.shape[0] and copy.shape[1] <= image.shape[1]
        scale = copy.shape[0] / image.shape[0]
        assert abs(copy.shape[1] / image.shape[1] - scale) < 0.02          # the same aspect: labels carry over
        median = float(np.median(heights))
        if median > webcam.INDEX_PX[1]:
            assert 19.5 <= median * scale <= 40.5, (photo.name, median, scale)
        resized = cv2.resize(image, copy.shape[1::-1], interpolation=cv2.INTER_AREA)
        assert sharpness(copy / 255.0) < 0.4 * sharpness(resized / 255.0)    # softened (a JPEG alone: 0.6-0.9)


def test_webcam_copy_never_enlarges_and_uses_the_edje_factor():
    image = np.full((300, 400, 3), 200, np.uint8)
    assert webcam.webcam_copy(image, [12.0, 15.0], np.random.default_rng(0)).shape == image.shape
    assert webcam.webcam_copy(image, [], np.random.default_rng(0)).shape == image.shape
    small = webcam.webcam_copy(image, [200.0], np.random.default_rng(0))
    assert 300 * 20 / 200 - 1 <= small.shape[0] <= 300 * 40 / 200 + 1
    photo = realcards.Photo(Path("x.jpg"), 400, 300, (realcards.Label("A", (10, 20, 110, 160)),))
    assert webcam.index_heights("edje", photo) == [pytest.approx(webcam.EDJE_INDEX_FACTOR * 140)]
    assert 0.17 <= webcam.EDJE_INDEX_FACTOR <= 0.21


def test_make_copy_is_deterministic_and_keeps_the_labels(tmp_path):
    real = tmp_path / "real"
    src = small_set(real)
    a = webcam.make_copy("phone", tmp_path / "a" / "phone", seed=0, root=real)
    b = webcam.make_copy("phone", tmp_path / "b" / "phone", seed=0, root=real)
    c = webcam.make_copy("phone", tmp_path / "c" / "phone", seed=1, root=real)
    assert a == tmp_path / "a" / "phone"
    files = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
    assert all((a / f).read_bytes() == (b / f).read_bytes() for f in files)
    assert any((a / f).read_bytes() != (c / f).read_bytes() for f in files if f.parts[0] == "images")
    for label in (src / "labels").iterdir():
        assert (a / "labels" / label.name).read_bytes() == label.read_bytes()
    assert (a / "classes.txt").read_bytes() == (src / "classes.txt").read_bytes()
    copied, original = realcards.load("phone", tmp_path / "a"), realcards.load("phone", real)
    assert [p.name for p in copied] == [p.name for p in original]
    for p, q in zip(copied, original):
        assert p.width <= q.width and p.height <= q.height
        assert [label.card for label in p.labels] == [label.card for label in q.labels]
        if np.median(webcam.index_heights("phone", q)) > webcam.INDEX_PX[1]:
            assert webcam.INDEX_PX[0] - 0.5 <= np.median(webcam.index_heights("phone", p)) <= webcam.INDEX_PX[1] + 0.5


def test_cached_copy_is_made_once_and_again_when_its_set_changes(tmp_path, monkeypatch):
    real = small_set(tmp_path / "real", count=2).parent
    calls = []
    make = webcam.make_copy
    monkeypatch.setattr(webcam, "make_copy", lambda *a, **k: calls.append(a) or make(*a, **k))
    first = webcam.cached("phone", cache=tmp_path / "cache", root=real)
    assert first == tmp_path / "cache" / "seed0" / "phone-webcam" and len(calls) == 1
    assert webcam.cached("phone", cache=tmp_path / "cache", root=real) == first and len(calls) == 1
    assert len(realcards.load("phone-webcam", first.parent)) == 2
    assert [p.name for p in first.parent.iterdir()] == ["phone-webcam"]      # no scratch left behind
    # without a folder, make_copy gives the cached copy: under another root than the shared one, in it
    assert make("phone", root=real) == real / webcam.OTHER_ROOTS / "seed0" / "phone-webcam"
    assert webcam.default_dir("phone") == webcam.CACHE / "seed0" / "phone-webcam"
    made = len(calls)
    extra = next((real / "phone" / "images").iterdir())
    shutil.copyfile(extra, extra.with_name("more.jpg"))
    assert len(realcards.load("phone-webcam", webcam.cached("phone", cache=tmp_path / "cache", root=real).parent)) == 3
    assert len(calls) == made + 1
    with pytest.raises(FileNotFoundError):
        webcam.make_copy("nosuchset", root=real)
