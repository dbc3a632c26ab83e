"""The `warref` command line.

    warref referee --game woolly --players Alex,Olivia [--option KEY=VALUE ...] [--log FILE]
    warref simulate --game woolly --players 3 --games 10000 --seed 1 [--plot FILE.png] [--json]
    warref simulate --game guerra --players 2 --npc hard,easy [--games N]
    warref rules --game woolly [--option KEY=VALUE ...]
    warref serve [--host 0.0.0.0] [--port 8000] [--db warref.db] [--pin 1234] [--https]
    warref demo [--battles 20] [--seed 1] [--no-browser]
    warref run --camera 0 --game woolly --players Alex,Olivia [--zones FILE] [--deck NAME] [--loop] [--fps N]
    warref enroll NAME --like standard --cards DIR [--labelled DIR] [--minutes 10] [--allow-missing]
    warref decks [--forget NAME]
    warref --version
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any, TextIO

from referee import GAMES, IllegalEvent, OptionError, SetupError, Table, get_game
from referee.options import parse_option_args
from referee.rulings import Ruling, plural
from vision.config import LIVE
from vision.profiles import BUILT_IN as DECKS, profile


DEFAULT_GAME = "woolly"      # `warref referee` and `warref run` without --game


def _emit(out: TextIO, rulings: list[Ruling]) -> None:
    for r in rulings:
        out.write(json.dumps(r.to_json(), ensure_ascii=False) + "\n")
    out.flush()


# ------------------------------------------------------------------------- shared checks
def _version() -> str:
    """The installed package's version; pyproject.toml's in a checkout that is not installed."""
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("warref")
    except PackageNotFoundError:
        import tomllib
        try:
            with open(Path(__file__).resolve().parent.parent / "pyproject.toml", "rb") as f:
                return str(tomllib.load(f)["project"]["version"])
        except (OSError, KeyError, ValueError):
            return "unknown"


PLAYERS_EXAMPLE = "--players Alex,Olivia"


def _players(text: str | None) -> list[str]:
    return [p.strip() for p in (text or "").split(",") if p.strip()]


def _missing_players(prog: str) -> int:
    print(f"warref {prog}: --players is missing: give the players' names in seat order, "
          f"e.g. {PLAYERS_EXAMPLE}", file=sys.stderr)
    return 2


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


def _port_problem(host: str, port: int, prog: str) -> str | None:
    """Why the server could not listen on ``host``:``port`` (tried with a socket bound and closed at
    once, as uvicorn will bind it), or None."""
    import errno
    import socket

    if not 0 < port < 65536:
        return f"warref {prog}: --port {port}: give a port from 1 to 65535"
    try:
        infos = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as err:
        return f"warref {prog}: --host {host}: {err.strerror or err}"
    for family, kind, proto, _, address in infos:
        sock = socket.socket(family, kind, proto)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)     # as uvicorn (asyncio) does
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            sock.bind(address)
        except OSError as err:
            if err.errno == errno.EADDRINUSE:
                return f"warref {prog}: port {port} is in use (another warref?); choose another with --port N"
            return (f"warref {prog}: cannot listen on {host}:{port} ({err.strerror or err}); "
                    f"choose another --host or --port")
        finally:
            sock.close()
    return None


# ------------------------------------------------------------------------- referee
def _open_table(args: argparse.Namespace) -> tuple[Table, list[Ruling]]:
    players = _players(args.players)
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
    _emit(out, [r for r in opening if args.prompts or r.type != "prompt"])
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
            _emit(out, [Ruling("error", message, {"message": message})])
            continue
        before = len(table.log)
        rulings = table.handle(obj)
        if log is not None and len(table.log) > before:
            log.write(json.dumps(table.log[-1]) + "\n")
            log.flush()
            os.fsync(log.fileno())
        if not args.prompts:
            rulings = [r for r in rulings if r.type != "prompt"]
        _emit(out, rulings)
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
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

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
    import math
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def _print_npc_match(args: argparse.Namespace, names: list[str], levels: list[str], sides: list[list[str]],
                     options: dict[str, Any]) -> int:
    """One NPC match: how each confronto was scored, then who won and the score."""
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


# ------------------------------------------------------------------------- synth
def cmd_synth(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from vision.synth.dataset import generate

    if args.deck not in DECKS:
        print(f"warref synth: no card art for deck {args.deck!r}; decks: {', '.join(DECKS)}", file=sys.stderr)
        return 2
    if args.scenes < 1:
        print("warref synth: --scenes must be at least 1", file=sys.stderr)
        return 2
    if args.more_art and not DECKS[args.deck].more_art:
        more = " and ".join(name for name, deck in DECKS.items() if deck.more_art)
        print(f"warref synth: --more-art adds designs for the {more} deck only", file=sys.stderr)
        return 2
    jobs = args.jobs or os.cpu_count() or 1
    start = time.perf_counter()
    with tqdm(total=args.scenes, desc=f"{args.deck} scenes", unit="scene", file=sys.stderr,
              disable=args.quiet) as bar:
        try:
            manifest = generate(args.deck, args.scenes, Path(args.out), args.seed, jobs,
                                Path(args.cache) if args.cache else None, progress=bar.update,
                                more_art=args.more_art, rows=args.rows, close_ups=args.close_ups,
                                clutter=args.clutter, held_up=args.held_up)
        except RuntimeError as err:
            print(f"warref synth: {err}", file=sys.stderr)
            return 1
    seconds = time.perf_counter() - start
    faces = sum(manifest["face_labels"].values())
    print(f"{args.scenes} {args.deck} scenes in {seconds:.1f} s ({args.scenes / seconds:.1f} scenes/s, "
          f"{jobs} jobs) -> {args.out}")
    print(f"labels: {faces} face-up, {manifest['back_labels']} backs ({manifest['occluded_labels']} marked "
          f"occluded); {sum(manifest['crops'].values())} crops; classes seen "
          f"{len(manifest['cards']) - len(manifest['missing_classes'])}/{len(manifest['cards'])}")
    print(f"look at: {Path(args.out) / 'contact_sheet.png'} and {Path(args.out) / 'crops_sheet.png'}")
    return 0


# ------------------------------------------------------------------------- score
def cmd_score(args: argparse.Namespace) -> int:
    from vision import metrics, realcards

    try:
        photos = realcards.load(args.set, Path(args.root) if args.root else None, audited=args.audited)
        predictions = [json.loads(line) for line in Path(args.predictions).read_text().splitlines() if line.strip()]
    except (OSError, ValueError) as err:
        print(f"warref score: {err}", file=sys.stderr)
        return 2
    root = Path(args.root) if args.root else None
    outcomes, score_at = metrics.scorer(args.set, photos, predictions, root=root)
    score = score_at(args.threshold)
    what = ("identities (distinct classes per image)" if realcards.scoring(args.set, root) == "identities"
            else "ranks (IoU >= 0.5)")
    wanted = metrics.threshold_for_precision(outcomes, args.target)
    result = {"set": args.set, "photos": len(photos), "audited": args.audited, "threshold": args.threshold,
              "precision": score.precision, "recall": score.recall, "true_positives": score.true_positives,
              "predictions": score.predictions, "labels": score.labels, "map50": score.map50,
              f"threshold_for_precision_{args.target}": wanted,
              "calibration": metrics.reliability(outcomes)}
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"{args.set}: {len(photos)} photos, {what}, threshold {args.threshold}"
          + (" (labels as audited: datasets/realcards-audit.json)" if args.audited else ""))
    print(f"  precision {score.precision:.4f}  recall {score.recall:.4f}  "
          f"({score.true_positives} right of {score.predictions} predicted, {score.labels} labelled)"
          + (f"  mAP50 {score.map50:.4f}" if score.map50 is not None else ""))
    print(f"  lowest threshold with precision >= {args.target}: "
          + ("none" if wanted is None else f"{wanted:.4f}"))
    return 0


# ------------------------------------------------------------------------- detect / eval / train
def photo_config(args: argparse.Namespace):
    """The reader's configuration for photos (``PHOTO``) with the steps the flags switch off."""
    from vision.config import PHOTO

    off = [s.strip() for s in (args.without or "").split(",") if s.strip()]
    off += [name for name, on in (("cut", args.cut_cards), ("indices", args.indices), ("words", args.words)) if not on]
    if getattr(args, "one_pass", False):
        off += ["passes", "zoom", "lean"]
    if getattr(args, "as_is", False):
        off.append("unstretch")
    return PHOTO.without(*off)


def cmd_detect(args: argparse.Namespace) -> int:
    from vision.errors import VisionError
    from vision.reader import TableReader, load_image

    try:
        reader = TableReader(args.deck, photo_config(args), **({"models": Path(args.models)} if args.models else {}))
    except (VisionError, ValueError) as err:
        print(f"warref detect: {err}", file=sys.stderr)
        return 2
    from tqdm import tqdm

    from vision.photos import read_photos

    failed = 0
    threshold = reader.reader.threshold if args.threshold is None else args.threshold
    # photos are read on every core, one process each (--jobs), their results written in order;
    # progress on stderr for a list of photos, shown only on a terminal (a photo takes a second or
    # a few: it is also read stretched back, looked at again close up, searched for indices)
    photos = tqdm(read_photos(reader, args.images, min(threshold, reader.config.gate), args.jobs or None),
                  total=len(args.images),
                  desc="warref detect", unit="photo", file=sys.stderr,
                  disable=None if len(args.images) > 1 else True)
    for name, size, reads in photos:
        if size is None:
            tqdm.write(f"warref detect: {reads}", file=sys.stderr)
            failed += 1
            continue
        reads = [r for r in reads if r.confidence >= threshold]
        if args.annotate:
            import cv2

            from vision.draw import draw_reads
            out = Path(args.annotate)
            out.mkdir(parents=True, exist_ok=True)
            cv2.imwrite(str(out / (Path(name).stem + ".jpg")), draw_reads(load_image(Path(name)), reads))
        if args.json:
            line = json.dumps({"image": name, "width": size[0], "height": size[1],
                               "cards": [r.as_json() for r in reads]})
        else:
            line = f"{name}: " + (", ".join(f"{r.card} ({r.confidence:.2f})" for r in reads) or "no cards")
        tqdm.write(line, file=sys.stdout)
        sys.stdout.flush()
    return 1 if failed else 0


def cmd_judge(args: argparse.Namespace) -> int:
    from vision import judge

    try:
        root = Path(args.root) if args.root else None
        before, threshold, photos = judge.report_figures(Path(args.installed), root)
        after, threshold_after, photos_after = judge.report_figures(Path(args.candidate), root)
        if photos != photos_after:
            raise ValueError(f"the reports read different photos ({', '.join(photos)} against "
                             f"{', '.join(photos_after)}): run warref eval with the same --photos")
        clubs = [judge.clubs_figures(json.loads(Path(f).read_text())) if f else None
                 for f in (args.clubs_before, args.clubs_after)]
        verdict = judge.judge(before, after, *clubs)
    except (OSError, ValueError, KeyError) as err:
        print(f"warref judge: {err}", file=sys.stderr)
        return 2
    print(judge.table(before, after, threshold))
    if threshold_after != threshold:
        print(f"(the candidate states threshold {threshold_after:g}; both are scored at their own)")
    if clubs[0] and clubs[1]:
        print(f"clubs bench: clubs {clubs[0]['clubs']:.1%} -> {clubs[1]['clubs']:.1%} (held-out designs "
              f"{clubs[0]['clubs_held_out']:.1%} -> {clubs[1]['clubs_held_out']:.1%}), spades "
              f"{clubs[0]['spades']:.1%} -> {clubs[1]['spades']:.1%}")
    print(("KEEP the candidate: " if verdict.keep else "do NOT keep the candidate: ") + "; ".join(verdict.reasons))
    return 0 if verdict.keep else 1


def cmd_eval(args: argparse.Namespace) -> int:
    from vision import evaluate
    from vision.errors import VisionError

    dataset = Path(args.dataset or f"datasets/{args.deck}")
    try:
        report = evaluate.run(args.deck, Path(args.out or f"reports/eval-{args.deck}"), dataset,
                              Path(args.root) if args.root else None, args.limit, args.threshold, args.quiet,
                              models=Path(args.models) if args.models else None, config=photo_config(args),
                              jobs=args.jobs or None,
                              sets=tuple(s.strip() for s in args.sets.split(",") if s.strip()) if args.sets else None,
                              photos_limit=args.photos)
    except (VisionError, ValueError) as err:
        print(f"warref eval: {err}", file=sys.stderr)
        return 2
    print(evaluate.summary(report))
    print(f"report and pictures in {args.out or f'reports/eval-{args.deck}'}/")
    return 0


def cmd_train(args: argparse.Namespace) -> int:
    import importlib.util
    sources = args.sources or ["datasets/standard", "datasets/woolly", "datasets/namikopy"]
    if args.what == "detector" and len(args.per_source) not in (1, len(sources)):
        print(f"warref train: --per-source takes one number or one per source ({len(sources)} sources)",
              file=sys.stderr)
        return 2
    if args.lr is not None and not 0 < args.lr < 1:
        print(f"warref train: --lr {args.lr}: a learning rate between 0 and 1, such as 0.0003", file=sys.stderr)
        return 2
    if args.lr_final is not None and (args.lr is None or not 0 < args.lr_final < args.lr):
        print(f"warref train: --lr-final {args.lr_final}: give --lr too, and a final rate below it (such as 1e-5 "
              "with --lr 2e-4)", file=sys.stderr)
        return 2
    if args.freeze < 0 or args.watch < 0:
        print("warref train: --freeze and --watch take a number of layers or photos, 0 or more", file=sys.stderr)
        return 2
    if args.start_from and not Path(args.start_from).is_file():
        print(f"warref train: --start-from {args.start_from}: no such file", file=sys.stderr)
        return 2
    if args.start_from and Path(args.start_from).suffix not in (".pt", ".onnx"):
        print(f"warref train: --start-from {args.start_from}: give a run's .pt or an installed model's .onnx "
              f"(such as models/{'detector' if args.what == 'detector' else 'reader-' + args.deck}.onnx)",
              file=sys.stderr)
        return 2
    if importlib.util.find_spec("ultralytics") is None:
        print("warref train: training needs the training extra (torch, ultralytics): run `make train-env` "
              "and use .venv-train/bin/warref", file=sys.stderr)
        return 2
    from vision.train import install

    if args.what == "detector":
        per_source = args.per_source[0] if len(args.per_source) == 1 else args.per_source
        path = install.detector([Path(s) for s in sources], args.hours, args.imgsz or 320, args.resume,
                                per_source, Path(args.start_from) if args.start_from else None,
                                device=args.device, batch=args.batch, workers=args.workers,
                                jobs=args.jobs or os.cpu_count() or 1, fresh_set=args.fresh_set, lr=args.lr,
                                freeze_norms=args.freeze_norms, lr_final=args.lr_final, freeze=args.freeze,
                                name=args.name, watch=args.watch, install=not args.no_install)
    else:
        path = install.reader(args.deck, [Path(s) for s in (args.sources or [f"datasets/{args.deck}"])],
                              args.epochs, args.imgsz or 64, args.resume, face=args.face,
                              start_from=Path(args.start_from) if args.start_from else None, lr=args.lr)
    print(f"candidate {path} (not installed: measure it with warref eval --models, then warref judge)"
          if args.what == "detector" and args.no_install else f"installed {path}")
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
    print(f"{game.name} ({game.min_players}-{game.max_players} players, {game.cards_in_play(options)} cards)")
    print("Rule options in force:")
    for option, line in zip(game.options, game.rule_sheet(options)):
        print(f"  - {option.setting(options[option.name])}  {line}")
    return 0


# ------------------------------------------------------------------------- serve
def _certificate(folder: Path, ip: str) -> tuple[Path, Path]:
    """A local self-signed certificate for --https, made once and kept beside the database."""
    cert, key = folder / "warref-cert.pem", folder / "warref-key.pem"
    if cert.exists() and key.exists():
        return cert, key
    import datetime
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    private = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "warref dashboard")])
    now = datetime.datetime.now(datetime.timezone.utc)
    names = [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
    if ip != "127.0.0.1":
        names.append(x509.IPAddress(ipaddress.ip_address(ip)))
    certificate = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
                   .public_key(private.public_key()).serial_number(x509.random_serial_number())
                   .not_valid_before(now - datetime.timedelta(days=1))
                   .not_valid_after(now + datetime.timedelta(days=3650))
                   .add_extension(x509.SubjectAlternativeName(names), critical=False)
                   .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
                   .sign(private, hashes.SHA256()))
    folder.mkdir(parents=True, exist_ok=True)
    key.write_bytes(private.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                          serialization.NoEncryption()))
    os.chmod(key, 0o600)
    cert.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    return cert, key


def cmd_serve(args: argparse.Namespace) -> int:
    import secrets

    pin = str(args.pin or os.environ.get("WARREF_PIN") or f"{secrets.randbelow(10000):04d}").strip()
    if not pin:
        print("warref serve: the PIN cannot be empty", file=sys.stderr)
        return 2
    problem = _port_problem(args.host, args.port, "serve")
    if problem:
        print(problem, file=sys.stderr)
        return 2
    import uvicorn

    from web.server import create_app, lan_ip

    db = Path(args.db)
    ip = lan_ip() if args.host in ("0.0.0.0", "::", "") else args.host
    scheme = "https" if args.https else "http"
    url = f"{scheme}://{ip}:{args.port}"
    ssl: dict[str, str] = {}
    if args.https:
        cert, key = _certificate(db.resolve().parent, ip)
        ssl = {"ssl_certfile": str(cert), "ssl_keyfile": str(key)}
    if args.workers > 1 and not args.redis:
        print("warref serve: --workers N shares rooms between processes through Redis: give --redis URL too",
              file=sys.stderr)
        return 2
    settings = {"db_path": str(db), "pin": pin, "public_url": url, "hosts": _hosts(args, url), "redis_url": args.redis}
    try:
        app = create_app(**settings)
    except Exception as err:  # a damaged database, one whose log no longer plays, Redis unreachable
        print(f"warref serve: {err}" if args.redis and "Redis" in str(err) else f"warref serve: cannot open {db}: {err}",
              file=sys.stderr)
        return 2
    print(f"warref dashboard: {url}  (database {db})")
    print(f"PIN for changing the game: {pin}")
    if not args.no_qr:
        try:
            import segno
            segno.make(url, error="m").terminal(compact=True)
        except Exception:   # a terminal that cannot show it: the address above is enough
            pass
    print(f"QR code also at {url}/api/qr.svg", flush=True)
    # the client is the socket's address (PIN limits count by it) unless a proxy is named
    proxy = {"proxy_headers": bool(args.forwarded_allow_ips), "forwarded_allow_ips": args.forwarded_allow_ips}
    if args.workers > 1:          # each worker process builds its own app from the same settings
        os.environ[SETTINGS_VARIABLE] = json.dumps(settings)
        uvicorn.run("web.server:app_from_environment", factory=True, workers=args.workers, host=args.host,
                    port=args.port, log_level=args.log_level, ws_max_size=WS_MAX, **proxy, **ssl)
        return 0
    uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level, ws_max_size=WS_MAX, **proxy, **ssl)
    return 0


SETTINGS_VARIABLE = "WARREF_SERVE_SETTINGS"   # how `serve --workers` hands its settings to each worker
WS_MAX = 16 * 1024       # the largest WebSocket frame uvicorn reads: viewers send nothing that matters


def _hosts(args: argparse.Namespace, url: str) -> list[str]:
    """The names the dashboard answers to: this machine's, --host's, and each --allow-host."""
    from web.guard import allowed_hosts
    extra = list(args.allow_host or [])
    if args.host not in ("0.0.0.0", "::", ""):
        extra.append(args.host)
    return allowed_hosts(extra, public_url=url)


def _allow_host_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument("--allow-host", action="append", metavar="NAME",
                   help="also answer to this name (a DNS name or address that points here); "
                        "the machine's own names and addresses are always allowed; repeat for several")


# ------------------------------------------------------------------------- demo and run (the camera)
def _serve_live(args: argparse.Namespace, live: Any, db: Path, pin: str, open_browser: bool,
                stop_when_done: Any = None, banner: TextIO | None = None) -> bool:
    """Serve the dashboard with a camera (or the demo's feed) attached, until Ctrl-C or ``stop_when_done``.
    The address goes to ``banner`` (default stdout). Returns whether Ctrl-C stopped it."""
    import asyncio
    import uvicorn

    from web.server import create_app

    url = f"http://{'localhost' if args.host in ('0.0.0.0', '127.0.0.1', '::', '') else args.host}:{args.port}"
    app = create_app(db, pin, live=live, hosts=_hosts(args, url))
    config = uvicorn.Config(app, host=args.host, port=args.port, log_level="warning", ws_max_size=WS_MAX,
                            proxy_headers=False)
    server = uvicorn.Server(config)
    print(f"warref dashboard: {url}  (database {db}; PIN {pin}; preview {url}/api/preview.jpg)",
          file=banner or sys.stdout, flush=True)
    finished = False
    if stop_when_done is not None:
        previous = live.on_frame

        def on_frame(lv) -> bool:
            nonlocal finished
            done = previous(lv) if previous is not None else False
            if done:
                finished = server.should_exit = True
            return done
        live.on_frame = on_frame
    if open_browser:
        import threading
        import webbrowser
        threading.Timer(1.0, lambda: webbrowser.open(url)).start()
    try:
        asyncio.run(server.serve())
    except KeyboardInterrupt:       # uvicorn shuts down on Ctrl-C, then raises it again
        return True
    return not finished             # a signal uvicorn caught (where Ctrl-C is ignored, SIGTERM) ended it


def cmd_demo(args: argparse.Namespace) -> int:
    import signal
    import tempfile

    from web.demo import deck_faces

    if args.game != "classic":
        print("warref demo: the demo simulates Classic War only: --game classic", file=sys.stderr)
        return 2
    players = _players(args.players)
    if not players:
        return _missing_players("demo")
    if not 2 <= len(players) <= 4:
        print(f"warref demo: Classic War is for 2-4 players (got {len(players)})", file=sys.stderr)
        return 2
    try:
        deck_faces(args.deck)
    except ValueError as err:
        print(f"warref demo: {err}", file=sys.stderr)
        return 2
    from vision.art.standard import ArtFetchError
    problem = _port_problem(args.host, args.port, "demo")
    if problem:
        print(problem, file=sys.stderr)
        return 2
    # stdout carries only the JSON summary (`warref demo --no-browser | python -m json.tool`); the
    # address and "stopped" go to stderr. A database of its own lives in a folder removed at the end,
    # Ctrl-C included.
    def terminated(signum, frame):
        raise KeyboardInterrupt     # SIGTERM (kill) stops it as Ctrl-C does: the folder is removed
    previous = signal.signal(signal.SIGTERM, terminated)
    try:
        with tempfile.TemporaryDirectory(prefix="warref-demo-", ignore_cleanup_errors=True) as folder:
            db = Path(args.db) if args.db else Path(folder) / "demo.db"
            return _demo(args, players, db)
    except ArtFetchError as err:    # the cards' art could not be fetched or drawn: say what is missing
        print(f"warref demo: cannot draw the cards: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:       # Ctrl-C before the server started (while the reader loads)
        print("warref demo: stopped", file=sys.stderr)
        return 0
    finally:
        signal.signal(signal.SIGTERM, previous)


GIVE_UP = 20         # warref demo --no-browser: times one battle's cards are shown again before it stops


def _demo(args: argparse.Namespace, players: list[str], db: Path) -> int:
    from web.demo import make_live

    fps = args.fps if args.fps is not None else (0.0 if args.no_browser else 10.0)
    # without a browser nobody watches: a battle whose cards are shown again GIVE_UP times ends the run
    table, live = make_live(db, players, args.seed, args.battles or 10_000, fps=fps, threshold=args.threshold,
                            deck=args.deck, give_up=GIVE_UP if args.no_browser else None)
    clock = {"wall": None, "cpu": None, "summary": None}
    first = live.on_frame

    def on_frame(lv) -> bool:
        if clock["wall"] is None:
            clock["wall"], clock["cpu"] = time.perf_counter(), time.process_time()
        done = first(lv)
        if done and clock["summary"] is None:
            clock["summary"] = table.summary(time.perf_counter() - clock["wall"], time.process_time() - clock["cpu"])
            clock["summary"]["seed"] = args.seed
            print(json.dumps(clock["summary"]), flush=True)
        return done
    live.on_frame = on_frame
    pin = str(args.pin or os.environ.get("WARREF_PIN") or "0000")
    stopped = _serve_live(args, live, db, pin, open_browser=not args.no_browser,
                          stop_when_done=True if args.no_browser else None, banner=sys.stderr)
    if stopped:
        print("warref demo: stopped", file=sys.stderr)
    summary = clock["summary"]
    if summary is None:             # stopped before the end (Ctrl-C) is no failure
        return 0 if stopped else 1
    if summary["stalled"]:
        print(f"warref demo: stopped at battle {summary['battles'] + 1}: its cards were shown again {GIVE_UP} "
              f"times and not read (deck {args.deck})", file=sys.stderr)
    return 0 if summary["wrong_rulings"] == 0 and not summary["stalled"] else 1


def cmd_enroll(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from vision.enroll import EnrollError, enroll
    from vision.errors import VisionError

    bars: dict[str, tqdm] = {}

    def progress(stage: str, done: int, total: int) -> None:
        bar = bars.get(stage)
        if bar is None:
            bar = bars[stage] = tqdm(total=total, desc=stage, file=sys.stderr, disable=args.quiet)
        bar.update(done - bar.n)

    try:
        deck = enroll(args.name, args.like, Path(args.cards) if args.cards else None,
                        Path(args.labelled) if args.labelled else None, minutes=args.minutes,
                        allow_missing=args.allow_missing, replace=args.replace, progress=progress)
    except (EnrollError, VisionError, ValueError, FileExistsError) as err:
        for bar in bars.values():
            bar.close()
        print(f"warref enroll: {err}", file=sys.stderr)
        return 2
    for bar in bars.values():
        bar.close()
    held = deck.meta["held_back"]
    print(f"deck {args.name} ready: read {held['right']} of {held['views']} held-back views right "
          f"({held['wrong']} wrong) in {deck.meta['seconds']:.0f} s; {deck.path}")
    if warning := deck.warning():
        print(f"warning: {warning}")
    print(f"look over the pictures it learnt from: {deck.path / 'cards.png'}")
    print(f"use it: warref detect --deck {args.name} PHOTO   (its model card: {deck.path / 'README.md'})")
    return 0


def cmd_decks(args: argparse.Namespace) -> int:
    from vision.decks import BUILT_IN, enrolled, folder, forget
    if args.forget:
        try:
            path = forget(args.forget)
        except (ValueError, OSError) as err:
            print(f"warref decks: {err}", file=sys.stderr)
            return 2
        print(f"deck {args.forget} forgotten ({path} removed)")
        return 0
    print("built in: " + ", ".join(BUILT_IN))
    taught = enrolled()
    if not taught:
        print(f"no deck taught yet ({folder()}): warref enroll NAME --like standard --cards DIR")
    for deck in taught:
        print(deck.line())
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    import secrets

    from vision.reader import LIVE, TableReader
    from vision.sources import WatchedSource, open_source
    from web.live import Live

    players = _players(args.players)
    if not players:
        return _missing_players("run")
    try:
        options = parse_option_args(args.option)
        game = get_game(args.game)
        Table(game, players, options)
    except (SetupError, OptionError) as err:
        print(f"warref run: {err}", file=sys.stderr)
        return 2
    problem = _port_problem(args.host, args.port, "run")
    if problem:
        print(problem, file=sys.stderr)
        return 2
    deck = game.camera_deck_for(options)
    if args.deck:
        try:
            like = profile(args.deck).like
        except ValueError as err:
            print(f"warref run: {err}", file=sys.stderr)
            return 2
        if like != deck:
            print(f"warref run: deck {args.deck!r} is like the {like} deck; {game.id} is played with the {deck} deck",
                  file=sys.stderr)
            return 2
        deck = args.deck
    zones = None
    if args.zones:
        try:
            data = json.loads(Path(args.zones).read_text())
            zones = data.get("seats", data)
        except (OSError, ValueError, AttributeError) as err:
            print(f"warref run: cannot read the zones file {args.zones}: {err}", file=sys.stderr)
            return 2
    reader = TableReader(deck, LIVE)       # frame after frame: a card that has not changed keeps its reading
    threshold = args.threshold if args.threshold is not None else reader.reader.threshold
    if args.fps is not None and not args.fps > 0:
        print(f"warref run: --fps {args.fps}: give frames per second above 0", file=sys.stderr)
        return 2

    def source():
        from vision.sources import Paced
        src = open_source(args.camera, loop=args.loop)
        return Paced(src, args.fps) if args.fps else src
    camera = WatchedSource(source, source=str(args.camera))

    def start(referee) -> None:
        referee.new_game({"game": game.id, "players": [{"name": p} for p in players], "options": options})
        if zones is not None:
            referee.set_zones({"seats": zones})

    # a game set up in the dashboard with another deck (a taught one) is read with that deck
    live = Live(camera, reader, threshold=threshold, threaded=True, on_start=start,
                make_reader=lambda name: TableReader(name, LIVE))
    pin = str(args.pin or os.environ.get("WARREF_PIN") or f"{secrets.randbelow(10000):04d}")
    print(f"warref run: {game.name} for {', '.join(players)}; reading the {deck} deck from {args.camera} "
          f"(threshold {threshold:g})", flush=True)
    if _serve_live(args, live, Path(args.db), pin, open_browser=False):
        print("warref run: stopped", file=sys.stderr)
    return 0


WITHOUT_HELP = ("switch off these steps of the photo reader, comma-separated: passes, zoom, strips, cut, again, lean, "
                "unstretch, indices, words (docs/card-reader-internals.md says what each does and is worth)")
CUT_HELP = ("read a card cut by the photo's edge from the one index corner inside the photo (default; "
            "--no-cut-cards leaves such cards out)")
INDICES_HELP = ("standard deck: also look for cards by their corner index alone, a rank above a suit, for a card "
                "whose edges the detector cannot see (default; --no-indices leaves them out)")
WORDS_HELP = ("standard deck: also read the photo's text and find a card by the word it prints, a joker by JOKER "
              "(default; --no-words leaves it out)")
JOBS_HELP = ("photos read at once, one process each (default 0: one per core; the results are the same and come "
             "in the photos' order)")
BUILT_IN_HELP = f"{', '.join(list(DECKS)[:-1])} or {list(DECKS)[-1]}"          # standard, woolly or namikopy
DECK_HELP = f"{', '.join(DECKS)} or a deck you taught warref (warref decks)"


def _photo_steps_flags(p: argparse.ArgumentParser) -> None:
    """The flags `warref detect` and `warref eval` share: the photo reader's steps switched off, and
    how many photos are read at once (``photo_config``)."""
    p.add_argument("--cut-cards", action=argparse.BooleanOptionalAction, default=True, help=CUT_HELP)
    p.add_argument("--indices", action=argparse.BooleanOptionalAction, default=True, help=INDICES_HELP)
    p.add_argument("--words", action=argparse.BooleanOptionalAction, default=True, help=WORDS_HELP)
    p.add_argument("--without", metavar="STEP,...", help=WITHOUT_HELP)
    p.add_argument("--jobs", type=int, default=0, help=JOBS_HELP)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="warref", description="A referee for War and its relatives.")
    parser.add_argument("--version", action="version", version=f"warref {_version()}")
    sub = parser.add_subparsers(dest="command", required=True)
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
    p.set_defaults(func=cmd_referee)

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

    p = sub.add_parser("synth", help="render synthetic table scenes with labels for the card reader")
    p.add_argument("--deck", default="standard", help=BUILT_IN_HELP)
    p.add_argument("--scenes", type=int, default=1000)
    p.add_argument("--out", required=True, help="dataset folder (e.g. datasets/standard)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--jobs", type=int, default=0, help="worker processes (default: one per core)")
    p.add_argument("--cache", help="where fetched card art is kept (default datasets/cache)")
    p.add_argument("--more-art", action="store_true",
                   help="standard deck: deal some tables from AisleRiot's 13 card themes too (Debian gnome-cards-data)")
    p.add_argument("--rows", action="store_true",
                   help="lay out rows of overlapping cards too (a hand laid down), where only a strip of a card shows")
    p.add_argument("--close-ups", action="store_true",
                   help="phone close-ups instead of game tables: 1-4 large cards, often cut by the frame, "
                        "mostly pale tables, tube-light glare, some black and white")
    p.add_argument("--clutter", action="store_true",
                   help="busy tables: half of them a photographed surface, and book covers, printed pages, "
                        "knives and toys cut from photographs under and over the cards (Debian gimp-data, "
                        "mate-backgrounds, ukui-wallpapers: make train-clutter)")
    p.add_argument("--held-up", action="store_true",
                   help="cards held up to a webcam instead of game tables: one card (sometimes two) in a hand, "
                        "a room and a person behind it out of focus, the webcam's look on every frame "
                        "(needs the clutter's photographs: make train-clutter)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_synth)

    p = sub.add_parser("score", help="score card predictions (warref detect --json lines) on the real photos")
    p.add_argument("predictions", help="a file of JSON lines: {image, cards: [{card, confidence, box}]}")
    p.add_argument("--set", choices=("phone", "edje", "handheld"), required=True,
                   help="phone, handheld: identities per image; edje: ranks 9-A matched at IoU 0.5")
    p.add_argument("--threshold", type=float, default=0.5)
    p.add_argument("--target", type=float, default=0.995, help="precision the stated threshold must give")
    p.add_argument("--root", help="the realcards folder (default ../shared/realcards)")
    p.add_argument("--audited", action="store_true",
                   help="with the labels' audit applied (datasets/realcards-audit.json: cards the photos show "
                        "that the labels leave out or name wrong, checked by eye)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_score)

    p = sub.add_parser("detect", help="read the cards in photos (JSON lines with --json)")
    p.add_argument("images", nargs="+", help="image files")
    p.add_argument("--deck", default="standard", help=DECK_HELP)
    p.add_argument("--threshold", type=float,
                   help="leave out readings below this confidence (default: the reader's stated threshold, "
                        "models/README.md)")
    p.add_argument("--json", action="store_true", help="one JSON line per image")
    p.add_argument("--annotate", metavar="DIR", help="also write each image with its cards boxed into DIR")
    p.add_argument("--models", help="folder with detector.onnx and reader-DECK.onnx (default models/)")
    p.add_argument("--one-pass", action="store_true",
                   help="one detector pass, as on a live table (faster; misses cards that fill a close-up photo, "
                        "only the cards read unsure are looked at again close up, not the six surest, and a card "
                        "whose corners read sure of nothing does not lean on its face reader more)")
    p.add_argument("--as-is", action="store_true",
                   help="read a square photo only as it is, not also stretched back to a camera's 3:4 and 9:16 "
                        "shapes (faster; for photos taken square rather than stretched to a square)")
    _photo_steps_flags(p)
    p.set_defaults(func=cmd_detect)

    p = sub.add_parser("eval", help="score the card reader on synthetic scenes and the real photos")
    p.add_argument("--deck", default="standard", help=DECK_HELP)
    p.add_argument("--dataset", help="a synthetic dataset with a val split (default datasets/DECK)")
    p.add_argument("--out", help="report folder (default reports/eval-DECK)")
    p.add_argument("--root", help="the folder holding the labelled photo sets (default ../shared/realcards)")
    p.add_argument("--limit", type=int, default=400, help="synthetic validation scenes to read")
    p.add_argument("--sets", metavar="NAME,...", help="labelled photo sets to score, folders of --root (default: "
                   "phone, edje, handheld and the webcam-like copies phone-webcam, edje-webcam; for the standard "
                   "deck and decks taught like it)")
    p.add_argument("--photos", type=int, default=0, metavar="N",
                   help="at most N photos of each real set, evenly spaced (default: all)")
    p.add_argument("--threshold", type=float, help="also score at this threshold (default: the reader's stated one)")
    p.add_argument("--models", help="folder with detector.onnx and reader-DECK.onnx to measure (default models/): "
                   "a candidate measured before it is installed")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    _photo_steps_flags(p)
    p.set_defaults(func=cmd_eval)

    p = sub.add_parser("judge", help="keep a candidate model or not: two warref eval reports of the same photos "
                       "compared by the fair rule (vision/judge.py)")
    p.add_argument("installed", help="the installed models' report folder (warref eval --out DIR)")
    p.add_argument("candidate", help="the candidate's report folder (warref eval --models CAND --out DIR)")
    p.add_argument("--clubs-before", metavar="JSON", help="bench/bench_clubs.py --json of the installed reader")
    p.add_argument("--clubs-after", metavar="JSON", help="bench/bench_clubs.py --json of the candidate")
    p.add_argument("--root", help="the folder holding the labelled photo sets the reports read (default "
                   "../shared/realcards, with the labels' audit)")
    p.set_defaults(func=cmd_judge)

    p = sub.add_parser("train", help="train the card detector or a deck's reader (needs make train-env)")
    p.add_argument("what", choices=("detector", "reader"))
    p.add_argument("--deck", default="standard", help=f"the reader's deck: {BUILT_IN_HELP}")
    p.add_argument("--sources", nargs="*", help="synthetic datasets to learn from (warref synth output)")
    p.add_argument("--hours", type=float, default=1.0, help="detector: training time budget")
    p.add_argument("--per-source", type=int, nargs="+", default=[5000],
                   help="detector: training scenes taken from each dataset (one number, or one per --sources)")
    p.add_argument("--epochs", type=int, default=20, help="reader: epochs")
    p.add_argument("--imgsz", type=int, help="input size (detector 320, reader 64)")
    p.add_argument("--resume", action="store_true", help="carry on an interrupted run")
    p.add_argument("--start-from", metavar="WEIGHTS",
                   help="go on learning from an earlier run's weights (.pt), in a new run with a fresh schedule "
                        "(a reader: every layer whose shape fits), or from an installed model's .onnx such as "
                        "models/detector.onnx or models/reader-woolly.onnx, for a checkout without the training runs")
    p.add_argument("--face", action="store_true",
                   help="reader: train the deck's face reader (whole cards; read beside the corner indices)")
    p.add_argument("--fresh-set", action="store_true",
                   help="detector: rebuild the training set from --sources even with --start-from")
    p.add_argument("--device", default="cpu", help="detector: cpu, or a CUDA device such as 0")
    p.add_argument("--batch", type=int, default=16, help="detector: images per step (a GPU takes 128)")
    p.add_argument("--lr", type=float, help="AdamW from this learning rate (default: for a detector ultralytics' "
                   "choice, for a reader 0.003 at the top of its one-cycle schedule); a small one, such as 0.0003 "
                   "for a detector or 0.001 for a reader, to go on from good weights with --start-from")
    p.add_argument("--workers", type=int, default=2, help="detector: data-loading processes")
    p.add_argument("--freeze-norms", action="store_true",
                   help="detector: keep every batch norm as it is (for a fine-tune on the CPU, whose batches of "
                        "16 give them noisy statistics)")
    p.add_argument("--jobs", type=int, default=0,
                   help="detector: processes building the training set (default: one per core)")
    p.add_argument("--lr-final", type=float, help="detector: the learning rate the schedule falls to by its last "
                   "epoch (default 1%% of --lr), such as 1e-5 when going on from good weights at --lr 2e-4")
    p.add_argument("--freeze", type=int, default=0, metavar="N",
                   help="detector: the first N layers learn nothing (11: yolo11n-obb's backbone)")
    p.add_argument("--name", help="detector: the run's folder in models/runs/detector (default more or train), "
                   "so candidates train side by side; --resume --name NAME carries one on")
    p.add_argument("--watch", type=int, default=0, metavar="N",
                   help="detector: after each epoch, read N photos of every real set with the weights so far and "
                        "judge them against the installed models (vision/train/watch.py)")
    p.add_argument("--no-install", action="store_true",
                   help="detector: leave the exported candidate in its run's folder instead of models/")
    p.set_defaults(func=cmd_train)

    p = sub.add_parser("rules", help="print a game's rule options, each explained in a sentence")
    p.add_argument("--game", help=f"one of: {games}")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="a rule option")
    p.set_defaults(func=cmd_rules)

    p = sub.add_parser("serve", help="serve the tablet dashboard and its API (docs/dashboard-api.md)")
    p.add_argument("--host", default="0.0.0.0", help="address to listen on (default: every interface)")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--db", default="warref.db", help="the SQLite database of games (default ./warref.db)")
    p.add_argument("--pin", help="the PIN for changing the game (default: $WARREF_PIN, else random 4 digits)")
    p.add_argument("--https", action="store_true",
                   help="serve HTTPS with a local self-signed certificate kept beside the database")
    p.add_argument("--no-qr", action="store_true", help="do not print the QR code in the terminal")
    p.add_argument("--log-level", default="warning", help="uvicorn's log level (default warning)")
    p.add_argument("--redis", metavar="URL",
                   help="share Guerra rooms with other server processes through this Redis (redis://host:6379/0)")
    p.add_argument("--workers", type=int, default=1,
                   help="server processes on this address, sharing rooms through --redis (default 1)")
    p.add_argument("--forwarded-allow-ips", metavar="ADDRESSES",
                   help="behind a reverse proxy: the proxy's addresses (comma-separated), whose X-Forwarded-For "
                        "names the client; without it the client is the connection's own address")
    _allow_host_flag(p)
    p.set_defaults(func=cmd_serve)

    p = sub.add_parser("demo", help="a simulated Classic War game on a rendered table, refereed through the "
                                    "camera loop into the dashboard")
    p.add_argument("--game", default="classic", help="classic (the only game the demo simulates)")
    p.add_argument("--players", default="Alex,Olivia", help="comma-separated names (2-4; default Alex,Olivia)")
    p.add_argument("--battles", type=int, default=0, help="stop after this many battles (default: the whole game)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--fps", type=float, help="pace the feed (default 10 with the browser, unpaced without)")
    p.add_argument("--threshold", type=float, default=LIVE.announce,
                   help=f"lowest confidence announced (default {LIVE.announce})")
    p.add_argument("--no-browser", action="store_true", help="do not open the dashboard; stop when done")
    p.add_argument("--deck", default="standard",
                   help="a deck like standard you taught warref (warref decks): its own cards on the table, "
                        "read by its own readers")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000)
    _allow_host_flag(p)
    p.add_argument("--db", help="the SQLite database (default: a new one in a temporary folder)")
    p.add_argument("--pin", help="the PIN for changing the game (default $WARREF_PIN, else 0000)")
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser("run", help="referee a real table: camera -> card reader -> referee -> dashboard")
    p.add_argument("--camera", default="0", help="a camera index, a video file, a folder of images or a stream URL")
    p.add_argument("--game", default=DEFAULT_GAME, help=f"one of: {games}")
    p.add_argument("--players", help="comma-separated names in seat order, e.g. Alex,Olivia")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="a rule option")
    p.add_argument("--zones", help='a JSON file {"seats": {"Alex": [[x, y], ...]}} (fractions of the frame)')
    p.add_argument("--threshold", type=float, help="lowest confidence announced (default: the reader's stated one)")
    p.add_argument("--host", default="0.0.0.0")
    p.add_argument("--port", type=int, default=8000)
    _allow_host_flag(p)
    p.add_argument("--db", default="warref.db", help="the SQLite database of games (default ./warref.db)")
    p.add_argument("--pin", help="the PIN for changing the game (default: $WARREF_PIN, else random 4 digits)")
    p.add_argument("--deck", help="a deck you taught warref (warref decks), like the game's deck")
    p.add_argument("--loop", action="store_true", help="a video file or folder of images: start again at its end")
    p.add_argument("--fps", type=float, help="a video file or folder of images: play at most this many frames a "
                                            "second, as a camera sends them (default: as fast as they are read)")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("enroll", help="teach warref your own deck from one photo per card")
    p.add_argument("name", help="the deck's name: lower-case letters, digits, - or _")
    p.add_argument("--like", required=True, choices=list(DECKS),
                   help="which cards it has: standard (52, jokers if photographed), woolly or namikopy")
    p.add_argument("--cards", help="a folder of photos, one card each, named by its code: QH.png, 10C_front.jpg, "
                                   "BACK.jpg; the card alone or lying on a table")
    p.add_argument("--labelled", help="a folder of labelled photos (classes.txt, images/, labels/ as YOLO boxes)")
    p.add_argument("--minutes", type=float, default=10.0, help="the most time it may take (default 10)")
    p.add_argument("--allow-missing", action="store_true", help="enrol though some cards have no photo")
    p.add_argument("--replace", action="store_true", help="replace a deck of the same name")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.set_defaults(func=cmd_enroll)

    p = sub.add_parser("decks", help="the decks warref reads: built in and taught (warref enroll)")
    p.add_argument("--forget", metavar="NAME", help="remove a deck you taught warref, its readers and pictures")
    p.set_defaults(func=cmd_decks)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except BrokenPipeError:          # the reader went away (e.g. `| head`): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())   # no flush error at exit
        return 0
    except KeyboardInterrupt:        # Ctrl-C: no traceback
        print(f"warref {args.command}: stopped", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
