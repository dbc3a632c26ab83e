"""The synthetic scene generator: labels against the renderer's own geometry, determinism,
class coverage, and the files a dataset is made of."""
import json
import math

import cv2
import numpy as np
import pytest

from referee.deck import load_deck
from vision.synth import dataset
from vision.synth.render import MIN_VISIBLE_PX, OCCLUDED_BELOW


@pytest.fixture(scope="module")
def woolly():
    return dataset.load("woolly")


def inside(points_xy: np.ndarray, polygon, tolerance: float) -> np.ndarray:
    poly = np.asarray(polygon, np.float32).reshape(-1, 1, 2)
    return np.array([cv2.pointPolygonTest(poly, (float(x), float(y)), True) >= -tolerance
                     for x, y in points_xy])


def test_every_box_encloses_its_cards_visible_area(woolly):
    deck, codes = woolly
    checked = 0
    for index in range(12):
        sc = dataset.scene("woolly", deck, codes, seed=5, index=index, keep_mask=True)
        labelled = {label["instance"] for label in sc.labels}
        for label in sc.labels:
            ys, xs = np.nonzero(sc.mask == label["instance"])
            assert len(xs) >= MIN_VISIBLE_PX
            pts = np.column_stack([xs, ys])
            x0, y0, x1, y1 = label["box"]
            assert xs.min() >= x0 and ys.min() >= y0 and xs.max() < x1 and ys.max() < y1
            assert (x0, y0, x1, y1) == (xs.min(), ys.min(), xs.max() + 1, ys.max() + 1)
            sample = pts[:: max(1, len(pts) // 400)]
            assert inside(sample, label["obb"], 0.75).all()          # the oriented box
            assert inside(sample, label["corners"], 3.0).all()       # the whole card's outline
            assert label["occluded"] == (label["visible"] < OCCLUDED_BELOW)
            checked += 1
        # a card that is not labelled is (nearly) hidden: no more than a sliver of it shows
        ids, counts = np.unique(sc.mask[sc.mask > 0], return_counts=True)
        for i, n in zip(ids, counts):
            if i not in labelled:
                assert n < 0.06 * sc.mask.size
    assert checked > 50


def test_corner_index_boxes_lie_in_the_card_and_show(woolly):
    deck, codes = woolly
    seen = 0
    for index in range(8):
        sc = dataset.scene("woolly", deck, codes, seed=6, index=index, keep_mask=True)
        for label in sc.labels:
            for x0, y0, x1, y1 in label.get("index_boxes", []):
                centre = np.array([[(x0 + x1) / 2, (y0 + y1) / 2]])
                assert inside(centre, label["corners"], 1.0).all()
                patch = sc.mask[y0:y1, x0:x1]
                assert (patch == label["instance"]).mean() > 0.5      # mostly the card itself
                seen += 1
            assert label.get("index_visible", False) == bool(label.get("index_boxes"))
    assert seen > 10


def test_labels_name_real_cards_and_crops_are_upright_face_up_cards(woolly):
    deck, codes = woolly
    sc = dataset.scene("woolly", deck, codes, seed=9, index=3)
    assert sc.labels
    for label in sc.labels:
        assert label["card"] in codes or (label["card"] == "BACK" and not label["face_up"])
    for code, crop in sc.crops:
        assert code in codes and crop.shape == (280, 200, 3)


def test_same_seed_same_bytes_whatever_the_number_of_jobs(tmp_path):
    one = dataset.generate("namikopy", 4, tmp_path / "one", seed=3, jobs=1)
    two = dataset.generate("namikopy", 4, tmp_path / "two", seed=3, jobs=2)
    assert one == two
    files = sorted(p.relative_to(tmp_path / "one") for p in (tmp_path / "one").rglob("*")
                   if p.is_file() and p.suffix != ".yaml")
    assert len(files) > 12
    for f in files:
        assert (tmp_path / "one" / f).read_bytes() == (tmp_path / "two" / f).read_bytes(), f
    other = dataset.generate("namikopy", 2, tmp_path / "other", seed=4, jobs=1)
    assert (tmp_path / "other/images/val/000000.jpg").read_bytes() != \
        (tmp_path / "one/images/val/000000.jpg").read_bytes()
    assert other["scenes"] == 2


@pytest.mark.parametrize("deck_id", ["namikopy", "woolly"])
def test_every_card_class_appears(tmp_path, deck_id):
    """Any ceil(classes / FEATURED_PER_SCENE) scenes in a row feature every class, and a scene
    shows the cards it features face up (so a dataset that long labels every class)."""
    codes = [c.code for c in load_deck(deck_id).cards]
    scenes = math.ceil(len(codes) / dataset.FEATURED_PER_SCENE)
    for start in (0, 5):
        shown = {c for i in range(start, start + scenes) for c in dataset.featured(codes, 11, i)}
        assert shown == set(codes)
    manifest = dataset.generate(deck_id, 3, tmp_path, seed=11, jobs=1)
    for index in range(3):
        record = json.loads(next((tmp_path / "scenes").rglob(f"{index:06d}.json")).read_text())
        faces = {label["card"] for label in record["cards"] if label["face_up"]}
        assert set(dataset.featured(codes, 11, index)) <= faces
    assert manifest["back_labels"] > 0


def test_dataset_files_follow_the_yolo_obb_format(tmp_path):
    manifest = dataset.generate("namikopy", 3, tmp_path, seed=2, jobs=1)
    assert manifest["train"] == 2 and manifest["val"] == 1
    for txt in (tmp_path / "labels").rglob("*.txt"):
        record = json.loads((tmp_path / "scenes" / txt.parent.name / f"{txt.stem}.json").read_text())
        lines = txt.read_text().splitlines()
        assert len(lines) == len(record["cards"])
        for line, label in zip(lines, record["cards"]):
            values = line.split()
            assert len(values) == 9 and values[0] == ("0" if label["face_up"] else "1")
            assert all(0 <= float(v) <= 1 for v in values[1:])
        image = cv2.imread(str(tmp_path / record["image"]))
        assert image.shape[:2] == (record["height"], record["width"])
    yaml = (tmp_path / "data.yaml").read_text()
    assert "0: card" in yaml and "1: back" in yaml and str(tmp_path.resolve()) in yaml
    for sheet in ("contact_sheet.png", "crops_sheet.png"):
        assert cv2.imread(str(tmp_path / sheet)) is not None


def test_featured_cards_walk_through_every_class():
    codes = [c.code for c in load_deck("woolly").cards]
    seen = {c for i in range(math.ceil(len(codes) / 2)) for c in dataset.featured(codes, 7, i)}
    assert seen == set(codes)


def test_workers_start_cleanly_after_the_parent_has_rendered(tmp_path):
    """A forked worker could deadlock once OpenCV's threads ran in the parent; workers are spawned."""
    import subprocess
    import sys
    code = ("from pathlib import Path\nfrom vision.synth import dataset\n"
            "deck, codes = dataset.load('namikopy')\n"
            "for i in range(3): dataset.scene('namikopy', deck, codes, 1, i)\n"
            f"print(dataset.generate('namikopy', 4, Path({str(tmp_path)!r}), 1, jobs=2)['scenes'])\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=240)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().endswith("4")


def test_rows_lay_out_overlapping_cards_whose_strips_are_boxed_as_seen(woolly):
    """``--rows``: rows of cards slid along each other, most showing only a strip, each labelled by
    the box of what shows of it; without it a seed still gives exactly the scenes it gave before."""
    deck, codes = woolly
    strips = rows = 0
    for index in range(10):
        plain = dataset.scene("woolly", deck, codes, seed=8, index=index)
        assert all(label["role"] != "row" for label in plain.labels)
        again = dataset.scene("woolly", deck, codes, seed=8, index=index)
        assert np.array_equal(plain.image, again.image)
        sc = dataset.scene("woolly", deck, codes, seed=8, index=index, keep_mask=True, rows=True)
        in_rows = [label for label in sc.labels if label["role"] == "row"]
        rows += bool(in_rows)
        for label in in_rows:
            box_area = cv2.contourArea(np.array(label["obb"], np.float32))
            card_area = cv2.contourArea(np.array(label["corners"], np.float32))
            assert box_area <= card_area * 1.2     # what shows, never much more than the card (pixels, lens)
            strips += label["visible"] < 0.7 and box_area < 0.8 * card_area
    assert rows >= 5 and strips >= 10


def test_detector_set_takes_a_number_of_scenes_per_source(tmp_path):
    from vision.train.detector import prepare
    for name, seed in (("a", 1), ("b", 2)):
        dataset.generate("namikopy", 10, tmp_path / name, seed=seed, jobs=1)   # 9 train, 1 val each
    plain = prepare([tmp_path / "a", tmp_path / "b"], tmp_path / "plain", per_source=[2, 5], quiet=True)
    assert all(cv2.imread(str(p)).shape[:2] != (640, 640)                # by default no frame is stretched
               for p in (plain.parent / "images" / "train").glob("*.jpg") if not p.stem.endswith("z"))
    data = prepare([tmp_path / "a", tmp_path / "b"], tmp_path / "set", per_source=[2, 5], quiet=True, stretch=0.5)
    train = sorted(p.name for p in (data.parent / "images" / "train").glob("*.jpg"))
    assert sum(p.startswith("a-") for p in train) == 2 * 2 and sum(p.startswith("b-") for p in train) == 2 * 5
    assert len(list((data.parent / "labels" / "train").glob("*.txt"))) == len(train)
    frames = [p for p in (data.parent / "images" / "train").glob("*.jpg") if not p.stem.endswith("z")]
    square = [p for p in frames if cv2.imread(str(p)).shape[:2] == (640, 640)]
    assert 0 < len(square) < len(frames)             # some full frames stretched square, as exports are
    for p in square:                                  # ... their boxes still rectangles around the cards
        for line in (data.parent / "labels" / "train" / (p.stem + ".txt")).read_text().split("\n")[:-1]:
            q = np.array(line.split()[1:], float).reshape(4, 2) * 640
            if (q > 0).all() and (q < 640).all():               # (a box over the edge is clipped to it)
                a, b = q[1] - q[0], q[2] - q[1]
                assert abs(np.dot(a, b)) < 0.01 * np.linalg.norm(a) * np.linalg.norm(b)
    with pytest.raises(ValueError, match="one per source"):
        prepare([tmp_path / "a", tmp_path / "b"], tmp_path / "set", per_source=[2, 5, 1], quiet=True)
    assert len(list((data.parent / "images" / "train").glob("*.jpg"))) == len(train)   # refused before touching it


def test_close_ups_are_one_to_four_large_cards_often_cut_by_the_frame(woolly):
    """``--close-ups``: a phone over a few cards, each labelled as in any scene (boxes of what shows)."""
    deck, codes = woolly
    widths, cut, frames = [], 0, set()
    for index in range(6):
        sc = dataset.scene("woolly", deck, codes, seed=51, index=index, keep_mask=True, close_ups=True)
        h, w = sc.image.shape[:2]
        frames.add((w, h))
        assert (w, h) in {(1280, 960), (960, 1280), (1280, 720), (720, 1280)}
        assert sc.info["close_up"] and 1 <= len(sc.labels) <= 4
        for label in sc.labels:
            assert label["role"] == "close"
            assert label["card"] in codes or (label["card"] == "BACK" and not label["face_up"])
            ys, xs = np.nonzero(sc.mask == label["instance"])
            x0, y0, x1, y1 = label["box"]
            assert (x0, y0, x1, y1) == (xs.min(), ys.min(), xs.max() + 1, ys.max() + 1)
            sample = np.column_stack([xs, ys])[:: max(1, len(xs) // 300)]
            assert inside(sample, label["obb"], 0.75).all()
            assert inside(sample, label["corners"], 3.0).all()
            corners = np.array(label["corners"])
            if label["face_up"]:
                widths.append(np.linalg.norm(corners[1] - corners[0]))
            cut += bool((corners < 0).any() or (corners[:, 0] > w).any() or (corners[:, 1] > h).any())
        for line in dataset.yolo_lines(sc):
            values = line.split()
            assert len(values) == 9 and all(0 <= float(v) <= 1 for v in values[1:])
    assert np.median(widths) > 200 and cut >= 3 and len(frames) >= 2


def test_tube_glare_draws_long_parallel_bright_stripes_strongest_where_glossy():
    from vision.synth import effects
    h, w = 480, 640
    glossy = np.ones((h, w), np.float32)
    img = np.full((h, w, 3), 0.4, np.float32)
    assert effects.tube_glare(img, np.random.default_rng(3), glossy, count=1) == 1
    bright = img[..., 0] > 0.75
    assert 0.01 < bright.mean() < 0.3
    ys, xs = np.nonzero(bright)
    spread = np.sort(np.linalg.eigvalsh(np.cov(np.stack([xs, ys]))))
    assert spread[1] > 25 * spread[0]                      # a long, thin stripe ...
    edges = [bright[0].any(), bright[-1].any(), bright[:, 0].any(), bright[:, -1].any()]
    assert sum(edges) >= 2                                 # ... across the whole frame
    matte = np.full((h, w, 3), 0.4, np.float32)
    effects.tube_glare(matte, np.random.default_rng(3), np.zeros((h, w), np.float32), count=1)
    assert (matte - 0.4).max() < 0.5 * (img - 0.4).max()   # faint on a matte surface
    several = np.full((h, w, 3), 0.4, np.float32)
    assert effects.tube_glare(several, np.random.default_rng(4), glossy, count=3) == 3
    assert np.allclose(several[..., 0], several[..., 2])   # white light: grey stays grey


# scenes 0 and 1 of woolly seed 8 as rendered before close-ups existed: their labels' geometry and
# every effect's parameters (font-independent, unlike the JPEG bytes)
BEFORE_CLOSE_UPS = ["dd06fadf1730bd06", "7c6dcf3f28cde736"]


def test_without_close_ups_a_seed_gives_the_scenes_it_gave_before(woolly):
    import hashlib
    deck, codes = woolly
    for index, expected in enumerate(BEFORE_CLOSE_UPS):
        sc = dataset.scene("woolly", deck, codes, seed=8, index=index)
        what = [sc.info] + [[l["card"], l["role"], l["corners"], l["visible"]] for l in sc.labels]
        assert hashlib.sha256(json.dumps(what, sort_keys=True).encode()).hexdigest()[:16] == expected
        off = dataset.scene("woolly", deck, codes, seed=8, index=index, close_ups=False)
        assert off.jpeg == sc.jpeg
        close = dataset.scene("woolly", deck, codes, seed=8, index=index, close_ups=True)
        assert close.jpeg != sc.jpeg and "close_up" not in sc.info


def test_close_up_datasets_say_so_and_some_are_black_and_white(tmp_path):
    manifest = dataset.generate("woolly", 2, tmp_path, seed=51, jobs=1, close_ups=True)
    assert manifest["close_ups"] is True and manifest["rows"] is False
    deck, codes = dataset.load("woolly")
    mono = [sc for sc in (dataset.scene("woolly", deck, codes, 52, i, close_ups=True) for i in range(8))
            if sc.info["mono"]]
    assert mono
    for sc in mono:
        decoded = cv2.imdecode(np.frombuffer(sc.jpeg, np.uint8), cv2.IMREAD_COLOR).astype(int)
        assert np.abs(decoded[..., 0] - decoded[..., 2]).max() <= 2
