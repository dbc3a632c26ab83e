"""Decks a family taught warref (`warref teach`), kept in the user's data directory.

    $WARREF_HOME/decks/NAME/       (default: the platform's user data directory, e.g.
                                    ~/.local/share/warref/decks/NAME/)
        deck.json                  name, the built-in deck it is like, its codes, how it was made
        reader-<like>.onnx/.json   its readers, the built-in ones' file names (members and face too)
        cards/CODE.png             the card images it learned from, flattened
        README.md                  its model card: what it learned from and how well it read

A deck appears only when complete: it is written beside its final place and renamed into it.
"""
from __future__ import annotations

import json
import os
import re
import shutil
from dataclasses import dataclass, replace
from pathlib import Path

import platformdirs

from referee.say import say

from . import profiles

BUILT_IN = tuple(profiles.BUILT_IN)     # the built-in decks' names (their profiles: vision/profiles.py)
NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")
FOUND_LOW = 0.8                          # a taught deck whose cards the detector finds less often than this: warned


def home() -> Path:
    """Where warref keeps what a user made: ``$WARREF_HOME``, else the platform's user data directory."""
    return Path(os.environ.get("WARREF_HOME") or platformdirs.user_data_dir("warref"))


def folder() -> Path:
    return home() / "decks"


@dataclass(frozen=True)
class Taught:
    name: str
    like: str                 # the built-in deck whose profile it has (vision/profiles.py)
    path: Path                # its folder: readers, cards, model card
    meta: dict

    @property
    def codes(self) -> list[str]:
        return list(self.meta["codes"])

    def warning(self) -> str | None:
        """What to check when the deck read fewer than half of its held-back views right (its
        photos then rarely show whole, flat cards), or when the card detector found fewer than
        ``FOUND_LOW`` of its cards on made-up tables (a card not found is not read); None otherwise."""
        said = []
        read = self.meta.get("held_back") or {}
        if read and read["right"] < 0.5 * read["views"]:
            sheet = self.path / "cards.png"
            said.append(say("it read only {right} of {views} held-back views right: look at the card pictures it "
                            "learnt from ({sheet}); a corner or a stripe cut out instead of the whole card, or a "
                            "blurred one, teaches little. Better photos, one card each, help.", right=read["right"],
                            views=read["views"], sheet=str(sheet if sheet.exists() else self.path / "cards")))
        seen = self.meta.get("detector") or {}
        used = seen.get("negatives" if seen.get("negative") else "plain") or {}
        if used.get("cards") and used["found"] < FOUND_LOW * used["cards"]:
            said.append(say("warref's card finder found only {found} of {cards} of these cards on made-up tables, "
                            "and a card it does not find is not read: expect it to miss cards on your table too (a "
                            "table unlike the cards, and good light, help it).", found=used["found"],
                            cards=used["cards"]))
        if len(said) == 2:                    # said with say(): the dashboard says it in its own language
            return say("{first} {then}", first=said[0], then=said[1])
        return said[0] if said else None

    def pictures(self) -> dict:
        """The card images it learned from, one per code (its first) and its back where one was
        photographed, RGBA at card-art size with a card's rounded corners: to draw the deck (`warref
        demo --deck`)."""
        # start-up time of `warref --help`, which loads this module: OpenCV (~0.1 s; the art
        # imports it too) only when a taught deck's cards are drawn
        import cv2
        from .art import as_card
        out = {}
        for code in [*self.codes, "BACK"]:
            image = cv2.imread(str(self.path / "cards" / f"{code}.png"), cv2.IMREAD_COLOR)
            if image is not None:
                out[code] = as_card(image)
        return out

    def line(self) -> str:
        """The deck as `warref decks` lists it (said with say(): the command line's --lang says it)."""
        read = self.meta.get("held_back", {})
        figure = (say("read {right} of {views} held-back views right", right=read["right"], views=read["views"])
                  if read else say("not measured"))
        return say("{name}: like {like}, {n} cards, {figure} ({path})", name=self.name, like=self.like,
                   n=len(self.codes), figure=figure, path=str(self.path))


def check_name(name: str) -> str:
    """``name`` if it can name a deck, else ValueError saying why."""
    if name in BUILT_IN:
        raise ValueError(say("{name} is a built-in deck; give the deck you teach another name", name=repr(name)))
    if not NAME.match(name):
        raise ValueError(say("{name} cannot name a deck: use 1-40 lower-case letters, digits, '-' or '_', starting "
                             "with a letter or digit", name=repr(name)))
    return name


def read(path: Path) -> Taught:
    meta = json.loads((path / "deck.json").read_text())
    return Taught(meta["name"], meta["like"], path, meta)


def taught_decks() -> list[Taught]:
    """Every complete deck in ``folder()``, by name (half-written ones, which start with '.', left out)."""
    root = folder()
    if not root.is_dir():
        return []
    out = []
    for path in sorted(root.iterdir()):
        if path.name.startswith(".") or not (path / "deck.json").is_file():
            continue
        try:
            out.append(read(path))
        except (OSError, ValueError, KeyError):
            continue
    return out


def find(name: str) -> Taught:
    """The taught deck ``name``; ValueError naming the decks there are when there is none."""
    path = folder() / name
    if NAME.match(name) and (path / "deck.json").is_file():
        return read(path)
    there = [d.name for d in taught_decks()]
    raise ValueError(say("unknown deck {name}: choose one of {decks} (decks you taught warref: `warref decks`; teach "
                         "one: `warref teach`)", name=repr(name), decks=", ".join(BUILT_IN + tuple(there))))


def install(work: Path, name: str, replace: bool = False) -> Path:
    """Move the finished deck in ``work`` (a folder beside its final place) to ``folder()/name``
    in one rename; an existing deck of that name is replaced only with ``replace``."""
    target = folder() / name
    if target.exists():
        if not replace:
            raise FileExistsError(say("a deck named {name} exists ({folder}); choose another name or --replace",
                                      name=repr(name), folder=str(target)))
        old = target.with_name(f".{name}.old")
        shutil.rmtree(old, ignore_errors=True)
        target.rename(old)
        work.rename(target)
        shutil.rmtree(old, ignore_errors=True)
    else:
        work.rename(target)
    return target


def forget(name: str) -> Path:
    """Remove the taught deck ``name`` (its folder, all of it); the folder it was in. ValueError for a
    built-in deck or one there is not. It leaves ``taught_decks`` in one rename, then is deleted, so a
    deck is never listed half removed."""
    if name in BUILT_IN:
        raise ValueError(say("{name} is one of warref's own decks; only a deck you taught can be forgotten",
                             name=repr(name)))
    path = find(name).path
    gone = path.with_name(f".{name}.gone-{os.getpid()}")
    shutil.rmtree(gone, ignore_errors=True)
    path.rename(gone)
    shutil.rmtree(gone, ignore_errors=True)
    return path


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def workspace(name: str) -> Path:
    """An empty folder beside the deck's final place (so that ``install`` is one rename) that
    ``taught_decks`` never lists."""
    root = folder()
    root.mkdir(parents=True, exist_ok=True)
    for left in [*root.glob(".*.part-*"), *root.glob(".*.gone-*")]:   # left by a teaching or a forget that was killed
        pid = left.name.rsplit("-", 1)[-1]
        if pid.isdigit() and not alive(int(pid)):
            shutil.rmtree(left, ignore_errors=True)
    work = root / f".{name}.part-{os.getpid()}"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    return work


# --------------------------------------------------------------- profiles of built-in and taught decks
def taught(deck: Taught) -> profiles.Profile:
    """A taught deck's profile: its ``like`` deck's, with its own name, folder, codes and polarity."""
    if deck.like not in profiles.BUILT_IN:
        raise ValueError(say("deck {name} is like {like}, which is not a built-in deck ({decks}): see {path}",
                             name=repr(deck.name), like=repr(deck.like), decks=", ".join(profiles.BUILT_IN),
                             path=str(deck.path / "deck.json")))
    seen = deck.meta.get("detector")
    return replace(profiles.BUILT_IN[deck.like], name=deck.name, folder=deck.path, taught_codes=tuple(deck.codes),
                   negative=isinstance(seen, dict) and bool(seen.get("negative")))


def profile(name: str) -> profiles.Profile:
    """The profile of deck ``name``, built in or taught; ValueError naming the decks there are
    when there is none."""
    if name in profiles.BUILT_IN:
        return profiles.BUILT_IN[name]
    return taught(find(name))
