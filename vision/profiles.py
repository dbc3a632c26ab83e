"""What warref knows about each deck it reads, in one place: a ``Profile`` per deck.

    from vision.decks import profile
    deck = profile("standard")        # a built-in deck, or one a family taught warref (vision/decks.py)
    deck.corner, deck.reader, deck.words, deck.codes, deck.optional

The built-in decks' profiles are written here (``BUILT_IN``). A deck taught warref (`warref teach`,
vision/decks.py) has the profile of the built-in deck it is like, with its own name, its own
folder (its readers, named as the built-in ones, and perhaps a detector), its own codes and
whether it is printed light on dark (``taught``).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

@dataclass(frozen=True)
class Profile:
    name: str                      # what it is called: a built-in deck's name or a taught deck's own
    like: str                      # the built-in deck whose cards and layout it has (itself, if built in)
    reader: str                    # its index reader's file (members and face reader named in its .json)
    corner: tuple[float, float]    # the corner region its index is printed in: shares of the card's
                                   # width and height, with a margin (vision/geometry.py)
    # the words its cards print, upper case, letters only -> the card they name (vision/words.py)
    words: dict[str, str] = field(default_factory=dict, hash=False)
    art: str = "own"               # its faces: "own" drawn by vision/art/own.py, "npm" fetched (vision/art/standard.py)
    more_art: bool = False         # AisleRiot's themes draw it too (vision/art/aisleriot.py, `warref synth --more-art`)
    optional: tuple[str, ...] = ()  # codes a deck like it need not show to be taught; taught without
                                   # any of them, it reads none (vision/teach.py, web/teach.py)
    index_alone: bool = False      # vision/indices.py knows its index layout: a card is also found by
                                   # its corner index alone (vision/steps/indices.py, `--indices`)
    real_photos: bool = False      # the labelled real photos (vision/lab/realcards.py) are of its cards:
                                   # `warref eval` scores its readers on them too (vision/lab/evaluate.py)
    folder: Path | None = None     # a taught deck's folder, where its readers are; None: the models folder
    negative: bool = False         # a taught deck printed light on dark: its detector reads the negative
    taught_codes: tuple[str, ...] | None = None    # a taught deck's codes (deck.json); None: the deck file's

    @property
    def codes(self) -> list[str]:
        """The cards it has, by code: a taught deck's own, else its deck file's (referee/decks/NAME.toml)."""
        if self.taught_codes is not None:
            return list(self.taught_codes)
        # the referee (referee.deck loads the whole package, ~60 ms): only when a deck's codes are
        # asked for; the card reader and its spawned photo workers (vision/photos.py) never ask
        from referee.deck import load_deck
        return [c.code for c in load_deck(self.like).cards]


BUILT_IN = {p.name: p for p in (
    Profile("standard", like="standard", reader="reader-standard.onnx", corner=(0.23, 0.31),
            words={"JOKER": "JOKER"}, art="npm", more_art=True, optional=("JOKER",), index_alone=True,
            real_photos=True),
    Profile("woolly", like="woolly", reader="reader-woolly.onnx", corner=(0.32, 0.28)),
    Profile("namikopy", like="namikopy", reader="reader-namikopy.onnx", corner=(0.32, 0.28)),
)}
