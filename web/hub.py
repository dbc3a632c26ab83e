"""The dashboard's WebSocket fan-out: ``Hub`` sends every message the server pushes (rulings,
corrections, the clock, the camera) to each page watching (a ``Viewer``) through its own queue."""
from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

from fastapi import WebSocket


class Viewer:
    """A page watching: its queue of messages to send (None: close the socket), and whether it was
    dropped for falling too far behind."""

    def __init__(self, ws: WebSocket):
        self.ws = ws
        self.queue: asyncio.Queue[str | None] = asyncio.Queue(maxsize=256)
        self.dropped = False


class Hub:
    """One fan-out: each viewer has its own queue and sender task, so a slow or dead viewer only
    fills its own queue (and is dropped when it is full) instead of holding up the others."""

    def __init__(self) -> None:
        self.viewers: set[Viewer] = set()
        self.loop: asyncio.AbstractEventLoop | None = None

    def add(self, viewer: Viewer, first: str) -> None:
        self.loop = asyncio.get_running_loop()
        viewer.queue.put_nowait(first)
        self.viewers.add(viewer)

    def remove(self, viewer: Viewer) -> None:
        self.viewers.discard(viewer)

    def broadcast(self, message: dict[str, Any]) -> None:
        """Queue ``message`` for every viewer; from another thread (a change made off the event loop)
        it is handed to the loop, as asyncio's queues want."""
        text = json.dumps(message, ensure_ascii=False)
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            if self.loop is not None and not self.loop.is_closed():
                self.loop.call_soon_threadsafe(self._deliver, text)
            return
        self._deliver(text)

    def _deliver(self, text: str) -> None:
        for viewer in list(self.viewers):
            try:
                viewer.queue.put_nowait(text)
            except asyncio.QueueFull:
                viewer.dropped = True
                self.viewers.discard(viewer)
                with contextlib.suppress(asyncio.QueueFull):
                    viewer.queue.get_nowait()
                    viewer.queue.put_nowait(None)

