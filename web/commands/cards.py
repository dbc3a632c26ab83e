"""`warref detect`, `warref teach` and `warref decks`: reading cards in photos, teaching warref a deck."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from referee.say import say, to_translate
from vision.config import PHOTO
from vision.decks import BUILT_IN, folder, forget, taught_decks
from vision.errors import VisionError
from vision.profiles import BUILT_IN as DECKS

from ..i18n import text_in
from .common import bar_in, fail, lang_flag, language, number, said_here, why

# each help marked for the translators (to_translate, or say() where something is put in): `--lang pt --help`
WITHOUT_HELP = to_translate("switch off these steps of the photo reader, comma-separated: passes, zoom, strips, cut, "
                            "again, lean, unstretch, indices, words (docs/card-reader-internals.md says what each "
                            "does and is worth)")
CUT_HELP = to_translate("read a card cut by the photo's edge from the one index corner inside the photo (default; "
                        "--no-cut-cards leaves such cards out)")
INDICES_HELP = to_translate("standard deck: also look for cards by their corner index alone, a rank above a suit, "
                            "for a card whose edges the detector cannot see (default; --no-indices leaves them out)")
WORDS_HELP = to_translate("standard deck: also read the photo's text and find a card by the word it prints, a joker "
                          "by JOKER (default; --no-words leaves it out)")
JOBS_HELP = to_translate("photos read at once, one process each (default 0: one per core; the results are the same "
                         "and come in the photos' order)")
DECK_HELP = say("{decks} or a deck you taught warref (warref decks)", decks=", ".join(DECKS))
SAYS_HERE = to_translate("the language of what it says")
# the names of `warref teach`'s progress bars: vision/teach.py's stages, in the --lang's words; in English each
# counts in tqdm's "it" (2.5it/s), in another language in what it counts (2,5mesa/s)
STAGES = (to_translate("tables"), to_translate("views"), to_translate("readers"), to_translate("check"))
STAGE_UNITS = {"tables": to_translate("table"), "views": to_translate("view"), "readers": to_translate("reader"),
               "check": to_translate("check")}
# `warref detect`'s progress bar: named by the command in English, as it always was; in another language by what
# it does; its unit
DETECT_BAR = to_translate("reading the photos")
PHOTO_UNIT = to_translate("photo")


def photo_config(args: argparse.Namespace):
    """The reader's configuration for photos (``PHOTO``) with the steps the flags switch off."""
    off = [s.strip() for s in (args.without or "").split(",") if s.strip()]
    off += [name for name, on in (("cut", args.cut_cards), ("indices", args.indices), ("words", args.words)) if not on]
    if getattr(args, "one_pass", False):
        off += ["passes", "zoom", "lean"]
    if getattr(args, "as_is", False):
        off.append("unstretch")
    return PHOTO.without(*off)


def photo_steps_flags(p: argparse.ArgumentParser) -> None:
    """The flags `warref detect` and `warref eval` share: the photo reader's steps switched off, and
    how many photos are read at once (``photo_config``)."""
    p.add_argument("--cut-cards", action=argparse.BooleanOptionalAction, default=True, help=CUT_HELP)
    p.add_argument("--indices", action=argparse.BooleanOptionalAction, default=True, help=INDICES_HELP)
    p.add_argument("--words", action=argparse.BooleanOptionalAction, default=True, help=WORDS_HELP)
    p.add_argument("--without", metavar="STEP,...", help=WITHOUT_HELP)
    p.add_argument("--jobs", type=int, default=0, help=JOBS_HELP)


# ------------------------------------------------------------------------- detect
def cmd_detect(args: argparse.Namespace) -> int:
    lang = language("detect", args.lang)
    if lang is None:
        return 2
    # imported here: the reader (onnxruntime, OpenCV) is slow to start (`warref --help` stays fast)
    from vision.reader import TableReader, load_image

    try:
        reader = TableReader(args.deck, photo_config(args), **({"models": Path(args.models)} if args.models else {}))
    except (VisionError, ValueError) as err:
        return fail("detect", why(err), lang)
    # imported here: the photos' process pool is slow to start (`warref --help` stays fast)
    from vision.photos import read_photos

    failed = 0
    threshold = reader.reader.threshold if args.threshold is None else args.threshold
    # photos are read on every core, one process each (--jobs), their results written in order;
    # progress on stderr for a list of photos, shown only on a terminal (a photo takes a second or
    # a few: it is also read stretched back, looked at again close up, searched for indices)
    tqdm = bar_in(lang)
    photos = tqdm(read_photos(reader, args.images, min(threshold, reader.config.gate), args.jobs or None),
                  total=len(args.images),
                  desc="warref detect" if lang == "en" else text_in(DETECT_BAR, lang), unit=text_in(PHOTO_UNIT, lang),
                  file=sys.stderr, disable=None if len(args.images) > 1 else True)
    for name, size, reads in photos:
        if size is None:
            tqdm.write(f"warref detect: {said_here(reads, lang)}", file=sys.stderr)
            failed += 1
            continue
        reads = [r for r in reads if r.confidence >= threshold]
        if args.annotate:
            # imported here, as the reader above (`warref --help` stays fast); needed only with --annotate
            import cv2
            from vision.draw import draw_reads
            out = Path(args.annotate)
            out.mkdir(parents=True, exist_ok=True)
            cv2.imwrite(str(out / (Path(name).stem + ".jpg")), draw_reads(load_image(Path(name)), reads))
        if args.json:
            line = json.dumps({"image": name, "width": size[0], "height": size[1],
                               "cards": [r.as_json() for r in reads]})
        else:
            line = f"{name}: " + (", ".join(f"{r.card} ({r.confidence:.2f})" for r in reads)
                                  or said_here(say("no cards"), lang))
        tqdm.write(line, file=sys.stdout)
        sys.stdout.flush()
    return 1 if failed else 0


# ------------------------------------------------------------------------- teach, decks
def cmd_teach(args: argparse.Namespace) -> int:
    lang = language("teach", args.lang)
    if lang is None:
        return 2
    # imported here: the teaching (OpenCV, the reader, the scene renderer: ~0.2 s) is slow to start
    # (`warref --help` stays fast)
    from vision.teach import TeachError, teach

    tqdm, bars = bar_in(lang), {}

    def progress(stage: str, done: int, total: int) -> None:
        bar = bars.get(stage)
        if bar is None:
            unit = "it" if lang == "en" else text_in(STAGE_UNITS.get(stage, "it"), lang)
            bar = bars[stage] = tqdm(total=total, desc=text_in(stage, lang), unit=unit, file=sys.stderr,
                                     disable=args.quiet)
        bar.update(done - bar.n)

    try:
        deck = teach(args.name, args.like, Path(args.cards) if args.cards else None,
                     Path(args.labelled) if args.labelled else None, minutes=args.minutes,
                     allow_missing=args.allow_missing, replace=args.replace, progress=progress)
    except (TeachError, VisionError, ValueError, FileExistsError) as err:
        for bar in bars.values():
            bar.close()
        return fail("teach", why(err), lang)
    for bar in bars.values():
        bar.close()
    held = deck.meta["held_back"]
    lines = [say("deck {name} ready: read {right} of {views} held-back views right ({wrong} wrong) in {seconds} s; "
                 "{path}", name=args.name, right=held["right"], views=held["views"], wrong=held["wrong"],
                 seconds=round(deck.meta["seconds"]), path=str(deck.path))]
    if warning := deck.warning():
        lines.append(say("warning: {warning}", warning=warning))
    lines.append(say("look over the pictures it learnt from: {path}", path=str(deck.path / "cards.png")))
    lines.append(say("use it: warref detect --deck {name} PHOTO   (its model card: {path})", name=args.name,
                     path=str(deck.path / "README.md")))
    print("\n".join(said_here(line, lang) for line in lines))
    return 0


def cmd_decks(args: argparse.Namespace) -> int:
    lang = language("decks", args.lang)
    if lang is None:
        return 2
    if args.forget:
        try:
            path = forget(args.forget)
        except (ValueError, OSError) as err:
            return fail("decks", why(err), lang)
        print(said_here(say("deck {name} forgotten ({path} removed)", name=args.forget, path=str(path)), lang))
        return 0
    lines = [say("built in: {decks}", decks=", ".join(BUILT_IN))]
    taught = taught_decks()
    if not taught:
        lines.append(say("no deck taught yet ({folder}): warref teach NAME --like standard --cards DIR",
                         folder=str(folder())))
    lines += [deck.line() for deck in taught]
    print("\n".join(said_here(line, lang) for line in lines))
    return 0


# ------------------------------------------------------------------------- their parsers
def add_detect(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("detect", help=to_translate("read the cards in photos (JSON lines with --json)"))
    p.add_argument("images", nargs="+", help=to_translate("image files"))
    p.add_argument("--deck", default="standard", help=DECK_HELP)
    p.add_argument("--threshold", type=number,
                   help=to_translate("leave out readings below this confidence (default: the reader's stated "
                                     "threshold, models/README.md)"))
    p.add_argument("--json", action="store_true", help=to_translate("one JSON line per image"))
    p.add_argument("--annotate", metavar="DIR",
                   help=to_translate("also write each image with its cards boxed into DIR"))
    p.add_argument("--models", help=to_translate("folder with detector.onnx and reader-DECK.onnx (default models/)"))
    p.add_argument("--one-pass", action="store_true",
                   help=to_translate("one detector pass, as on a live table (faster; misses cards that fill a "
                                     "close-up photo, only the cards read unsure are looked at again close up, not "
                                     "the six surest, and a card whose corners read sure of nothing does not lean on "
                                     "its face reader more)"))
    p.add_argument("--as-is", action="store_true",
                   help=to_translate("read a square photo only as it is, not also stretched back to a camera's 3:4 "
                                     "and 9:16 shapes (faster; for photos taken square rather than stretched to a "
                                     "square)"))
    photo_steps_flags(p)
    lang_flag(p, SAYS_HERE)
    p.set_defaults(func=cmd_detect)


def add_teach(sub: argparse._SubParsersAction) -> None:
    # its first name still runs it, unlisted (web/cli.py), so that scripts calling it go on working
    p = sub.add_parser("teach", aliases=["enroll"], help=to_translate("teach warref your own deck from one photo per "
                                                                       "card"))
    p.add_argument("name", help=to_translate("the deck's name: lower-case letters, digits, - or _"))
    p.add_argument("--like", required=True, choices=list(DECKS),
                   help=to_translate("which cards it has: standard (52, jokers if photographed), woolly or namikopy"))
    p.add_argument("--cards", help=to_translate("a folder of photos, one card each, named by its code: QH.png, "
                                                "10C_front.jpg, BACK.jpg; the card alone or lying on a table"))
    p.add_argument("--labelled", help=to_translate("a folder of labelled photos (classes.txt, images/, labels/ as "
                                                   "YOLO boxes)"))
    p.add_argument("--minutes", type=number, default=10.0, help=to_translate("the most time it may take (default 10)"))
    p.add_argument("--allow-missing", action="store_true",
                   help=to_translate("teach the deck though some cards have no photo"))
    p.add_argument("--replace", action="store_true", help=to_translate("replace a deck of the same name"))
    p.add_argument("--quiet", action="store_true", help=to_translate("no progress bars"))
    lang_flag(p, SAYS_HERE)
    p.set_defaults(func=cmd_teach, command="teach")     # "warref teach: stopped" by either name


def add_decks(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("decks", help=to_translate("the decks warref reads: built in and taught (warref teach)"))
    p.add_argument("--forget", metavar="NAME",
                   help=to_translate("remove a deck you taught warref, its readers and pictures"))
    lang_flag(p, SAYS_HERE)
    p.set_defaults(func=cmd_decks)
