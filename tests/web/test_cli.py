"""The `warref` command line: the referee's stdin/stdout contract, restoring after a kill, and
simulate's statistics; a clear line, never a traceback, for bad input (issue 41); demo's stdout and Ctrl-C."""
import io
import json
import os
import queue
import signal
import socket
import subprocess
import sys
import threading
import time
import tomllib
from importlib import metadata
from pathlib import Path

import pytest

from web import cli

ROOT = Path(__file__).resolve().parents[2]
WARREF = [sys.executable, "-m", "web.cli"]

EVENTS = [
    {"type": "flip", "seat": "Alex", "card": "WAR"},
    {"type": "flip", "seat": "Olivia", "card": "10G"},
    {"type": "down", "seat": "Alex", "count": 2},
    {"type": "down", "seat": "Olivia", "count": 2},
    {"type": "action", "seat": "Olivia", "card": "STEAL", "target": "Alex", "from": "herd"},
    {"type": "flip", "seat": "Alex", "card": "9R"},
    {"type": "flip", "seat": "Olivia", "card": "4Y"},
]


def referee(*args, stdin=""):
    return subprocess.run(WARREF + ["referee", *args], input=stdin, capture_output=True, text=True,
                          cwd=ROOT, timeout=60)


def lines(text):
    return [json.loads(line) for line in text.splitlines()]


def test_one_json_ruling_per_line_errors_included_and_exit_zero():
    stdin = "\n".join([json.dumps(EVENTS[0]), "{broken", "", json.dumps({"type": "nope"}),
                       json.dumps(EVENTS[1])]) + "\n"
    proc = referee("--game", "woolly", "--players", "Alex,Olivia", "--no-prompts", stdin=stdin)
    assert proc.returncode == 0
    out = lines(proc.stdout)
    assert [r["type"] for r in out] == ["flip", "error", "error", "war"]
    assert all(isinstance(r["text"], str) and r["text"] for r in out)
    assert out[1]["message"].startswith("Line 2 is not a JSON event")
    assert out[3]["counts"] == {"Alex": 35, "Olivia": 34}


def test_the_battle_ruling_fields_of_the_contract():
    proc = referee("--players", "Alex,Olivia", "--no-prompts",
                   stdin="".join(json.dumps(e) + "\n" for e in EVENTS))
    battle = [r for r in lines(proc.stdout) if r["type"] == "battle"][0]
    assert battle["winner"] == "Alex" and battle["cards"] == 8
    assert battle["counts"] == {"Alex": 39, "Olivia": 31}     # 70: one Steal left the game
    assert battle["text"] == "Alex's 9 beats Olivia's 4: Alex takes 8 cards."


def test_bad_setup_is_refused_with_a_message_and_exit_2():
    proc = referee("--players", "Alex,Olivia", "--option", "timed_count=sometimes")
    assert proc.returncode == 2 and "timed_count must be one of" in proc.stderr
    proc = referee("--players", "Alex")
    assert proc.returncode == 2 and "2-3 players" in proc.stderr
    proc = referee("--game", "chess", "--players", "Alex,Olivia")
    assert proc.returncode == 2 and "Unknown game" in proc.stderr


def test_killed_referee_carries_on_from_its_log(tmp_path):
    log = tmp_path / "game.jsonl"
    args = WARREF + ["referee", "--players", "Alex,Olivia", "--log", str(log), "--no-prompts"]
    proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT)
    for e in EVENTS[:4]:
        proc.stdin.write(json.dumps(e) + "\n")
        proc.stdin.flush()
        proc.stdout.readline()          # the event has been applied and logged
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    rest = "".join(json.dumps(e) + "\n" for e in EVENTS[4:])
    resumed = subprocess.run(args, input=rest, capture_output=True, text=True, cwd=ROOT, timeout=60)
    out = lines(resumed.stdout)
    assert out[0]["type"] == "restored" and out[0]["events"] == 4
    whole = referee("--players", "Alex,Olivia", "--no-prompts",
                    stdin="".join(json.dumps(e) + "\n" for e in EVENTS))
    assert [{k: v for k, v in r.items()} for r in out[1:]] == lines(whole.stdout)[4:]
    # the log now holds the whole game; a third start restores all of it
    again = subprocess.run(args, input="", capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert lines(again.stdout)[0]["events"] == len(EVENTS)


def test_a_log_for_another_table_is_not_mixed_up(tmp_path):
    log = tmp_path / "game.jsonl"
    referee("--players", "Alex,Olivia", "--log", str(log), stdin=json.dumps(EVENTS[0]) + "\n")
    proc = referee("--players", "Sam,Olivia", "--log", str(log))
    assert proc.returncode == 2 and "holds a woolly game for Alex, Olivia, but --players here are Sam,Olivia" \
        in proc.stderr
    assert len(log.read_text().splitlines()) == 2      # header + the one event, untouched


def test_simulate_prints_statistics_and_is_deterministic_whatever_the_jobs():
    def sim(*extra):
        proc = subprocess.run(WARREF + ["simulate", "--game", "woolly", "--players", "3", "--games", "60",
                                        "--seed", "7", "--quiet", *extra],
                              capture_output=True, text=True, cwd=ROOT, timeout=300)
        assert proc.returncode == 0, proc.stderr
        return proc.stdout

    one = json.loads(sim("--json", "--jobs", "1"))
    two = json.loads(sim("--json", "--jobs", "2"))
    for key in ("battles", "wars", "wins", "draws", "endings"):
        assert one[key] == two[key]
    assert one["games"] == 60 and set(one["wins"]) == {"P1", "P2", "P3"}
    assert abs(sum(one["wins"].values()) + one["draws"] + one["shared_wins"] - 1) < 1e-9
    text = sim("--jobs", "1")
    for heading in ("Battles per game", "Wars per game", "Length distribution", "Wins by seat", "Speed"):
        assert heading in text


def test_simulate_writes_a_plot(tmp_path):
    png = tmp_path / "sim.png"
    proc = subprocess.run(WARREF + ["simulate", "--players", "2", "--games", "20", "--quiet", "--plot", str(png)],
                          capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_rules_prints_every_option_with_its_sentence():
    proc = subprocess.run(WARREF + ["rules", "--game", "woolly", "--option", "timed_tie=sudden_death"],
                          capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert proc.returncode == 0
    # the setting as typed (--option KEY=VALUE), then the words a player reads
    assert "  - timed_tie=sudden_death  A tie when time is up: Sudden death (the tied players play one more " \
        "battle). What happens" in proc.stdout
    assert proc.stdout.count("\n  - ") == 3


def test_simulate_classic_fixed_returns_reports_games_that_never_end():
    proc = subprocess.run(WARREF + ["simulate", "--game", "classic", "--players", "2", "--games", "40",
                                    "--option", "war_down=3", "--returns", "fixed", "--quiet", "--json"],
                          capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["returns"] == "fixed" and out["games"] == 40
    assert out["unfinished"] == out["endings"].get("loop", 0) > 0
    assert out["endings"].get("last_standing", 0) + out["unfinished"] == 40
    text = subprocess.run(WARREF + ["simulate", "--game", "classic", "--games", "40", "--option", "war_down=3",
                                    "--returns", "fixed", "--quiet"],
                          capture_output=True, text=True, cwd=ROOT, timeout=300).stdout
    assert "never ended" in text and "won cards returned fixed" in text


def test_simulate_returns_is_only_for_classic():
    proc = subprocess.run(WARREF + ["simulate", "--game", "woolly", "--games", "5", "--returns", "fixed"],
                          capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert proc.returncode == 2 and "--returns is for --game classic" in proc.stderr


def test_rules_counts_the_cards_in_play():
    def first_line(*args):
        return subprocess.run(WARREF + ["rules", *args], capture_output=True, text=True, cwd=ROOT,
                              timeout=60).stdout.splitlines()[0]
    assert first_line("--game", "classic") == "Classic War (2-4 players, 52 cards)"
    assert first_line("--game", "classic", "--option", "jokers=on") == "Classic War (2-4 players, 54 cards)"
    assert "51 cards" in first_line("--game", "namikopy", "--option", "war_cards=on")


def test_train_refuses_bad_settings_before_anything_starts():
    def train(*args):
        return subprocess.run(WARREF + ["train", "detector", *args], capture_output=True, text=True, cwd=ROOT, timeout=60)
    proc = train("--sources", "a", "b", "c", "--per-source", "10", "20")
    assert proc.returncode == 2 and "one number or one per source (3 sources)" in proc.stderr
    proc = train("--lr", "3")
    assert proc.returncode == 2 and "learning rate between 0 and 1" in proc.stderr
    proc = train("--start-from", "models/no-such-detector.onnx")
    assert proc.returncode == 2 and "no-such-detector.onnx: no such file" in proc.stderr
    proc = train("--start-from", "models/detector.json")
    assert proc.returncode == 2 and "a run's .pt or an installed model's .onnx" in proc.stderr
    proc = train("--lr-final", "1e-5")                      # falls from what?
    assert proc.returncode == 2 and "--lr-final 1e-05: give --lr too" in proc.stderr
    proc = train("--lr", "2e-4", "--lr-final", "3e-4")      # a schedule that rises
    assert proc.returncode == 2 and "a final rate below it" in proc.stderr
    proc = train("--freeze", "-1")
    assert proc.returncode == 2 and "--freeze and --watch take a number" in proc.stderr


# ------------------------------------------------------------------ issue 41: clear answers to bad input
def run_main(monkeypatch, *argv, stdin=""):
    """The real `warref` entry point in this process, stdin given as text; returns its exit status."""
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    return cli.main(list(argv))


def one_clear_line(err):
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    return err


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_referee_log_in_a_missing_folder_or_on_a_folder_is_one_clear_line(tmp_path, monkeypatch, capsys):
    missing = tmp_path / "games" / "today" / "game.jsonl"
    assert run_main(monkeypatch, "referee", "--players", "Alex,Olivia", "--log", str(missing)) == 2
    err = one_clear_line(capsys.readouterr().err)
    assert str(missing) in err and f"mkdir -p {missing.parent}" in err
    assert not (tmp_path / "games").exists()
    assert run_main(monkeypatch, "referee", "--players", "Alex,Olivia", "--log", str(tmp_path)) == 2
    err = one_clear_line(capsys.readouterr().err)
    assert f"--log {tmp_path} is a folder" in err and str(tmp_path / "game.jsonl") in err


def test_simulate_checks_the_plot_path_before_it_plays_a_game(tmp_path, monkeypatch, capsys):
    import referee.sim.stats

    def no_games(*args, **kwargs):
        raise AssertionError("the games were played before the plot's path was checked")
    monkeypatch.setattr(referee.sim.stats, "run_games", no_games)
    missing = tmp_path / "plots" / "sim.png"
    assert cli.main(["simulate", "--games", "100000", "--quiet", "--plot", str(missing)]) == 2
    err = one_clear_line(capsys.readouterr().err)
    assert f"--plot {missing}: the folder {missing.parent} does not exist" in err
    assert cli.main(["simulate", "--games", "100000", "--quiet", "--plot", str(tmp_path)]) == 2
    assert "is a folder" in one_clear_line(capsys.readouterr().err)
    assert cli.main(["simulate", "--games", "100000", "--quiet", "--plot", str(tmp_path / "sim.txt")]) == 2
    assert "cannot write .txt pictures; end the name with .png" in one_clear_line(capsys.readouterr().err)
    if os.geteuid() != 0:          # root writes anywhere
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        assert cli.main(["simulate", "--games", "100000", "--quiet", "--plot", str(locked / "sim.png")]) == 2
        assert "permissions" in one_clear_line(capsys.readouterr().err)


def test_version_is_the_installed_packages_else_pyprojects(monkeypatch, capsys):
    with pytest.raises(SystemExit) as done:
        cli.main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out == f"warref {metadata.version('warref')}\n"

    def not_installed(name):
        raise metadata.PackageNotFoundError(name)
    monkeypatch.setattr(metadata, "version", not_installed)
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert cli._version() == project["version"]


def test_warref_teach_is_listed_and_its_old_name_still_runs_it_unlisted(capsys):
    with pytest.raises(SystemExit) as done:
        cli.main(["--help"])
    assert done.value.code == 0
    listed = capsys.readouterr().out
    assert "teach warref your own deck" in listed and "teach," in listed and "enroll" not in listed
    for name in ("teach", "enroll"):        # `warref enroll`, the command's first name, kept for scripts
        with pytest.raises(SystemExit) as done:
            cli.main([name, "--help"])
        assert done.value.code == 0
        assert capsys.readouterr().out.startswith("usage: warref teach [-h] --like")
    args = cli.build_parser().parse_args(["enroll", "fam", "--like", "namikopy", "--cards", "photos"])
    assert args.func.__name__ == "cmd_teach" and args.command == "teach"


def test_rules_without_a_game_names_the_games_and_asks_for_one(capsys):
    from referee import GAMES
    assert cli.main(["rules"]) == 2
    err = one_clear_line(capsys.readouterr().err)
    assert "--game" in err and all(g in err for g in GAMES)
    assert capsys.readouterr().out == ""


def test_a_missing_players_option_is_named_with_an_example(monkeypatch, capsys):
    assert run_main(monkeypatch, "referee", "--game", "classic") == 2
    err = one_clear_line(capsys.readouterr().err)
    assert "--players is missing" in err and "--players Alex,Olivia" in err
    assert cli.main(["run", "--camera", "0"]) == 2
    err = one_clear_line(capsys.readouterr().err)
    assert err.startswith("warref run: --players is missing") and "--players Alex,Olivia" in err


def test_the_same_command_line_with_the_same_log_carries_on_the_game(tmp_path, monkeypatch, capsys):
    log = tmp_path / "game.jsonl"
    same = ["referee", "--game", "classic", "--players", "Alex,Olivia", "--option", "war_down=3",
            "--log", str(log), "--no-prompts"]
    flips = [{"type": "flip", "seat": "Alex", "card": "2S"}, {"type": "flip", "seat": "Olivia", "card": "2H"},
             {"type": "down", "seat": "Alex", "count": 3}]
    assert run_main(monkeypatch, *same, stdin=json.dumps(flips[0]) + "\n") == 0
    capsys.readouterr()
    assert run_main(monkeypatch, *same, stdin=json.dumps(flips[1]) + "\n") == 0
    out = lines(capsys.readouterr().out)
    assert out[0]["type"] == "restored" and out[0]["text"] == f"Restored 1 event from {log}."
    assert out[1]["type"] == "war"
    assert run_main(monkeypatch, *same, stdin=json.dumps(flips[2]) + "\n") == 0
    out = lines(capsys.readouterr().out)
    assert out[0]["text"] == f"Restored 2 events from {log}." and out[1]["type"] == "down"
    # leaving the game, the players and the options out carries on too
    assert run_main(monkeypatch, "referee", "--log", str(log), "--no-prompts") == 0
    assert lines(capsys.readouterr().out)[0]["events"] == 3
    assert len(log.read_text().splitlines()) == 4         # header + 3 events, each written once

    # a real conflict is refused, saying what differs, and the log is left alone
    other = same[:]
    other[other.index("war_down=3")] = "war_down=1"
    assert run_main(monkeypatch, *other) == 2
    err = one_clear_line(capsys.readouterr().err)
    assert f"{log} holds a classic game for Alex, Olivia, but --option war_down=1 here, war_down=3 in the log" in err
    assert run_main(monkeypatch, "referee", "--game", "woolly", "--log", str(log)) == 2
    assert "but --game here is woolly" in one_clear_line(capsys.readouterr().err)
    assert len(log.read_text().splitlines()) == 4


def test_after_an_undo_in_a_war_the_prompt_counts_the_cards_already_down(monkeypatch, capsys):
    events = [{"type": "flip", "seat": "Alex", "card": "8G"}, {"type": "flip", "seat": "Olivia", "card": "8Y"},
              {"type": "down", "seat": "Alex", "count": 1}, {"type": "down", "seat": "Olivia", "count": 2},
              {"type": "undo"}]
    assert run_main(monkeypatch, "referee", "--game", "woolly", "--players", "Alex,Olivia",
                    stdin="".join(json.dumps(e) + "\n" for e in events)) == 0
    prompt = lines(capsys.readouterr().out)[-1]
    assert prompt["type"] == "prompt" and prompt["waiting"] == ["Alex", "Olivia"]
    assert prompt["text"].endswith("Alex 1 more card, Olivia 2 cards.")


def test_a_busy_port_is_named_with_a_hint_before_anything_starts(tmp_path, monkeypatch, capsys):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = str(busy.getsockname()[1])
        for argv in (["serve", "--host", "127.0.0.1", "--port", port, "--db", str(tmp_path / "w.db"), "--no-qr"],
                     ["demo", "--no-browser", "--host", "127.0.0.1", "--port", port],
                     ["run", "--players", "Alex,Olivia", "--host", "127.0.0.1", "--port", port,
                      "--db", str(tmp_path / "w.db")]):
            assert cli.main(argv) == 2
            err = one_clear_line(capsys.readouterr().err)
            assert err.strip() == (f"warref {argv[0]}: port {port} is in use (another warref?); "
                                   f"choose another with --port N")
    assert not (tmp_path / "w.db").exists()


def test_demo_without_browser_writes_only_its_json_summary_on_stdout(tmp_path):
    proc = subprocess.run(WARREF + ["demo", "--no-browser", "--battles", "2", "--port", str(free_port())],
                          capture_output=True, text=True, cwd=ROOT, timeout=300,
                          env={**os.environ, "TMPDIR": str(tmp_path)})
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)                # the whole of stdout is one JSON object
    assert summary["battles"] == 2 and summary["wrong_rulings"] == 0
    assert "warref dashboard: http://localhost:" in proc.stderr
    assert not list(tmp_path.glob("warref-demo-*"))


def _banner(proc) -> str:
    """The demo's "warref dashboard: ..." line; on a cold art cache the rendering's progress bar
    (tqdm: one line rewritten with \\r, read here as many lines) comes first."""
    seen = []
    for line in proc.stderr:
        seen.append(line)
        last = line.rsplit("\r", 1)[-1]
        if last.startswith("warref dashboard:"):
            return last
        assert not line.strip() or "standard card art" in line, "".join(seen)  # nothing else before it
    raise AssertionError("the demo ended before serving:\n" + "".join(seen))


def test_a_camera_that_is_not_there_is_said_in_warref_s_words_in_the_terminal(tmp_path):
    """`warref run` with no camera at the index: the terminal says so in a sentence each try, as the
    dashboard does, and OpenCV's own "can't open camera by index" warnings are not printed."""
    proc = subprocess.Popen(WARREF + ["run", "--camera", "63", "--players", "Alex,Olivia", "--host", "127.0.0.1",
                                      "--port", str(free_port()), "--db", str(tmp_path / "w.db")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: [lines.put(x) for x in proc.stdout], daemon=True).start()
    try:
        said = []
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not any("Reconnecting to 63 (try 2)" in x for x in said):
            try:
                said.append(lines.get(timeout=1))
            except queue.Empty:
                pass
        assert any("warref run: Camera 63 is not available: check that it is plugged in" in x for x in said), said
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=30)
        err = proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    everything = "".join(said) + err
    assert "VIDEOIO" not in everything and "can't open camera" not in everything, everything


def test_ctrl_c_stops_the_demo_cleanly_and_removes_its_folder(tmp_path):
    port = free_port()
    proc = subprocess.Popen(WARREF + ["demo", "--no-browser", "--fps", "2", "--port", str(port)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                            env={**os.environ, "TMPDIR": str(tmp_path)})
    try:
        banner = _banner(proc)                       # it says where it serves, then serves
        folders = list(tmp_path.glob("warref-demo-*"))
        assert len(folders) == 1 and str(folders[0]) in banner
        deadline = time.monotonic() + 60
        while True:                                  # wait until the server answers on its port
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline and proc.poll() is None
                time.sleep(0.2)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    assert err.strip() == "warref demo: stopped" and out == ""
    assert not list(tmp_path.glob("warref-demo-*"))
