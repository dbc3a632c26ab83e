"""`warref synth`, `train`, `score`, `eval` and `judge`: the lab, where the card reader is made and measured."""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
import time
from pathlib import Path

from referee.say import to_translate
from vision.errors import VisionError
from vision.profiles import BUILT_IN as DECKS

from .cards import DECK_HELP, photo_config, photo_steps_flags

# The lab's modules (vision.synth, .train, .metrics, .realcards, .evaluate, .judge) are imported inside the
# commands: they are slow to start (OpenCV, matplotlib, torch), and warref's run time, this command line's
# start-up included, never imports the lab (tests/test_layers.py).

BUILT_IN_HELP = f"{', '.join(list(DECKS)[:-1])} or {list(DECKS)[-1]}"          # standard, woolly or namikopy
# Their help and errors stay English (developers' tools: `--lang` is not theirs); only their lines in the list of
# `warref --help` are marked for the translators, as every command's there.


# ------------------------------------------------------------------------- synth
def cmd_synth(args: argparse.Namespace) -> int:
    # imported here: tqdm and the lab (see the note at the top of this module)
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
                                clutter=args.clutter, held_up=args.held_up, backlit=args.backlit,
                                pale=args.pale)
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


# ------------------------------------------------------------------------- train
def cmd_train(args: argparse.Namespace) -> int:
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
    # imported here: the lab (see the note at the top of this module)
    from vision.train import install

    if args.what == "detector":
        per_source = args.per_source[0] if len(args.per_source) == 1 else args.per_source
        path = install.detector([Path(s) for s in sources], args.hours, args.imgsz or 320, args.resume,
                                per_source, Path(args.start_from) if args.start_from else None,
                                device=args.device, batch=args.batch, workers=args.workers,
                                jobs=args.jobs or os.cpu_count() or 1, fresh_set=args.fresh_set, lr=args.lr,
                                freeze_norms=args.freeze_norms, lr_final=args.lr_final, freeze=args.freeze,
                                name=args.name, watch=args.watch, install=not args.no_install,
                                stretch=args.stretch)
    else:
        path = install.reader(args.deck, [Path(s) for s in (args.sources or [f"datasets/{args.deck}"])],
                              args.epochs, args.imgsz or 64, args.resume, face=args.face,
                              start_from=Path(args.start_from) if args.start_from else None, lr=args.lr)
    print(f"candidate {path} (not installed: measure it with warref eval --models, then warref judge)"
          if args.what == "detector" and args.no_install else f"installed {path}")
    return 0


# ------------------------------------------------------------------------- score, eval, judge
def cmd_score(args: argparse.Namespace) -> int:
    # imported here: the lab (see the note at the top of this module)
    from vision.lab import metrics, realcards

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


def cmd_eval(args: argparse.Namespace) -> int:
    # imported here: the lab (see the note at the top of this module)
    from vision.lab import evaluate

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


def cmd_judge(args: argparse.Namespace) -> int:
    # imported here: the lab (see the note at the top of this module)
    from vision.lab import judge

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


# ------------------------------------------------------------------------- their parsers
def add_synth(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("synth", help=to_translate("render synthetic table scenes with labels for the card reader"))
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
    p.add_argument("--backlit", type=float, metavar="SHARE",
                   help="with --held-up: the share of frames lit from behind, the card dim before a bright room "
                        "(default 0.35)")
    p.add_argument("--pale", type=float, default=0.0, metavar="SHARE",
                   help="with --held-up: the share of frames with a pale wall or window right behind the card, "
                        "its white border hardly darker than the wall (default 0)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_synth)


def add_score(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("score", help=to_translate("score card predictions (warref detect --json lines) on the real "
                                                  "photos"))
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


def add_eval(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("eval", help=to_translate("score the card reader on synthetic scenes and the real photos"))
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
    photo_steps_flags(p)
    p.set_defaults(func=cmd_eval)


def add_judge(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("judge", help=to_translate("keep a candidate model or not: two warref eval reports of the same "
                                                  "photos compared by the fair rule (vision/lab/judge.py)"))
    p.add_argument("installed", help="the installed models' report folder (warref eval --out DIR)")
    p.add_argument("candidate", help="the candidate's report folder (warref eval --models CAND --out DIR)")
    p.add_argument("--clubs-before", metavar="JSON", help="bench/bench_clubs.py --json of the installed reader")
    p.add_argument("--clubs-after", metavar="JSON", help="bench/bench_clubs.py --json of the candidate")
    p.add_argument("--root", help="the folder holding the labelled photo sets the reports read (default "
                   "../shared/realcards, with the labels' audit)")
    p.set_defaults(func=cmd_judge)


def add_train(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("train", help=to_translate("train the card detector or a deck's reader (needs make train-env)"))
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
    p.add_argument("--stretch", type=float, metavar="SHARE",
                   help="detector: the share of full frames stored stretched to a square, as exported photos are "
                        "(default 0; 0.5 was judged once and not kept)")
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
