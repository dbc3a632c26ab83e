"""The layers keep to their places: what a table needs at run time never imports the lab
(synthetic data, art, training, evaluation, labelled photos), and the referee imports neither
vision nor web: nor does the glue from the camera's observations to referee events
(referee/observe.py), which is table logic beside the referee's events."""
import subprocess
import sys

NOT_REFEREE = ("vision", "web", "cv2", "numpy", "fastapi")
LAB = ("vision.lab", "vision.synth", "vision.train", "torch", "ultralytics")


def imported_by(code: str) -> list[str]:
    probe = f"import sys\n{code}\nprint('\\n'.join(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    return out.split()


def test_the_run_time_never_imports_the_lab():
    modules = imported_by("import web.server, web.live, web.cli, referee.observe, vision.reader, vision.tracker, "
                          "vision.sources")
    assert not [m for m in modules if m.startswith(LAB)]


def test_the_referee_imports_neither_vision_nor_web():
    modules = imported_by("import referee, referee.games, referee.sim, referee.npc, referee.observe")
    assert not [m for m in modules if m.startswith(NOT_REFEREE)]


def test_the_glue_imports_neither_vision_nor_web():
    modules = imported_by("import referee.observe")
    assert "referee.observe" in modules
    assert not [m for m in modules if m.startswith(NOT_REFEREE)]


def test_no_module_imports_itself_round_a_circle():
    """Every import counts, those inside functions too (only ``if TYPE_CHECKING:`` ones do not run):
    two modules that need each other are one module, or share a name that belongs further down."""
    from imports import circles

    assert circles() == []


# Teaching warref a deck at the table (web/teach.py, vision/teach.py) renders made-up tables with
# its cards, so the scene renderer (vision/synth/) is run time too; writing datasets is not.
LAB_LATER = tuple(m for m in LAB if m != "vision.synth") + ("vision.synth.dataset",)


def test_nothing_the_table_runs_reaches_the_lab_even_later_in_a_function():
    """The same as the first test, read from the source: what the run time may import later (inside
    a function) counts too."""
    from imports import reached

    loaded = reached(["web.server", "web.live", "referee.observe", "vision.reader", "vision.tracker",
                      "vision.sources"])
    reach = {m: loaded[m] for m in loaded if m.startswith(LAB_LATER)}
    assert not reach, [f"{m} <- {by}" for m, by in sorted(reach.items())]


def test_imports_inside_functions_say_why():
    """An import inside a function hides what a module needs; each says why it waits (start-up
    time of a heavy library, the training environment, the lab kept out of the run time)."""
    from imports import unexplained_late_imports

    assert unexplained_late_imports() == []
