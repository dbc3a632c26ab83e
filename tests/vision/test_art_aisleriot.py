"""AisleRiot's card themes as more standard-deck artworks (vision/art/aisleriot.py).

The grid cutting is checked on a drawn sheet (no package needed); one real theme is rendered and
checked when Debian's gnome-cards-data is installed (`make test` installs it)."""
import numpy as np
import pytest

from referee.deck import load_deck
from vision import art
from vision.art import CARD_H, CARD_W, aisleriot
from vision.synth.dataset import generate, load

INSTALLED = (aisleriot.FOLDER / "anglo.svgz").is_file()


def _sheet(backs: int = 1) -> np.ndarray:
    """13 x 5 cells of 60 x 90, each holding a 50 x 80 opaque card whose grey level encodes its cell,
    the fifth row with two jokers and ``backs`` backs."""
    sheet = np.zeros((5 * 90, 13 * 60, 4), np.uint8)
    for r in range(5):
        for c in range(13):
            if r == 4 and c >= 2 + backs:
                continue
            sheet[r * 90 + 5:r * 90 + 85, c * 60 + 5:c * 60 + 55] = (r * 13 + c + 10, 0, 0, 255)
    return sheet


def test_cut_names_every_cell_by_its_row_and_column():
    cards = aisleriot.cut(_sheet())
    assert set(cards) == {f"{rank}{suit}" for rank in aisleriot.COLUMNS for suit in "CDHS"} | {"BACK-1"}
    for name, card in cards.items():
        assert card.shape == (CARD_H, CARD_W, 4)
        r, c = (4, 2) if name == "BACK-1" else ("CDHS".index(name[-1]), aisleriot.COLUMNS.index(name[:-1]))
        # cut to the card (no transparent margin left): the middle is the cell's own colour
        assert card[CARD_H // 2, CARD_W // 2, 0] == r * 13 + c + 10, name
        assert (card[40:-40, 40:-40, 3] == 255).all()
    assert set(aisleriot.cut(_sheet(backs=2))) - set(cards) == {"BACK-2"}
    with_jokers = aisleriot.cut(_sheet(), jokers=True)
    assert set(with_jokers) - set(cards) == {"JOKER-black", "JOKER-red"}
    assert with_jokers["JOKER-red"][CARD_H // 2, CARD_W // 2, 0] == 4 * 13 + 1 + 10


def test_a_missing_card_cell_is_an_error_not_a_blank_card():
    sheet = _sheet()
    sheet[90:180, 60:120] = 0            # no 2 of diamonds
    with pytest.raises(aisleriot.ThemeMissing, match="2D"):
        aisleriot.cut(sheet)


def test_missing_package_says_what_to_install(tmp_path):
    with pytest.raises(aisleriot.ThemeMissing, match="apt-get install gnome-cards-data"):
        aisleriot.fetch(tmp_path, folder=tmp_path / "nowhere")


@pytest.mark.skipif(not INSTALLED, reason="Debian's gnome-cards-data is not installed")
def test_a_real_theme_has_every_card_with_its_suit_colour_in_the_corner():
    cards = aisleriot.cut(aisleriot.render(aisleriot.FOLDER / "anglo.svgz"), jokers=True)
    codes = {c.code for c in load_deck("standard").cards} - {"JOKER"}
    assert {n for n in cards if not n.startswith(("BACK", "JOKER"))} == codes
    assert {"JOKER-black", "JOKER-red"} <= set(cards)
    for name, card in cards.items():
        if name.startswith(("BACK", "JOKER")):
            continue
        index = card[20:170, 10:75].astype(int)
        red = ((index[..., 0] > 150) & (index[..., 1] < 100) & (index[..., 2] < 100)).mean()
        assert (red > 0.02) if name[-1] in "DH" else (red < 0.005), (name, red)
    small = {n: c[::10, ::10, :3].astype(np.float32) for n, c in cards.items()}
    for a in small:
        for b in small:
            assert a == b or np.abs(small[a] - small[b]).mean() > 1.0, (a, b)


@pytest.mark.skipif(not INSTALLED, reason="Debian's gnome-cards-data is not installed")
def test_more_art_adds_the_themes_to_the_standard_deck_only_when_asked(tmp_path, monkeypatch):
    monkeypatch.setattr(aisleriot, "THEMES", ("anglo", "tango"))      # two themes, in a cache of their own
    for name in ("faces", "backs"):
        monkeypatch.setattr(aisleriot, name, lambda cache, real=getattr(aisleriot, name): real(tmp_path))
    aisleriot._images.cache_clear()
    try:
        plain = {c.artwork for c in art.faces("standard")}
        more = {c.artwork for c in art.faces("standard", more_art=True)} - plain
        assert more == {"aisleriot-anglo", "aisleriot-tango"}
        assert {b.artwork for b in art.backs("standard", more_art=True)} >= more
        assert (tmp_path / "art" / "aisleriot" / "tango" / "QH.png").is_file()
        deck, _ = load("standard", more_art=True)
        assert all({"aisleriot-anglo", "aisleriot-tango"} <= {c.artwork for c in deck.faces[code]}
                   for code in deck.faces)
        manifest = generate("standard", 2, tmp_path / "scenes", seed=1, jobs=1, more_art=True)
        assert manifest["more_art"] is True and more <= set(manifest["artworks"])
    finally:
        aisleriot._images.cache_clear()


def test_more_art_is_refused_for_a_deck_it_has_no_designs_for(tmp_path, capsys):
    from web.cli import main
    assert main(["synth", "--deck", "woolly", "--more-art", "--scenes", "1", "--out", str(tmp_path / "w")]) == 2
    assert "standard deck only" in capsys.readouterr().err
    assert not (tmp_path / "w").exists()
