"""`warref referee`, `warref rules` and `warref simulate`: the games themselves, without a camera."""
from __future__ import annotations

import argparse
import functools
import json
import math
import os
import sys
import time
from pathlib import Path
from typing import Any, TextIO

from referee import GAMES, IllegalEvent, OptionError, SetupError, Table, get_game
from referee.options import parse_option_args
from referee.rulings import Ruling, plural
from referee.say import say

from ..i18n import LANGUAGES, check_language, say_in, text_in
from .common import DEFAULT_GAME, PLAYERS_EXAMPLE, player_names


def _emit(out: TextIO, rulings: list[Ruling], lang: str = "en") -> None:
    """Each ruling as a JSON line; in another language than English its text (and an error's
    message) in that language, the rest as it is."""
    for r in rulings:
        obj = r.to_json()
        if lang != "en":
            obj["text"] = say_in(r.text, lang)
            if "message" in r.data:
                obj["message"] = say_in(r.data["message"], lang)
        out.write(json.dumps(obj, ensure_ascii=False) + "\n")
    out.flush()


def _file_problem(path: Path, flag: str) -> str | None:
    """Why a file cannot be written at ``path`` (one sentence naming it and what to do), or None."""
    if path.is_dir():
        example = path / ("game.jsonl" if flag == "--log" else "plot.png")
        return f"{flag} {path} is a folder; give a file name in it, e.g. {flag} {example}"
    folder = path.parent
    if not folder.exists():
        return (f"{flag} {path}: the folder {folder} does not exist; create it first (mkdir -p {folder}) "
                f"or choose another path")
    if not folder.is_dir():
        return f"{flag} {path}: {folder} is not a folder; choose another path"
    if path.exists():
        if not os.access(path, os.R_OK | os.W_OK):
            return f"{flag} {path}: this file cannot be read and written (its permissions); choose another path"
    elif not os.access(folder, os.W_OK | os.X_OK):
        return f"{flag} {path}: no file can be made in {folder} (its permissions); choose another folder"
    return None


# ------------------------------------------------------------------------- referee
def _open_table(args: argparse.Namespace) -> tuple[Table, list[Ruling]]:
    players = player_names(args.players)
    options = parse_option_args(args.option)
    log = Path(args.log) if args.log else None
    if log is None or not log.exists() or log.stat().st_size == 0:
        if not players:
            raise SetupError(f"--players is missing: give the players' names in seat order, e.g. {PLAYERS_EXAMPLE}")
        table = Table(args.game or DEFAULT_GAME, players, options)
        if log is not None:
            header = {"type": "table", "game": table.game.id, "players": table.players,
                      "options": table.options}
            log.write_text(json.dumps(header) + "\n", encoding="utf-8")
        return table, [table.state.prompt()]
    lines = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines() if line.strip()]
    header, entries = lines[0], lines[1:]
    if not isinstance(header, dict) or header.get("type") != "table":
        raise SetupError(f"{log} does not start with a table line; it is not a warref game log.")
    game = get_game(header["game"])
    held = game.resolve_options(header["options"])
    differs = []
    if args.game and get_game(args.game).id != game.id:
        differs.append(f"--game here is {get_game(args.game).id}")
    if players and [p.lower() for p in players] != [p.lower() for p in header["players"]]:
        differs.append(f"--players here are {','.join(players)}")
    if options and not differs:
        given = game.resolve_options(options)
        for key in dict.fromkeys(str(k).strip().lower() for k in options):
            if given[key] != held[key]:
                differs.append(f"--option {key}={_shown(given[key])} here, "
                               f"{key}={_shown(held[key])} in the log")
    if differs:
        raise SetupError(f"{log} holds a {game.id} game for {', '.join(header['players'])}, but "
                         f"{'; '.join(differs)}. Give the log's game, players and options (or leave them out) "
                         f"to carry on with it, or use another --log file for a new game.")
    table = Table.restore(game, header["players"], header["options"], entries)
    restored = Ruling("restored", f"Restored {plural(len(entries), 'event')} from {log}.",
                      {"events": len(entries), "counts": table.state.counts()})
    return table, [restored, table.state.prompt()]


def cmd_referee(args: argparse.Namespace) -> int:
    try:
        lang = check_language(args.lang)
    except ValueError as err:
        print(f"warref referee: --lang: {err}", file=sys.stderr)
        return 2
    problem = _file_problem(Path(args.log), "--log") if args.log else None
    if problem:
        print(f"warref referee: {problem}", file=sys.stderr)
        return 2
    try:
        table, opening = _open_table(args)
        log = open(args.log, "a", encoding="utf-8") if args.log else None
    except (SetupError, OptionError) as err:
        print(f"warref referee: {err}", file=sys.stderr)
        return 2
    except OSError as err:
        print(f"warref referee: --log {args.log}: {err.strerror or err}; choose another path", file=sys.stderr)
        return 2
    except (ValueError, KeyError, TypeError, AttributeError, IllegalEvent) as err:
        print(f"warref referee: the log file {args.log} is damaged ({err}); nothing was changed.",
              file=sys.stderr)
        return 2
    out = sys.stdout
    _emit(out, [r for r in opening if args.prompts or r.type != "prompt"], lang)
    for number, line in enumerate(sys.stdin, 1):
        if not line.strip():
            continue
        if args.echo:
            out.write(json.dumps({"type": "input", "line": number, "text": line.rstrip("\n")},
                                 ensure_ascii=False) + "\n")
        try:
            obj: Any = json.loads(line)
        except json.JSONDecodeError as err:
            message = f"Line {number} is not a JSON event ({err.msg} at column {err.colno})."
            _emit(out, [Ruling("error", message, {"message": message})], lang)
            continue
        before = len(table.log)
        rulings = table.handle(obj)
        if log is not None and len(table.log) > before:
            log.write(json.dumps(table.log[-1]) + "\n")
            log.flush()
            os.fsync(log.fileno())
        if not args.prompts:
            rulings = [r for r in rulings if r.type != "prompt"]
        _emit(out, rulings, lang)
    if log is not None:
        log.close()
    return 0


# ------------------------------------------------------------------------- simulate
def _histogram_lines(values: list[int], bins: int = 12, width: int = 40) -> list[str]:
    lo, hi = min(values), max(values)
    step = max(1, -(-(hi - lo + 1) // bins))
    counts = [0] * bins
    for v in values:
        counts[min((v - lo) // step, bins - 1)] += 1
    top = max(counts)
    lines = []
    for i, c in enumerate(counts):
        if c == 0 and i * step + lo > hi:
            break
        a = lo + i * step
        bar = "#" * round(width * c / top)
        lines.append(f"  {a:>5}-{a + step - 1:<5} {bar:<{width}} {100 * c / len(values):5.1f}%")
    return lines


def _plot(path: str, title: str, battles: list[int], summary: dict[str, Any]) -> None:
    # imported here: matplotlib is slow to start (`warref --help` stays fast)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt   # after choosing the Agg backend (no display needed)

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4), gridspec_kw={"width_ratios": [3, 1]})
    left.hist(battles, bins=50, color="#4a7fb5")
    left.axvline(summary["battles"]["median"], color="#c0392b", linestyle="--",
                 label=f"median {summary['battles']['median']:.0f}")
    left.set_xlabel("battles per game")
    left.set_ylabel("games")
    left.legend()
    seats = list(summary["wins"])
    shares = [100 * summary["wins"][s] for s in seats]
    labels = list(seats)
    for label, share in (("draw/shared", summary["draws"] + summary["shared_wins"]),
                         ("house", summary["house_wins"])):
        if share:
            labels.append(label)
            shares.append(100 * share)
    right.bar(labels, shares, color="#7fb54a")
    right.set_ylabel("% of games won")
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _plot_format_problem(path: Path) -> str | None:
    """A picture format matplotlib cannot write (known from the name's ending), or None."""
    if not path.suffix:
        return None
    # imported here: matplotlib is slow to start (`warref --help` stays fast)
    from matplotlib.backend_bases import FigureCanvasBase
    kinds = FigureCanvasBase.get_supported_filetypes()
    if path.suffix[1:].lower() in kinds:
        return None
    others = ", ".join(f".{k}" for k in kinds if k != "png")
    return f"--plot {path}: matplotlib cannot write {path.suffix} pictures; end the name with .png (or {others})"


def _shown(value: Any) -> str:
    """An option's value as players write it: off, on, or the value."""
    return "off" if value is None or value is False else "on" if value is True else str(value)


def game_and_options(args: argparse.Namespace, command: str) -> tuple[Any, dict[str, Any]] | None:
    """--game and its --option flags, resolved; None (after saying why on stderr) when they are wrong."""
    try:
        game = get_game(args.game)
        return game, game.resolve_options(parse_option_args(args.option))
    except (SetupError, OptionError) as err:
        print(f"warref {command}: {err}", file=sys.stderr)
        return None


def cmd_simulate(args: argparse.Namespace) -> int:
    # imported here: tqdm and the simulator's process pool are slow to start (`warref --help` stays fast)
    from tqdm import tqdm
    from referee.sim.stats import run_games, summarize

    found = game_and_options(args, "simulate")
    if found is None:
        return 2
    game, options = found
    try:
        players = int(args.players)
    except ValueError:
        print(f"warref simulate: --players {args.players}: simulated players have no names; give how many "
              f"play, e.g. --players 3", file=sys.stderr)
        return 2
    try:
        game.check_players([f"P{i}" for i in range(players)])
    except SetupError as err:
        print(f"warref simulate: {err}", file=sys.stderr)
        return 2
    if args.npc is not None:
        return _simulate_npc(args, game, options, players)
    if args.games is None:
        args.games = 1000
    if args.plot:       # checked before the games are played, not after
        problem = _file_problem(Path(args.plot), "--plot") or _plot_format_problem(Path(args.plot))
        if problem:
            print(f"warref simulate: {problem}", file=sys.stderr)
            return 2
    if args.games < 1:
        print("warref simulate: --games must be at least 1", file=sys.stderr)
        return 2
    if args.returns and game.id != "classic":
        print("warref simulate: --returns is for --game classic (how won cards go back under the stack)",
              file=sys.stderr)
        return 2
    table = {"returns": args.returns} if args.returns else {}
    jobs = args.jobs or os.cpu_count() or 1
    records = []
    start = time.perf_counter()
    with tqdm(total=args.games, desc=f"{game.name}, {players} players", unit="game",
              file=sys.stderr, disable=args.quiet) as bar:
        for chunk in run_games(game.id, players, args.games, args.seed, options, jobs=jobs, table=table):
            records.extend(chunk)
            bar.update(len(chunk))
    seconds = time.perf_counter() - start
    summary = summarize(records)
    summary["seconds"] = seconds
    summary["games_per_second"] = len(records) / seconds
    summary["battles_per_second"] = summary["total_battles"] / seconds
    summary.update(game=game.id, players=players, seed=args.seed, options=options, jobs=jobs, **table)
    battles = [r.battles for r in records]
    title = f"{game.name}, {players} players, {len(records):,} simulated games (seed {args.seed})"
    if args.plot:
        try:
            _plot(args.plot, title, battles, summary)
        except OSError as err:
            print(f"warref simulate: --plot {args.plot}: {err.strerror or err}", file=sys.stderr)
            return 2
    if args.json:
        print(json.dumps(summary, indent=2))
        return 0
    b, w = summary["battles"], summary["wars"]
    lines = [title,
             "Rules: " + ", ".join(f"{k}={_shown(v)}" for k, v in options.items())
             + (f"; won cards returned {args.returns}" if args.returns else ""),
             f"Battles per game   mean {b['mean']:.1f}  median {b['median']:.0f}  p10 {b['p10']:.0f}  "
             f"p90 {b['p90']:.0f}  min {b['min']}  max {b['max']}",
             f"Wars per game      mean {w['mean']:.1f}  median {w['median']:.0f}  p90 {w['p90']:.0f}  "
             f"max {w['max']}",
             f"Wars per battle    {summary['wars_per_battle']:.3f}",
             f"Actions per game   {summary['actions_per_game']:.1f}",
             "Length distribution (battles per game):", *_histogram_lines(battles),
             "Wins by seat       " + "  ".join(f"{s} {100 * v:.1f}%" for s, v in summary["wins"].items())
             + f"  shared {100 * summary['shared_wins']:.1f}%  draws {100 * summary['draws']:.2f}%"
             + (f"  house {100 * summary['house_wins']:.1f}%" if summary["house_wins"] else ""),
             "Endings            " + ", ".join(f"{k} {v}" for k, v in summary["endings"].items())
             + (f"  (never ended: {100 * summary['unfinished'] / summary['games']:.1f}%; 'loop' = a whole "
                f"position came back, so the game would cycle forever)" if summary["unfinished"] else ""),
             f"Speed              {summary['games_per_second']:.1f} games/s, "
             f"{summary['battles_per_second']:.0f} battles/s ({jobs} jobs, {seconds:.1f} s)"]
    if args.plot:
        lines.append(f"Plot               {args.plot}")
    print("\n".join(lines))
    return 0


def _simulate_npc(args: argparse.Namespace, game: Any, options: dict[str, Any], players: int) -> int:
    """``warref simulate --game guerra --npc LEVELS``: NPC matches through the referee."""
    # imported here: tqdm and the NPCs are slow to start (`warref --help` stays fast)
    from tqdm import tqdm
    from referee.sim.guerra import npc_games, seat_levels

    def fail(text: str) -> int:
        print(f"warref simulate: {text}", file=sys.stderr)
        return 2

    if game.id != "guerra":
        return fail(f"--npc is for --game guerra (there are no NPC players for {game.name})")
    for flag, given in (("--plot", args.plot), ("--returns", args.returns)):
        if given:
            return fail(f"{flag} is for random simulations, not for --npc matches")
    try:
        levels = seat_levels(args.npc, players)
    except ValueError as err:
        return fail(f"--npc {args.npc}: {err}")
    games = 1 if args.games is None else args.games
    if games < 1:
        return fail("--games must be at least 1")
    names = [f"P{i + 1}" for i in range(players)]
    sides = [[f"{names[i]} ({levels[i]})" for i in range(s, players, 2)] for s in (0, 1)]
    lineup = [", ".join(levels[s::2]) if len(set(levels[s::2])) > 1 else levels[s] for s in (0, 1)]
    if games == 1:
        return _print_npc_match(args, names, levels, sides, options)
    jobs = 1 if games < 40 else (args.jobs or os.cpu_count() or 1)
    results = []
    start = time.perf_counter()
    with tqdm(total=games, desc=f"Guerra NPCs, {players} players", unit="match", file=sys.stderr,
              disable=args.quiet) as bar:
        for chunk in npc_games(names, levels, games, args.seed, options, jobs=jobs, swap=True):
            results.extend(chunk)
            bar.update(len(chunk))
    seconds = time.perf_counter() - start
    wins = [0, 0]
    shared = 0
    for i, r in enumerate(results):
        if r.winner is None:
            shared += 1
        else:
            wins[r.winner if i % 2 == 0 else 1 - r.winner] += 1
    confrontos = [r.confrontos for r in results]
    summary = {"game": "guerra", "players": players, "seed": args.seed, "matches": games, "npc": levels,
               "sides": lineup, "wins": {f"side {'AB'[s]}": wins[s] / games for s in (0, 1)},
               "shared": shared / games, "ci95": {}, "confrontos_mean": sum(confrontos) / games,
               "seconds": seconds, "ms_per_match": 1000 * seconds / games, "jobs": jobs, "options": options}
    for s in (0, 1):
        summary["ci95"][f"side {'AB'[s]}"] = _wilson(wins[s] + 0.5 * shared, games)
    if args.json:
        print(json.dumps(summary, indent=2))
        return 0
    lines = [f"Guerra, {players} players, {games:,} NPC matches (seed {args.seed}): side A "
             f"({lineup[0]}) against side B ({lineup[1]}); the sides change seats every other match",
             "Rules: " + ", ".join(f"{k}={_shown(v)}" for k, v in options.items())]
    for s in (0, 1):
        lo, hi = summary["ci95"][f"side {'AB'[s]}"]
        lines.append(f"Side {'AB'[s]} ({lineup[s]}){'':<4} wins {100 * wins[s] / games:5.1f}%  "
                     f"(95% CI {100 * lo:.1f}-{100 * hi:.1f}%, shared wins counted half)")
    lines += [f"Shared wins        {shared}",
              f"Confrontos         mean {summary['confrontos_mean']:.1f}  min {min(confrontos)}  max {max(confrontos)}",
              f"Speed              {1000 * seconds / games:.1f} ms per match ({jobs} jobs, {seconds:.1f} s)"]
    print("\n".join(lines))
    return 0


def _wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson interval of a win rate."""
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def _print_npc_match(args: argparse.Namespace, names: list[str], levels: list[str], sides: list[list[str]],
                     options: dict[str, Any]) -> int:
    """One NPC match: how each confronto was scored, then who won and the score."""
    # imported here: the NPCs are slow to start (`warref --help` stays fast)
    from referee.sim.guerra import NpcMatch

    match = NpcMatch(names, levels, f"{args.seed}:0", options)
    result = match.run()
    state = match.table.state
    replay = Table("guerra", names, options)
    scored = []
    how = ""
    for event in result.log:
        for r in replay.submit(event):
            if r.type in ("confronto", "refuse"):
                how = r.text
            elif r.type == "score":
                scored.append(f"{how} {r.text}")
    if args.json:
        print(json.dumps({"game": "guerra", "players": names, "npc": levels, "seed": args.seed,
                          "winner": state.result["winner"], "winners": result.winners,
                          "score": state.score(), "reason": result.reason, "confrontos": result.confrontos,
                          "events": result.events, "log": result.log}, indent=2))
        return 0
    lines = [f"Guerra, {len(names)} players, NPC match (seed {args.seed}): "
             f"{', '.join(sides[0])} against {', '.join(sides[1])}"]
    lines += [f"  {i + 1}. {text}" for i, text in enumerate(scored)]
    score = ", ".join(f"{k} {v}" for k, v in state.score().items())
    lines.append(f"{state.result['text']} Final score: {score} after {plural(result.confrontos, 'confronto')}, "
                 f"{result.events} events, every one checked by the referee.")
    print("\n".join(lines))
    return 0


# ------------------------------------------------------------------------- rules
def cmd_rules(args: argparse.Namespace) -> int:
    if not args.game:
        print(f"warref rules: which game? Give --game with one of: {', '.join(GAMES)} "
              f"(e.g. warref rules --game classic)", file=sys.stderr)
        return 2
    found = game_and_options(args, "rules")
    if found is None:
        return 2
    game, options = found
    try:
        lang = check_language(args.lang)
    except ValueError as err:
        print(f"warref rules: --lang: {err}", file=sys.stderr)
        return 2
    words = functools.partial(text_in, lang=lang)
    print(say_in(say("{game} ({low}-{high} players, {cards} cards)", game=game.name, low=game.min_players,
                     high=game.max_players, cards=game.cards_in_play(options)), lang))
    print(say_in(say("Rule options in force:"), lang))
    for option in game.options:
        print(f"  - {option.setting(options[option.name])}  {option.describe(options[option.name], words)}")
    return 0


# ------------------------------------------------------------------------- their parsers
def add_referee(sub: argparse._SubParsersAction) -> None:
    games = ", ".join(GAMES)
    p = sub.add_parser("referee", help="referee a game: JSON events on stdin, JSON rulings on stdout")
    p.add_argument("--game", help=f"one of: {games} (default {DEFAULT_GAME}; with a --log that holds a game: its game)")
    p.add_argument("--players", help="comma-separated names in seat order, e.g. Alex,Olivia (needed for a new game)")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="a rule option")
    p.add_argument("--log", help="keep the game's event log in this file; start again with the same "
                                 "file (and the same or no --game, --players, --option) to carry on where it stopped")
    p.add_argument("--no-prompts", dest="prompts", action="store_false",
                   help="leave out the prompt lines (what the table must do next)")
    p.add_argument("--echo", action="store_true",
                   help="write each input line back (type input) before its rulings, for transcripts")
    p.add_argument("--lang", default="en", help=f"the rulings' language: {', '.join(LANGUAGES)} (default en)")
    p.set_defaults(func=cmd_referee)


def add_simulate(sub: argparse._SubParsersAction) -> None:
    games = ", ".join(GAMES)
    p = sub.add_parser("simulate", help="play many games with random legal choices and print statistics; "
                                         "Guerra with NPC players (--npc)")
    p.add_argument("--game", default="woolly", help=f"one of: {games}")
    p.add_argument("--players", default="2", help="number of players")
    p.add_argument("--games", type=int, default=None,
                   help="games to play (default 1000; with --npc, 1: one match told confronto by confronto)")
    p.add_argument("--npc", metavar="LEVELS",
                   help="guerra: NPC players of these levels (random, easy, normal, hard) play each other "
                        "through the referee. One level per seat in seat order (--npc hard,easy,normal,easy), "
                        "one per side (--npc hard,easy: P1, P3, P5 hard against P2, P4, P6 easy) or one for "
                        "all. One match prints who won and the score; with --games N the two sides change "
                        "seats every other match and their win rates are printed with a 95%% interval")
    p.add_argument("--seed", default="1")
    p.add_argument("--jobs", type=int, default=0, help="worker processes (default: one per core)")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="a rule option")
    p.add_argument("--plot", help="write a PNG of the length distribution and the wins by seat")
    p.add_argument("--returns", choices=("shuffle", "fixed"),
                   help="classic: won cards go under the stack shuffled (default) or in the order played")
    p.add_argument("--json", action="store_true", help="print the statistics as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_simulate)


def add_rules(sub: argparse._SubParsersAction) -> None:
    games = ", ".join(GAMES)
    p = sub.add_parser("rules", help="print a game's rule options, each explained in a sentence")
    p.add_argument("--game", help=f"one of: {games}")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="a rule option")
    p.add_argument("--lang", default="en", help=f"the sheet's language: {', '.join(LANGUAGES)} (default en; "
                                                "Guerra's is in Portuguese so far)")
    p.set_defaults(func=cmd_rules)
