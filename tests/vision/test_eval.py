"""`warref eval` on a tiny labelled set made like ../shared/realcards (phone/ and edje/ layouts)."""
import json
import subprocess
import sys

import cv2
import numpy as np
import pytest

from vision.lab import evaluate, realcards
from vision.config import PHOTO
from vision.synth.flat import flat_table
from web.cli import main

CARDS = [("KS", (300, 330), 5), ("9H", (640, 360), -20), ("AD", (980, 340), 12)]


def _yolo(box, w, h):
    x0, y0, x1, y1 = box
    return f"{(x0 + x1) / 2 / w:.6f} {(y0 + y1) / 2 / h:.6f} {(x1 - x0) / w:.6f} {(y1 - y0) / h:.6f}"


def make_sets(root):
    """phone/: corner-index boxes with identity classes; edje/: whole-card boxes with ranks."""
    image, placed = flat_table("standard", CARDS, seed=21)
    h, w = image.shape[:2]
    phone_classes = [r + s for s in "CDHS" for r in ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]]
    phone_classes += ["JOKER", "BACK"]
    edje_classes = ["9", "10", "J", "Q", "K", "A"]
    for name, classes in (("phone", phone_classes), ("edje", edje_classes)):
        (root / name / "images").mkdir(parents=True)
        (root / name / "labels").mkdir()
        (root / name / "classes.txt").write_text("\n".join(classes) + "\n")
        cv2.imwrite(str(root / name / "images" / "table.jpg"), image)
        lines = []
        for p in placed:
            x0, y0 = p.corners.min(0)
            x1, y1 = p.corners.max(0)
            if name == "phone":          # a box around the top-left corner index
                c = p.corners[0]
                lines.append(f"{classes.index(p.card)} " + _yolo((c[0], c[1], c[0] + 25, c[1] + 45), w, h))
            else:
                lines.append(f"{classes.index(p.card[:-1])} " + _yolo((x0, y0, x1, y1), w, h))
        (root / name / "labels" / "table.txt").write_text("\n".join(lines) + "\n")


@pytest.fixture(scope="module")
def plain(tmp_path_factory):
    """The tiny sets and their evaluation with every default set (the webcam-like copies too) and no
    audit, made once: (the folder, the report). Reading the photos is most of an evaluation's time."""
    tmp_path = tmp_path_factory.mktemp("eval")
    make_sets(tmp_path / "real")
    report = evaluate.run("standard", tmp_path / "out", None, tmp_path / "real", limit=5, threshold=0.5, quiet=True)
    return tmp_path, report


def test_eval_report_scores_and_draws(plain):
    tmp_path, report = plain
    assert len(realcards.load("edje", tmp_path / "real")[0].labels) == 3
    assert report["phone"]["at_0.5"]["precision"] == 1.0 and report["phone"]["at_0.5"]["recall"] == 1.0
    assert report["edje"]["at_0.5"]["recall"] == 1.0 and report["edje"]["at_0.5"]["map50"] == 1.0
    assert report["edje"]["read_rank_accuracy"] == 1.0
    assert "by_colour" not in report["phone"]       # every photo in colour: no split
    # every labelled card read at the threshold, and the summary says where they stand
    assert report["edje"]["misses_at_stated"]["read"] == 3 and sum(report["edje"]["misses_at_stated"].values()) == 3
    assert report["phone"]["misses_at_stated"]["read"] == sum(report["phone"]["misses_at_stated"].values())
    assert "labelled cards at the stated threshold: read 3, read below the threshold 0" in evaluate.summary(report)
    for png in ["calibration.png", "confusion-phone.png", "confusion-edje.png", "mistakes-phone.png", "mistakes-edje.png"]:
        assert cv2.imread(str(tmp_path / "out" / png)) is not None, png
    saved = json.loads((tmp_path / "out" / "report.json").read_text())
    assert saved["phone"]["photos"] == 1
    assert saved["real_photo_config"]["lean"] is True        # photos read as `warref detect` reads them
    assert saved["real_photo_steps"] == PHOTO.switched_on() and "lean" in saved["real_photo_steps"]
    assert saved["real_photo_config"] == json.loads(json.dumps(PHOTO.as_dict()))
    # the report says how it read: the stated threshold and the face reader blended in
    assert saved["reader"]["face"] == "reader-standard-face.onnx" and 0 < saved["reader"]["face_weight"] < 1
    assert "with the face reader reader-standard-face.onnx" in evaluate.summary(saved).splitlines()[0]
    # the raw predictions score the same again through `warref score`
    run = subprocess.run([sys.executable, "-m", "web.cli", "score", str(tmp_path / "out" / "predictions-edje.jsonl"),
                          "--set", "edje", "--root", str(tmp_path / "real"), "--json"], capture_output=True, text=True)
    assert json.loads(run.stdout)["recall"] == 1.0


def test_confusion_pairs_name_what_each_card_was_read_as():
    photo = realcards.Photo(path=__import__("pathlib").Path("x/p.jpg"), width=100, height=100,
                            labels=(realcards.Label("Q", (10, 10, 50, 60)), realcards.Label("A", (60, 10, 95, 60))))
    lines = [{"image": "p.jpg", "cards": [{"card": "JH", "confidence": 0.9, "box": [11, 10, 50, 61]}]}]
    pairs = evaluate.pairs_edje([photo], lines, 0.5)
    assert [(t, r) for t, r, *_ in pairs] == [("Q", "J"), ("A", "none")]


def test_synthetic_reader_counts_a_card_read_as_no_index_as_unread_not_wrong(tmp_path):
    # a tiny synthetic set: two cards, and a third label whose box holds only table (the reader
    # says NONE there): the run time drops a NONE reading, so it costs coverage, not precision
    from vision.reader import TableReader

    image, placed = flat_table("namikopy", [("3", (300, 330), 5), ("11", (640, 360), -20)], seed=4)
    empty = placed[0].corners + [700, 0]                       # same size, on bare table to the right
    labels = [{"card": p.card, "face_up": True, "index_visible": True, "visible": 1.0,
               "obb": p.corners.tolist(), "corners": p.corners.tolist()} for p in placed]
    labels.append(dict(labels[0], card="7", obb=empty.tolist(), corners=empty.tolist()))
    labels[2]["occluded"] = True                                # as if a hand lay over the card the box is on
    labels[2]["index_boxes"] = []                               # ... and over both its indices
    (tmp_path / "scenes" / "val").mkdir(parents=True)
    (tmp_path / "images" / "val").mkdir(parents=True)
    cv2.imwrite(str(tmp_path / "images" / "val" / "000000.jpg"), image)
    (tmp_path / "scenes" / "val" / "000000.json").write_text(json.dumps({"image": "images/val/000000.jpg", "cards": labels}))
    got = evaluate.synthetic_views(TableReader("namikopy"), tmp_path, 5, quiet=True)
    assert got["cards"] == 3 and got["read_as_none"] == 1 / 3
    assert got["accuracy"] == 2 / 3
    assert got["at"]["0.5"] == {"coverage": 2 / 3, "precision": 1.0}
    assert got["worst_confusions"] == [("7->NONE", 1)]
    # the cards are 170 pixels long, about 121 wide (jittered by 3%): all three 80 pixels or more
    assert got["by_width"]["80+"] == {"cards": 3, "accuracy": 2 / 3}
    assert got["by_width"]["80-120"]["cards"] + got["by_width"]["120+"]["cards"] == 3
    assert got["by_width"]["40-60"] == {"cards": 0, "accuracy": None}
    # apart for the cards marked occluded (under half in sight), and the rest
    assert got["by_occlusion"] == {"not_occluded": {"cards": 2, "accuracy": 1.0}, "occluded": {"cards": 1, "accuracy": 0.0},
                                   "occluded_index_in_a_corner": {"cards": 0, "accuracy": None},
                                   "occluded_no_index_in_a_corner": {"cards": 1, "accuracy": 0.0}}
    line = evaluate.summary({"deck": "namikopy", "synthetic_reader": got})
    assert "with half or more in sight: 1.0000 (2), with under half of the card in sight: 0.0000 (1)" in line
    assert "with no index in sight where a cut of the box shows one: 0.0000 (1)" in line
    # an index in sight in the box's corner: the occluded card counts with those a cut can show
    top_left = empty[0] + 0.125 * (empty[1] - empty[0]) + 0.125 * (empty[3] - empty[0])   # its index's centre
    labels[2]["index_boxes"] = [[int(v) for v in (*(top_left - 8), *(top_left + 8))]]
    (tmp_path / "scenes" / "val" / "000000.json").write_text(json.dumps({"image": "images/val/000000.jpg", "cards": labels}))
    got = evaluate.synthetic_views(TableReader("namikopy"), tmp_path, 5, quiet=True)
    assert got["by_occlusion"]["occluded_index_in_a_corner"] == {"cards": 1, "accuracy": 0.0}


def test_eval_measures_the_models_it_is_given(tmp_path):
    """`warref eval --models DIR` reads with DIR's models (a candidate, before it is installed)."""
    make_sets(tmp_path / "real")
    candidate = tmp_path / "candidate"
    candidate.mkdir()
    for f in evaluate.MODELS.glob("reader-standard*"):
        (candidate / f.name).symlink_to(f)
    run = subprocess.run([sys.executable, "-m", "web.cli", "eval", "--models", str(candidate), "--root",
                          str(tmp_path / "real"), "--out", str(tmp_path / "out"), "--quiet",
                          "--dataset", str(tmp_path / "none")], capture_output=True, text=True)
    assert run.returncode == 2 and "detector.onnx" in run.stderr and str(candidate) in run.stderr
    (candidate / "detector.onnx").symlink_to(evaluate.MODELS / "detector.onnx")
    (candidate / "detector.json").symlink_to(evaluate.MODELS / "detector.json")
    report = evaluate.run("standard", tmp_path / "out", None, tmp_path / "real", limit=5, threshold=0.5, quiet=True,
                          models=candidate, sets=("phone",))         # one set shows which models read
    assert report["models"] == str(candidate) and report["phone"]["at_0.5"]["recall"] == 1.0


def test_eval_without_cut_cards_says_so(tmp_path, capsys):
    """`warref eval` reads cards cut by a photo's edge by default, as `warref detect` does;
    `--no-cut-cards` leaves them out, and its report says so."""
    make_sets(tmp_path / "real")
    # one more edje/ photo: a queen of hearts 30% inside its top edge, labelled where it shows
    image, placed = flat_table("standard", [("QH", (640, -0.2 * 300), 0), ("9C", (640, 400), 10)], card_h=300, seed=7)
    h, w = image.shape[:2]
    edje = tmp_path / "real" / "edje"
    cv2.imwrite(str(edje / "images" / "cut.jpg"), image)
    classes = (edje / "classes.txt").read_text().split()
    (edje / "labels" / "cut.txt").write_text("".join(
        f"{classes.index(p.card[:-1])} " + _yolo((*np.maximum(p.corners.min(0), 0), *np.minimum(p.corners.max(0), (w, h))), w, h) + "\n"
        for p in placed))
    runs = {}
    for flag in ([], ["--no-cut-cards"]):
        out = tmp_path / ("out" + "".join(flag))
        # the command in this process, on one: worker processes reading as they are told are
        # tests/vision/test_photos.py's (a reader remade from its settings, its config with it)
        code = main(["eval", *flag, "--root", str(tmp_path / "real"), "--sets", "edje", "--out", str(out), "--quiet",
                     "--dataset", str(tmp_path / "none"), "--jobs", "1"])
        said = capsys.readouterr()
        assert code == 0, said.err
        assert "synthetic: skipped, no held-out synthetic scenes at" in said.out      # and says what it left out
        report = json.loads((out / "report.json").read_text())
        runs[tuple(flag)] = (said.out, report["real_photo_config"]["cut"], report["edje"]["at_stated"],
                             report["real_photo_steps"])
    assert runs[()][1] is True and "cut" in runs[()][3]
    assert f"photo steps: {', '.join(PHOTO.switched_on())}" in runs[()][0] and "cut" in PHOTO.switched_on()
    assert runs[()][2]["precision"] == 1.0 and runs[()][2]["recall"] == 1.0                # the cut queen read too
    assert runs[("--no-cut-cards",)][1] is False and runs[("--no-cut-cards",)][2]["recall"] == 4 / 5
    without = PHOTO.without("cut").switched_on()
    assert runs[("--no-cut-cards",)][3] == without and "cut" not in without
    assert f"photo steps: {', '.join(without)}" in runs[("--no-cut-cards",)][0]


def test_black_and_white_photos_are_told_from_colour_ones():
    image, _ = flat_table("standard", CARDS, seed=21)
    grey = cv2.cvtColor(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    ok, jpeg = cv2.imencode(".jpg", grey, [cv2.IMWRITE_JPEG_QUALITY, 70])     # a black-and-white JPEG's noise
    assert not evaluate.black_and_white(image)
    assert evaluate.black_and_white(grey) and evaluate.black_and_white(grey[..., 0])
    assert evaluate.black_and_white(cv2.imdecode(jpeg, cv2.IMREAD_COLOR))
    sticker = grey.copy()                   # one red card on a black-and-white table is colour
    sticker[300:420, 560:660] = (40, 40, 220)
    assert not evaluate.black_and_white(sticker)


def test_eval_scores_black_and_white_photos_apart(tmp_path):
    make_sets(tmp_path / "real")
    for name in ("phone", "edje"):          # the same table again, as a black-and-white photo
        folder = tmp_path / "real" / name
        image = cv2.imread(str(folder / "images" / "table.jpg"))
        cv2.imwrite(str(folder / "images" / "table-bw.jpg"),
                    cv2.cvtColor(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR))
        (folder / "labels" / "table-bw.txt").write_text((folder / "labels" / "table.txt").read_text())
    report = evaluate.run("standard", tmp_path / "out", None, tmp_path / "real", limit=5, threshold=0.5, quiet=True,
                          sets=("phone", "edje"))       # the labelled sets: their webcam-like copies add nothing here
    for name, labelled in (("phone", 3), ("edje", 3)):
        split = report[name]["by_colour"]
        assert split["black_and_white"]["photos"] == split["colour"]["photos"] == 1
        assert split["black_and_white"]["labels"] == split["colour"]["labels"] == labelled
        assert split["colour"]["recall"] == 1.0          # the colour table reads whole, as in the test above
        both = split["black_and_white"]["true_positives"] + split["colour"]["true_positives"]
        assert both == report[name]["at_stated"]["true_positives"]
    assert "black-and-white photos (1): precision" in evaluate.summary(report)


def test_eval_also_scores_with_an_audit_and_lists_what_counts_wrong(tmp_path, plain):
    make_sets(tmp_path / "real")
    audit = tmp_path / "audit.json"          # say the 9 of hearts were labelled wrong: it is then read "wrong"
    audit.write_text(json.dumps({"edje": {"table.jpg": {"relabel": [["9", "10"]], "why": "a test"}}}))
    report = evaluate.run("standard", tmp_path / "out", None, tmp_path / "real", limit=5, threshold=0.5, quiet=True,
                          audit=audit, sets=("phone", "edje"))      # the audited set and one it leaves alone
    assert report["edje"]["at_stated"]["recall"] == 1.0 and report["edje"]["counted_wrong_at_stated"] == []
    audited = report["edje"]["audited"]
    assert audited["photos_audited"] == 1 and audited["at_stated"]["true_positives"] == 2
    assert audited["at_stated"]["precision"] == pytest.approx(2 / 3)
    assert report["phone"]["audited"]["photos_audited"] == 0
    assert "with the labels' audit (1 photo:" in evaluate.summary(report)
    # without an audit (a set of one's own), none is applied: the same sets evaluated with none given
    assert "audited" not in plain[1]["edje"] and plain[1]["edje"]["at_stated"]["recall"] == 1.0


def test_eval_draws_the_photos_its_audit_changes(tmp_path):
    make_sets(tmp_path / "real")
    audit = tmp_path / "audit.json"
    audit.write_text(json.dumps({"phone": {"table.jpg": {"unlabelled": ["JOKER"], "why": "a joker at the edge"}}}))
    photos = realcards.load("phone", tmp_path / "real")
    evaluate.audit_png("phone", photos, audit, tmp_path / "audit-phone.png")
    sheet = cv2.imread(str(tmp_path / "audit-phone.png"))
    assert sheet is not None and sheet.shape[1] == 3 * 360
    evaluate.audit_png("edje", photos, audit, tmp_path / "audit-edje.png")     # nothing audited: no picture
    assert not (tmp_path / "audit-edje.png").exists()


def test_a_set_of_any_name_labelled_with_card_codes_is_scored_on_identities_for_any_deck(tmp_path):
    """Photos of a family's deck, in a folder named as they like: labelled with card codes, they
    are scored on the cards each photo shows, not on ranks; and a deck other than the standard
    one (whose real photos warref has none of) is scored on the sets named."""
    make_sets(tmp_path / "real")
    (tmp_path / "real" / "phone").rename(tmp_path / "real" / "grandmas")
    assert realcards.scoring("grandmas", tmp_path / "real") == "identities"
    assert realcards.scoring("edje", tmp_path / "real") == "ranks"
    report = evaluate.run("standard", tmp_path / "out", None, tmp_path / "real", limit=5, threshold=0.5, quiet=True,
                          sets=("grandmas",))
    assert report["grandmas"]["scored_on"] == "identities"
    assert report["grandmas"]["at_0.5"]["recall"] == 1.0 and report["grandmas"]["at_0.5"]["precision"] == 1.0
    assert "grandmas/ (1 photos): identity precision 1.0000 recall 1.0000" in evaluate.summary(report)
    # a Namikopy deck's photos, whole-card boxes
    codes = ["7", "12", "MALLARD"]
    image, placed = flat_table("namikopy", [(c, (300 + 340 * k, 360), 8 - 9 * k) for k, c in enumerate(codes)], seed=4)
    h, w = image.shape[:2]
    folder = tmp_path / "real" / "ducks"
    (folder / "images").mkdir(parents=True)
    (folder / "labels").mkdir()
    classes = [str(n) for n in range(1, 13)] + ["MALLARD", "FLAMINGO", "TURKEY", "BACK"]
    (folder / "classes.txt").write_text("\n".join(classes) + "\n")
    cv2.imwrite(str(folder / "images" / "table.jpg"), image)
    (folder / "labels" / "table.txt").write_text("".join(
        f"{classes.index(p.card)} {_yolo((*p.corners.min(0), *p.corners.max(0)), w, h)}\n" for p in placed))
    report = evaluate.run("namikopy", tmp_path / "out2", None, tmp_path / "real", limit=5, threshold=None, quiet=True,
                          sets=("ducks",))
    assert report["ducks"]["scored_on"] == "identities"
    assert report["ducks"]["at_stated"]["recall"] >= 2 / 3 and report["ducks"]["at_stated"]["precision"] == 1.0
    assert "suits" not in report["ducks"]                # Namikopy cards have no suits
    # no set named: says where the figures would come from, instead of nothing
    quiet = evaluate.run("namikopy", tmp_path / "out3", None, tmp_path / "real", limit=5, threshold=None, quiet=True)
    assert "ducks" not in quiet
    assert "real photos: skipped, warref has no labelled photos of namikopy cards" in evaluate.summary(quiet)
