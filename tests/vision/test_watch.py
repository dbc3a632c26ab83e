"""`warref train detector --watch N`: each epoch's weights read beside the installed readers."""
from vision.train import watch


def test_a_candidate_folder_holds_the_new_detector_and_links_to_every_other_installed_model(tmp_path):
    installed = tmp_path / "models"
    installed.mkdir()
    for name, text in (("detector.onnx", "old"), ("detector.json", '{"imgsz": 320}'), ("reader-standard.onnx", "r"),
                       ("reader-standard.json", "{}"), ("reader-woolly.onnx", "w")):
        (installed / name).write_text(text)
    (installed / "journal").mkdir()                       # folders are not models
    new = tmp_path / "epoch.onnx"
    new.write_text("new")
    folder = watch.candidate_folder(new, tmp_path / "epoch-1", installed)
    assert (folder / "detector.onnx").read_text() == "new" and not (folder / "detector.onnx").is_symlink()
    assert (folder / "detector.json").read_text() == '{"imgsz": 320}'
    assert sorted(p.name for p in folder.iterdir()) == ["detector.json", "detector.onnx", "reader-standard.json",
                                                         "reader-standard.onnx", "reader-woolly.onnx"]
    assert (folder / "reader-woolly.onnx").is_symlink() and (folder / "reader-woolly.onnx").read_text() == "w"
    # a second epoch's weights replace the detector, the links stay
    new.write_text("newer")
    watch.candidate_folder(new, folder, installed)
    assert (folder / "detector.onnx").read_text() == "newer"


def test_readings_run_in_the_run_time_environment(monkeypatch):
    monkeypatch.delenv("WARREF_EVAL_PYTHON", raising=False)
    assert watch.run_time_python().endswith(".venv/bin/python")
    monkeypatch.setenv("WARREF_EVAL_PYTHON", "/usr/bin/python3")
    assert watch.run_time_python() == "/usr/bin/python3"
