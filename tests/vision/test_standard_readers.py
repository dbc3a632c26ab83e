"""The standard readers' retraining recipe (vision/train/standard_readers.py): its candidate folder."""
import json

import pytest

from vision.train import standard_readers as R


def test_the_candidate_holds_the_new_readers_beside_links_to_every_other_installed_model(tmp_path, monkeypatch):
    models, runs = tmp_path / "models", tmp_path / "runs"
    models.mkdir()
    names = {"0": "2C", "1": "NONE"}
    for f in ("detector.onnx", "reader-woolly.onnx", "reader-standard-face.onnx"):
        (models / f).write_text("installed " + f)
    for member in R.MEMBERS:
        (models / f"reader-standard{member}.onnx").write_text("old")
        (models / f"reader-standard{member}.json").write_text(json.dumps({"names": names, "threshold": 0.5}))
    trainings = [R.Training(m, tmp_path, 1, 1e-3, tmp_path) for m in R.MEMBERS]
    for t in trainings:
        run = runs / t.run.name
        run.mkdir(parents=True)
        (run / "reader.onnx").write_text("new" + t.member)
        (run / "reader.json").write_text(json.dumps({"names": names}))
    monkeypatch.setattr(R, "RUNS", runs)                     # the runs folder the trainings name
    out = R.candidate(tmp_path / "candidate", models, trainings)
    assert (out / "reader-standard.onnx").read_text() == "new" and not (out / "reader-standard.onnx").is_symlink()
    assert (out / "reader-standard-grey.onnx").read_text() == "new-grey"
    # the run time reads the new readers as it reads the installed ones: their .json are the installed ones'
    assert (out / "reader-standard.json").is_symlink() and json.loads((out / "reader-standard.json").read_text())["threshold"] == 0.5
    assert (out / "detector.onnx").read_text() == "installed detector.onnx"
    # a reader whose classes are not the installed one's is refused
    (runs / "reader-standard-grey-r9" / "reader.json").write_text(json.dumps({"names": {"0": "2C"}}))
    with pytest.raises(ValueError, match="classes"):
        R.candidate(tmp_path / "candidate", models, trainings)


def test_mined_boxes_are_the_detectors_boxes_on_no_card():
    """reader_negatives.off_cards: of a detector's face-up boxes, those overlapping no card of the
    scene (IoU 0.3) and holding none of its corner indices; a box on a card, on a sliver of a hidden
    card showing its index, or of a back is left out."""
    import numpy as np
    from vision.detector import Detection
    from vision.train.reader_negatives import off_cards

    def det(x0, y0, x1, y1, kind="card"):
        return Detection(kind, 0.6, np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32), 0.0)

    cards = [{"box": [100, 100, 200, 240], "index_boxes": [[102, 102, 118, 130], [182, 210, 198, 238]]},
             {"box": [300, 100, 400, 240], "index_boxes": [[302, 102, 318, 130]]}]
    on_card = det(105, 105, 205, 235)                  # the first card itself
    on_table = det(450, 300, 520, 400)                 # nothing there
    on_pip = det(140, 150, 170, 190)                   # inside the first card, clear of its indices
    sliver = det(295, 95, 330, 140)                    # the second card's corner index, little else
    back = det(450, 300, 520, 400, kind="back")
    assert off_cards([on_card, on_table, on_pip, sliver, back], cards) == [on_table, on_pip]


def test_the_index_finders_places_on_a_true_index_are_not_mined():
    """reader_negatives.away_from: of the index finder's placings on a flat 7 of diamonds, those at
    the card's own two ranks are left out; the rest (pips paired as a rank above a suit) are kept."""
    import cv2
    import numpy as np
    from vision import indices
    from vision.synth.flat import flat_table
    from vision.train.reader_negatives import away_from

    image, placed = flat_table("standard", [("7D", (320, 320), 20)], size=(640, 640), card_h=420, seed=8,
                               table="felt")
    ranks = [indices._at(np.roll(placed[0].corners, -k, 0), indices.RANK) for k in (0, 2)]
    every = indices.placings(indices.marks(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)))

    def at_a_rank(c):
        return min(np.linalg.norm(indices._at(c, indices.RANK) - r) for r in ranks) < 10

    assert any(at_a_rank(c) for c in every)                       # the finder does propose the true indices
    kept = away_from(every, ranks)
    assert kept and not any(at_a_rank(c) for c in kept)
    assert len(kept) < len(every)


def test_the_view_sets_hold_the_mined_views_the_command_names_and_no_others(tmp_path, monkeypatch):
    """Without --mine (or --mine-indices) the views an earlier command mined are taken out, so the
    command line is the whole recipe; the other NONE views stay."""
    monkeypatch.setattr(R, "DATA", tmp_path)
    for out in ("reader-standard", "reader-standard-close"):
        for split in ("train", "val"):
            folder = tmp_path / out / split / "NONE"
            folder.mkdir(parents=True)
            for name in ("m000001.jpg", "i000001.jpg", "none-7-00001.jpg"):
                (folder / name).write_text("view")
        (tmp_path / out / ".mined").write_text("models/detector.onnx")
        (tmp_path / out / ".index-mined").write_text("models/reader-standard.onnx")
    R.mine([])
    kept = {p.name for p in (tmp_path / "reader-standard-close" / "val" / "NONE").iterdir()}
    assert kept == {"i000001.jpg", "none-7-00001.jpg"} and not (tmp_path / "reader-standard" / ".mined").exists()
    R.mine_indices([])
    for out in ("reader-standard", "reader-standard-close"):
        for split in ("train", "val"):
            assert {p.name for p in (tmp_path / out / split / "NONE").iterdir()} == {"none-7-00001.jpg"}
        assert not (tmp_path / out / ".index-mined").exists()
