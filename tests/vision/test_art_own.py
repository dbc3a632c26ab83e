"""warref's own card art (vision/art/own.py): every code drawn, in several styles, as clean RGBA cards."""
from collections import Counter

import numpy as np
import pytest

from referee.deck import load_deck
from vision.art import CARD_H, CARD_W, own
from vision.art import backs as art_backs
from vision.art import faces as art_faces


def by_code(cards):
    out = {}
    for c in cards:
        out.setdefault(c.code, {})[c.artwork] = c.image
    return out


def diff(a, b):
    return float(np.abs(a[..., :3].astype(np.int16) - b[..., :3].astype(np.int16)).mean())


def check_card(img):
    assert img.shape == (CARD_H, CARD_W, 4) and img.dtype == np.uint8
    alpha = img[..., 3]
    for y, x in ((0, 0), (0, CARD_W - 1), (CARD_H - 1, 0), (CARD_H - 1, CARD_W - 1), (3, 3), (CARD_H - 4, CARD_W - 4)):
        assert alpha[y, x] == 0
    assert (alpha[30:-30, 30:-30] == 255).all()                  # opaque inside the rounded corners
    assert (alpha[CARD_H // 2, :] > 0).all() and (alpha[:, CARD_W // 2] > 0).all()
    assert (alpha > 0).mean() > 0.99


@pytest.mark.parametrize("deck", ["woolly", "namikopy"])
def test_every_code_has_at_least_three_artworks(deck):
    cards = own.faces(deck)
    codes = {c.code for c in load_deck(deck).cards}
    assert {c.deck for c in cards} == {deck}
    assert {c.code for c in cards} == codes
    per_code = Counter(c.code for c in cards)
    assert min(per_code.values()) >= 3
    assert len({(c.code, c.artwork) for c in cards}) == len(cards)      # no duplicate (code, artwork)
    assert all(c.face_up and c.artwork.startswith("warref-") for c in cards)
    assert art_faces(deck) is cards                                      # the vision.art entry point


@pytest.mark.parametrize("deck", ["woolly", "namikopy"])
def test_faces_are_clean_rgba_cards(deck):
    for c in own.faces(deck):
        check_card(c.image)
        assert not c.image.flags.writeable


def test_backs():
    for deck in ("standard", "woolly", "namikopy"):
        cards = own.backs(deck)
        assert len(cards) >= 4
        assert all(c.code == "BACK" and not c.face_up and c.deck == deck for c in cards)
        assert len({c.artwork for c in cards}) == len(cards)
        for c in cards:
            check_card(c.image)
        for i, a in enumerate(cards):
            for b in cards[i + 1:]:
                assert diff(a.image, b.image) > 15, (deck, a.artwork, b.artwork)
    assert {c.artwork for c in art_backs("woolly")} == {c.artwork for c in own.backs("woolly")}


def test_backs_look_the_same_turned_round():
    for deck in ("standard", "woolly", "namikopy"):
        for c in own.backs(deck):
            assert diff(c.image, c.image[::-1, ::-1]) < 6, (deck, c.artwork)


def test_backs_are_not_faces():
    faces = [c.image for c in own.faces("woolly")[::7]]
    for b in own.backs("woolly"):
        assert min(diff(b.image, f) for f in faces) > 20


def test_deterministic():
    first_faces, first_backs = own.faces("namikopy"), own.backs("woolly")
    own.faces.cache_clear()
    own.backs.cache_clear()
    again_faces, again_backs = own.faces("namikopy"), own.backs("woolly")
    assert again_faces is not first_faces
    for a, b in zip(first_faces + first_backs, again_faces + again_backs):
        assert (a.code, a.artwork) == (b.code, b.artwork)
        assert np.array_equal(a.image, b.image)
    assert own.faces("namikopy") is again_faces                      # cached


def test_codes_look_different():
    woolly, nami = by_code(own.faces("woolly")), by_code(own.faces("namikopy"))
    for art in woolly["5R"]:                                            # whole-card mean differences
        assert diff(woolly["5R"][art], woolly["6R"][art]) > 2
        assert diff(woolly["6R"][art], woolly["9R"][art]) > 1.5        # same colour, only the digits differ
        assert diff(woolly["10R"][art], woolly["11R"][art]) > 2
        assert diff(woolly["6B"][art], woolly["6G"][art]) > 6          # colour
        assert diff(woolly["1R"][art], woolly["STEAL"][art]) > 15       # actions look nothing like numbers
        assert diff(woolly["STEAL"][art], woolly["REVEAL"][art]) > 10
        assert diff(woolly["WAR"][art], woolly["REVEAL"][art]) > 10
    for art in nami["6"]:
        assert diff(nami["6"][art], nami["9"][art]) > 5                # other digits, other colour band
        assert diff(nami["4"][art], nami["5"][art]) > 2                # same band
        assert diff(nami["1"][art], nami["MALLARD"][art]) > 10
        assert diff(nami["MALLARD"][art], nami["TURKEY"][art]) > 8
        assert diff(nami["FLAMINGO"][art], nami["TURKEY"][art]) > 8
    # the styles differ from each other too
    arts = list(woolly["7Y"])
    assert min(diff(woolly["7Y"][a], woolly["7Y"][b]) for a in arts for b in arts if a != b) > 5


def corner(img, turned=False):
    """The top-left corner index region (or the bottom-right one, turned the right way up)."""
    if turned:
        img = img[::-1, ::-1]
    return img[: int(0.28 * CARD_H), : int(0.38 * CARD_W), :3].astype(np.int16)


def test_corner_index_reads_the_same_both_ways_up_and_differs_by_number():
    woolly = by_code(own.faces("woolly"))
    for art, img in woolly["6R"].items():
        assert np.abs(corner(img) - corner(img, turned=True)).mean() < 3, art
        assert np.abs(corner(img) - corner(woolly["9R"][art])).mean() > 3, art   # the 6 and 9 corners differ
        assert np.abs(corner(img) - corner(woolly["8R"][art])).mean() > 3, art


def test_corner_number_is_big():
    """The corner number's ink is 12-15% of the card height (measured on the dark-on-paper style)."""
    img = by_code(own.faces("woolly"))["7B"]["warref-print"]
    y0, x0 = int(0.042 * CARD_H), int(0.06 * CARD_W)           # inside the printed frame lines
    patch = img[y0: int(0.25 * CARD_H), x0: int(0.3 * CARD_W), :3].astype(np.int16).mean(axis=2)
    paper = np.median(patch)
    top_ink = np.nonzero((np.abs(patch - paper) > 60).any(axis=1))[0]
    first_gap = np.nonzero(np.diff(top_ink) > 3)[0]                # the number, then the pip below it
    number_rows = top_ink[: first_gap[0] + 1] if len(first_gap) else top_ink
    height = (number_rows[-1] - number_rows[0] + 1) / CARD_H
    assert 0.11 <= height <= 0.16, height


def test_unknown_deck():
    with pytest.raises(ValueError):
        own.faces("standard")
    with pytest.raises(ValueError):
        own.backs("uno")


def test_contact_sheet(tmp_path):
    from PIL import Image
    out = tmp_path / "sheet.png"
    own.contact_sheet(str(out), width=40, cols=30)
    im = Image.open(out)
    n = len(own.faces("woolly")) + len(own.faces("namikopy")) + sum(len(own.backs(d)) for d in own.BACKS)
    assert im.width == 30 * 46 + 6 and im.height == ((n + 29) // 30) * (round(40 * 1.4) + 6) + 6
