"""What a reader step may use besides the image and what the steps before it gave (``Context``)."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from ..config import ReaderConfig
    from ..profiles import Profile
    from ..detector import Detector
    from ..reader import IndexReader, TableReader
    from ..reading import Memory
    from ..words import WordReader


@dataclass
class Context:
    """One reading of one image: the reader it runs in (``table``), the lowest detector score or
    confidence kept (``threshold``), the detector's boxes the readings came from (``found``, set by
    the loop when the boxes are read) and the readings of boxes read before that an unchanged box
    keeps (``pool``). Steps use the names below, never the reader's own state."""
    table: TableReader
    threshold: float
    found: list = field(default_factory=list)
    pool: list | None = None

    @property
    def config(self) -> ReaderConfig:
        return self.table.config

    @property
    def deck(self) -> str:
        """The built-in deck whose layout the cards have (a taught deck's ``like``)."""
        return self.table.deck

    @property
    def profile(self) -> Profile:
        return self.table.profile

    @property
    def detector(self) -> Detector:
        return self.table.detector

    @property
    def reader(self) -> IndexReader:
        """The deck's index reader: its class ``names``, ``sure`` and stated ``threshold``."""
        return self.table.reader

    @property
    def memory(self) -> Memory:
        """What a live table keeps from one frame to the next."""
        return self.table.memory

    def identify(self, image: np.ndarray, found: list) -> list:
        """Each box read by the deck's reader (``TableReader.identify``), with ``pool``."""
        return self.table.identify(image, found, self.pool)

    def box_weights(self, sure: float) -> np.ndarray:
        """What each class's probability is multiplied by for a box this sure."""
        return self.table.box_weights(sure)

    def text_reader(self) -> WordReader:
        """The text reader (made when first asked for: it loads two models)."""
        return self.table.word_reader()

    def read_afresh(self, image: np.ndarray) -> list:
        """``image`` read from the first step to ``again``, as the reader reads a new image."""
        return self.table.read_as_is(image, self.threshold)

    def run(self, image: np.ndarray, given: list, first: str, last: str, **changes) -> list:
        """The reader's steps from ``first`` to ``last`` (names, both run) on ``given``, in a
        context like this one with ``changes`` (a step that looks again: ``again``, ``unstretch``)."""
        return self.table.run(image, given, replace(self, **changes), first, last)
