"""The `warref` command line: the referee's stdin/stdout contract, restoring after a kill, and
simulate's statistics."""
import json
import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parent.parent
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
    assert proc.returncode == 2 and "holds a woolly game for Alex, Olivia" in proc.stderr
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
    assert "timed_tie = sudden_death (the tied players play one more battle)" in proc.stdout
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
