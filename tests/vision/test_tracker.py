"""The table tracker (vision/tracker.py): synthetic reads frame by frame, and one run of the real reader."""
import pytest

from vision.reader import Read
from vision.tracker import Observation, TableTracker, default_zones, iou

W, H = 1280, 720
# places in a 1280x720 frame: Alex (seat 1) sits at the bottom, Olivia at the top
ALEX = (580, 440, 700, 610)
ALEX_BESIDE = (740, 440, 860, 610)
ALEX_BACKS = [(380, 460, 500, 630), (400, 470, 520, 640), (420, 480, 540, 650)]
ALEX_ON_BACKS = (420, 450, 540, 620)          # the war's face-up card, on the backs, offset
OLIVIA = (580, 110, 700, 280)
OLIVIA_BACKS = [(760, 90, 880, 260), (780, 100, 900, 270), (800, 110, 920, 280)]
OLIVIA_ON_BACKS = (790, 120, 910, 290)


def read(card, box, conf=0.9):             # sure (>= the threshold 0.8), not very sure (>= 0.95)
    x0, y0, x1, y1 = box
    return Read(card, conf, list(box), [[x0, y0], [x1, y0], [x1, y1], [x0, y1]], 0.0, conf)


def tracker(seats=("Alex", "Olivia"), **kw):
    return TableTracker(default_zones(list(seats)), frame_size=(W, H), **kw)


class Table:
    """Feeds frames to a tracker, numbering them, and keeps every observation."""

    def __init__(self, t=None):
        self.t = t or tracker()
        self.frame = 0
        self.log: list[Observation] = []

    def show(self, *reads, times=1):
        out = []
        for _ in range(times):
            self.frame += 1
            got = self.t.update(list(reads), self.frame)
            out += got
            self.log += got
        return out


def kinds(obs):
    return [(o.kind, o.seat, o.card, o.count) for o in obs]


# -- zones --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6, 7])
def test_default_zones_split_the_middle_one_per_seat(n):
    seats = [f"P{i}" for i in range(n)]
    zones = default_zones(seats)
    assert list(zones) == seats
    t = TableTracker(zones, frame_size=(W, H))
    assert all(0 <= x <= 1 and 0 <= y <= 1 for poly in zones.values() for x, y in poly)
    # seat 1 faces the camera: the middle of the bottom half is its
    assert t.seat_of(read("5H", (600, 500, 680, 620))) == "P0"
    # every point of the middle belongs to exactly one seat; the frame's edges to none
    for fx in [i / 20 + 0.013 for i in range(20)]:
        for fy in [i / 20 + 0.017 for i in range(20)]:
            x, y = fx * W, fy * H
            hits = [s for s, poly in zones.items() if t.seat_of(read("5H", (x - 1, y - 1, x + 1, y + 1))) == s]
            edge = min(fx, fy, 1 - fx, 1 - fy) < 0.08
            assert len(hits) == (0 if edge else 1), (fx, fy, hits)
    # each seat's zone has area, and the zones go round the table: bottom first, then clockwise
    centres = []
    for poly in zones.values():
        area = abs(sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in zip(poly, poly[1:] + poly[:1]))) / 2
        assert area > 0.5 / n
        centres.append((sum(p[0] for p in poly) / len(poly), sum(p[1] for p in poly) / len(poly)))
    if n > 1:                    # (one seat has the whole middle)
        assert centres[0][1] > 0.5
    if n == 2:
        assert centres[1][1] < 0.5
    if n == 4:
        assert centres[1][0] < 0.5 and centres[2][1] < 0.5 and centres[3][0] > 0.5


def test_default_zones_need_a_seat():
    with pytest.raises(ValueError):
        default_zones([])


# -- flips --------------------------------------------------------------------------------------------

def test_a_card_is_flipped_after_stable_frames_and_announced_once():
    table = Table()
    assert table.show(read("8S", ALEX)) == []
    assert table.show(read("8S", (582, 441, 701, 612))) == []        # jitter: about the same place
    obs = table.show(read("8S", ALEX, 0.85))
    assert kinds(obs) == [("flip", "Alex", "8S", 0)]
    o = obs[0]
    assert o.frame == 3 and o.box == list(ALEX) and o.confidence == pytest.approx((0.9 + 0.9 + 0.85) / 3)
    assert [r.card for r in o.reads] == ["8S"]
    assert table.show(read("8S", ALEX), times=20) == []              # a card that stays is not re-announced
    assert [h.card for h in table.t.faceup["Alex"]] == ["8S"] and table.t.faceup["Olivia"] == []


def test_two_seats_flipping_in_the_same_frame():
    table = Table()
    obs = table.show(read("8S", ALEX), read("KD", OLIVIA), times=3)
    assert sorted(kinds(obs)) == [("flip", "Alex", "8S", 0), ("flip", "Olivia", "KD", 0)]
    assert obs[0].frame == obs[1].frame == 3
    assert sorted(r.card for r in obs[0].reads) == ["8S", "KD"]


def test_stable_frames_and_threshold_can_be_changed():
    table = Table(tracker(stable_frames=5, threshold=0.9))
    assert table.show(read("8S", ALEX, 0.92), times=4) == []
    assert kinds(table.show(read("8S", ALEX, 0.92))) == [("flip", "Alex", "8S", 0)]
    table.t.stable_frames, table.t.threshold = 2, 0.97
    assert kinds(table.show(read("KD", OLIVIA, 0.96), times=2)) == [("unsure", "Olivia", "KD", 0)]
    table.t.threshold = 0.95
    assert kinds(table.show(read("KD", OLIVIA, 0.96), times=2)) == [("flip", "Olivia", "KD", 0)]


def test_a_card_that_flickers_in_and_out_of_the_reads_is_flipped_once():
    table = Table()
    frames = [[read("8S", ALEX)], [], [read("8S", ALEX)], [read("8S", ALEX)], [], [read("8S", ALEX)], [],
              [read("8S", ALEX)], [read("8S", ALEX)]]
    for reads in frames:
        table.show(*reads)
    assert kinds(table.log) == [("flip", "Alex", "8S", 0)]
    assert table.log[0].frame == 4


def test_a_card_read_very_surely_is_announced_after_sure_frames():
    table = Table()
    assert table.show(read("8S", ALEX, 0.97)) == []                  # one sighting is never enough
    obs = table.show(read("8S", ALEX, 0.96))
    assert kinds(obs) == [("flip", "Alex", "8S", 0)]
    assert obs[0].frame == 2 and obs[0].confidence == pytest.approx((0.97 + 0.96) / 2)
    # sure but not very sure (>= 0.8, < 0.95): still stable_frames
    assert table.show(read("KD", OLIVIA, 0.94), times=2) == []
    assert kinds(table.show(read("KD", OLIVIA, 0.94))) == [("flip", "Olivia", "KD", 0)]
    # one very sure reading among surer-than-threshold ones is not enough either
    table = Table()
    table.show(read("8S", ALEX, 0.97))
    assert table.show(read("8S", ALEX, 0.9)) == []
    assert kinds(table.show(read("8S", ALEX, 0.97))) == [("flip", "Alex", "8S", 0)]   # 3 sure sightings
    # switched off, or stable_frames no more than sure_frames: the usual rule
    table = Table(tracker(sure=None))
    assert table.show(read("8S", ALEX, 0.99), times=2) == []
    assert kinds(table.show(read("8S", ALEX, 0.99))) == [("flip", "Alex", "8S", 0)]
    table = Table(tracker(stable_frames=2, sure_frames=3))
    assert table.show(read("8S", ALEX, 0.99)) == []
    assert kinds(table.show(read("8S", ALEX, 0.99))) == [("flip", "Alex", "8S", 0)]


def test_a_very_sure_flicker_is_not_announced():
    table = Table()
    for card in ["8S", "8C", "8S", "8C", "8S", "8C", "8S", "8C"]:    # two codes, each read at 0.97
        table.show(read(card, ALEX, 0.97))
    assert [o.kind for o in table.log] == ["unsure"]                 # asked once, never announced
    assert table.t.faceup["Alex"] == []


def test_a_flickering_reading_of_an_announced_card_is_not_a_new_card():
    table = Table()
    table.show(read("8S", ALEX), times=3)
    for card in ["8S", "8C", "8S", "3S", "8S", "8C", "8C", "8S", "8S"]:
        table.show(read(card, ALEX))
    assert kinds(table.log) == [("flip", "Alex", "8S", 0)]


def test_a_hand_over_the_cards_makes_no_noise():
    table = Table()
    table.show(read("8S", ALEX), read("KD", OLIVIA), times=3)
    table.show(times=2)                                               # a hand hides everything
    table.show(read("8S", ALEX), read("KD", OLIVIA), times=3)
    table.show(read("KD", OLIVIA), times=2)                           # a hand over Alex's card only
    table.show(read("8S", ALEX), read("KD", OLIVIA), times=3)
    assert kinds(table.log) == [("flip", "Alex", "8S", 0), ("flip", "Olivia", "KD", 0)]


def test_a_card_covered_for_long_and_uncovered_in_place_is_not_announced_again():
    table = Table()
    table.show(read("8S", ALEX), read("KD", OLIVIA), times=3)
    table.show(read("KD", OLIVIA), times=8)
    assert table.t.faceup["Alex"] == []                               # gone after stable_frames
    table.show(read("8S", ALEX), read("KD", OLIVIA), times=5)
    assert kinds(table.log) == [("flip", "Alex", "8S", 0), ("flip", "Olivia", "KD", 0)]
    assert [h.card for h in table.t.faceup["Alex"]] == ["8S"]
    table.show(times=3)
    assert kinds(table.log)[-1] == ("collected", None, None, 2)      # counted once


def test_a_new_card_beside_or_on_top_of_an_earlier_one_is_a_new_flip():
    table = Table()
    table.show(read("8S", ALEX), times=3)
    table.show(read("8S", ALEX), read("2H", ALEX_BESIDE), times=3)    # beside it
    table.show(read("9C", (585, 445, 705, 615)), read("2H", ALEX_BESIDE), times=3)   # on top, same place
    assert kinds(table.log) == [("flip", "Alex", "8S", 0), ("flip", "Alex", "2H", 0), ("flip", "Alex", "9C", 0)]
    assert [h.card for h in table.t.faceup["Alex"]] == ["2H", "9C"]


# -- unsure --------------------------------------------------------------------------------------------

def test_a_card_read_below_the_threshold_is_unsure_once():
    table = Table()
    obs = table.show(read("8S", ALEX, 0.6), times=3)
    assert kinds(obs) == [("unsure", "Alex", "8S", 0)]
    assert obs[0].confidence == pytest.approx(0.6) and obs[0].box == list(ALEX) and obs[0].frame == 3
    assert table.show(read("8S", ALEX, 0.65), times=10) == []         # not repeated while it stays
    assert kinds(table.show(read("3S", ALEX, 0.6), times=3)) == [("unsure", "Alex", "3S", 0)]   # reads change
    table.show(times=3)                                               # taken away...
    assert kinds(table.show(read("3S", ALEX, 0.6), times=3)) == [("unsure", "Alex", "3S", 0)]   # ...shown again
    assert table.t.faceup["Alex"] == []
    # read at last (held still): a flip, with no unsure for the better reading on its way
    assert kinds(table.show(read("8S", ALEX, 0.97), times=3)) == [("flip", "Alex", "8S", 0)]
    assert not any(o.kind == "collected" for o in table.log)         # unsure cards are not a battle


def test_reads_that_disagree_are_unsure_with_the_best_code():
    table = Table()
    table.show(read("8S", ALEX, 0.9))
    table.show(read("8C", ALEX, 0.85))
    obs = table.show(read("8S", ALEX, 0.9))
    assert kinds(obs) == [("unsure", "Alex", "8S", 0)] and obs[0].confidence == pytest.approx(0.9)
    for card in ["8C", "8S", "8C", "8S", "8C", "8C", "8S"]:          # still undecided: not asked again
        assert table.show(read(card, ALEX, 0.9)) == []


def test_a_hand_over_a_card_read_surely_once_is_waited_for_not_reasked():
    table = Table()
    table.show(read("7C", ALEX, 0.93))                                # laid, read surely once
    covered = (563, 415, 701, 622)                                    # a hand over it: the same card, less surely
    assert table.show(read("7C", covered, 0.52), times=6) == []       # no unsure while it is covered
    assert table.show(read("7C", ALEX, 0.93), times=2) == []          # uncovered
    assert kinds(table.show(read("7C", ALEX, 0.93))) == [("flip", "Alex", "7C", 0)]
    # covered for longer than cover_frames (3 x stable_frames): asked at last
    table = Table()
    table.show(read("7C", ALEX, 0.93))
    assert table.show(read("7C", covered, 0.52), times=8) == []
    obs = table.show(read("7C", covered, 0.52))
    assert kinds(obs) == [("unsure", "Alex", "7C", 0)] and obs[0].frame == 10
    # a reading of another code while covered: unsure as before (the reads disagree)
    table = Table()
    table.show(read("7C", ALEX, 0.93))
    table.show(read("7C", covered, 0.52))
    assert kinds(table.show(read("7D", covered, 0.45))) == [("unsure", "Alex", "7C", 0)]
    # a card never read surely: unsure after stable_frames, as before
    table = Table()
    assert kinds(table.show(read("7C", ALEX, 0.7), times=3)) == [("unsure", "Alex", "7C", 0)]


def test_an_announced_card_partly_covered_is_not_asked_about():
    table = Table()
    table.show(read("2S", ALEX), times=3)                             # announced
    half = (559, 412, 713, 518)                                       # a hand hides its lower half
    table.show(read("2S", half, 0.74), times=5)                       # a new place (IoU < 0.5), unsure reads
    table.show(read("2S", ALEX), times=3)                             # the hand goes
    assert kinds(table.log) == [("flip", "Alex", "2S", 0)]
    # another code read there is still asked about
    table.show(read("3S", half, 0.74), times=3)
    assert kinds(table.log)[-1] == ("unsure", "Alex", "3S", 0)


def test_sure_readings_after_a_hand_leaves_are_waited_for():
    table = Table()
    table.show(read("6C", OLIVIA, 0.31), times=2)                     # under a hand from the start
    assert table.show(read("6C", OLIVIA, 0.91)) == []                 # uncovered: no unsure on its way
    assert table.show(read("6C", OLIVIA, 0.91)) == []
    assert kinds(table.show(read("6C", OLIVIA, 0.91))) == [("flip", "Olivia", "6C", 0)]


def test_unsure_can_wait_longer_than_a_flip():
    table = Table(tracker(unsure_frames=6))
    for card in ["8S", "8C", "8S", "8S", "8S"]:                       # settles before 6 sightings
        table.show(read(card, ALEX))
    assert kinds(table.log) == [("flip", "Alex", "8S", 0)]
    table.show(read("QH", OLIVIA, 0.5), times=5)
    assert [o.kind for o in table.log] == ["flip"]
    assert kinds(table.show(read("QH", OLIVIA, 0.5))) == [("unsure", "Olivia", "QH", 0)]


def test_noise_below_the_floor_and_reads_outside_every_zone_are_ignored():
    table = Table()
    table.show(read("8S", (10, 10, 90, 130)), read("BACK", (1180, 300, 1270, 420)),   # players' own piles
               read("4D", ALEX, 0.2), times=10)
    assert table.log == []
    assert table.t.faceup == {"Alex": [], "Olivia": []} and table.t.backs == {"Alex": 0, "Olivia": 0}


# -- face-down cards, wars, collection -------------------------------------------------------------------

def test_backs_are_counted_and_a_stable_rise_is_announced():
    table = Table()
    b = [read("BACK", box) for box in ALEX_BACKS]
    table.show(b[0])
    table.show(b[0], b[1])
    assert table.log == []                                            # still being laid
    obs = table.show(*b, times=3)
    assert kinds(obs) == [("down", "Alex", None, 3)]
    assert obs[0].box == [380, 460, 540, 650]
    table.show(b[0], b[1], times=5)                                   # one covered: nothing
    table.show(*b, times=5)                                           # uncovered again: nothing
    assert table.t.backs == {"Alex": 3, "Olivia": 0}
    table.show(*b, read("BACK", (600, 470, 720, 640)), times=3)       # one more: down 1
    assert kinds(table.log) == [("down", "Alex", None, 3), ("down", "Alex", None, 1)]
    assert table.t.down == {"Alex": 4, "Olivia": 0}


def test_a_flickering_back_count_is_announced_once_it_holds():
    table = Table()
    b = [read("BACK", box) for box in OLIVIA_BACKS]
    for reads in [b, b[:2], b, b[:1], b, b, b]:
        table.show(*reads)
    assert kinds(table.log) == [("down", "Olivia", None, 3)]
    assert table.log[0].frame == 7


def test_a_war():
    table = Table()
    table.show(read("8S", ALEX), read("8H", OLIVIA), times=3)                      # battle cards tie
    ab = [read("BACK", box) for box in ALEX_BACKS]
    ob = [read("BACK", box) for box in OLIVIA_BACKS]
    table.show(read("8S", ALEX), read("8H", OLIVIA), *ab, times=2)
    table.show(read("8H", OLIVIA), *ab, times=1)                                   # a hand over Alex's 8
    table.show(read("8S", ALEX), read("8H", OLIVIA), *ab, *ob, times=3)
    # the war's face-up cards on top of the backs, hiding one of them each
    table.show(read("8S", ALEX), read("8H", OLIVIA), ab[0], read("KS", ALEX_ON_BACKS),
               ob[0], ob[1], read("2C", OLIVIA_ON_BACKS), times=5)
    assert kinds(table.log) == [("flip", "Alex", "8S", 0), ("flip", "Olivia", "8H", 0),
                                ("down", "Alex", None, 3), ("down", "Olivia", None, 3),
                                ("flip", "Alex", "KS", 0), ("flip", "Olivia", "2C", 0)]
    assert [h.card for h in table.t.faceup["Alex"]] == ["8S", "KS"]
    held = table.t.holding()
    assert held["Alex"]["backs"] == 1 and held["Alex"]["down"] == 3
    assert [c["card"] for c in held["Olivia"]["faceup"]] == ["8H", "2C"]
    # the winner collects: empty for stable_frames frames -> one "collected", and a fresh start
    table.show(read("KS", ALEX_ON_BACKS))                                          # picking up
    assert table.show(times=2) == []
    obs = table.show(times=1)
    assert kinds(obs) == [("collected", None, None, 10)]
    assert table.show(times=10) == []
    assert table.t.faceup == {"Alex": [], "Olivia": []} and table.t.down == {"Alex": 0, "Olivia": 0}
    # the next battle: the same card at the same place is a new flip now
    assert kinds(table.show(read("8S", ALEX), times=3)) == [("flip", "Alex", "8S", 0)]


def test_collected_needs_cards_first_and_stable_frames_of_empty_table():
    table = Table()
    assert table.show(times=10) == []                                 # nothing held: nothing collected
    table.show(read("8S", ALEX), times=2)
    assert table.show(times=5) == []                                  # never announced
    table.show(read("8S", ALEX), read("KD", OLIVIA), times=3)
    table.show(read("KD", OLIVIA), times=4)                           # one seat empty is not collected
    assert table.show(times=2) == []
    assert kinds(table.show()) == [("collected", None, None, 2)]


def test_reset_forgets_everything():
    table = Table()
    table.show(read("8S", ALEX), *[read("BACK", b) for b in OLIVIA_BACKS], times=3)
    table.t.reset()
    assert table.t.faceup == {"Alex": [], "Olivia": []} and table.t.backs == {"Alex": 0, "Olivia": 0}
    assert table.show(times=5) == []
    assert [o.kind for o in table.show(read("8S", ALEX), times=3)] == ["flip"]


def test_zones_can_be_redrawn():
    t = tracker()
    t.zones = {"Alex": [(0, 0), (0.5, 0), (0.5, 1), (0, 1)], "Olivia": [(0.5, 0), (1, 0), (1, 1), (0.5, 1)]}
    table = Table(t)
    obs = table.show(read("8S", (100, 300, 220, 470)), read("KD", (1000, 300, 1120, 470)), times=3)
    assert sorted(kinds(obs)) == [("flip", "Alex", "8S", 0), ("flip", "Olivia", "KD", 0)]
    with pytest.raises(ValueError):
        t.zones = {"Alex": [(0, 0), (1, 1)]}


# -- the real reader ------------------------------------------------------------------------------------

def test_the_real_reader_on_rendered_frames_gives_the_right_flips():
    from vision.reader import TableReader
    from vision.synth.flat import flat_table

    reader = TableReader("standard")
    alex, olivia, back = ("QH", (640, 560), 5), ("7S", (520, 170), -8), ("BACK", (800, 180), 80)
    scenes = [[alex], [alex, olivia], [alex, olivia, back], [alex, olivia, back]]
    t = TableTracker(default_zones(["Alex", "Olivia"]), frame_size=(1280, 720), stable_frames=2)
    log = []
    for i, cards in enumerate(scenes):
        image, _ = flat_table("standard", cards, seed=i)
        log += t.update(reader.read(image), i)
    assert [(o.kind, o.seat, o.card, o.count, o.frame) for o in log] == [
        ("flip", "Alex", "QH", 0, 1), ("flip", "Olivia", "7S", 0, 2), ("down", "Olivia", None, 1, 3)]
    assert iou(log[0].box, [572, 470, 708, 650]) > 0.8
