"""Checkpoints: a referee state saved every so many entries, so that a long game is rebuilt from its
latest checkpoint and the tail of its log instead of from the first card (issue 41). A checkpoint is
only an accelerator: the log stays the source of truth, and a checkpoint that does not load exactly
is ignored and the log replayed.

A state is pickled (the rules' own objects, so no second serialisation to keep in step with each
game's code), with three guards:

- ``VERSION`` hashes every file of referee/ (its code and decks) and the Python version: a checkpoint
  made by other rules code is never loaded;
- loading goes through an unpickler that only builds classes defined in referee/ and a few plain
  containers (no functions, no other modules), and the game and its decks are references to the
  running ones (``persistent_id``), never stored;
- the loaded state's ``snapshot()`` (each game's plain-data account of its whole state) must equal
  the one stored with it.

The caller also checks that the log prefix the checkpoint was made from is the one stored (a digest of
the entries and their rulings, see web/session.py's Session).
"""
from __future__ import annotations

import functools
import hashlib
import io
import json
import pickle
import sys
from pathlib import Path
from typing import Any

import referee
from referee.deck import Deck, load_deck

FORMAT = "pickle-5/1"
_PLAIN = {("collections", "deque"), ("collections", "Counter"), ("collections", "OrderedDict"),
          ("collections", "defaultdict"), ("builtins", "set"), ("builtins", "frozenset"),
          ("builtins", "tuple"), ("builtins", "list"), ("builtins", "dict")}


class CheckpointError(Exception):
    """A checkpoint that cannot be used (the log is replayed instead)."""


@functools.cache
def referee_version() -> str:
    """A hash of the rules code and decks in referee/ (and the checkpoint format and Python version)."""
    h = hashlib.sha256(f"{FORMAT}|{sys.version_info[:2]}".encode())
    root = Path(referee.__file__).parent
    for path in sorted(root.rglob("*")):
        if path.is_file() and path.suffix in (".py", ".toml") and "__pycache__" not in path.parts:
            h.update(path.relative_to(root).as_posix().encode() + b"\0")
            h.update(path.read_bytes() + b"\0")
    return h.hexdigest()[:20]


def check_text(state: Any) -> str:
    """The state's plain-data account, as compared after loading."""
    return json.dumps(state.snapshot(), sort_keys=True, default=str)


class _Pickler(pickle.Pickler):
    def __init__(self, file: io.BytesIO, game: Any):
        super().__init__(file, protocol=5)
        self.game = game

    def persistent_id(self, obj: Any) -> Any:
        if obj is self.game:
            return "game"
        if isinstance(obj, Deck):
            try:
                if load_deck(obj.id) is obj:
                    return f"deck:{obj.id}"
            except Exception:  # a deck made on the fly (Casino War's shoe): stored by value
                pass
        return None


class _Unpickler(pickle.Unpickler):
    def __init__(self, file: io.BytesIO, game: Any):
        super().__init__(file)
        self.game = game

    def persistent_load(self, pid: Any) -> Any:
        if pid == "game":
            return self.game
        if isinstance(pid, str) and pid.startswith("deck:"):
            return load_deck(pid[5:])
        raise pickle.UnpicklingError(f"unknown reference {pid!r}")

    def find_class(self, module: str, name: str) -> Any:
        if "." in name:
            raise pickle.UnpicklingError(f"{module}.{name}: dotted names are not loaded")
        if (module, name) in _PLAIN:
            return super().find_class(module, name)
        if module == "referee" or module.startswith("referee."):
            obj = super().find_class(module, name)
            if isinstance(obj, type) and (obj.__module__ or "").startswith("referee"):
                return obj
        raise pickle.UnpicklingError(f"{module}.{name} is not part of a referee state")


def dump_state(state: Any, game: Any) -> bytes:
    out = io.BytesIO()
    _Pickler(out, game).dump(state)
    return out.getvalue()


def load_state(blob: bytes, game: Any, check: str | None = None) -> Any:
    """The state in ``blob`` (CheckpointError if it does not load, or does not match ``check``)."""
    try:
        state = _Unpickler(io.BytesIO(bytes(blob)), game).load()
        text = check_text(state) if check is not None else None
    except Exception as err:
        raise CheckpointError(f"the checkpoint does not load: {err!r}") from None
    if check is not None and text != check:
        raise CheckpointError("the loaded checkpoint is not the state it was made from")
    return state
