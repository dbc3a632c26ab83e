"""Scoring rules for the real photos (../shared/realcards/README.md), on hand-made cases, and the
photo loader on the real folders."""
import pytest

from vision.lab import metrics
from vision.lab.realcards import Label, Photo, load


def photo(name, *labels):
    return Photo(__import__("pathlib").Path(f"/x/{name}"), 100, 100, tuple(Label(c, b) for c, b in labels))


def pred(name, *cards):
    return {"image": f"/elsewhere/{name}", "cards": [{"card": c, "confidence": p, "box": list(b)} for c, p, b in cards]}


BOX = (10, 10, 50, 70)


def test_rank_of_collapses_identities_to_ranks():
    assert [metrics.rank_of(c) for c in ("QH", "10D", "as", "9C", "2S", "JOKER", "BACK", "K")] == \
        ["Q", "10", "A", "9", "2", None, None, "K"]


def test_identities_are_distinct_sets_per_image():
    photos = [photo("a.jpg", ("QH", BOX), ("QH", (60, 60, 70, 70)), ("2C", BOX)), photo("b.jpg", ("BACK", BOX))]
    preds = [pred("a.jpg", ("QH", 0.9, BOX), ("QH", 0.8, BOX), ("3C", 0.7, BOX)),
             pred("b.jpg", ("BACK", 0.95, BOX), ("AS", 0.2, BOX))]
    s = metrics.score_identities(photos, preds, threshold=0.5)
    # truth {QH, 2C} + {BACK}; predicted {QH, 3C} + {BACK}: 2 right of 3 predicted, 2 of 3 labelled
    assert (s.true_positives, s.predictions, s.labels) == (2, 3, 3)
    assert s.precision == pytest.approx(2 / 3) and s.recall == pytest.approx(2 / 3)
    low = metrics.score_identities(photos, preds, threshold=0.1)
    assert low.predictions == 4 and low.true_positives == 2


def test_ranks_match_by_iou_and_rank_and_ignore_low_ranks():
    photos = [photo("a.jpg", ("Q", BOX), ("9", (60, 10, 95, 60)))]
    preds = [pred("a.jpg",
                  ("QH", 0.9, (12, 12, 50, 70)),     # right rank, IoU > 0.5: hit
                  ("QS", 0.8, BOX),                  # a second prediction on the same card: false positive
                  ("10C", 0.7, (60, 10, 95, 60)),    # wrong rank on the 9: false positive
                  ("5D", 0.99, (60, 10, 95, 60)),    # rank 5: ignored
                  ("9D", 0.6, (0, 0, 20, 20)))]      # right rank, no overlap: false positive
    s = metrics.score_ranks(photos, preds, threshold=0.5)
    assert (s.true_positives, s.predictions, s.labels) == (1, 4, 2)
    assert s.precision == 0.25 and s.recall == 0.5
    # AP per rank: Q has hit then miss -> 1.0; 9 has only a miss -> 0.0
    assert s.map50 == pytest.approx(0.5)


def test_rank_misses_say_where_each_labelled_card_stands():
    far = (70, 70, 95, 95)
    photos = [photo("a.jpg", ("Q", BOX), ("9", (60, 10, 95, 60)), ("K", (10, 75, 40, 98)), ("A", far), ("3", BOX)),
              photo("b.jpg", ("10", BOX), ("J", far))]
    preds = [pred("a.jpg",
                  ("QH", 0.9, (12, 12, 50, 70)),     # the queen, sure: read
                  ("9C", 0.4, (60, 10, 95, 62)),     # the nine, unsure: read below the threshold
                  ("5S", 0.95, (10, 74, 40, 98)),    # over the king, another card (a 5: ranks 2-8 count here)
                  ("AS", 0.9, (55, 55, 95, 95))),    # over the ace but IoU 0.39: box off
             pred("b.jpg", ("10D", 0.3, BOX), ("10D", 0.8, (11, 11, 50, 70)))]   # the surer box counts; the jack has none
    got = metrics.rank_misses(photos, preds, 0.5)
    assert got == {"read": 2, "read below the threshold": 1, "read as another card": 1, "box off": 1, "no box": 1}
    assert sum(got.values()) == 6                      # the 3 is no edje/ rank: not counted
    assert metrics.rank_misses(photos, preds, 0.95)["read"] == 0


def test_identity_misses_say_where_each_labelled_identity_stands():
    photos = [photo("a.jpg", ("QH", (10, 10, 20, 25)), ("QH", (80, 70, 90, 85)), ("2C", (40, 40, 50, 55)),
                    ("7D", (5, 80, 15, 95)), ("KS", (96, 1, 100, 4)))]
    preds = [pred("a.jpg", ("QH", 0.9, (5, 5, 95, 90)),        # both QH corners in one box: read once
                  ("2C", 0.3, (35, 35, 60, 60)),                # read below the threshold
                  ("8D", 0.9, (0, 75, 30, 100)))]               # over the 7 of diamonds' corner: another card
    got = metrics.identity_misses(photos, preds, 0.5)
    assert got == {"read": 1, "read below the threshold": 1, "read as another card": 1, "no box": 1}


def test_average_precision_all_point_interpolation():
    # ranked hit, miss, hit with 2 labels: precision 1 at recall .5, 2/3 at recall 1
    assert metrics.average_precision([(0.9, True), (0.8, False), (0.7, True)], 2) == pytest.approx(0.5 + 0.5 * 2 / 3)
    assert metrics.average_precision([(0.9, True), (0.8, True)], 2) == 1.0
    assert metrics.average_precision([], 3) == 0.0


def test_threshold_for_precision_keeps_ties_together():
    outcomes = [(0.99, True), (0.95, True), (0.9, False), (0.9, True), (0.8, True), (0.5, False)]
    assert metrics.threshold_for_precision(outcomes, 1.0) == 0.95
    assert metrics.threshold_for_precision(outcomes, 0.75) == 0.8     # 4 of 5 down to 0.8
    assert metrics.threshold_for_precision([(0.9, False)], 0.5) is None


def test_reliability_bins():
    rows = metrics.reliability([(0.95, True), (0.91, False), (0.15, False), (1.0, True)], bins=10)
    assert [(r["low"], r["count"]) for r in rows] == [(0.1, 1), (0.9, 3)]
    assert rows[1]["accuracy"] == pytest.approx(2 / 3)


REAL = __import__("pathlib").Path(__file__).resolve().parents[3] / "shared" / "realcards"


@pytest.mark.skipif(not REAL.is_dir(), reason="../shared/realcards is not beside this checkout")
def test_the_real_photo_sets_load_with_pixel_boxes():
    phone, edje = load("phone"), load("edje")
    assert len(phone) == 200 and len(edje) == 296
    assert {label.card for p in edje for label in p.labels} <= set(metrics.EDJE_RANKS)
    for p in phone[:20] + edje[:20]:
        for label in p.labels:
            x0, y0, x1, y1 = label.box
            assert -1 <= x0 < x1 <= p.width + 1 and -1 <= y0 < y1 <= p.height + 1
    # perfect predictions score perfectly under both rules
    perfect = [{"image": str(p.path), "cards": [{"card": label.card, "confidence": 1.0, "box": list(label.box)}
                                                for label in p.labels]} for p in edje]
    s = metrics.score_ranks(edje, perfect, 0.5)
    assert s.precision == 1.0 and s.recall == 1.0 and s.map50 == pytest.approx(1.0)
    perfect_ids = [{"image": str(p.path), "cards": [{"card": label.card, "confidence": 1.0, "box": list(label.box)}
                                                    for label in p.labels]} for p in phone]
    s = metrics.score_identities(phone, perfect_ids, 0.5)
    assert s.precision == 1.0 and s.recall == 1.0 and s.labels > 200


@pytest.mark.skipif(not REAL.is_dir(), reason="../shared/realcards is not beside this checkout")
def test_score_command_on_predictions_with_one_mistake(tmp_path):
    import json
    import subprocess
    import sys
    edje = load("edje")
    lines = []
    for k, p in enumerate(edje):
        cards = [{"card": label.card + "H", "confidence": 0.9, "box": list(label.box)} for label in p.labels]
        if k == 0:
            cards[0]["card"] = "2H" if cards[0]["card"] != "2H" else "3H"   # a rank 2-8 guess: ignored
            cards.append({"card": "AS", "confidence": 0.95, "box": [0, 0, 5, 5]})  # a confident miss
        lines.append(json.dumps({"image": str(p.path), "cards": cards}))
    path = tmp_path / "pred.jsonl"
    path.write_text("\n".join(lines) + "\n")
    proc = subprocess.run([sys.executable, "-m", "web.cli", "score", str(path), "--set", "edje", "--json"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    labels = sum(len(p.labels) for p in edje)
    assert out["labels"] == labels and out["true_positives"] == labels - 1
    assert out["predictions"] == labels             # the AS miss counts, the 2H guess does not
    assert out["threshold_for_precision_0.995"] == 0.9    # above 0.95 only the miss remains


def _audit(tmp_path, entries):
    path = tmp_path / "audit.json"
    path.write_text(__import__("json").dumps(entries))
    return path


CLASSES = ["9", "10", "J", "Q", "K", "A", "QH", "2C", "JOKER", "BACK"]


def test_the_audit_relabels_and_lists_unlabelled_cards_which_count_neither_way(tmp_path):
    from vision.lab.realcards import apply_audit
    photos = [photo("a.jpg", ("QH", BOX)), photo("b.jpg", ("9", BOX))]
    audit = _audit(tmp_path, {"phone": {"a.jpg": {"unlabelled": ["JOKER"], "why": "a joker cut by the edge"}},
                              "edje": {"b.jpg": {"relabel": [["9", "10"]], "why": "a ten"}}})
    preds = [pred("a.jpg", ("QH", 0.9, BOX), ("JOKER", 0.8, BOX), ("2C", 0.7, BOX))]
    as_labelled = metrics.score_identities(photos, preds, 0.5)
    assert (as_labelled.true_positives, as_labelled.predictions, as_labelled.labels) == (1, 3, 2)
    fixed = apply_audit("phone", photos, CLASSES, audit)
    assert fixed[0].unlabelled == ("JOKER",) and fixed[1] == photos[1]
    audited = metrics.score_identities(fixed, preds, 0.5)
    # the joker the photo shows is neither right nor wrong; the 2C it does not show is still wrong
    assert (audited.true_positives, audited.predictions, audited.labels) == (1, 2, 2)
    ranks = apply_audit("edje", photos, CLASSES, audit)
    assert ranks[1].labels[0].card == "10" and ranks[1].labels[0].box == BOX and ranks[0] == photos[0]
    assert metrics.score_ranks(ranks, [pred("b.jpg", ("10D", 0.9, BOX))], 0.5).true_positives == 1
    assert metrics.score_ranks(photos, [pred("b.jpg", ("10D", 0.9, BOX))], 0.5).true_positives == 0


@pytest.mark.parametrize("entry, says", [
    ({"z.jpg": {"unlabelled": ["JOKER"], "why": "x"}}, "no such photo"),
    ({"a.jpg": {"unlabelled": ["QH"], "why": "x"}}, "a label already names it"),
    ({"a.jpg": {"unlabelled": ["XX"], "why": "x"}}, "not a class"),
    ({"a.jpg": {"relabel": [["9", "10"]], "why": "x"}}, "needs one label 9"),
    ({"a.jpg": {"unlabelled": ["JOKER"]}}, "says why"),
    ({"a.jpg": {"add": ["JOKER"], "why": "x"}}, "says why"),
])
def test_an_audit_that_does_not_fit_its_photos_is_refused(tmp_path, entry, says):
    from vision.lab.realcards import apply_audit
    with pytest.raises(ValueError, match=says):
        apply_audit("phone", [photo("a.jpg", ("QH", BOX))], CLASSES, _audit(tmp_path, {"phone": entry}))


@pytest.mark.skipif(not REAL.is_dir(), reason="../shared/realcards is not beside this checkout")
def test_the_committed_audit_fits_the_real_photos():
    for name in ("phone", "edje"):
        plain, fixed = load(name), load(name, audited=True)
        changed = [(a, b) for a, b in zip(plain, fixed) if a != b]
        assert changed, name                           # the audit has entries for both sets, and they apply
        for a, b in changed:                           # an audit changes labels' names, never their boxes
            assert [label.box for label in a.labels] == [label.box for label in b.labels]
