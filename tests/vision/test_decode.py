"""Image files as pictures (vision/decode.py): iPhones' HEIC photos read wherever a photo is read
(`warref teach --cards`, `warref detect`, image folders, the dashboard's uploads), turned as their
EXIF says; a corrupt one is "not a readable image", as any other."""
import cv2
import numpy as np
import pytest

from cardpics import heic, on_table, write_cards
from vision.decode import decode, is_heif
from vision.errors import BadImage
from vision.photos import load_bounded
from vision.teach import collect
from vision.reader import load_image
from vision.sources import FolderSource


def marked() -> np.ndarray:
    """A picture wider than tall, red on its left third (BGR), grey elsewhere."""
    image = np.full((120, 180, 3), 128, np.uint8)
    image[:, :60] = (0, 0, 255)
    return image


def test_a_heic_photo_is_read_in_its_colours_and_turned_as_its_exif_says(tmp_path):
    data = heic(marked())
    assert is_heif(data) and not is_heif(b"\xff\xd8\xff\xe0" + bytes(8))
    image = decode(data)
    assert image.shape == (120, 180, 3)
    assert np.abs(image[60, 20].astype(int) - (0, 0, 255)).max() < 25          # red stays red (BGR)
    assert np.abs(image[60, 150].astype(int) - 128).max() < 25
    turned = decode(heic(marked(), orientation=6))                            # "turn 90 degrees clockwise"
    assert turned.shape == (180, 120, 3)
    assert np.abs(turned[20, 60].astype(int) - (0, 0, 255)).max() < 25       # the red side is now on top
    (tmp_path / "p.heic").write_bytes(data)
    assert load_image(tmp_path / "p.heic").shape == (120, 180, 3)
    bounded, size = load_bounded(tmp_path / "p.heic")
    assert bounded.shape == (120, 180, 3) and size == (180, 120)
    assert FolderSource(tmp_path).read().image.shape == (120, 180, 3)


def test_a_corrupt_heic_file_is_not_a_readable_image(tmp_path):
    broken = heic(marked())[:200]                       # cut short: a HEIF header, no picture
    assert is_heif(broken) and decode(broken) is None and decode(b"") is None
    (tmp_path / "QH.heic").write_bytes(broken)
    with pytest.raises(BadImage, match="QH.heic: not a readable image"):
        load_image(tmp_path / "QH.heic")


def test_teaching_takes_heic_photos_of_the_cards(tmp_path, namikopy_cards):
    folder = write_cards(tmp_path / "cards", {c: i for c, i in namikopy_cards.items() if c != "7"})
    (folder / "7.HEIC").write_bytes(heic(on_table([namikopy_cards["7"]])))
    cards = collect("namikopy", folder)
    assert sorted(cards.shown()) == sorted(namikopy_cards)
    flat = cards.flat["7"][0]
    ref = cv2.resize(namikopy_cards["7"], flat.shape[1::-1]).astype(float)
    assert min(np.abs(f.astype(float) - ref).mean() for f in (flat, cv2.rotate(flat, cv2.ROTATE_180))) < 25
