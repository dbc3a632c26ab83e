"""vision/lab/box_edges.py: a labelled box whose pixels an export changed shows a step along its
own edges; an untouched one does not."""
import numpy as np
import pytest

from vision.lab import box_edges, realcards

BOX = (40, 30, 70, 75)          # x0, y0, x1, y1


def card_corner(seed: int) -> np.ndarray:
    """A grey picture with what a corner index has: a smooth shading, a dark glyph, camera noise."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:120, 0:120].astype(np.float32)
    grey = 150 + 0.4 * x + 0.2 * y + rng.normal(0, 3, (120, 120)).astype(np.float32)
    grey[40:65, 50:60] -= 90                    # the rank's stroke, inside the box
    return grey


@pytest.mark.parametrize("seed", range(5))
def test_an_untouched_box_has_no_step(seed):
    assert box_edges.edge_step(card_corner(seed), BOX) < box_edges.STEP


@pytest.mark.parametrize("change", ["brighter", "darker", "shifted and brighter"])
def test_a_box_changed_after_labelling_has_one(change):
    grey = card_corner(0)
    x0, y0, x1, y1 = BOX
    inside = grey[y0:y1, x0:x1]
    if change.startswith("shifted"):            # moved down 2 px, the strip it left black
        inside[:] = np.roll(inside, 2, axis=0)
        inside[:2] = 0
    inside *= 0.75 if change == "darker" else 1.25
    assert box_edges.edge_step(grey, BOX) > box_edges.STEP


def test_a_shift_alone_shows_on_one_edge_and_is_not_counted():
    """By design: one edge stepping may be the card's own edge (the second-strongest edge counts)."""
    grey = card_corner(0)
    x0, y0, x1, y1 = BOX
    inside = grey[y0:y1, x0:x1]
    inside[:] = np.roll(inside, 2, axis=0)
    inside[:2] = 0
    assert box_edges.edge_step(grey, BOX) < box_edges.STEP


def test_a_box_at_the_images_edge_or_tiny_is_not_measured():
    grey = card_corner(0)
    assert box_edges.edge_step(grey, (2, 30, 40, 70)) is None
    assert box_edges.edge_step(grey, (40, 30, 45, 70)) is None


needs_sets = pytest.mark.skipif(not all((realcards.DEFAULT_ROOT / s / "classes.txt").is_file()
                                        for s in ("phone", "handheld")), reason="no ../shared/realcards")


@needs_sets
def test_handhelds_index_boxes_carry_the_step_and_phones_do_not():
    """The finding the reader's figures on handheld/ are read with (models/README.md)."""
    def share(name):
        s = np.array(box_edges.steps_of(name))
        return (s > box_edges.STEP).mean()
    assert share("handheld") > 0.6
    assert share("phone") < 0.05
