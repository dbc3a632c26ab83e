"""Teaching a deck from the dashboard (issue 40; docs/dashboard-api.md, "Teaching a deck").

A deck being taught is a **draft**: a folder ``$WARREF_HOME/teaching/NAME/`` holding ``draft.json``
(its name, the built-in deck it is like, the last training's error) and ``cards/CODE.png``, one
flattened card per code, taken from the server's camera or uploaded. It is never a deck:
`warref decks` and ``GET /api/decks`` list only what ``vision.teach.teach`` installed, in one
rename, when training ends well; the draft is then removed. A failed training keeps the draft and
says why, so the cards can be fixed and training tried again. Drafts are files, so they survive a
restart of the server; a training under way does not (the draft stays, training starts again).

Training runs ``vision.teach.teach`` in a thread of its own (one deck at a time: the machine has
two cores), its progress kept here for ``GET /api/teach/{name}`` and pushed to every viewer as a
``teach`` WebSocket message. Everything a route needs is here; web/server.py only adds the routes.
"""
from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import threading
import time
from pathlib import Path
from typing import Any, Callable

import cv2
import numpy as np

from referee import GAMES, get_game
from referee.deck import load_deck
from referee.say import Card, Said, message_field, say, say_n, to_translate
from vision import decks, profiles
from vision.detector import Detector
from vision.errors import BadImage, VisionError
from vision.flatten import NoCard, TwoCards, flatten, one_card, warp

from .errors import Refused
from .system_words import why

PHOTO_LIMIT = 20 * 1024 * 1024   # an uploaded photo may be this large (a phone's full-size JPEG)
TAKE_WINDOW_S = 1.5              # a take from the camera watches its pictures this long at most
STEADY = 0.03                    # a card is steady when no corner moved this share of the frame's diagonal
SAME = 0.006                     # two flat cards are the same card when fewer of their pixels differ (``same_card``)
PUSH_S = 0.4                     # training progress is pushed at most this often (and at each stage)
MINUTES = 10.0                   # the most time a training may take unless the request says less
BACK = "BACK"
LIKE_NAMES = {"standard": "a standard deck (52 cards, jokers if you show them)",
              "woolly": "Woolly Warfare", "namikopy": "Namikopy"}
# a Woolly number card by its colour (the deck's file says "red 7"): each language puts the colour where it goes
COLOURS = {"red": to_translate("red {n}"), "orange": to_translate("orange {n}"), "yellow": to_translate("yellow {n}"),
           "green": to_translate("green {n}"), "blue": to_translate("blue {n}")}


class Stopped(Exception):
    """A training told to stop (its draft thrown away, or the server stopping)."""


def sentence(text: Any) -> str:
    """``text`` (or an error's) ending as a sentence does (the vision package's messages have no full
    stop); one said with say() keeps its message."""
    said = text.args[0] if isinstance(text, Exception) and len(text.args) == 1 else text
    if isinstance(said, Said) and said == said.strip():
        return said if said.endswith((".", "!", "?", ")")) else say("{sentence}.", sentence=said)
    text = str(text).strip()
    return text if text.endswith((".", "!", "?", ")")) else text + "."


# ------------------------------------------------------------------------------ cards and decks
def card_names(like: str) -> dict[str, str]:
    """Every card of deck ``like`` as a person names it in a sentence ("Show the 7 of hearts"),
    from the deck's own file (referee/decks/*.toml): "7 of hearts", "joker"; Woolly "red 7",
    "Steal card"; Namikopy "7", "WAR Flamingo"; and "back" for the back of a card. Each name
    carries its message (``referee.say``): a page says it in its own language ("o 7 de copas")."""
    out = {card.code: card_name(like, card) for card in load_deck(like).cards}
    out[BACK] = say("back")
    return out


def card_name(like: str, card: Any) -> str:
    """One card of deck ``like`` named as ``card_names`` says (its English is the deck file's name)."""
    if like == "woolly" and card.kind == "war":
        return say("War card")
    if like == "woolly" and card.kind == "action":
        return say("{name} card", name=card.name)          # Steal, Reveal: as printed
    colour, _, number = card.name.partition(" ")
    if like == "woolly" and colour in COLOURS:
        return say(COLOURS[colour], n=number)
    if like == "namikopy" and card.kind == "war":
        return say("WAR {bird}", bird=card.name.removeprefix("WAR "))
    return Card(card.code, card.name)                    # a standard card, a Namikopy number


def like_word(like: str) -> str:
    """A built-in deck's id as a refusal says it ("the standard deck"; in Portuguese "o baralho normal")."""
    return say("standard") if like == "standard" else like


def codes_of(like: str) -> list[str]:
    """The codes of built-in deck ``like``, from its profile (vision/profiles.py)."""
    return profiles.BUILT_IN[like].codes


def optional_codes(like: str) -> set[str]:
    """Codes a deck need not show (the back; a standard deck's jokers: its profile's ``optional``,
    as `warref teach` has it)."""
    return {BACK, *profiles.BUILT_IN[like].optional}


def game_deck(game_id: str, options: dict[str, Any]) -> str:
    """The built-in deck ``game_id`` is played with under ``options`` (the game says: Namikopy may
    use a standard one)."""
    return get_game(game_id).camera_deck_for(options)


def check_deck(deck: Any, game_id: str, options: dict[str, Any]) -> str | None:
    """The deck a new game is set up with (``"deck"`` in ``POST /api/games``): None when not given;
    Refused(422) unless it is a built-in deck or a taught one like the game's."""
    if deck is None or deck == "":
        return None
    if not isinstance(deck, str):
        raise Refused(422, say('Name the cards as a string ("deck": "standard" or a deck you taught warref).'))
    wanted = game_deck(game_id, options)
    name = say(GAMES[game_id].name) if game_id in GAMES else game_id         # said in the page's language
    if deck in decks.BUILT_IN:
        like = deck
    else:
        try:
            like = decks.find(deck).like
        except ValueError:
            there = [d.name for d in decks.taught_decks() if d.like == wanted]
            if there:
                raise Refused(422, say("There is no deck called {deck}; {game} can be played with the {wanted} deck "
                                       "or {decks}.", deck=repr(deck), game=name, wanted=like_word(wanted),
                                       decks=", ".join(there))) from None
            raise Refused(422, say("There is no deck called {deck}; {game} can be played with the {wanted} deck.",
                                   deck=repr(deck), game=name, wanted=like_word(wanted))) from None
    if like != wanted:
        if deck in decks.BUILT_IN:
            raise Refused(422, say("{game} is played with the {wanted} deck, not the {deck} deck.", game=name,
                                   wanted=like_word(wanted), deck=like_word(deck)))
        raise Refused(422, say("The {deck} deck is like the {like} deck, but {game} is played with the {wanted} deck.",
                               deck=deck, like=like_word(like), game=name, wanted=like_word(wanted)))
    return deck


def deck_json(deck: "decks.Taught") -> dict[str, Any]:
    held = deck.meta.get("held_back") or None
    return {"name": deck.name, "like": deck.like, "built_in": False, "codes": len(deck.codes),
            "held_back": held, "made": deck.meta.get("made"), "line": deck.line()}


def ready_sentence(deck: "decks.Taught") -> str:
    held = deck.meta.get("held_back") or {}
    if not held:
        return say("Deck {name} ready.", name=deck.name)
    warning = deck.warning()                 # vision/decks.py's sentence, said with say()
    if warning:
        return say("Deck {name} ready: read {right} of {views} held-back views right. But {warning}",
                   name=deck.name, right=held["right"], views=held["views"], warning=warning)
    return say("Deck {name} ready: read {right} of {views} held-back views right.",
               name=deck.name, right=held["right"], views=held["views"])


# ------------------------------------------------------------------------------ one training
class Job:
    """One training under way: its progress, pushed as it goes."""

    # teach's stages in order (vision.teach): where on the bar it starts, where it ends, what it says meanwhile
    STAGES = {"tables": (0.03, 0.1, say("Laying out practice tables")),
              "views": (0.1, 0.55, say("Making practice pictures")),
              "readers": (0.55, 0.95, say("Teaching the readers")),
              "check": (0.95, 0.99, say("Checking the new readers on pictures kept aside"))}

    def __init__(self, name: str, like: str, push: Callable[[dict], None]):
        self.name, self.like, self.push = name, like, push
        self.stage, self.done, self.total = "photos", 0, 0
        self.fraction = 0.02
        self.message = say("Reading the photos...")
        self.stop = False
        self.drop = False                 # when stopped: throw the draft away too
        self.calls: dict[str, int] = {}
        self.last_push = 0.0
        self.thread: threading.Thread | None = None

    def progress(self, stage: str, done: int, total: int) -> None:
        """``vision.teach.teach``'s progress(stage, done, total); raises Stopped when told to stop. A
        stage it does not know keeps the bar where it is (it never goes back) and is said as it is named."""
        if self.stop:
            raise Stopped()
        calls = self.calls[stage] = self.calls.get(stage, 0) + 1
        total = max(int(total), 1)
        done = min(max(int(done), calls), total)          # "views" counts one call a frame
        changed = stage != self.stage
        self.stage, self.done, self.total = stage, done, total
        start, end, said = self.STAGES.get(stage, (None, None, stage.capitalize()))
        if start is not None:
            self.fraction = max(self.fraction, start + (end - start) * done / total)
        names = list(self.STAGES)
        if done < total or stage not in names:
            self.message = (say("{stage}: {done} of {total}", stage=said, done=done, total=total) if total > 1
                            else say("{stage}...", stage=said))
        elif stage != names[-1]:
            self.message = say("{stage}...", stage=self.STAGES[names[names.index(stage) + 1]][2])
        else:
            self.message = say("{stage}...", stage=said)
        now = time.monotonic()
        if changed or done >= total or now - self.last_push >= PUSH_S:
            self.last_push = now
            self.push(self.json())

    def json(self) -> dict[str, Any]:
        return {"stage": self.stage, "done": self.done, "total": self.total,
                "fraction": round(self.fraction, 3), "message": self.message, **message_field(self.message, "msg")}


# ------------------------------------------------------------------------------ the drafts
def taught(name: Any) -> decks.Taught | None:
    """The taught deck ``name``, or None (no such deck, or not a deck's name)."""
    try:
        return decks.find(name) if isinstance(name, str) and decks.NAME.match(name) else None
    except ValueError:
        return None


class Teaching:
    """Every draft, the one training under way, and what the last trainings came to.

    ``push(message)`` sends a WebSocket message to every viewer (on the event loop); ``live`` is the
    server's camera (web/live.py), or None."""

    def __init__(self, push: Callable[[dict], None], live: Any = None):
        self.push = push
        self.live = live
        self.jobs: dict[str, Job] = {}          # name -> training under way (one at most)
        self.outcome: dict[str, dict] = {}      # name -> {"state": "ready" | "failed", "message"} of the last training
        self.last_take: dict[str, tuple[str, np.ndarray]] = {}   # name -> (code, card) the camera took last
        self.lock = threading.Lock()
        self._detector = None
        self._loop: asyncio.AbstractEventLoop | None = None

    # -- where drafts live ---------------------------------------------------------------------
    @staticmethod
    def root() -> Path:
        return decks.home() / "teaching"

    def folder(self, name: str) -> Path:
        return self.root() / name

    def _meta(self, name: str) -> dict[str, Any] | None:
        """The draft's draft.json, or None when there is no draft ``name`` (a name that cannot name
        a deck never reaches the file system)."""
        if not isinstance(name, str) or not decks.NAME.match(name):
            return None
        path = self.folder(name) / "draft.json"
        try:
            meta = json.loads(path.read_text())
        except (OSError, ValueError):
            return None
        return meta if isinstance(meta, dict) and meta.get("like") in decks.BUILT_IN else None

    def _need(self, name: str) -> dict[str, Any]:
        meta = self._meta(name)
        if meta is None:
            raise Refused(404, say("No deck called {name} is being taught (start one with POST /api/teach).",
                                   name=repr(name)))
        return meta

    @staticmethod
    def _write_json(path: Path, data: dict) -> None:
        tmp = path.with_name(f".{path.name}.tmp")
        tmp.write_text(json.dumps(data, indent=1))
        os.replace(tmp, path)

    def _code(self, meta: dict, code: str) -> str:
        like = meta["like"]
        codes = codes_of(like)
        key = str(code).strip().upper()
        if key not in codes and key != BACK:
            raise Refused(400, say("{code} is not a card of the {like} deck (its cards: {cards}, ...; {back} for the "
                                   "back).", code=repr(code), like=like_word(like), cards=", ".join(codes[:6]), back=BACK))
        return key

    def _not_training(self, name: str) -> None:
        if name in self.jobs:
            raise Refused(409, say("Deck {name} is being trained now; wait until it is ready (or throw it away).",
                                   name=name))

    def taken(self, name: str) -> dict[str, int]:
        """Code -> the card picture's change time (ns) for every card taken."""
        cards = self.folder(name) / "cards"
        out = {}
        if cards.is_dir():
            for p in cards.iterdir():
                if p.suffix == ".png" and not p.name.startswith("."):
                    out[p.stem] = p.stat().st_mtime_ns
        return out

    # -- what the page sees ----------------------------------------------------------------------
    def card_json(self, name: str, like: str, code: str, taken: dict[str, int], names: dict[str, str] | None = None,
                  optional: set[str] | None = None) -> dict[str, Any]:
        names = names or card_names(like)
        optional = optional if optional is not None else optional_codes(like)
        said = names.get(code, code)
        stamp = taken.get(code)
        prompt = say("Show the {card}", card=said)
        return {"code": code, "name": said, **message_field(said, "name_msg"), "prompt": prompt,
                **message_field(prompt, "prompt_msg"), "optional": code in optional,
                "taken": stamp is not None,
                "image": f"/api/teach/{name}/cards/{code}.png?v={stamp}" if stamp is not None else None}

    def view(self, name: str) -> dict[str, Any]:
        """A draft as the page shows it; a deck already taught (this draft's training ended well) as
        ``state: ready``."""
        meta = self._meta(name)
        if meta is None:
            done = self.outcome.get(name)
            deck = taught(name)
            if deck is not None:
                ready = ready_sentence(deck)
                return {"name": name, "like": deck.like, "state": "ready", "message": ready,
                        **message_field(ready, "message_msg"), "deck": deck_json(deck), "progress": None, "cards": []}
            if done is not None and done["state"] == "dropped":
                raise Refused(404, say("Deck {name} was thrown away.", name=name))
            self._need(name)
        like = meta["like"]
        taken = self.taken(name)
        names, optional = card_names(like), optional_codes(like)
        codes = codes_of(like) + [BACK]
        cards = [self.card_json(name, like, c, taken, names, optional) for c in codes]
        missing = [c["code"] for c in cards if not c["taken"] and not c["optional"]]
        job = self.jobs.get(name)
        if job is not None:
            state, message, progress = "training", job.message, job.json()
        elif meta.get("error"):
            state, message, progress = "failed", meta["error"], None
        else:
            state, message, progress = "collecting", None, None
        found = message_field(message, "message_msg") or ({"message_msg": meta["error_msg"]} if state == "failed"
                                                      and meta.get("error_msg") else {})
        return {"name": name, "like": like, "state": state, "message": message, **found, "progress": progress,
                "cards": cards, "taken": len([c for c in cards if c["taken"]]),
                "needed": len([c for c in cards if not c["optional"]]), "missing": missing,
                "camera": self.camera_on()}

    def camera_on(self) -> bool:
        if self.live is None:
            return False
        try:
            return self.live.camera_json().get("status") not in (None, "off")
        except Exception:
            return False

    def drafts(self) -> list[dict[str, Any]]:
        """Every draft, in short: for the set-up's list of decks being taught."""
        root = self.root()
        out = []
        if root.is_dir():
            for path in sorted(root.iterdir()):
                meta = self._meta(path.name)
                if meta is None:
                    continue
                view = self.view(path.name)
                out.append({k: view[k] for k in ("name", "like", "state", "message", "progress", "taken", "needed")})
        return out

    def decks_json(self) -> dict[str, Any]:
        """``GET /api/decks``: the built-in decks, the taught ones, which deck each game is played
        with, the deck the camera reads now, and the decks being taught."""
        built = [{"name": d, "like": d, "built_in": True, "codes": len(p.codes), "held_back": None,
                  "title": LIKE_NAMES[d]} for d, p in profiles.BUILT_IN.items()]
        camera = None
        reader = getattr(self.live, "reader", None) if self.live is not None else None
        if reader is not None and isinstance(getattr(reader, "name", None), str):
            camera = {"deck": reader.name, "like": getattr(reader, "deck", reader.name)}
        return {"decks": built + [deck_json(d) for d in decks.taught_decks()],
                "games": {g: game_deck(g, {}) for g in GAMES},
                "camera": camera, "teaching": self.drafts()}

    # -- changing --------------------------------------------------------------------------------
    def start(self, body: Any) -> dict[str, Any]:
        """``POST /api/teach`` {"name", "like"}: a new draft, or the draft of that name to go on with."""
        if not isinstance(body, dict):
            raise Refused(400, say("Send the deck to teach as {example}.", example='{"name": "grandmas", "like": "standard"}'))
        name, like = body.get("name"), body.get("like")
        if not isinstance(name, str) or not name.strip():
            raise Refused(422, say('Give the deck a name ("name": "grandmas").'))
        name = name.strip()
        if like not in decks.BUILT_IN:
            raise Refused(422, say('Say which deck it is like ("like": {decks}): which cards it has and where it '
                                   "prints their corners.", decks=", ".join(decks.BUILT_IN)))
        if name in decks.BUILT_IN:          # decks.check_name's reasons, said with say()
            raise Refused(422, say("{name} is a built-in deck; give the deck you teach another name.", name=repr(name)))
        if not decks.NAME.match(name):
            raise Refused(422, say("{name} cannot name a deck: use 1-40 lower-case letters, digits, '-' or '_', "
                                   "starting with a letter or digit.", name=repr(name)))
        try:
            decks.check_name(name)
        except ValueError as err:
            raise Refused(422, sentence(err)) from None
        if (decks.folder() / name).exists():
            raise Refused(409, say("A deck named {name} exists already; choose another name.", name=repr(name)))
        meta = self._meta(name)
        if meta is not None:
            if meta["like"] != like:
                raise Refused(409, say("Deck {name} is being taught already, like the {like} deck; go on with it, or "
                                       "throw it away first.", name=name, like=like_word(meta["like"])))
            return self.view(name)
        folder = self.folder(name)
        (folder / "cards").mkdir(parents=True, exist_ok=True)
        self._write_json(folder / "draft.json", {"name": name, "like": like, "created": time.time()})
        self.outcome.pop(name, None)
        return self.view(name)

    def detector(self):
        """The card detector flattening falls back on (made once, when first needed)."""
        with self.lock:
            if self._detector is None:
                # the photo reader (vision.reader, ~35 ms with PIL and pillow_heif): only when a photo comes,
                # not at the dashboard's start-up
                from vision.reader import MODELS
                self._detector = Detector(MODELS / "detector.onnx")
            return self._detector

    def _store(self, name: str, code: str, card: np.ndarray) -> None:
        """The flattened card as cards/CODE.png, in one rename (never half a picture)."""
        self._not_training(name)
        cards = self.folder(name) / "cards"
        cards.mkdir(parents=True, exist_ok=True)
        ok, data = cv2.imencode(".png", card)
        if not ok:
            raise Refused(500, say("The picture of {code} could not be saved.", code=code))
        tmp = cards / f".{code}.png.tmp"
        tmp.write_bytes(data.tobytes())
        os.replace(tmp, cards / f"{code}.png")
        meta = self._meta(name)
        if meta is not None and meta.get("error"):
            meta.pop("error")
            meta.pop("error_msg", None)
            self._write_json(self.folder(name) / "draft.json", meta)

    def _flatten(self, data: bytes, file: str) -> np.ndarray:
        """The one card of an uploaded photo, flat; Refused(400) naming ``file``."""
        from vision.decode import decode    # PIL and pillow_heif (~16 ms): not at the dashboard's start-up

        image = decode(data)
        if image is None:
            raise Refused(400, say("{file}: not a readable image (empty, corrupt or not a picture).", file=file))
        try:
            return flatten(image, self.detector(), file)
        except BadImage as err:
            raise Refused(400, sentence(err)) from None

    async def upload(self, name: str, code: str, data: bytes, file: str | None = None) -> dict[str, Any]:
        """``PUT /api/teach/{name}/cards/{code}``: a photo of one card (the card alone, or lying on a table)."""
        meta = self._need(name)
        code = self._code(meta, code)
        self._not_training(name)
        names = card_names(meta["like"])
        file = file or say("the photo of the {card}", card=names.get(code, code))
        card = await asyncio.to_thread(self._flatten, data, file)
        self._store(name, code, card)
        return self.card_json(name, meta["like"], code, self.taken(name))

    async def upload_named(self, name: str, filename: str, data: bytes) -> dict[str, Any]:
        """``PUT /api/teach/{name}/photos/{filename}``: the card's code read from the file's name,
        as `warref teach --cards` reads it (``QH.png``, ``qh-2.jpg``, ``10C_front.jpg``)."""
        # the lab (vision.synth, through vision.teach): only when a photo is named, never at start-up
        from vision.teach import code_of

        meta = self._need(name)
        like = meta["like"]
        codes = codes_of(like)
        code = code_of(filename, codes)
        if code is None:
            raise Refused(400, say("{file}: the file name does not start with a card code of the {like} deck (as "
                                   "`warref referee` spells them: {codes}, ...; {back} for the back).", file=filename,
                                   like=like_word(like), codes=", ".join(codes[:4]), back=BACK))
        return await self.upload(name, code, data, filename)

    async def take(self, name: str, code: str) -> dict[str, Any]:
        """``POST /api/teach/{name}/cards/{code}/take``: the card from the camera, once it lies still.

        Watches the camera's new pictures for up to ``TAKE_WINDOW_S``; takes the card when it was
        found alone in two pictures in a row whose card corners moved less than ``STEADY`` of the
        frame's diagonal, and it is not the card taken just before for another code (still lying
        there). Else 409 with what to do (the page asks again about once a second)."""
        meta = self._need(name)
        code = self._code(meta, code)
        self._not_training(name)
        said = card_names(meta["like"]).get(code, code)
        live = self.live
        if live is None:
            raise Refused(404, say("No camera is attached (start warref run); upload a photo of the card instead."))
        detector = await asyncio.to_thread(self.detector)
        end = time.monotonic() + TAKE_WINDOW_S
        seen, before, pictures, why = None, None, 0, None
        while True:
            frame = newest(live)
            if frame is not None and frame[0] != seen:
                seen, image = frame
                pictures += 1
                try:
                    quad = await asyncio.to_thread(one_card, image, detector, "the camera's picture")
                except TwoCards:
                    why, before = "two", None
                except NoCard:
                    why, before = "none", None
                else:
                    if before is not None and moved(before, quad, image.shape) < STEADY:
                        card = await asyncio.to_thread(warp, image, quad)
                        last = self.last_take.get(name)
                        if last is None or last[0] == code or not same_card(card, last[1]):
                            self._store(name, code, card)
                            self.last_take[name] = (code, card)
                            return self.card_json(name, meta["like"], code, self.taken(name))
                        why = "same"
                    else:
                        why = "moving"
                    before = quad
            if time.monotonic() >= end:
                break
            await asyncio.sleep(0.04)
        if pictures < 2:
            raise Refused(409, say("The camera sends no new pictures; check it on the Live screen."))
        if why == "none":
            raise Refused(409, say("No card seen: lay the {card} face up, alone, where the camera sees it.", card=said))
        if why == "two":
            raise Refused(409, say("More than one card seen: show the {card} alone.", card=said))
        if why == "same":
            other = card_names(meta["like"]).get(self.last_take[name][0], self.last_take[name][0])
            raise Refused(409, say("That is still the {other}: take it away and show the {card}.", other=other,
                                   card=said))
        raise Refused(409, say("Hold the {card} still...", card=said))

    def sheet_png(self, name: str) -> bytes:
        """Deck ``name``'s ``cards.png``: every card picture it learnt from, under its code (once taught)."""
        deck = taught(name)
        if deck is None:
            if self._meta(name) is None:
                self._need(name)
            raise Refused(404, say("Deck {name} is not taught yet: its sheet of cards comes with training.", name=name))
        try:
            return (deck.path / "cards.png").read_bytes()
        except OSError:
            raise Refused(404, say("Deck {name} was taught before warref kept a sheet of its cards; "
                                   "its pictures are in its cards folder.", name=name)) from None

    def card_png(self, name: str, code: str, width: int | None = None) -> bytes:
        """A card taken for draft ``name`` (once the deck is taught, the deck's own picture of it),
        ``width`` pixels wide when given (a thumbnail)."""
        meta = self._meta(name)
        if meta is not None:
            path = self.folder(name) / "cards" / f"{self._code(meta, code)}.png"
            said = card_names(meta["like"]).get(path.stem, code)
        else:
            deck = taught(name)
            if deck is None:
                self._need(name)
            path = deck.path / "cards" / f"{self._code({'like': deck.like}, code)}.png"
            said = card_names(deck.like).get(path.stem, code)
        try:
            data = path.read_bytes()
        except OSError:
            raise Refused(404, say("No picture of the {card} yet.", card=said)) from None
        if width is None:
            return data
        image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
        if image is None:
            raise Refused(404, say("The picture of the {card} cannot be read.", card=said))
        h, w = image.shape[:2]
        width = max(40, min(int(width), w))
        small = cv2.resize(image, (width, max(1, round(h * width / w))), interpolation=cv2.INTER_AREA)
        return cv2.imencode(".png", small)[1].tobytes()

    def drop(self, name: str) -> dict[str, Any]:
        """``DELETE /api/teach/{name}``: the draft thrown away (a training under way stops first)."""
        self._need(name)
        job = self.jobs.get(name)
        if job is not None:
            job.stop = job.drop = True          # the training thread removes the draft when it stops
        else:
            shutil.rmtree(self.folder(name), ignore_errors=True)
        self.outcome[name] = {"state": "dropped"}
        self.last_take.pop(name, None)
        self.push({"type": "teach", "teach": {"name": name, "state": "dropped", "message": f"Deck {name} thrown away.",
                                              "progress": None}})
        return {"name": name, "state": "dropped"}

    def forget(self, name: str) -> dict[str, Any]:
        """``DELETE /api/decks/{name}``: a taught deck removed (``decks.forget``). 403 for a built-in
        deck, 404 for one there is not, 409 while the camera reads the table with it."""
        if name in decks.BUILT_IN:
            raise Refused(403, say("The {name} deck is one of warref's own; only a deck you taught can be forgotten.",
                                   name=name))
        try:
            decks.find(name)
        except ValueError:
            raise Refused(404, say("There is no taught deck called {name}.", name=repr(name))) from None
        live = self.live
        if live is not None and name in (getattr(live.reader, "name", None), live.wanted_deck()):
            raise Refused(409, say("The camera is reading the table with the {name} deck; set up a game with other "
                                   "cards first, then forget it.", name=name))
        try:
            decks.forget(name)
        except (ValueError, OSError) as err:     # the system's words in the page's language where warref knows them
            raise Refused(500, say("The {name} deck could not be removed: {error}", name=name, error=why(err))) from None
        self.push({"type": "teach", "teach": {"name": name, "state": "forgotten",
                                              "message": f"Deck {name} forgotten.", "progress": None}})
        return {"name": name, "state": "forgotten"}

    def train(self, name: str, body: Any) -> dict[str, Any]:
        """``POST /api/teach/{name}/train`` {"minutes", "allow_missing"}: training starts in the background."""
        meta = self._need(name)
        body = body if body is not None else {}
        if not isinstance(body, dict):
            raise Refused(400, say("Send the training as {example}.", example='{"minutes": 2, "allow_missing": false}'))
        minutes = body.get("minutes", MINUTES)
        if isinstance(minutes, bool) or not isinstance(minutes, (int, float)) or not 0 < minutes <= 60:
            raise Refused(422, say("minutes: the most time training may take, above 0 and at most 60 (got {minutes}).",
                                   minutes=repr(minutes)))
        allow_missing = body.get("allow_missing", False)
        if not isinstance(allow_missing, bool):
            raise Refused(422, say("allow_missing is true or false."))
        view = self.view(name)
        if view["taken"] == 0:
            raise Refused(400, say("No card taken yet: show the cards to the camera or upload their photos first."))
        if view["missing"] and not allow_missing:
            raise Refused(400, say_n(
                "No picture yet of {n} card of the {like} deck: {codes}. Take them, or train without them (allow "
                "missing: they are then read as warref's own readers read them).",
                "No picture yet of {n} cards of the {like} deck: {codes}. Take them, or train without them (allow "
                "missing: they are then read as warref's own readers read them).",
                len(view["missing"]), like=like_word(meta["like"]), codes=", ".join(view["missing"])))
        if (decks.folder() / name).exists():
            raise Refused(409, say("A deck named {name} exists already; throw this draft away and choose another name.",
                                   name=repr(name)))
        with self.lock:
            if self.jobs:
                other = next(iter(self.jobs))
                raise Refused(409, say("Deck {name} is being trained now; one deck at a time (wait until it is ready).",
                                       name=other))
            job = self.jobs[name] = Job(name, meta["like"], lambda p: self._push(name, "training", p["message"], p))
        with contextlib.suppress(RuntimeError):
            self._loop = asyncio.get_running_loop()
        if meta.get("error"):
            meta.pop("error")
            meta.pop("error_msg", None)
            self._write_json(self.folder(name) / "draft.json", meta)
        self.outcome.pop(name, None)
        job.thread = threading.Thread(target=self._run, args=(job, float(minutes), allow_missing),
                                      name=f"warref-teach-{name}", daemon=True)
        job.thread.start()
        self._push(name, "training", job.message, job.json())
        return self.view(name)

    def _push(self, name: str, state: str, message: str | None, progress: dict | None, **extra) -> None:
        message_ = {"type": "teach", "teach": {"name": name, "state": state, "message": message,
                                               **message_field(message, "message_msg"), "progress": progress, **extra}}
        loop = self._loop
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is not None or loop is None:
            self.push(message_)
        else:
            with contextlib.suppress(RuntimeError):         # the server is stopping
                loop.call_soon_threadsafe(self.push, message_)

    def _run(self, job: Job, minutes: float, allow_missing: bool) -> None:
        """The training thread: ``vision.teach.teach`` on the draft's cards; the draft goes once the deck is in."""
        # the lab (vision.synth, through vision.teach): only when a deck is taught, never at start-up
        from vision.teach import teach

        name = job.name
        folder = self.folder(name)
        try:
            deck = teach(name, job.like, cards=folder / "cards", minutes=minutes, allow_missing=allow_missing,
                         progress=job.progress)
        except Stopped:
            if job.drop:
                shutil.rmtree(folder, ignore_errors=True)
            self._finish(name)
            return
        except (VisionError, ValueError, FileExistsError, OSError) as err:
            self._failed(job, sentence(err))
            return
        except Exception as err:  # noqa: BLE001 - whatever it was, the page must hear of it
            print(f"warref teach: training deck {name} failed: {err!r}", flush=True)
            self._failed(job, say("Training stopped: {error}.", error=repr(err)))
            return
        shutil.rmtree(folder, ignore_errors=True)     # the deck is in: the draft has done its work
        message = ready_sentence(deck)
        self.outcome[name] = {"state": "ready", "message": message}
        self._finish(name)
        self._push(name, "ready", message, {"stage": "done", "done": 1, "total": 1, "fraction": 1.0,
                                            "message": message}, deck=deck_json(deck))

    def _failed(self, job: Job, message: str) -> None:
        name = job.name
        meta = self._meta(name)
        if meta is not None:
            meta["error"] = message
            meta.pop("error_msg", None)
            meta.update(message_field(message, "error_msg"))      # kept with the draft: a failure read again is said too
            with contextlib.suppress(OSError):
                self._write_json(self.folder(name) / "draft.json", meta)
        self.outcome[name] = {"state": "failed", "message": message}
        self._finish(name)
        self._push(name, "failed", message, None)

    def _finish(self, name: str) -> None:
        with self.lock:
            self.jobs.pop(name, None)

    def stop(self, wait: float = 0.0) -> None:
        """Tell every training to stop (the server is stopping); wait up to ``wait`` s for them."""
        jobs = list(self.jobs.values())
        for job in jobs:
            job.stop = True
        end = time.monotonic() + wait
        for job in jobs:
            if job.thread is not None:
                job.thread.join(max(0.0, end - time.monotonic()))


# ------------------------------------------------------------------------------ the camera's pictures
def newest(live: Any) -> tuple[Any, np.ndarray] | None:
    """(a key telling pictures apart, the picture) of the camera's newest frame: the camera's own
    (``WatchedSource.latest``, at the camera's pace), else the last frame the live loop read."""
    camera = getattr(live, "camera", None)
    latest = getattr(camera, "latest", None)
    if callable(latest):
        try:
            frame = latest()
        except Exception:
            frame = None
        if frame is not None:
            return ("camera", frame.index), frame.image
    held = getattr(live, "latest", None)
    if held is not None:
        return ("live", id(held)), held[0]
    return None


def same_card(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two flattened cards are the same card (either way up): fewer than ``SAME`` of their
    pixels differ by more than 40 levels in a colour, at 100 x 140 (warref's own Namikopy and
    standard art: the same card 0, the two closest different cards, the aces of diamonds and
    hearts, 0.018)."""
    def small(x):
        x = cv2.resize(x, (100, 140), interpolation=cv2.INTER_AREA)
        return cv2.GaussianBlur(x, (3, 3), 0).astype(np.int16)
    p = small(a)
    return any(float((np.abs(p - small(q)).max(2) > 40).mean()) < SAME for q in (b, cv2.rotate(b, cv2.ROTATE_180)))


def moved(a: np.ndarray, b: np.ndarray, shape: tuple[int, ...]) -> float:
    """How far a card's outline moved between two pictures: its corners' largest move (corners
    matched the way round that moves them least), as a share of the frame's diagonal."""
    def ordered(q):
        q = np.asarray(q, np.float32).reshape(-1, 2)
        c = q.mean(0)
        return q[np.argsort(np.arctan2(q[:, 1] - c[1], q[:, 0] - c[0]))]
    p, q = ordered(a), ordered(b)
    if len(p) != len(q):
        return float("inf")
    best = min(float(np.linalg.norm(p - np.roll(q, k, 0), axis=1).max()) for k in range(len(q)))
    h, w = shape[:2]
    return best / float(np.hypot(h, w))
