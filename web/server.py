"""`warref serve`: the tablet dashboard's API and WebSocket (docs/dashboard-api.md): ``create_app``
and its routes. The current game is kept by web/keeper.py's ``GameKeeper`` (one game: web/session.py's
``Session``), pushed to the pages by web/hub.py's ``Hub``; request bodies are read by web/bodies.py.
"""
from __future__ import annotations

import asyncio
import contextlib
import hmac
import io
import json
import math
import os
import re
import time
from pathlib import Path
from typing import Any, Callable, Iterable

from fastapi import Depends, FastAPI, Request, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.staticfiles import StaticFiles
import segno
from starlette.exceptions import HTTPException
from starlette.websockets import WebSocketDisconnect

from referee import GAMES
from referee.entry import panel as entry_panel
from referee.say import message_field, say

from . import guard, rooms_api, teach
from .bodies import BodyLimit, JsonBody, JsonOrEmpty, answer_id
from .errors import Refused, invalid_request
from .hub import Viewer
from .keeper import GameKeeper
from .rooms import NPC_PAUSE_S, Rooms, open_store
from .store import Stale, Store

WS_MESSAGE_LIMIT = 1024          # what a viewer may send (it needs to send nothing); uvicorn caps frames too
PIN_SENTENCE = say("This needs the table's PIN (shown on the server's console).")
STATIC = Path(__file__).parent / "static"
NOT_ATTACHED = say("No camera is attached (start warref run or warref demo).")
NO_CAMERA = {"status": "off", "source": None, "fps": 0.0, "frame": None,
             "message": NOT_ATTACHED, **message_field(NOT_ATTACHED, "message_msg")}


def create_app(db_path: str | Path, pin: str, *, public_url: str | None = None,
               now: Callable[[], float] = time.time, tick_s: float = 0.25,
               static_dir: str | Path | None = None, live: Any = None,
               hosts: Iterable[str] | None = None, redis_url: str | None = None,
               npc_pause: float = NPC_PAUSE_S) -> FastAPI:
    """The dashboard app. ``now`` is the wall clock (injectable for tests); ``tick_s`` how often the
    background task looks at the clock; ``public_url`` the address shown on /api/address. ``live``
    (web/live.py's Live: a camera or the demo's feed) is run as a background task while the app runs.
    ``redis_url``: share Guerra rooms with other server processes through this Redis (web/rooms.py).
    ``hosts``: the names the server answers to (default: this machine's, ``guard.allowed_hosts``;
    ``["*"]``: any). ``npc_pause``: seconds a room's NPC waits before its move (so a person sees it)."""
    store = Store(db_path)
    keeper = GameKeeper(store, now)
    pin = str(pin)
    teaching = teach.Teaching(keeper.hub.broadcast, live)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI):
        async def ticker() -> None:
            while True:
                await asyncio.sleep(tick_s)
                try:
                    async with keeper.lock:
                        await caught_up()
                        keeper.tick()
                except Stale:             # another process's change landed first: looked at again next tick
                    pass
                except Exception as err:  # never let the clock task die
                    print(f"warref serve: clock tick failed: {err!r}")

        task = asyncio.create_task(ticker())
        room_clock = asyncio.create_task(room_service.run(tick_s))
        camera = asyncio.create_task(live.run(keeper)) if live is not None else None
        try:
            yield
        finally:
            teaching.stop(wait=2.0)
            if live is not None:
                live.stop()
            room_service.stop()
            for t in (task, room_clock, camera):
                if t is None:
                    continue
                t.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await t
            for viewer in list(keeper.hub.viewers):
                with contextlib.suppress(asyncio.QueueFull):
                    viewer.queue.put_nowait(None)

    # no /docs or /redoc: their pages load scripts from a CDN, which the CSP (and an offline table) forbids
    app = FastAPI(title="warref dashboard", lifespan=lifespan, docs_url=None, redoc_url=None,
                  description="The tablet dashboard's API: see docs/dashboard-api.md.")
    app.state.keeper = keeper
    app.state.store = store
    app.state.live = live
    app.state.teaching = teaching
    rooms = Rooms(open_store(db_path, redis_url), now=now, npc_pause=npc_pause)
    room_service = rooms_api.install(app, rooms, public_url)
    app.add_middleware(BodyLimit, larger=(("/api/teach/", teach.PHOTO_LIMIT),))
    app.add_middleware(guard.HostCheck, allowed_hosts=list(hosts) if hosts is not None
                       else guard.allowed_hosts(public_url=public_url))
    app.add_middleware(guard.SecurityHeaders)       # outermost: the Host refusal carries the headers too
    limits = guard.PinLimits(db_path, now=now)
    devices = guard.Devices(db_path)
    app.state.limits, app.state.devices = limits, devices

    @app.exception_handler(Refused)
    async def refused(request: Request, err: Refused) -> JSONResponse:
        return JSONResponse(err.body(), status_code=err.status, headers=err.headers)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, err: RequestValidationError) -> JSONResponse:
        """FastAPI's own refusal of a parameter or body field (the dashboard's routes and the rooms'):
        one sentence from the first error's type and place, with its message (web/errors.py)."""
        return JSONResponse(Refused(422, invalid_request(err.errors())).body(), status_code=422)

    @app.exception_handler(HTTPException)       # Starlette's: the router's 404 and 405 are not FastAPI's subclass
    async def http_error(request: Request, err: HTTPException) -> JSONResponse:
        detail = err.detail
        if err.status_code == 404 and detail == "Not Found":
            detail = say("There is nothing at {path}.", path=request.url.path)
        elif err.status_code == 405:
            detail = say("{method} is not allowed on {path}.", method=request.method, path=request.url.path)
        return JSONResponse({"detail": detail, **message_field(detail, "detail_msg")}, status_code=err.status_code,
                            headers=err.headers)

    def device_of(request: Request) -> int | None:
        return devices.find(guard.token_of(request.headers, request.cookies))

    async def pin_given(request: Request) -> None:
        """Dependency: the table's PIN in X-Warref-Pin, within the limits on wrong PINs (else 401 or 429)."""
        given = request.headers.get("x-warref-pin", "").strip()
        if not given:
            raise Refused(401, PIN_SENTENCE)
        client = guard.client_key(request.client.host if request.client else None)
        try:
            limits.check(client)
        except guard.Locked as err:
            raise Refused(429, err.text, {"Retry-After": str(math.ceil(err.seconds))}) from None
        if hmac.compare_digest(given.encode(), pin.encode()):
            limits.right(client)
            return
        wait = limits.wrong(client)
        raise Refused(401, say("This needs the table's PIN (shown on the server's console). Wait {wait} before trying "
                               "again.", wait=guard.wait_words(wait)) if wait else PIN_SENTENCE)

    async def paired(request: Request) -> None:
        """Dependency: a paired device, else the PIN (docs/dashboard-api.md, "Who may change a game").
        A device known by its cookie alone is a browser: its changes must come from these pages."""
        if device_of(request) is None:
            await pin_given(request)
        elif request.headers.get(guard.HEADER) is None:
            problem = guard.cookie_write_problem(request.method, request.headers, request.url.scheme)
            if problem:
                raise Refused(403, problem)

    PIN, PAIRED = [Depends(pin_given)], [Depends(paired)]   # a route's ``dependencies``

    async def caught_up() -> None:
        """Under ``keeper.lock``: the table as stored now. Another worker process changed it if its
        version moved on; loading it again reads every entry and replays from a checkpoint (about 80 ms
        at 5,000 entries on a busy 2-core machine), so it runs off the event loop, as changes do."""
        if keeper.store.stored_version() != keeper.store.version:
            await asyncio.to_thread(keeper.sync)

    async def apply_once(request: Request, kind: str, body: Any, change: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        """``change`` under the game's lock, applied once per id (``answer_id``, ``GameKeeper.once``)."""
        key = answer_id(request, body)
        async with keeper.lock:        # off the event loop: a correction replays the log from its entry
            return await asyncio.to_thread(keeper.change, key, kind, body, change)

    # -- pairing (web/guard.py) -------------------------------------------------------------------
    @app.post("/api/pair", dependencies=PIN)
    async def pair(request: Request, body: JsonOrEmpty) -> Response:
        name = body.get("name", "") if isinstance(body, dict) else ""
        if not isinstance(name, str) or len(name.strip()) > guard.NAME_LIMIT or not name.isprintable():
            raise Refused(422, say("A device's name is up to {most} printable characters.", most=guard.NAME_LIMIT))
        device, token = devices.pair(name.strip() or "A device")
        response = JSONResponse({"device": device, "token": token,
                                 "detail": f"This device is paired: it no longer needs the PIN. Send the token "
                                           f"in the {guard.HEADER} header from an API client."})
        response.set_cookie(guard.COOKIE, token, max_age=400 * 24 * 3600, httponly=True, samesite="strict",
                            secure=request.url.scheme == "https", path="/")
        return response

    @app.get("/api/devices", dependencies=PAIRED)
    async def list_devices(request: Request) -> dict[str, Any]:
        this = device_of(request)
        return {"devices": [{**d, "this": d["id"] == this} for d in devices.all()]}

    @app.delete("/api/devices/{device}", dependencies=PAIRED)
    async def revoke_device(device: str, request: Request) -> Response:
        this = device_of(request)
        if not (device.isascii() and device.isdigit()) or len(device) > 12 or not devices.revoke(int(device)):
            raise Refused(404, say("There is no paired device {device}.", device=repr(device[:20])))
        response = JSONResponse({"detail": "The device is unpaired: it needs the PIN again."})
        if this == int(device):
            response.delete_cookie(guard.COOKIE, path="/")
        return response

    # -- reading ---------------------------------------------------------------------------------
    @app.get("/api/catalog")
    async def catalog() -> list[dict[str, Any]]:
        return [{"id": g.id, "name": g.name, "min_players": g.min_players, "max_players": g.max_players,
                 "player_counts": list(g.allowed_counts()), "players_text": g.counts_text(),
                 "how_to_play": list(g.how_to_play), "words": dict(g.words),
                 "cards": g.cards_in_play(g.resolve_options(None)),
                 "options": [{"name": o.name, "label": o.label, "default": o.default, "help": o.help, "kind": o.kind,
                              "choices": list(o.choices), "choice_help": dict(o.choice_help or {}),
                              "choice_labels": dict(o.choice_labels or {}),
                              "can_be_off": o.can_be_off, "minimum": o.minimum} for o in g.options],
                 "entry": entry_panel(g)}
                for g in GAMES.values()]

    async def fresh(read: Callable[[], Any]) -> Any:
        """``read`` of the table as stored now (another process may have changed it: GameKeeper.sync)."""
        async with keeper.lock:
            await caught_up()
            return read()

    @app.get("/api/state")
    async def state() -> dict[str, Any]:
        return await fresh(keeper.view)

    @app.get("/api/games")
    async def games() -> list[dict[str, Any]]:
        current = store.current_id()
        return [{"id": r.id, "game": r.game, "name": GAMES[r.game].name if r.game in GAMES else r.game,
                 "players": r.players, "created": r.created, "finished": r.finished, "result": r.result,
                 "current": r.id == current}
                for r in store.games()]

    @app.get("/api/games/{game_id}")
    async def one_game(game_id: int) -> dict[str, Any]:
        return await fresh(lambda: keeper.game_view(game_id))

    @app.get("/api/games/{game_id}/history")
    async def game_history(game_id: int, before: int | None = None, limit: int | None = None) -> dict[str, Any]:
        return await fresh(lambda: keeper.history(game_id, before, limit))

    def address(request: Request) -> str:
        if public_url:
            return public_url
        return str(request.base_url).rstrip("/")

    @app.get("/api/address")
    async def get_address(request: Request) -> dict[str, str]:
        return {"url": address(request), "qr": "/api/qr.svg"}

    @app.get("/api/qr.svg")
    async def qr(request: Request) -> Response:
        out = io.BytesIO()
        segno.make(address(request), error="m").save(out, kind="svg", scale=8, border=2)
        return Response(out.getvalue(), media_type="image/svg+xml")

    # -- changing --------------------------------------------------------------------------------
    @app.post("/api/games", dependencies=PAIRED)
    async def new_game(request: Request, body: JsonBody) -> dict[str, Any]:
        return await apply_once(request, "games", body, lambda: keeper.new_game(body))

    @app.post("/api/events", dependencies=PAIRED)
    async def events(request: Request, body: JsonBody) -> dict[str, Any]:
        if not isinstance(body, dict):
            raise Refused(400, say("An event must be a JSON object such as {example}.",
                                   example='{"type": "flip", "seat": "Alex", "card": "8S"}'))
        return await apply_once(request, "events", body, lambda: keeper.submit(body))

    @app.post("/api/undo", dependencies=PAIRED)
    async def undo(request: Request, body: JsonOrEmpty) -> dict[str, Any]:
        return await apply_once(request, "undo", body, keeper.undo)

    @app.post("/api/corrections", dependencies=PAIRED)
    async def corrections(request: Request, body: JsonBody) -> dict[str, Any]:
        return await apply_once(request, "corrections", body, lambda: keeper.correct(body))

    @app.post("/api/clock", dependencies=PAIRED)
    async def clock(request: Request, body: JsonBody) -> dict[str, Any]:
        return await apply_once(request, "clock", body, lambda: keeper.clock_action(body))

    # -- the camera (docs/dashboard-api.md, "Camera") -------------------------------------------------
    @app.get("/api/camera")
    async def camera() -> dict[str, Any]:
        if live is None:
            return dict(NO_CAMERA)
        return live.camera_json()

    async def _camera_jpeg(kind: str) -> Response:
        if live is None:
            raise Refused(404, NOT_ATTACHED)
        jpeg = await asyncio.to_thread(live.preview_jpeg if kind == "preview" else live.photo_jpeg)
        if jpeg is None:
            raise Refused(404, say("The camera has not sent a picture yet."))
        return Response(jpeg, media_type="image/jpeg", headers={"Cache-Control": "no-store"})

    @app.get("/api/preview.jpg")
    async def preview() -> Response:
        return await _camera_jpeg("preview")

    # the camera's photo (its latest frame, nothing drawn). The URL, summary and operation id are the
    # API's (GET /openapi.json), kept as they were when the handler was named after the URL
    @app.get("/api/snapshot.jpg", summary="Snapshot", operation_id="snapshot_api_snapshot_jpg_get")
    async def camera_photo() -> Response:
        return await _camera_jpeg("photo")

    @app.get("/api/zones")
    async def get_zones() -> dict[str, Any]:
        return {"seats": await fresh(keeper.zones)}

    @app.put("/api/zones", dependencies=PAIRED)
    async def put_zones(body: JsonBody) -> dict[str, Any]:
        async with keeper.lock:
            seats = await asyncio.to_thread(keeper.change, None, "zones", body, lambda: keeper.set_zones(body))
        if live is not None:
            live.zones_changed(seats)
        return {"seats": seats}

    @app.get("/api/photos/{game_id}/{name}")
    async def photo(game_id: int, name: str) -> Response:
        m = re.fullmatch(r"(\d{1,12})\.jpg", name)
        jpeg = store.photo(game_id, int(m.group(1))) if m and 0 < game_id < 2 ** 63 else None
        if jpeg is None:
            raise Refused(404, say("There is no photo {name} for game {game}.", name=name, game=game_id))
        return Response(jpeg, media_type="image/jpeg", headers={"Cache-Control": "public, max-age=86400"})

    # -- teaching a deck (web/teach.py; docs/dashboard-api.md, "Teaching a deck") -----------------------
    @app.get("/api/decks")
    async def get_decks() -> dict[str, Any]:
        return await asyncio.to_thread(teaching.decks_json)

    @app.delete("/api/decks/{name}", dependencies=PAIRED)
    async def deck_forget(name: str) -> dict[str, Any]:
        return teaching.forget(name)

    @app.post("/api/teach", dependencies=PAIRED)
    async def teach_start(body: JsonBody) -> dict[str, Any]:
        return teaching.start(body)

    @app.get("/api/teach/{name}")
    async def teach_view(name: str) -> dict[str, Any]:
        return teaching.view(name)

    @app.delete("/api/teach/{name}", dependencies=PAIRED)
    async def teach_drop(name: str) -> dict[str, Any]:
        return teaching.drop(name)

    @app.put("/api/teach/{name}/cards/{code}", dependencies=PAIRED)
    async def teach_card(request: Request, name: str, code: str) -> dict[str, Any]:
        return await teaching.upload(name, code, await request.body(), request.query_params.get("file"))

    @app.put("/api/teach/{name}/photos/{filename}", dependencies=PAIRED)
    async def teach_photo(request: Request, name: str, filename: str) -> dict[str, Any]:
        return await teaching.upload_named(name, filename, await request.body())

    @app.post("/api/teach/{name}/cards/{code}/take", dependencies=PAIRED)
    async def teach_take(name: str, code: str) -> dict[str, Any]:
        return await teaching.take(name, code)

    @app.get("/api/teach/{name}/cards/{file}")
    async def teach_card_png(request: Request, name: str, file: str) -> Response:
        m = re.fullmatch(r"([A-Za-z0-9]+)\.png", file)
        if m is None:
            where = f"/api/teach/{name}/cards/{file}"
            raise Refused(404, say("There is nothing at {path} (cards are CODE.png).", path=where))
        width = request.query_params.get("w", "")
        png = await asyncio.to_thread(teaching.card_png, name, m.group(1), int(width) if width.isascii() and width.isdigit() else None)
        # a URL with ?v= (the picture's time) names one picture for good; without it, the newest
        cache = "private, max-age=86400" if request.query_params.get("v") else "no-store"
        return Response(png, media_type="image/png", headers={"Cache-Control": cache})

    @app.get("/api/teach/{name}/sheet.png")
    async def teach_sheet_png(name: str) -> Response:
        png = await asyncio.to_thread(teaching.sheet_png, name)
        return Response(png, media_type="image/png", headers={"Cache-Control": "no-store"})

    @app.post("/api/teach/{name}/train", dependencies=PAIRED)
    async def teach_train(name: str, body: JsonOrEmpty) -> dict[str, Any]:
        return teaching.train(name, body)

    # -- pushing ---------------------------------------------------------------------------------
    @app.websocket("/ws")
    async def ws(websocket: WebSocket) -> None:
        origin = websocket.headers.get("origin")
        if origin is not None and not guard.same_origin(origin, websocket.headers.get("host"), websocket.url.scheme):
            await websocket.close(code=1008, reason="This dashboard only talks to its own pages.")
            return
        await websocket.accept()
        viewer = Viewer(websocket)
        async with keeper.lock:
            await caught_up()
            keeper.hub.add(viewer, json.dumps({"type": "hello", "view": keeper.view()}, ensure_ascii=False))

        async def sender() -> None:
            while True:
                text = await viewer.queue.get()
                if text is None:
                    await websocket.close()
                    return
                await asyncio.wait_for(websocket.send_text(text), timeout=10)

        send_task = asyncio.create_task(sender())
        receive_task = asyncio.create_task(_drain(websocket))
        try:
            await asyncio.wait({send_task, receive_task}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            keeper.hub.remove(viewer)
            for task in (send_task, receive_task):
                task.cancel()
            for task in (send_task, receive_task):
                with contextlib.suppress(BaseException):
                    await task

    app.mount("/", _Static(Path(static_dir) if static_dir else STATIC), name="static")
    return app


SETTINGS_VARIABLE = "WARREF_SERVE_SETTINGS"   # how `serve --workers` hands its settings to each worker


def app_from_environment() -> FastAPI:
    """The app of one worker of `warref serve --workers N`: its settings come in an environment variable."""
    return create_app(**json.loads(os.environ[SETTINGS_VARIABLE]))



class _Static:
    """web/static/ at / (index.html for /), looked for at each request: the folder may come later."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.files: StaticFiles | None = None

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http":
            return
        if not self.folder.is_dir():
            missing = say("The dashboard's pages ({path}) are not installed.", path="web/static/")
            return await JSONResponse({"detail": missing, **message_field(missing, "detail_msg")},
                                      status_code=404)(scope, receive, send)
        if self.files is None:
            self.files = StaticFiles(directory=self.folder, html=True)
        await self.files(scope, receive, send)


async def _drain(websocket: WebSocket) -> None:
    """Read (and ignore) what a viewer sends, until it goes away."""
    with contextlib.suppress(WebSocketDisconnect, RuntimeError):
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                return
            if len(message.get("text") or message.get("bytes") or "") > WS_MESSAGE_LIMIT:
                await websocket.close(code=1009, reason="Viewers send nothing but a short ping.")
                return
