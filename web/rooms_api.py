"""The HTTP and WebSocket side of Guerra rooms (web/rooms.py): routes, each process's push to its
own WebSockets, and the clock that fires timers. docs/rooms.md describes the protocol.

A seat's device proves its seat with the token it got when it created or joined the room (header
``X-Seat-Token``; on the WebSocket, the first message ``{"token": ...}``), never with the table's
PIN. Without a token a device is a spectator: it sees the table, no hand, and may not act.

Limits count by the client's address (``request.client``, as uvicorn gives it): rooms made and
joined, and codes tried that no room has (web/rooms.py's LIMITS); a refusal is a 429 with a
sentence and Retry-After.
"""
from __future__ import annotations

import asyncio
import contextlib
import io
import json
import re
import time
from pathlib import Path
from typing import Any, Optional

from fastapi import APIRouter, FastAPI, Request, WebSocket, WebSocketDisconnect
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import FileResponse, JSONResponse, Response
from pydantic import BaseModel, Field, ValidationError
import segno

from referee.say import message_field, say

from . import guard
from .errors import invalid_request
from .rooms import ALIVE_S, LOBBY_PAGE, NoRoom, RoomError, Rooms
from .system_words import system_words

STATIC = Path(__file__).parent / "static"
HELLO_S = 10.0             # a WebSocket says which seat it is (or none) within this long
WS_MESSAGE_LIMIT = 2048
QUEUE = 64
ID = r"^[A-Za-z0-9._:-]+$"
# a create's or a join's id brings back a seat token: it is as secret as the token, so a long random one
ONCE_ID = {"min_length": 16, "max_length": 64, "pattern": ID}

router = APIRouter()


# ---------------------------------------------------------------------- bodies
class MoveIn(BaseModel):
    kind: str = Field(max_length=16)
    slot: Optional[int] = Field(default=None, ge=0, le=2)
    down: bool = False
    parity: Optional[str] = Field(default=None, max_length=8)
    choice: Optional[str] = Field(default=None, max_length=8)

    def plain(self) -> dict[str, Any]:
        return self.model_dump()


class NewRoom(BaseModel):
    name: str = Field(max_length=64)
    players: int = Field(default=2, ge=2, le=6)
    npc_seats: list[int] = Field(default_factory=list, max_length=6)
    level: str = Field(default="normal", max_length=16)
    options: dict[str, str] = Field(default_factory=dict, max_length=8)
    id: Optional[str] = Field(default=None, **ONCE_ID)
    coach: Optional[bool] = None


class Join(BaseModel):
    name: str = Field(max_length=64)
    seat: Optional[int] = Field(default=None, ge=0, le=5)
    id: Optional[str] = Field(default=None, **ONCE_ID)


class Start(BaseModel):
    fill: bool = False


class Act(BaseModel):
    move: MoveIn
    id: Optional[str] = Field(default=None, max_length=64, pattern=ID)


class Suggest(BaseModel):
    move: MoveIn


class Coach(BaseModel):
    on: bool


def rooms_of(request: Request | WebSocket) -> Rooms:
    """The rooms; for a route that names a room's code, 429 first if this client has tried too many
    codes that no room has."""
    rooms = request.app.state.rooms.rooms
    if "code" in request.path_params:
        rooms.guessing(client_of(request))
    return rooms


def client_of(request: Request | WebSocket) -> str:
    return request.client.host if request.client else "unknown"


def token_of(request: Request) -> str | None:
    return request.headers.get("x-seat-token") or None


def once_of(request: Request, given: str | None) -> str | None:
    """A create's or a join's id: in the body, or the Idempotency-Key header."""
    key = given or request.headers.get("idempotency-key")
    if key is not None and given is None:
        if not (ONCE_ID["min_length"] <= len(key) <= ONCE_ID["max_length"] and re.match(ID, key)):
            raise RoomError(422, say("An Idempotency-Key is 16-64 letters, digits and ._:- (a random one per "
                                     "attempt)."))
    return key


# ---------------------------------------------------------------------- routes
@router.post("/api/rooms")
async def create_room(body: NewRoom, request: Request) -> dict[str, Any]:
    return rooms_of(request).create(body.name, body.players, body.npc_seats, body.level, body.options,
                                    client=client_of(request), answer_id=once_of(request, body.id),
                                    coach=body.coach)


@router.get("/api/rooms")
async def list_rooms(request: Request, limit: int = LOBBY_PAGE, after: Optional[str] = None) -> dict[str, Any]:
    if after is not None and len(after) > 32:
        raise RoomError(422, say("after is the next of the previous page of rooms."))
    return rooms_of(request).listing(limit, after)


@router.get("/api/rooms/{code}")
async def room_view(code: str, request: Request) -> dict[str, Any]:
    return rooms_of(request).view(code, token_of(request))


@router.post("/api/rooms/{code}/join")
async def join_room(code: str, body: Join, request: Request) -> dict[str, Any]:
    return rooms_of(request).join(code, body.name, body.seat, client=client_of(request),
                                  answer_id=once_of(request, body.id))


class Move(BaseModel):
    seat: int = Field(ge=0, le=5)


@router.post("/api/rooms/{code}/seat")
async def move_seat(code: str, body: Move, request: Request) -> dict[str, Any]:
    return rooms_of(request).move(code, token_of(request) or "", body.seat)


@router.post("/api/rooms/{code}/start")
async def start_room(code: str, body: Start, request: Request) -> dict[str, Any]:
    rooms_of(request).start(code, token_of(request) or "", body.fill)
    return {"started": True}


@router.post("/api/rooms/{code}/again")
async def play_again(code: str, request: Request) -> dict[str, Any]:
    rooms_of(request).again(code, token_of(request) or "")
    return {"started": True}


@router.post("/api/rooms/{code}/act")
async def act(code: str, body: Act, request: Request) -> dict[str, Any]:
    answer_id = body.id or request.headers.get("idempotency-key")
    return rooms_of(request).act(code, token_of(request) or "", body.move.plain(), answer_id)


@router.post("/api/rooms/{code}/suggest")
async def suggest(code: str, body: Suggest, request: Request) -> dict[str, Any]:
    return {"shown_to": rooms_of(request).suggest(code, token_of(request) or "", body.move.plain())}


@router.post("/api/rooms/{code}/coach")
async def set_coach(code: str, body: Coach, request: Request) -> dict[str, Any]:
    rooms_of(request).set_coach(code, token_of(request) or "", body.on)
    return {"coach": body.on}


@router.post("/api/rooms/{code}/hint")
async def hint(code: str, request: Request) -> dict[str, Any]:
    """The coach's advice for this seat's decision; the hard level thinks off the event loop."""
    think = rooms_of(request).hint(code, token_of(request) or "")
    return await run_in_threadpool(think)


@router.get("/api/rooms/{code}/qr.svg")
async def room_qr(code: str, request: Request) -> Response:
    rooms_of(request).load(code)                       # 404 for no such room
    service: RoomService = request.app.state.rooms
    url = (service.public_url or str(request.base_url)).rstrip("/") + f"/room/{code.strip().upper()}"
    out = io.BytesIO()
    segno.make(url, error="m").save(out, kind="svg", scale=8, border=2)
    return Response(out.getvalue(), media_type="image/svg+xml")


@router.get("/room", include_in_schema=False)
@router.get("/room/{code}", include_in_schema=False)
async def room_page(code: str | None = None) -> Response:
    page = STATIC / "room.html"
    if not page.is_file():
        missing = say("The rooms page ({path}) is not installed.", path="web/static/room.html")
        return JSONResponse({"detail": missing, **message_field(missing, "detail_msg")}, status_code=404)
    return FileResponse(page, headers={"Cache-Control": "no-cache"})


@router.websocket("/ws/rooms/{code}")
async def room_socket(websocket: WebSocket, code: str) -> None:
    service: RoomService = websocket.app.state.rooms
    origin, host = websocket.headers.get("origin"), websocket.headers.get("host", "")
    if origin is not None and not guard.same_origin(origin, host, websocket.url.scheme):
        await websocket.close(code=1008, reason="This server only talks to its own pages.")
        return
    await websocket.accept()
    try:
        hello = json.loads(await asyncio.wait_for(websocket.receive_text(), HELLO_S))
        token = hello.get("token") if isinstance(hello, dict) else None
        rooms = service.rooms
        rooms.guessing(client_of(websocket))
        try:
            version, doc = rooms.load(code)
        except NoRoom:
            rooms.missed(client_of(websocket))
            raise
        seat = rooms.seat_of(doc, token if isinstance(token, str) else None)
    except RoomError as err:
        await websocket.send_text(json.dumps({"type": "error", "status": err.status, **err.answer()}))
        await websocket.close(code=4000 + err.status)
        return
    except (asyncio.TimeoutError, ValueError, RecursionError, WebSocketDisconnect, RuntimeError):
        with contextlib.suppress(Exception):      # RecursionError: JSON nested too deeply to read
            await websocket.close(code=1008, reason="Say which seat you are first: {\"token\": ...}.")
        return
    await service.serve(websocket, doc["code"], seat, token)


# ---------------------------------------------------------------------- pushing and the clock
class Viewer:
    def __init__(self, websocket: WebSocket, code: str, seat: int | None, token: str | None = None):
        self.websocket, self.code, self.seat, self.token = websocket, code, seat, token
        self.queue: asyncio.Queue[str | None] = asyncio.Queue(maxsize=QUEUE)


class RoomService:
    """The rooms for one server process: its WebSockets by room, and the clock."""

    def __init__(self, rooms: Rooms, public_url: str | None = None):
        self.rooms = rooms
        self.public_url = public_url          # the address phones use (the QR codes point there)
        self.viewers: dict[str, set[Viewer]] = {}
        self.loop: asyncio.AbstractEventLoop | None = None
        rooms.store.subscribe(self.heard)

    def heard(self, message: dict) -> None:
        """A message from the store's channel (any thread): hand it to the event loop."""
        if self.loop is not None and not self.loop.is_closed():
            self.loop.call_soon_threadsafe(self.deliver, message)

    def deliver(self, message: dict) -> None:
        code = message.get("room")
        viewers = self.viewers.get(code)
        if not viewers:
            return
        if "suggest" in message:
            s = message["suggest"]
            text = json.dumps({"type": "suggestion", "from": s["from"], "move": s["move"], "text": s["text"]})
            found = self.rooms.store.load(code)
            if found is None:
                return
            names = [x["name"] for x in found[1]["seats"]]
            for v in list(viewers):
                if v.seat is not None and names[v.seat] in s["to"]:
                    self.put(v, text)
            return
        found = self.rooms.store.load(code)
        if found is None:
            return
        version, doc = found
        texts: dict[int | None, str] = {}
        for v in list(viewers):
            if v.token:                          # a seat moved before the start: its device follows it
                with contextlib.suppress(RoomError):
                    v.seat = self.rooms.seat_of(doc, v.token)
            if v.seat not in texts:
                texts[v.seat] = json.dumps(self.rooms.view_of(doc, version, v.seat), ensure_ascii=False)
            self.put(v, texts[v.seat])

    def put(self, viewer: Viewer, text: str) -> None:
        try:
            viewer.queue.put_nowait(text)
        except asyncio.QueueFull:          # a viewer this far behind only needs the newest view
            with contextlib.suppress(asyncio.QueueEmpty):
                while True:
                    viewer.queue.get_nowait()
            viewer.queue.put_nowait(text)

    async def serve(self, websocket: WebSocket, code: str, seat: int | None, token: str | None) -> None:
        self.loop = self.loop or asyncio.get_running_loop()
        viewer = Viewer(websocket, code, seat, token)
        self.viewers.setdefault(code, set()).add(viewer)
        try:
            self.rooms.connect(code, seat, +1, token)
            version, doc = self.rooms.load(code)
            self.put(viewer, json.dumps(self.rooms.view_of(doc, version, seat), ensure_ascii=False))
            sender = asyncio.create_task(self.send(viewer))
            receiver = asyncio.create_task(self.receive(viewer, token))
            await asyncio.wait({sender, receiver}, return_when=asyncio.FIRST_COMPLETED)
            for task in (sender, receiver):
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task
        finally:
            self.viewers.get(code, set()).discard(viewer)
            with contextlib.suppress(RoomError):
                self.rooms.connect(code, seat, -1, token)

    async def send(self, viewer: Viewer) -> None:
        while True:
            text = await viewer.queue.get()
            if text is None:
                await viewer.websocket.close()
                return
            await asyncio.wait_for(viewer.websocket.send_text(text), timeout=10)

    async def receive(self, viewer: Viewer, token: str | None) -> None:
        """A seat's device may act and suggest over its WebSocket too (a spectator only pings)."""
        with contextlib.suppress(WebSocketDisconnect, RuntimeError):
            while True:
                text = await viewer.websocket.receive_text()
                if len(text) > WS_MESSAGE_LIMIT:
                    await viewer.websocket.close(code=1009, reason="A room message is a move, at most 2 KB.")
                    return
                self.put(viewer, json.dumps(self.answer(viewer, token, text)))

    def answer(self, viewer: Viewer, token: str | None, text: str) -> dict[str, Any]:
        try:
            message = json.loads(text)
            kind = message.get("type") if isinstance(message, dict) else None
            if kind == "ping":
                return {"type": "pong", "now": self.rooms.now()}
            if kind in ("act", "suggest"):
                move = MoveIn.model_validate(message.get("move")).plain()
                given = message.get("id")
                if given is not None and not (isinstance(given, str) and 0 < len(given) <= 64):
                    bad_id = say("A move's id is a string of 1 to 64 characters.")
                    return {"type": "error", "status": 400, **RoomError(400, bad_id).answer()}
                if kind == "suggest":
                    return {"type": "suggested", "shown_to": self.rooms.suggest(viewer.code, token or "", move)}
                done = self.rooms.act(viewer.code, token or "", move, message.get("id"))
                return {"type": "acted", "id": message.get("id"), **done}
            return {"type": "error", "status": 400,              # another type, or JSON that is not an object
                    **RoomError(400, say("A room message is ping, act or suggest.")).answer()}
        except RoomError as err:
            return {"type": "error", "status": err.status, **err.answer(), "id": message.get("id")}
        except ValidationError as err:  # a move pydantic refuses: said as the HTTP routes say it (web/errors.py)
            return {"type": "error", "status": 400, **RoomError(400, invalid_request(err.errors(), "move")).answer()}
        except ValueError as err:     # bad JSON: the parser's words in the page's language (web/system_words.py)
            said = system_words(err) if isinstance(err, json.JSONDecodeError) else str(err)
            why = say("That message is not a move ({why}).", why=said if len(said) <= 120 else said[:120])
            return {"type": "error", "status": 400, **RoomError(400, why).answer()}
        except RecursionError:        # JSON nested a thousand deep: answered like any other bad message
            deep = say("That message is not a move (it is nested too deeply).")
            return {"type": "error", "status": 400, **RoomError(400, deep).answer()}

    async def run(self, tick_s: float = 0.25) -> None:
        """The clock: fire what is due, every ``tick_s`` seconds, until cancelled. Every few seconds
        this process also says it is alive, and forgets the connections of processes that are not."""
        self.loop = asyncio.get_running_loop()
        store, rooms = self.rooms.store, self.rooms
        beat = 0.0
        while True:
            try:
                if time.monotonic() >= beat:
                    store.heartbeat(rooms.process, ALIVE_S)
                    rooms.forget_dead(store.alive())     # the rooms somebody is connected to, only
                    store.prune(rooms.now())
                    beat = time.monotonic() + ALIVE_S / 3
                for code in rooms.due():                 # the rooms with a timer due, only, one at a time:
                    rooms.fire_room(code)                # the devices are answered between two rooms
                    await asyncio.sleep(0)
                rooms.sweep()                            # the rooms expired, only
            except Exception as err:  # never let the clock die
                print(f"warref serve: room clock failed: {err!r}")
            await asyncio.sleep(tick_s)

    def stop(self) -> None:
        for viewers in self.viewers.values():
            for v in viewers:
                with contextlib.suppress(asyncio.QueueFull):
                    v.queue.put_nowait(None)


def install(app: FastAPI, rooms: Rooms, public_url: str | None = None) -> RoomService:
    """Add the rooms' routes to ``app``; the caller runs ``service.run()`` while the app runs.
    ``public_url``: the server's address for phones (else the address the request came to)."""
    service = RoomService(rooms, public_url)
    app.state.rooms = service

    async def refused(request: Request, err: RoomError) -> JSONResponse:
        if isinstance(err, NoRoom):                 # a code no room has: one of this client's tries
            service.rooms.missed(client_of(request))
        return JSONResponse(err.answer(), status_code=err.status, headers=err.headers)

    app.add_exception_handler(RoomError, refused)
    app.include_router(router)
    return service


__all__ = ["RoomService", "install", "router"]
