"""`warref demo` and `warref run`: the camera loop (a rendered table or a real camera) into the dashboard."""
from __future__ import annotations

import argparse
import json
import os
import secrets
import signal
import sys
import tempfile
import threading
import time
import webbrowser
from pathlib import Path
from typing import Any, TextIO

from referee import GAMES, OptionError, SetupError, Table, get_game
from referee.options import parse_option_args
from referee.say import Decimal, say, to_translate
from vision.config import LIVE
from vision.decks import profile

from ..i18n import say_in
from ..system_words import system_words
from .common import DEFAULT_GAME, fail, lang_flag, language, missing_players, number, player_names, why
from .serve import DB_HELP, PIN_HELP, PRINTS_HERE, WS_MAX, allow_host_flag, hosts, port_problem

GIVE_UP = 20         # warref demo --no-browser: times one battle's cards are shown again before it stops


def _serve_live(args: argparse.Namespace, live: Any, db: Path, pin: str, open_browser: bool,
                stop_when_done: Any = None, banner: TextIO | None = None, lang: str = "en") -> bool:
    """Serve the dashboard with a camera (or the demo's feed) attached, until Ctrl-C or ``stop_when_done``.
    The address goes to ``banner`` (default stdout). Returns whether Ctrl-C stopped it."""
    # imported here: uvicorn (asyncio) and the server (FastAPI) are slow to start (`warref --help` stays fast)
    import asyncio
    import uvicorn
    from web.server import create_app

    url = f"http://{'localhost' if args.host in ('0.0.0.0', '127.0.0.1', '::', '') else args.host}:{args.port}"
    app = create_app(db, pin, live=live, hosts=hosts(args, url))
    config = uvicorn.Config(app, host=args.host, port=args.port, log_level="warning", ws_max_size=WS_MAX,
                            proxy_headers=False)
    server = uvicorn.Server(config)
    preview = url + "/api/preview.jpg"
    print(say_in(say("warref dashboard: {url}  (database {db}; PIN {pin}; preview {preview})", url=url, db=str(db),
                     pin=pin, preview=preview), lang), file=banner or sys.stdout, flush=True)
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
        threading.Timer(1.0, lambda: webbrowser.open(url)).start()
    try:
        asyncio.run(server.serve())
    except KeyboardInterrupt:       # uvicorn shuts down on Ctrl-C, then raises it again
        return True
    return not finished             # a signal uvicorn caught (where Ctrl-C is ignored, SIGTERM) ended it


# ------------------------------------------------------------------------- demo
def cmd_demo(args: argparse.Namespace) -> int:
    # imported here: the demo's table (OpenCV, the card art) is slow to start (`warref --help` stays fast)
    from web.demo import deck_faces

    lang = language("demo", args.lang)
    if lang is None:
        return 2
    if args.game != "classic":
        return fail("demo", say("the demo simulates Classic War only: --game classic"), lang)
    players = player_names(args.players)
    if not players:
        return missing_players("demo", lang)
    if not 2 <= len(players) <= 4:
        return fail("demo", say("Classic War is for 2-4 players (got {n})", n=len(players)), lang)
    try:
        deck_faces(args.deck)
    except ValueError as err:
        return fail("demo", why(err), lang)
    from vision.art.standard import ArtFetchError      # imported here: slow to start, as web.demo above
    problem = port_problem(args.host, args.port)
    if problem:
        return fail("demo", problem, lang)
    # stdout carries only the JSON summary (`warref demo --no-browser | python -m json.tool`); the
    # address and "stopped" go to stderr. A database of its own lives in a folder removed at the end,
    # Ctrl-C included.
    def terminated(signum, frame):
        raise KeyboardInterrupt     # SIGTERM (kill) stops it as Ctrl-C does: the folder is removed
    previous = signal.signal(signal.SIGTERM, terminated)
    try:
        with tempfile.TemporaryDirectory(prefix="warref-demo-", ignore_cleanup_errors=True) as folder:
            db = Path(args.db) if args.db else Path(folder) / "demo.db"
            return _demo(args, players, db, lang)
    except ArtFetchError as err:    # the cards' art could not be fetched or drawn: say what is missing
        return fail("demo", say("cannot draw the cards: {why}", why=why(err)), lang)
    except KeyboardInterrupt:       # Ctrl-C before the server started (while the reader loads)
        fail("demo", say("stopped"), lang)
        return 0
    finally:
        signal.signal(signal.SIGTERM, previous)


def _demo(args: argparse.Namespace, players: list[str], db: Path, lang: str = "en") -> int:
    from web.demo import make_live     # imported here: slow to start, as in cmd_demo

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
                          stop_when_done=True if args.no_browser else None, banner=sys.stderr, lang=lang)
    if stopped:
        fail("demo", say("stopped"), lang)
    summary = clock["summary"]
    if summary is None:             # stopped before the end (Ctrl-C) is no failure
        return 0 if stopped else 1
    if summary["stalled"]:
        fail("demo", say("stopped at battle {battle}: its cards were shown again {times} times and not read (deck "
                         "{deck})", battle=summary["battles"] + 1, times=GIVE_UP, deck=args.deck), lang)
    return 0 if summary["wrong_rulings"] == 0 and not summary["stalled"] else 1


# ------------------------------------------------------------------------- run
def cv2_quiet() -> None:
    """OpenCV's own warnings off (errors stay): a camera that cannot be opened is said once a try, in
    warref's sentence, not as OpenCV's "can't open camera by index" lines between them."""
    import cv2  # imported here, as the reader is: slow to start
    cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_ERROR)


def cmd_run(args: argparse.Namespace) -> int:
    # imported here: the reader (onnxruntime, OpenCV) and the camera loop are slow to start (`warref --help` stays fast)
    from vision.reader import TableReader
    from vision.sources import Paced, WatchedSource, open_source
    from web.live import Live

    lang = language("run", args.lang)
    if lang is None:
        return 2
    players = player_names(args.players)
    if not players:
        return missing_players("run", lang)
    try:
        options = parse_option_args(args.option)
        game = get_game(args.game)
        Table(game, players, options)
    except (SetupError, OptionError) as err:
        return fail("run", why(err), lang)
    problem = port_problem(args.host, args.port)
    if problem:
        return fail("run", problem, lang)
    deck = game.camera_deck_for(options)
    if args.deck:
        try:
            like = profile(args.deck).like
        except ValueError as err:
            return fail("run", why(err), lang)
        if like != deck:
            return fail("run", say("deck {deck} is like the {like} deck; {game} is played with the {played} deck",
                                   deck=repr(args.deck), like=like, game=game.id, played=deck), lang)
        deck = args.deck
    zones = None
    if args.zones:
        try:
            data = json.loads(Path(args.zones).read_text())
            zones = data.get("seats", data)
        except (OSError, ValueError, AttributeError) as err:
            return fail("run", say("cannot read the zones file {path}: {why}", path=args.zones, why=system_words(err)),
                        lang)
    reader = TableReader(deck, LIVE)       # frame after frame: a card that has not changed keeps its reading
    threshold = args.threshold if args.threshold is not None else reader.reader.threshold
    if args.fps is not None and not args.fps > 0:
        return fail("run", say("--fps {fps}: give frames per second above 0", fps=args.fps), lang)

    def source():
        src = open_source(args.camera, loop=args.loop)
        return Paced(src, args.fps) if args.fps else src

    def said(status: dict) -> None:        # the camera's trouble and its recovery, in the terminal as on the dashboard
        print("warref run: " + say_in(status["message"], lang), flush=True)
    cv2_quiet()
    camera = WatchedSource(source, source=str(args.camera), on_status=said)

    def start(keeper) -> None:
        keeper.new_game({"game": game.id, "players": [{"name": p} for p in players], "options": options})
        if zones is not None:
            keeper.set_zones({"seats": zones})

    # a game set up in the dashboard with another deck (a taught one) is read with that deck
    live = Live(camera, reader, threshold=threshold, threaded=True, on_start=start,
                make_reader=lambda name: TableReader(name, LIVE))
    pin = str(args.pin or os.environ.get("WARREF_PIN") or f"{secrets.randbelow(10000):04d}")
    shown = format(threshold, "g")
    print("warref run: " + say_in(say("{game} for {players}; reading the {deck} deck from {camera} (threshold "
                                      "{threshold})", game=say(game.name), players=", ".join(players), deck=deck,
                                      camera=args.camera, threshold=shown), lang), flush=True)
    if _serve_live(args, live, Path(args.db), pin, open_browser=False, lang=lang):
        fail("run", say("stopped"), lang)
    return 0


# ------------------------------------------------------------------------- their parsers
def add_demo(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("demo", help=to_translate("a simulated Classic War game on a rendered table, refereed through "
                                                 "the camera loop into the dashboard"))
    p.add_argument("--game", default="classic", help=to_translate("classic (the only game the demo simulates)"))
    p.add_argument("--players", default="Alex,Olivia",
                   help=to_translate("comma-separated names (2-4; default Alex,Olivia)"))
    p.add_argument("--battles", type=int, default=0,
                   help=to_translate("stop after this many battles (default: the whole game)"))
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--fps", type=number,
                   help=to_translate("pace the feed (default 10 with the browser, unpaced without)"))
    p.add_argument("--threshold", type=number, default=LIVE.announce,
                   help=say("lowest confidence announced (default {threshold})", threshold=Decimal(LIVE.announce)))
    p.add_argument("--no-browser", action="store_true", help=to_translate("do not open the dashboard; stop when done"))
    p.add_argument("--deck", default="standard",
                   help=to_translate("a deck like standard you taught warref (warref decks): its own cards on the "
                                     "table, read by its own readers"))
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000)
    allow_host_flag(p)
    p.add_argument("--db", help=to_translate("the SQLite database (default: a new one in a temporary folder)"))
    p.add_argument("--pin", help=to_translate("the PIN for changing the game (default $WARREF_PIN, else 0000)"))
    lang_flag(p, PRINTS_HERE)
    p.set_defaults(func=cmd_demo)


def add_run(sub: argparse._SubParsersAction) -> None:
    games = ", ".join(GAMES)
    p = sub.add_parser("run", help=to_translate("referee a real table: camera -> card reader -> referee -> dashboard"))
    p.add_argument("--camera", default="0",
                   help=to_translate("a camera index, a video file, a folder of images or a stream URL"))
    p.add_argument("--game", default=DEFAULT_GAME, help=say("one of: {games}", games=games))
    p.add_argument("--players", help=to_translate("comma-separated names in seat order, e.g. Alex,Olivia"))
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help=to_translate("a rule option"))
    p.add_argument("--zones", help=say("a JSON file {example} (fractions of the frame)",
                                       example='{"seats": {"Alex": [[x, y], ...]}}'))
    p.add_argument("--threshold", type=number,
                   help=to_translate("lowest confidence announced (default: the reader's stated one)"))
    p.add_argument("--host", default="0.0.0.0")
    p.add_argument("--port", type=int, default=8000)
    allow_host_flag(p)
    p.add_argument("--db", default="warref.db", help=DB_HELP)
    p.add_argument("--pin", help=PIN_HELP)
    p.add_argument("--deck", help=to_translate("a deck you taught warref (warref decks), like the game's deck"))
    p.add_argument("--loop", action="store_true",
                   help=to_translate("a video file or folder of images: start again at its end"))
    p.add_argument("--fps", type=number, help=to_translate("a video file or folder of images: play at most this many "
                                                          "frames a second, as a camera sends them (default: as fast "
                                                          "as they are read)"))
    lang_flag(p, PRINTS_HERE)
    p.set_defaults(func=cmd_run)
