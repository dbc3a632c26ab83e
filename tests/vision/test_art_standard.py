"""The standard deck's card art (vision/art/standard.py).

The first run fetches three packages from the npm registry and renders them (needs network, npm,
node and rsvg-convert; about ten seconds); later runs load the PNGs cached under datasets/cache/.
"""
import time

import numpy as np
import pytest

from referee.deck import load_deck
from vision import art
from vision.art import CARD_H, CARD_W, CORNER_RADIUS, DEFAULT_CACHE, standard


@pytest.fixture(scope="module")
def faces():
    return art.faces("standard")


@pytest.fixture(scope="module")
def backs():
    return standard.backs(DEFAULT_CACHE)


def test_every_code_in_every_artwork(faces):
    codes = [card.code for card in load_deck("standard").cards]
    assert len(codes) == 53
    for code in codes:
        artworks = [c.artwork for c in faces if c.code == code]
        assert len(artworks) >= 3, code
        if code == "JOKER":  # cardsJS ships no jokers; the others a red and a black one
            assert sorted(artworks) == ["letele", "letele", "svg-cards", "svg-cards"]
        else:
            assert sorted(artworks) == sorted(standard.ARTWORKS), code
    assert {c.code for c in faces} == set(codes)
    assert all(c.deck == "standard" and c.face_up for c in faces)


def test_backs_from_every_package(backs):
    assert {c.artwork for c in backs} == set(standard.ARTWORKS)
    assert all(c.code == "BACK" and not c.face_up and c.deck == "standard" for c in backs)


def test_size_and_rounded_silhouette(faces, backs):
    r = CORNER_RADIUS
    for card in faces + backs:
        alpha = card.image[..., 3]
        assert card.image.shape == (CARD_H, CARD_W, 4) and card.image.dtype == np.uint8
        assert alpha[0, 0] == alpha[0, -1] == alpha[-1, 0] == alpha[-1, -1] == 0, card
        assert (alpha[r:-r, :] == 255).all() and (alpha[:, r:-r] == 255).all(), card
        assert (alpha > 0).mean() > 0.99


def test_suit_colour_in_the_corner_index(faces):
    """Hearts and diamonds have a red index in the top-left corner, clubs and spades none: a
    swapped suit (a wrong label) shows here. Every card was also checked by eye on the sheet."""
    for card in faces:
        if card.code == "JOKER":
            continue
        index = card.image[20:170, 10:75].astype(int)
        red = ((index[..., 0] > 150) & (index[..., 1] < 100) & (index[..., 2] < 100)).mean()
        if card.code[-1] in "DH":
            assert red > 0.05, (card.artwork, card.code, red)
        else:
            assert red < 0.005, (card.artwork, card.code, red)


def test_different_codes_look_different(faces):
    for artwork in standard.ARTWORKS:
        cards = [c for c in faces if c.artwork == artwork]
        small = np.stack([c.image[::10, ::10, :3] for c in cards]).astype(np.float32)
        diff = np.abs(small[:, None] - small[None]).mean(axis=(2, 3, 4))
        for i, j in zip(*np.nonzero(diff < 1.0)):
            assert i == j or cards[i].code == cards[j].code, (artwork, cards[i].code, cards[j].code)


def test_second_call_comes_from_the_cache(faces, monkeypatch):
    def no_tools(*args, **kwargs):
        raise AssertionError(f"ran {args[0]} although everything is cached")

    monkeypatch.setattr(standard.subprocess, "run", no_tools)
    standard._images.cache_clear()  # a fresh process: only the PNGs on disk
    start = time.perf_counter()
    again = standard.faces(DEFAULT_CACHE)
    assert time.perf_counter() - start < 10
    assert [(c.code, c.artwork) for c in again] == [(c.code, c.artwork) for c in faces]
    start = time.perf_counter()
    standard.faces(DEFAULT_CACHE)
    assert time.perf_counter() - start < 0.1  # in-process cache


def test_missing_tool_says_what_to_install(tmp_path, monkeypatch):
    monkeypatch.setattr(standard.shutil, "which", lambda tool: None)
    with pytest.raises(standard.ArtFetchError, match="npm not found.*install Node.js and npm"):
        standard.fetch(tmp_path)


def test_processes_fetching_at_once_all_get_the_whole_art(tmp_path, faces):
    """The suite's workers (and a demo beside a server) may fill an empty cache together: one
    renders under a lock, the others wait. Before the lock, two of three died on the unpacking."""
    import shutil
    import subprocess
    import sys
    (tmp_path / "npm").mkdir()
    for tarball in (DEFAULT_CACHE / "npm").glob("*.tgz"):       # no network: the pinned tarballs
        shutil.copy(tarball, tmp_path / "npm")
    # one of the three artworks (its package unpacked and its ~55 pictures rendered by all three at
    # once, where the race was), not all three: the lock is the same for one package as for three
    code = (f"from vision.art import standard; standard.ARTWORKS = ('cardsjs',); "
            f"standard.fetch({str(tmp_path)!r})")
    procs = [subprocess.Popen([sys.executable, "-c", code], stderr=subprocess.PIPE, text=True)
             for _ in range(3)]
    results = [(p.wait(timeout=600), p.stderr.read()) for p in procs]
    assert [rc for rc, _ in results] == [0, 0, 0], [err[-2000:] for _, err in results]
    fresh = standard.faces(tmp_path)
    assert [(c.code, c.artwork) for c in fresh] == [(c.code, c.artwork) for c in faces if c.artwork == "cardsjs"]
    assert len(fresh) == 52
