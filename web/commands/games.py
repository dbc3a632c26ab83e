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
from referee.rulings import Ruling
from referee.say import say, say_n, to_translate

from ..i18n import DECIMAL_MARK, say_in, text_in
from ..system_words import json_words, os_words, system_words
from .common import DEFAULT_GAME, PLAYERS_EXAMPLE, bar_in, fail, lang_flag, language, player_names, why


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


def _number(x: float, digits: int, lang: str) -> str:
    """A number with ``digits`` decimals, as ``lang`` writes it (Portuguese: a decimal comma)."""
    text = f"{x:.{digits}f}"
    return text.replace(".", ",") if lang == "pt" else text


def _count(n: int, lang: str) -> str:
    """A whole number with its thousands marked, as ``lang`` writes it: 10,000 or 10 000."""
    return f"{n:,}".replace(",", " ") if lang == "pt" else f"{n:,}"


def _file_problem(path: Path, flag: str) -> str | None:
    """Why a file cannot be written at ``path`` (one sentence naming it and what to do), or None."""
    if path.is_dir():
        example = path / ("game.jsonl" if flag == "--log" else "plot.png")
        return say("{flag} {path} is a folder; give a file name in it, e.g. {flag} {example}", flag=flag,
                   path=str(path), example=str(example))
    folder = path.parent
    if not folder.exists():
        return say("{flag} {path}: the folder {folder} does not exist; create it first (mkdir -p {folder}) or choose "
                   "another path", flag=flag, path=str(path), folder=str(folder))
    if not folder.is_dir():
        return say("{flag} {path}: {folder} is not a folder; choose another path", flag=flag, path=str(path),
                   folder=str(folder))
    if path.exists():
        if not os.access(path, os.R_OK | os.W_OK):
            return say("{flag} {path}: this file cannot be read and written (its permissions); choose another path",
                       flag=flag, path=str(path))
    elif not os.access(folder, os.W_OK | os.X_OK):
        return say("{flag} {path}: no file can be made in {folder} (its permissions); choose another folder",
                   flag=flag, path=str(path), folder=str(folder))
    return None


# ------------------------------------------------------------------------- referee
def _open_table(args: argparse.Namespace) -> tuple[Table, list[Ruling]]:
    players = player_names(args.players)
    options = parse_option_args(args.option)
    log = Path(args.log) if args.log else None
    if log is None or not log.exists() or log.stat().st_size == 0:
        if not players:
            raise SetupError(say("--players is missing: give the players' names in seat order, e.g. {example}",
                                 example=PLAYERS_EXAMPLE))
        table = Table(args.game or DEFAULT_GAME, players, options)
        if log is not None:
            header = {"type": "table", "game": table.game.id, "players": table.players,
                      "options": table.options}
            log.write_text(json.dumps(header) + "\n", encoding="utf-8")
        return table, [table.state.prompt()]
    lines = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines() if line.strip()]
    header, entries = lines[0], lines[1:]
    if not isinstance(header, dict) or header.get("type") != "table":
        raise SetupError(say("{log} does not start with a table line; it is not a warref game log.", log=str(log)))
    game = get_game(header["game"])
    held = game.resolve_options(header["options"])
    differs = []
    if args.game and get_game(args.game).id != game.id:
        differs.append(say("--game here is {game}", game=get_game(args.game).id))
    if players and [p.lower() for p in players] != [p.lower() for p in header["players"]]:
        differs.append(say("--players here are {players}", players=",".join(players)))
    if options and not differs:
        given = game.resolve_options(options)
        for key in dict.fromkeys(str(k).strip().lower() for k in options):
            if given[key] != held[key]:
                differs.append(say("--option {key}={given} here, {key}={held} in the log", key=key,
                                   given=_shown(given[key]), held=_shown(held[key])))
    if differs:
        said = differs[0]
        for more in differs[1:]:
            said = say("{a}; {b}", a=said, b=more)
        raise SetupError(say("{log} holds a {game} game for {players}, but {differs}. Give the log's game, players "
                             "and options (or leave them out) to carry on with it, or use another --log file for a "
                             "new game.", log=str(log), game=game.id, players=", ".join(header["players"]),
                             differs=said))
    table = Table.restore(game, header["players"], header["options"], entries)
    restored = Ruling("restored", say_n("Restored {n} event from {log}.", "Restored {n} events from {log}.",
                                        len(entries), log=str(log)),
                      {"events": len(entries), "counts": table.state.counts()})
    return table, [restored, table.state.prompt()]


def cmd_referee(args: argparse.Namespace) -> int:
    lang = language("referee", args.lang)
    if lang is None:
        return 2
    problem = _file_problem(Path(args.log), "--log") if args.log else None
    if problem:
        return fail("referee", problem, lang)
    try:
        table, opening = _open_table(args)
        log = open(args.log, "a", encoding="utf-8") if args.log else None
    except (SetupError, OptionError) as err:
        return fail("referee", why(err), lang)
    except OSError as err:
        return fail("referee", say("--log {log}: {why}; choose another path", log=args.log, why=os_words(err)), lang)
    except (ValueError, KeyError, TypeError, AttributeError, IllegalEvent) as err:
        return fail("referee", say("the log file {log} is damaged ({why}); nothing was changed.", log=args.log,
                                    why=system_words(err)), lang)
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
            message = say("Line {number} is not a JSON event ({why} at column {column}).", number=number,
                          why=json_words(err.msg), column=err.colno)
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
# the units of simulate's progress bars (tqdm's rate: 120game/s), in the --lang's words
GAME_UNIT, MATCH_UNIT = to_translate("game"), to_translate("match")


def _histogram_lines(values: list[int], bins: int = 12, width: int = 40, lang: str = "en") -> list[str]:
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
        lines.append(f"  {a:>5}-{a + step - 1:<5} {bar:<{width}} {_number(100 * c / len(values), 1, lang):>5}%")
    return lines


def _plot(path: str, title: str, battles: list[int], summary: dict[str, Any], lang: str = "en") -> None:
    """`warref simulate --plot`'s picture: the length distribution and the wins by seat, its words in ``lang`` (the
    title as the text's first line; the axes' labels, the legend and the bars' names; the axes' numbers with the
    language's decimal mark). English: as it always was."""
    # imported here: matplotlib is slow to start (`warref --help` stays fast)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt   # after choosing the Agg backend (no display needed)

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4), gridspec_kw={"width_ratios": [3, 1]})
    left.hist(battles, bins=50, color="#4a7fb5")
    median = f"{summary['battles']['median']:.0f}"
    left.axvline(summary["battles"]["median"], color="#c0392b", linestyle="--",
                 label=text_in(to_translate("median {median}"), lang).format(median=median))
    left.set_xlabel(text_in(to_translate("battles per game"), lang))
    left.set_ylabel(text_in(to_translate("games"), lang))
    left.legend()
    seats = list(summary["wins"])
    shares = [100 * summary["wins"][s] for s in seats]
    labels = list(seats)
    for label, share in ((to_translate("draw/shared"), summary["draws"] + summary["shared_wins"]),
                         (to_translate("house"), summary["house_wins"])):
        if share:
            labels.append(text_in(label, lang))
            shares.append(100 * share)
    right.bar(labels, shares, color="#7fb54a")
    right.set_ylabel(text_in(to_translate("% of games won"), lang))
    fig.suptitle(title)
    if DECIMAL_MARK.get(lang, ".") != ".":
        for axis in (left.xaxis, left.yaxis, right.yaxis):
            axis.set_major_formatter(_marked_formatter(DECIMAL_MARK[lang]))
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _marked_formatter(mark: str) -> Any:
    """matplotlib's own numbers on an axis (its ScalarFormatter), written with ``mark`` for a decimal point."""
    # imported here: matplotlib is slow to start (`warref --help` stays fast)
    from matplotlib.ticker import ScalarFormatter

    class Marked(ScalarFormatter):
        def __call__(self, x: float, pos: int | None = None) -> str:
            return super().__call__(x, pos).replace(".", mark)

        def get_offset(self) -> str:
            return super().get_offset().replace(".", mark)
    return Marked()


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
    return say("--plot {path}: matplotlib cannot write {suffix} pictures; end the name with .png (or {others})",
               path=str(path), suffix=path.suffix, others=others)


def _shown(value: Any) -> str:
    """An option's value as players write it: off, on, or the value."""
    return "off" if value is None or value is False else "on" if value is True else str(value)


def game_and_options(args: argparse.Namespace, command: str, lang: str = "en") -> tuple[Any, dict[str, Any]] | None:
    """--game and its --option flags, resolved; None (after saying why on stderr) when they are wrong."""
    try:
        game = get_game(args.game)
        return game, game.resolve_options(parse_option_args(args.option))
    except (SetupError, OptionError) as err:
        fail(command, why(err), lang)
        return None


def cmd_simulate(args: argparse.Namespace) -> int:
    # imported here: the simulator's process pool is slow to start (`warref --help` stays fast)
    from referee.sim.stats import run_games, summarize

    lang = language("simulate", args.lang)
    if lang is None:
        return 2
    found = game_and_options(args, "simulate", lang)
    if found is None:
        return 2
    game, options = found
    try:
        players = int(args.players)
    except ValueError:
        return fail("simulate", say("--players {players}: simulated players have no names; give how many play, e.g. "
                                     "--players 3", players=args.players), lang)
    try:
        game.check_players([f"P{i}" for i in range(players)])
    except SetupError as err:
        return fail("simulate", why(err), lang)
    if args.npc is not None:
        return _simulate_npc(args, game, options, players, lang)
    if args.games is None:
        args.games = 1000
    if args.plot:       # checked before the games are played, not after
        problem = _file_problem(Path(args.plot), "--plot") or _plot_format_problem(Path(args.plot))
        if problem:
            return fail("simulate", problem, lang)
    if args.games < 1:
        return fail("simulate", say("--games must be at least 1"), lang)
    if args.returns and game.id != "classic":
        return fail("simulate", say("--returns is for --game classic (how won cards go back under the stack)"), lang)
    table = {"returns": args.returns} if args.returns else {}
    jobs = args.jobs or os.cpu_count() or 1
    records = []
    start = time.perf_counter()
    with bar_in(lang)(total=args.games, desc=say_in(say("{game}, {n} players", game=say(game.name), n=players), lang),
                      unit=text_in(GAME_UNIT, lang), file=sys.stderr, disable=args.quiet) as bar:
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
    title = say_in(say("{game}, {players} players, {games} simulated games (seed {seed})", game=say(game.name),
                       players=players, games=_count(len(records), lang), seed=args.seed), lang)
    if args.plot:
        try:
            _plot(args.plot, title, battles, summary, lang)
        except OSError as err:
            return fail("simulate", say("--plot {path}: {why}", path=args.plot, why=os_words(err)), lang)
    if args.json:
        print(json.dumps(summary, indent=2))
        return 0
    lines = [title, *_summary_lines(summary, options, args.returns, lang), *_histogram_lines(battles, lang=lang),
             *_outcome_lines(summary, lang)]
    if args.plot:
        lines.append(say_in(say("Plot               {path}", path=args.plot), lang))
    print("\n".join(lines))
    return 0


def _rules_line(options: dict[str, Any], returns: str | None = None) -> str:
    """The options in force as typed on the command line (KEY=VALUE), and how won cards were returned."""
    rules = ", ".join(f"{k}={_shown(v)}" for k, v in options.items())
    return (say("Rules: {rules}; won cards returned {returns}", rules=rules, returns=returns) if returns
            else say("Rules: {rules}", rules=rules))


def _summary_lines(summary: dict[str, Any], options: dict[str, Any], returns: str | None, lang: str) -> list[str]:
    """`warref simulate`'s lines before the length distribution, in ``lang``."""
    b, w = summary["battles"], summary["wars"]
    num = functools.partial(_number, lang=lang)
    lines = [_rules_line(options, returns),
             say("Battles per game   mean {mean}  median {median}  p10 {p10}  p90 {p90}  min {min}  max {max}",
                 mean=num(b["mean"], 1), median=num(b["median"], 0), p10=num(b["p10"], 0), p90=num(b["p90"], 0),
                 min=b["min"], max=b["max"]),
             say("Wars per game      mean {mean}  median {median}  p90 {p90}  max {max}", mean=num(w["mean"], 1),
                 median=num(w["median"], 0), p90=num(w["p90"], 0), max=w["max"]),
             say("Wars per battle    {n}", n=num(summary["wars_per_battle"], 3)),
             say("Actions per game   {n}", n=num(summary["actions_per_game"], 1)),
             say("Length distribution (battles per game):")]
    return [say_in(line, lang) for line in lines]


def _outcome_lines(summary: dict[str, Any], lang: str) -> list[str]:
    """`warref simulate`'s lines after the length distribution (wins, endings, speed), in ``lang``."""
    num = functools.partial(_number, lang=lang)
    seats = "  ".join(f"{s} {num(100 * v, 1)}%" for s, v in summary["wins"].items())
    wins = say("Wins by seat       {seats}  shared {shared}%  draws {draws}%", seats=seats,
               shared=num(100 * summary["shared_wins"], 1), draws=num(100 * summary["draws"], 2))
    if summary["house_wins"]:
        wins = say("{wins}  house {house}%", wins=wins, house=num(100 * summary["house_wins"], 1))
    endings = say("Endings            {endings}", endings=", ".join(f"{k} {v}" for k, v in summary["endings"].items()))
    if summary["unfinished"]:
        endings = say("{endings}  (never ended: {share}%; 'loop' = a whole position came back, so the game would "
                      "cycle forever)", endings=endings, share=num(100 * summary["unfinished"] / summary["games"], 1))
    speed = say("Speed              {games} games/s, {battles} battles/s ({jobs} jobs, {seconds} s)",
                games=num(summary["games_per_second"], 1), battles=num(summary["battles_per_second"], 0),
                jobs=summary["jobs"], seconds=num(summary["seconds"], 1))
    return [say_in(line, lang) for line in (wins, endings, speed)]


def _simulate_npc(args: argparse.Namespace, game: Any, options: dict[str, Any], players: int, lang: str = "en") -> int:
    """``warref simulate --game guerra --npc LEVELS``: NPC matches through the referee."""
    # imported here: the NPCs are slow to start (`warref --help` stays fast)
    from referee.sim.guerra import npc_games, seat_levels

    if game.id != "guerra":
        return fail("simulate", say("--npc is for --game guerra (there are no NPC players for {game})",
                                     game=say(game.name)), lang)
    for flag, given in (("--plot", args.plot), ("--returns", args.returns)):
        if given:
            return fail("simulate", say("{flag} is for random simulations, not for --npc matches", flag=flag), lang)
    try:
        levels = seat_levels(args.npc, players)
    except ValueError as err:
        return fail("simulate", say("--npc {levels}: {why}", levels=args.npc, why=why(err)), lang)
    games = 1 if args.games is None else args.games
    if games < 1:
        return fail("simulate", say("--games must be at least 1"), lang)
    names = [f"P{i + 1}" for i in range(players)]
    sides = [[f"{names[i]} ({levels[i]})" for i in range(s, players, 2)] for s in (0, 1)]
    lineup = [", ".join(levels[s::2]) if len(set(levels[s::2])) > 1 else levels[s] for s in (0, 1)]
    if games == 1:
        return _print_npc_match(args, names, levels, sides, options, lang)
    jobs = 1 if games < 40 else (args.jobs or os.cpu_count() or 1)
    results = []
    start = time.perf_counter()
    with bar_in(lang)(total=games, desc=say_in(say("Guerra NPCs, {n} players", n=players), lang),
                      unit=text_in(MATCH_UNIT, lang), file=sys.stderr, disable=args.quiet) as bar:
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
    num = functools.partial(_number, lang=lang)
    lines = [say("Guerra, {players} players, {games} NPC matches (seed {seed}): side A ({a}) against side B ({b}); "
                 "the sides change seats every other match", players=players, games=_count(games, lang),
                 seed=args.seed, a=lineup[0], b=lineup[1]),
             _rules_line(options)]
    for s in (0, 1):
        lo, hi = summary["ci95"][f"side {'AB'[s]}"]
        share = num(100 * wins[s] / games, 1).rjust(5)
        lines.append(say("Side {side} ({lineup})     wins {share}%  (95% CI {lo}-{hi}%, shared wins counted half)",
                         side="AB"[s], lineup=lineup[s], share=share, lo=num(100 * lo, 1), hi=num(100 * hi, 1)))
    lines += [say("Shared wins        {n}", n=shared),
              say("Confrontos         mean {mean}  min {min}  max {max}", mean=num(summary["confrontos_mean"], 1),
                  min=min(confrontos), max=max(confrontos)),
              say("Speed              {ms} ms per match ({jobs} jobs, {seconds} s)", ms=num(1000 * seconds / games, 1),
                  jobs=jobs, seconds=num(seconds, 1))]
    print("\n".join(say_in(line, lang) for line in lines))
    return 0


def _wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson interval of a win rate."""
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def _print_npc_match(args: argparse.Namespace, names: list[str], levels: list[str], sides: list[list[str]],
                     options: dict[str, Any], lang: str = "en") -> int:
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
                scored.append(f"{say_in(how, lang)} {say_in(r.text, lang)}")
    if args.json:
        print(json.dumps({"game": "guerra", "players": names, "npc": levels, "seed": args.seed,
                          "winner": state.result["winner"], "winners": result.winners,
                          "score": state.score(), "reason": result.reason, "confrontos": result.confrontos,
                          "events": result.events, "log": result.log}, indent=2))
        return 0
    lines = [say_in(say("Guerra, {n} players, NPC match (seed {seed}): {a} against {b}", n=len(names), seed=args.seed,
                        a=", ".join(sides[0]), b=", ".join(sides[1])), lang)]
    lines += [f"  {i + 1}. {text}" for i, text in enumerate(scored)]
    score = ", ".join(f"{k} {v}" for k, v in state.score().items())
    final = say_n("Final score: {score} after {n} confronto, {events} events, every one checked by the referee.",
                  "Final score: {score} after {n} confrontos, {events} events, every one checked by the referee.",
                  result.confrontos, score=score, events=result.events)
    lines.append(f"{say_in(state.result['text'], lang)} {say_in(final, lang)}")
    print("\n".join(lines))
    return 0


# ------------------------------------------------------------------------- rules
def cmd_rules(args: argparse.Namespace) -> int:
    lang = language("rules", args.lang)
    if lang is None:
        return 2
    if not args.game:
        return fail("rules", say("which game? Give --game with one of: {games} (e.g. warref rules --game classic)",
                                  games=", ".join(GAMES)), lang)
    found = game_and_options(args, "rules", lang)
    if found is None:
        return 2
    game, options = found
    words = functools.partial(text_in, lang=lang)
    print(say_in(say("{game} ({low}-{high} players, {cards} cards)", game=say(game.name), low=game.min_players,
                     high=game.max_players, cards=game.cards_in_play(options)), lang))
    print(say_in(say("Rule options in force:"), lang))
    for option in game.options:
        print(f"  - {option.setting(options[option.name])}  {option.describe(options[option.name], words)}")
    if args.how_to_play:
        print(say_in(say("How to play:"), lang))
        print("\n".join(f"  {i}. {words(step)}" for i, step in enumerate(game.how_to_play, 1)))
        if game.words:
            print(say_in(say("The game's own words:"), lang))
            print("\n".join(f"  {words(word)}: {words(meaning)}" for word, meaning in game.words.items()))
    return 0


# ------------------------------------------------------------------------- their parsers
# each help marked for the translators (to_translate, or say() where something is put in): `--lang pt --help`
def add_referee(sub: argparse._SubParsersAction) -> None:
    games = ", ".join(GAMES)
    p = sub.add_parser("referee", help=to_translate("referee a game: JSON events on stdin, JSON rulings on stdout"))
    p.add_argument("--game", help=say("one of: {games} (default {game}; with a --log that holds a game: its game)",
                                      games=games, game=DEFAULT_GAME))
    p.add_argument("--players", help=to_translate("comma-separated names in seat order, e.g. Alex,Olivia (needed for "
                                                  "a new game)"))
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help=to_translate("a rule option"))
    p.add_argument("--log", help=to_translate("keep the game's event log in this file; start again with the same "
                                              "file (and the same or no --game, --players, --option) to carry on "
                                              "where it stopped"))
    p.add_argument("--no-prompts", dest="prompts", action="store_false",
                   help=to_translate("leave out the prompt lines (what the table must do next)"))
    p.add_argument("--echo", action="store_true",
                   help=to_translate("write each input line back (type input) before its rulings, for transcripts"))
    lang_flag(p, to_translate("the rulings' language"))
    p.set_defaults(func=cmd_referee)


def add_simulate(sub: argparse._SubParsersAction) -> None:
    games = ", ".join(GAMES)
    p = sub.add_parser("simulate", help=to_translate("play many games with random legal choices and print statistics; "
                                                     "Guerra with NPC players (--npc)"))
    p.add_argument("--game", default="woolly", help=say("one of: {games}", games=games))
    p.add_argument("--players", default="2", help=to_translate("number of players"))
    p.add_argument("--games", type=int, default=None,
                   help=to_translate("games to play (default 1000; with --npc, 1: one match told confronto by "
                                     "confronto)"))
    p.add_argument("--npc", metavar="LEVELS",
                   help=to_translate("guerra: NPC players of these levels (random, easy, normal, hard) play each "
                                     "other through the referee. One level per seat in seat order (--npc "
                                     "hard,easy,normal,easy), one per side (--npc hard,easy: P1, P3, P5 hard against "
                                     "P2, P4, P6 easy) or one for all. One match prints who won and the score; with "
                                     "--games N the two sides change seats every other match and their win rates are "
                                     "printed with a 95%% interval"))
    p.add_argument("--seed", default="1")
    p.add_argument("--jobs", type=int, default=0, help=to_translate("worker processes (default: one per core)"))
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help=to_translate("a rule option"))
    p.add_argument("--plot", help=to_translate("write a PNG of the length distribution and the wins by seat"))
    p.add_argument("--returns", choices=("shuffle", "fixed"),
                   help=to_translate("classic: won cards go under the stack shuffled (default) or in the order "
                                     "played"))
    p.add_argument("--json", action="store_true", help=to_translate("print the statistics as JSON"))
    p.add_argument("--quiet", action="store_true", help=to_translate("no progress bar"))
    lang_flag(p, to_translate("the statistics' and messages' language"))
    p.set_defaults(func=cmd_simulate)


def add_rules(sub: argparse._SubParsersAction) -> None:
    games = ", ".join(GAMES)
    p = sub.add_parser("rules", help=to_translate("print a game's rule options, each explained in a sentence"))
    p.add_argument("--game", help=say("one of: {games}", games=games))
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help=to_translate("a rule option"))
    p.add_argument("--how-to-play", action="store_true",
                   help=to_translate("also print how to play the game (and its own words, where it has some)"))
    lang_flag(p, to_translate("the sheet's language"))
    p.set_defaults(func=cmd_rules)
