"""Busy tables (``warref synth --clutter``): GIMP patterns read right, a clear message without the
pictures, and labels that still say exactly what shows of each card with things under and over it."""
import json

import numpy as np
import pytest

from vision.synth import clutter, dataset, effects, held
from vision.synth.layout import Item


def write_pattern(path, pixels: np.ndarray, magic: bytes = b"GPAT") -> None:
    h, w, depth = pixels.shape
    name = b"test pattern\0"
    size = 24 + len(name)
    head = b"".join(v.to_bytes(4, "big") for v in (size, 1, w, h, depth)) + magic + name
    path.write_bytes(head + pixels.astype(np.uint8).tobytes())


@pytest.fixture
def pictures(tmp_path, monkeypatch):
    """A few made-up patterns and photographs in place of the Debian packages'."""
    import cv2
    rng = np.random.default_rng(3)
    (tmp_path / "pat" / "Wood").mkdir(parents=True)
    (tmp_path / "photos" / "nature").mkdir(parents=True)
    write_pattern(tmp_path / "pat" / "Wood" / "a.pat", rng.integers(0, 256, (48, 64, 3)))
    write_pattern(tmp_path / "pat" / "grey.pat", rng.integers(0, 256, (40, 40, 1)))
    write_pattern(tmp_path / "pat" / "tiny.pat", rng.integers(0, 256, (8, 8, 3)))      # too small: left out
    for k in range(2):
        cv2.imwrite(str(tmp_path / "photos" / "nature" / f"{k}.png"),
                    cv2.GaussianBlur(rng.integers(0, 256, (300, 420, 3)).astype(np.uint8), (0, 0), 3))
    monkeypatch.setattr(clutter, "PATTERNS", tmp_path / "pat")
    monkeypatch.setattr(clutter, "PHOTOS", tmp_path / "photos")
    yield clutter.pictures()
    clutter._pictures.cache_clear()


@pytest.fixture(scope="module")
def woolly():
    return dataset.load("woolly")


def test_gimp_patterns_are_read_pixel_for_pixel_and_a_bad_file_says_so(tmp_path):
    rng = np.random.default_rng(1)
    rgb = rng.integers(0, 256, (5, 7, 3)).astype(np.uint8)
    write_pattern(tmp_path / "rgb.pat", rgb)
    assert np.array_equal(clutter.read_pattern(tmp_path / "rgb.pat"), rgb)
    rgba = rng.integers(0, 256, (4, 6, 4)).astype(np.uint8)
    write_pattern(tmp_path / "rgba.pat", rgba)
    assert np.array_equal(clutter.read_pattern(tmp_path / "rgba.pat"), rgba[..., :3])
    grey = rng.integers(0, 256, (3, 5, 1)).astype(np.uint8)
    write_pattern(tmp_path / "grey.pat", grey)
    out = clutter.read_pattern(tmp_path / "grey.pat")
    assert out.shape == (3, 5, 3) and all(np.array_equal(out[..., c], grey[..., 0]) for c in range(3))
    write_pattern(tmp_path / "magic.pat", rgb, magic=b"GIMP")
    with pytest.raises(ValueError, match="not a GIMP pattern"):
        clutter.read_pattern(tmp_path / "magic.pat")
    (tmp_path / "short.pat").write_bytes((tmp_path / "rgb.pat").read_bytes()[:-10])
    with pytest.raises(ValueError, match="7x5x3 does not fit"):
        clutter.read_pattern(tmp_path / "short.pat")


def test_without_the_pictures_clutter_says_which_packages_to_install(tmp_path, monkeypatch, woolly):
    monkeypatch.setattr(clutter, "PATTERNS", tmp_path / "none")
    monkeypatch.setattr(clutter, "PHOTOS", tmp_path / "none")
    try:
        with pytest.raises(clutter.ClutterMissing, match="apt-get install gimp-data mate-backgrounds"):
            clutter.pictures()
        with pytest.raises(clutter.ClutterMissing):          # before any worker starts
            dataset.generate("woolly", 1, tmp_path / "set", seed=1, jobs=1, clutter=True)
    finally:
        clutter._pictures.cache_clear()


def test_pictures_leave_out_patterns_too_small_to_tile(pictures):
    pats, pics = pictures
    assert sorted(p.shape for p in pats) == [(40, 40, 3), (48, 64, 3)]
    assert len(pics) == 2 and all(p.dtype == np.uint8 and p.shape[2] == 3 for p in pics)


def test_things_lie_under_and_over_the_cards_and_are_not_cards(pictures):
    rng = np.random.default_rng(4)
    footprint = np.array([[-300, -200], [300, -200], [300, 200], [-300, 200]], float)
    cards = [Item(np.zeros((88, 63, 4), np.uint8), (63, 88), (100.0, 50.0), 0.0, "3R")]
    unders, overs, near = 0, 0, 0
    for _ in range(40):
        under, over = clutter.things(rng, footprint, cards)
        unders, overs = unders + len(under), overs + len(over)
        for item in under + over:
            assert item.card is None and item.role == "clutter"
            assert item.sprite.dtype == np.uint8 and item.sprite.shape[2] == 4 and item.sprite[..., 3].max() == 255
            assert 5 < min(item.size) and max(item.size) <= 320
        for item in over:
            assert max(item.size) <= 240                       # over a card: a knife, a toy, a small thing
            near += np.linalg.norm(np.subtract(item.centre, cards[0].centre)) < 150
    assert unders > 40 and 10 < overs < unders and near > overs / 2


def test_clutter_changes_nothing_unless_asked_and_labels_still_say_what_shows(pictures, woolly):
    deck, codes = woolly
    tables = []
    for index in range(6):
        plain = dataset.scene("woolly", deck, codes, seed=5, index=index)
        assert dataset.scene("woolly", deck, codes, seed=5, index=index, clutter=False).jpeg == plain.jpeg
        sc = dataset.scene("woolly", deck, codes, seed=5, index=index, keep_mask=True, clutter=True)
        assert sc.jpeg != plain.jpeg
        tables.append(sc.info["table"])
        for label in sc.labels:
            ys, xs = np.nonzero(sc.mask == label["instance"])
            assert tuple(label["box"]) == (xs.min(), ys.min(), xs.max() + 1, ys.max() + 1)
    assert 0 < tables.count("photographed") < 6


def test_a_thing_over_a_card_hides_what_it_covers_from_the_labels(pictures, woolly, monkeypatch):
    deck, codes = woolly
    bare = dataset.scene("woolly", deck, codes, seed=5, index=2, keep_mask=True, clutter=True)
    card = max(bare.labels, key=lambda label: label["visible"])

    def over_that_card(rng, footprint, cards):             # a wide board over the card's top half
        item = next(c for c in cards if c.card == card["card"])
        sprite = np.full((40, 400, 4), 255, np.uint8)
        top = np.asarray(item.corners()[:2]).mean(0)
        return [], [Item(sprite, (200.0, 20.0), (float(top[0]), float(top[1])), item.angle, None, "flat", "clutter")]

    monkeypatch.setattr(clutter, "things", over_that_card)
    covered = dataset.scene("woolly", deck, codes, seed=5, index=2, keep_mask=True, clutter=True)
    after = next((label for label in covered.labels if label["instance"] == card["instance"]), None)
    assert after is None or after["visible"] < card["visible"] - 0.1


def test_warref_synth_clutter_writes_busy_scenes_or_says_what_to_install(pictures, tmp_path, monkeypatch, capsys):
    from web.cli import main
    out = tmp_path / "busy"
    assert main(["synth", "--deck", "woolly", "--scenes", "3", "--seed", "5", "--out", str(out),
                 "--jobs", "1", "--clutter", "--quiet"]) == 0
    assert json.loads((out / "manifest.json").read_text())["clutter"] is True
    clutter._pictures.cache_clear()
    monkeypatch.setattr(clutter, "PATTERNS", tmp_path / "none")
    assert main(["synth", "--deck", "woolly", "--scenes", "1", "--out", str(tmp_path / "no"), "--jobs", "1",
                 "--clutter", "--quiet"]) == 1
    assert "apt-get install gimp-data" in capsys.readouterr().err


def test_held_up_cards_stand_large_before_a_room_with_the_webcam_look(pictures, woolly, tmp_path):
    """``--held-up``: one card (or two) large in a webcam frame, labelled as it shows; the frame a
    webcam's; the usual scenes unchanged; written by ``warref synth --held-up``."""
    from vision.synth import held
    from web.cli import main
    deck, codes = woolly
    sizes, people, rooms = [], 0, 0
    for index in range(8):
        sc = dataset.scene("woolly", deck, codes, seed=5, index=index, keep_mask=True, held_up=True)
        assert (sc.image.shape[1], sc.image.shape[0]) in held.FRAMES
        assert "webcam" in sc.info and sc.info["table"] == "room"
        people += bool(sc.info["held_up"].get("person"))
        rooms += bool(sc.info["held_up"].get("room"))
        cards = [label for label in sc.labels if label["role"] == "held"]
        assert 1 <= len(cards) <= 2 and len(cards) == len(sc.labels)
        for label in cards:
            ys, xs = np.nonzero(sc.mask == label["instance"])
            assert tuple(label["box"]) == (xs.min(), ys.min(), xs.max() + 1, ys.max() + 1)
        biggest = max(cards, key=lambda label: label["visible"])
        sizes.append((biggest["box"][2] - biggest["box"][0]) / sc.image.shape[1])
        assert dataset.scene("woolly", deck, codes, seed=5, index=index).info["table"] != "room"
    assert min(sizes) > 0.08 and people > 0 and rooms > 0  # a card a forearm away: a large part of the frame
    out = tmp_path / "held"
    assert main(["synth", "--deck", "woolly", "--scenes", "2", "--seed", "5", "--out", str(out),
                 "--jobs", "1", "--held-up", "--quiet"]) == 0
    assert json.loads((out / "manifest.json").read_text())["held_up"] is True


def test_a_held_card_is_now_and_then_cut_by_the_frame_s_edge(pictures, woolly, monkeypatch):
    """``held.EDGE``: a held card may stand anywhere in the frame, up to cut by its edge (real
    webcam frames hold such cards), labelled by what shows; with EDGE 0 none is cut."""
    from vision.synth import held
    deck, codes = woolly

    def cut_cards() -> int:
        cut = 0
        for index in range(12):
            sc = dataset.scene("woolly", deck, codes, seed=9, index=index, keep_mask=True, held_up=True)
            h, w = sc.image.shape[:2]
            for label in sc.labels:
                if label["role"] != "held":
                    continue
                x0, y0, x1, y1 = label["box"]
                ys, xs = np.nonzero(sc.mask == label["instance"])
                assert (x0, y0, x1, y1) == (xs.min(), ys.min(), xs.max() + 1, ys.max() + 1)
                cut += x0 == 0 or y0 == 0 or x1 == w or y1 == h
        return cut

    monkeypatch.setattr(held, "EDGE", 1.0)
    assert cut_cards() >= 3
    monkeypatch.setattr(held, "EDGE", 0.0)
    assert cut_cards() == 0


def test_a_room_behind_a_held_card_shows_windows_in_frames():
    """``held.room``: a bright window split by dark frames painted over a mid-grey wall, the rest
    of the frame left as it was somewhere."""
    from vision.synth import held
    for seed in range(5):
        img = np.full((240, 320, 3), 0.5, np.float32)
        held.room(np.random.default_rng(seed), img)
        grey = img.mean(axis=2)
        assert (grey > 0.7).mean() > 0.02                  # a window's panes (or a tube light)
        assert (np.abs(grey - 0.5) > 0.05).mean() > 0.05   # painted over a good part of the wall
        assert img.min() >= 0 and img.max() <= 1


def test_a_backlit_frame_dims_the_held_card_below_the_room_s_windows():
    """``held.backlit``: what was pasted in front of the room (here a white card) comes out at
    ``held.NEAR`` of its brightness, the wall at 0.4-0.85 of its own, a near-white window kept
    as it was, and the frame tinted green (red and blue at most the green's)."""
    from vision.synth import held
    for seed in range(5):
        behind = np.full((120, 160, 3), 0.5, np.float32)
        behind[:, 120:] = 0.97                                   # a window
        img = behind.copy()
        img[30:90, 40:80] = 0.92                                 # the card
        info = held.backlit(np.random.default_rng(seed), img, behind)
        card, wall, window = img[50:70, 50:70].mean(axis=(0, 1)), img[5:20, 5:20].mean(axis=(0, 1)), img[5:20, 140:].mean(axis=(0, 1))
        assert held.NEAR[0] * 0.92 - 1e-3 <= card[1] <= held.NEAR[1] * 0.92 + 1e-3
        assert abs(wall[1] - 0.5 * info["far"]) < 3e-3 and abs(window[1] - 0.97) < 1e-3
        assert card.max() < window.min()
        assert card[0] <= card[1] and card[2] <= card[1] * 1.02 + 1e-6


def test_backlit_held_up_scenes_keep_their_labels_and_come_out_dark(pictures, woolly, monkeypatch):
    """With ``held.BACKLIT`` 1 every held-up scene is lit from behind, with the same cards in the same
    places as with 0; its held card's paper is darker than with 0 in most scenes."""
    import cv2
    from vision.synth import held
    deck, codes = woolly
    darker = 0
    for index in range(4):
        paper = []
        for share in (0.0, 1.0):
            monkeypatch.setattr(held, "BACKLIT", share)
            sc = dataset.scene("woolly", deck, codes, seed=11, index=index, keep_mask=True, held_up=True)
            assert ("backlit" in sc.info["held_up"]) == bool(share)
            grey = cv2.cvtColor(sc.image, cv2.COLOR_BGR2GRAY)
            paper.append((sc.labels, [np.percentile(grey[sc.mask == label["instance"]], 90) for label in sc.labels]))
        assert [label["obb"] for label in paper[0][0]] == [label["obb"] for label in paper[1][0]]
        darker += paper[1][1][0] < paper[0][1][0]
    assert darker >= 3


def test_a_frame_lit_from_behind_is_not_exposed_again_by_the_webcam(pictures, woolly, monkeypatch):
    """``webcam(exposed=True)``: the auto exposure (gain, gamma, crushed blacks) is drawn and left out,
    the rest of the look as before (the noise's amount follows the brightness); a held-up scene lit
    from behind is rendered so."""
    img = np.full((40, 60, 3), 0.3, np.float32)
    exposed_again = 0
    for seed in range(12):
        plain, kept = {}, {}
        effects.webcam(img, np.random.default_rng(seed), info=plain)
        out = effects.webcam(img, np.random.default_rng(seed), info=kept, exposed=True)
        exposed_again += plain.get("exposure", 1.0) != 1.0
        assert kept.get("exposure", 1.0) == 1.0 and kept.get("gamma", 1.0) == 1.0 and kept.get("black", 0.0) == 0.0
        exposure = ("exposure", "gamma", "black", "noise")
        assert {k: v for k, v in plain.items() if k not in exposure} == {k: v for k, v in kept.items() if k not in exposure}
        assert ("noise" in plain) == ("noise" in kept)
        assert abs(float(out.mean()) - 0.3) < 0.05 or "cast" in kept
    assert exposed_again >= 6
    deck, codes = woolly
    monkeypatch.setattr(held, "BACKLIT", 1.0)
    sc = dataset.scene("woolly", deck, codes, seed=11, index=0, held_up=True)
    assert sc.info["webcam"].get("exposure", 1.0) == 1.0


def test_synth_backlit_sets_the_share_of_held_up_frames_lit_from_behind(pictures, tmp_path):
    """``warref synth --held-up --backlit SHARE``: every frame lit from behind at 1, none at 0, the share in
    the manifest; without ``--held-up`` the manifest says nothing of it."""
    from web.cli import main
    for share, lit in (("1", 3), ("0", 0)):
        out = tmp_path / share
        assert main(["synth", "--deck", "woolly", "--scenes", "3", "--seed", "5", "--out", str(out), "--jobs", "1",
                     "--held-up", "--backlit", share, "--quiet"]) == 0
        assert json.loads((out / "manifest.json").read_text())["backlit"] == float(share)
        records = [json.loads(f.read_text()) for f in sorted((out / "scenes").glob("*/*.json"))]
        assert sum("backlit" in r["held_up"] for r in records) == lit
    assert main(["synth", "--deck", "woolly", "--scenes", "1", "--out", str(tmp_path / "t"), "--jobs", "1",
                 "--quiet"]) == 0
    assert "backlit" not in json.loads((tmp_path / "t" / "manifest.json").read_text())


def test_a_pale_wall_is_painted_right_behind_the_held_card(pictures, woolly):
    """``held.pale``: the frame behind the held card's outline turns to one pale tone of
    ``held.PALE_TONE`` (give or take its tint and shading), over a dark room."""
    from vision.synth.layout import Builder
    deck, codes = woolly
    for seed in range(4):
        rng = np.random.default_rng(seed)
        cam = held.camera(rng)
        centre = cam.to_table(np.array([[cam.width / 2, cam.height / 2]], float))[0]
        card = Builder(rng, deck, codes[:3]).card(centre, 0.0, True, "held", codes[0])
        img = np.full((cam.height, cam.width, 3), 0.2, np.float32)
        info = held.pale(rng, img, cam, card, sigma=1.0)
        quad = cam.to_image(card.corners())
        x0, y0 = quad.min(0).astype(int)
        x1, y1 = quad.max(0).astype(int)
        inside = img[y0:y1, x0:x1].mean(axis=2)
        assert held.PALE_TONE[0] * 0.92 * 0.95 - 0.01 <= inside.min() and inside.max() <= 1.0
        assert abs(float(inside.mean()) - info["tone"]) < 0.1


def test_synth_pale_sets_the_share_of_held_up_frames_before_a_pale_wall(pictures, tmp_path):
    """``warref synth --held-up --pale SHARE``: every frame before a pale wall at 1, with its cards where
    they are at 0 (the wall's random draws come after the cards are placed); 0, the default, leaves
    the manifest and the scenes as they were (a seed's scenes unchanged, image for image)."""
    from web.cli import main
    scenes = {}
    for share in ("1", "0", None):
        out = tmp_path / str(share)
        extra = ["--pale", share] if share else []
        assert main(["synth", "--deck", "woolly", "--scenes", "3", "--seed", "5", "--out", str(out), "--jobs", "1",
                     "--held-up", "--quiet", *extra]) == 0
        manifest = json.loads((out / "manifest.json").read_text())
        assert manifest.get("pale") == (1.0 if share == "1" else None)
        scenes[share] = [json.loads(f.read_text()) for f in sorted((out / "scenes").glob("*/*.json"))]
    assert all("pale" in r["held_up"] for r in scenes["1"])
    assert not any("pale" in r["held_up"] for r in scenes["0"])
    assert [r["cards"] for r in scenes["1"]] == [r["cards"] for r in scenes["0"]]
    assert scenes["0"] == scenes[None]
    for a, b in zip(sorted((tmp_path / "0" / "images").rglob("*.jpg")), sorted((tmp_path / "None" / "images").rglob("*.jpg"))):
        assert a.read_bytes() == b.read_bytes()
