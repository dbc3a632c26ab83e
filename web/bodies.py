"""What the dashboard's server reads from a request's body: at most ``MAX_BODY`` bytes of it
(``BodyLimit``), its JSON (the route dependencies ``JsonBody`` and ``JsonOrEmpty``: a body that is
not JSON gets a sentence) and the id a change carries (``answer_id``; docs/dashboard-api.md, "Ids")."""
from __future__ import annotations

import json
import re
from typing import Annotated, Any, Callable

from fastapi import Depends, Request
from fastapi.responses import JSONResponse

from referee.say import say, sentence_of

from .errors import Refused
from .system_words import json_words

MAX_BODY = 64 * 1024
ANSWER_ID = re.compile(r"^[A-Za-z0-9._:-]{1,64}$")


class BodyLimit:
    """Pure ASGI middleware: reads a request body up to MAX_BODY (``larger``: more for the paths
    starting with a prefix, such as photos of cards) and answers 413 beyond it."""

    def __init__(self, app: Any, limit: int = MAX_BODY, larger: tuple[tuple[str, int], ...] = ()):
        self.app, self.limit, self.larger = app, limit, tuple(larger)

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        path = scope.get("path") or ""
        limit = next((n for prefix, n in self.larger if path.startswith(prefix)), self.limit)
        length = dict(scope.get("headers") or []).get(b"content-length")

        def refuse(status: int, sentence: str):
            return JSONResponse(Refused(status, sentence).body(), status_code=status)(scope, receive, send)

        def too_big():
            return refuse(413, say("The request is too large (the limit is {kb} KB).", kb=limit // 1024))

        if length is not None:
            try:
                if int(length) > limit:
                    return await too_big()
            except ValueError:
                return await refuse(400, say("The Content-Length header is not a number."))
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                return await too_big()
            chunks.append(chunk)
            if not message.get("more_body"):
                break
        body, sent = b"".join(chunks), False

        async def replay() -> dict:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


async def json_body(request: Request) -> Any:
    """Dependency: the JSON body (else 400 with a sentence: none, not JSON, nested too deeply)."""
    raw = await request.body()
    if not raw.strip():
        raise Refused(400, say("The request needs a JSON body."))
    try:
        return json.loads(raw, parse_constant=_no_constant)
    except RecursionError:
        raise Refused(400, say("The request body is nested too deeply to be an event.")) from None
    except ValueError as err:
        if not isinstance(err, (json.JSONDecodeError, UnicodeDecodeError)):
            raise Refused(400, sentence_of(err)) from None       # _no_constant's sentence, with its message
        if isinstance(err, json.JSONDecodeError):   # the JSON parser's words in the page's language too
            raise Refused(400, say("The request body is not JSON ({error} at line {line}, column {column}).",
                                   error=json_words(err.msg), line=err.lineno, column=err.colno)) from None
        raise Refused(400, say("The request body is not JSON.")) from None


async def json_or_empty(request: Request) -> Any:
    """Dependency: the JSON body, or {} when the request has none."""
    return await json_body(request) if (await request.body()).strip() else {}


JsonBody = Annotated[Any, Depends(json_body)]           # a route's parameter ``body: JsonBody``
JsonOrEmpty = Annotated[Any, Depends(json_or_empty)]


def answer_id(request: Request, body: Any) -> str | None:
    """The id a change carries (docs/dashboard-api.md, "Ids"): ``"id"`` in its JSON body (taken out
    of it), else the ``Idempotency-Key`` header; None without one."""
    given = body.pop("id", None) if isinstance(body, dict) else None
    if given is None:
        given = request.headers.get("idempotency-key")
    if given is None:
        return None
    if not isinstance(given, str) or not ANSWER_ID.match(given):
        raise Refused(422, say('An id is 1 to 64 letters, digits, ".", "_", ":" or "-" (a UUID will do), sent as "id" '
                               "in the body or in the Idempotency-Key header (got {got}).", got=repr(str(given)[:80])))
    return given


def _no_constant(name: str) -> Any:
    raise ValueError(say("The request body is not plain JSON ({name} is not a number JSON knows).", name=name))
