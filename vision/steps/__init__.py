"""The reader's optional steps, one module each, switched by ``ReaderConfig`` (vision/config.py).

Every step is one function, ``step(image, reads, context) -> reads``: the readings of the image so
far in, the readings with what the step found out. ``zoom`` is the one step that runs before the
first reading, on the detector's boxes (``context.found``): it returns those boxes with what it
found in its crops. In the order ``TableReader.read`` runs them:

| step        | switch             | what it does                                                    |
|-------------|--------------------|-----------------------------------------------------------------|
| zoom        | ``zoom`` (count)   | crops around the surest boxes shown to the detector alone        |
| strips      | ``strips``/``cut`` | a box that is a strip of a card (others or the edge over the rest) read as that card |
| again       | ``again`` (count)  | crops around cards read unsure shown to the detector, image read again |
| unstretch   | ``unstretch``      | a square image also read unstretched to camera shapes; best kept |
| indices     | ``indices``        | cards found by their corner index alone (standard deck)         |
| words       | ``words``          | cards found by a word they print (a joker's JOKER)               |
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..config import ReaderConfig
    from ..reader import TableReader


@dataclass
class Context:
    """What a step may use besides the image and the readings: the reader it runs in (its
    detector, index and face readers, configuration), the lowest detector score or confidence kept
    (``threshold``), the detector's boxes the readings came from (``found``) and the readings of
    boxes read before that an unchanged box keeps (``pool``)."""
    table: TableReader
    threshold: float
    found: list = field(default_factory=list)
    pool: list | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def config(self) -> ReaderConfig:
        return self.table.config
