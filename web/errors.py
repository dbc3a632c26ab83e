"""What the server answers when it turns a request down (a status and one sentence): shared by the
dashboard's server (web/server.py's routes, web/keeper.py's game, web/bodies.py), the pages that
teach warref a deck (web/teach.py), and, for FastAPI's own validation errors, the rooms' routes and
WebSocket (web/rooms_api.py) too."""
from __future__ import annotations

from typing import Any, Iterable

from referee.say import Decimal, Said, message_field, say, say_n


class Refused(Exception):
    """A request the server turns down with a status and one sentence."""

    def __init__(self, status: int, detail: str, headers: dict[str, str] | None = None,
                 detail_msg: dict | None = None):
        super().__init__(detail)
        self.status, self.detail, self.headers = status, detail, headers
        self.detail_msg = detail_msg       # the sentence's message when ``detail`` lost it (a refusal stored, read again)

    def body(self) -> dict[str, Any]:
        """The answer's body: the sentence, and its message (``detail_msg``) for the page's language."""
        return {"detail": self.detail, **({"detail_msg": self.detail_msg} if self.detail_msg
                                          else message_field(self.detail, "detail_msg"))}


# -- FastAPI's (pydantic's) validation errors as one sentence ------------------------------------------
SOURCES = ("body", "query", "path", "header", "cookie")      # where FastAPI says a value came from
WHOLE = {"int_type", "int_parsing", "int_from_float"}
NUMBER = {"float_type", "float_parsing"}
TRUTH = {"bool_type", "bool_parsing"}
LIST = {"list_type", "tuple_type", "set_type"}
OBJECT = {"dict_type", "model_type", "model_attributes_type"}


def field_name(loc: Iterable[Any], within: str = "") -> str:
    """A validation error's place as the request wrote it: ``limit``, ``move.slot``, ``npc_seats[0]``
    (FastAPI's ``body``/``query``/``path`` left out); ``within`` goes first (the WebSocket's ``move``)."""
    parts = list(loc)
    if parts and parts[0] in SOURCES:
        parts = parts[1:]
    out = within
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def number(value: Any) -> Any:
    """A limit from pydantic's ``ctx`` as the sentence says it: a whole number as one, else with the
    language's decimal mark."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    return int(value) if float(value).is_integer() else Decimal(repr(value))


def invalid_request(errors: list[dict[str, Any]], within: str = "") -> Said:
    """FastAPI's validation errors (a path or query parameter or a body field of the wrong type, out of
    range or missing) as one plain sentence for the first, built from its ``type`` and ``loc``, the
    field named as written (:func:`field_name`). A kind of error not listed here is said with pydantic's
    own words inside (English in every language)."""
    e = errors[0] if errors else {}
    kind, ctx = str(e.get("type", "")), e.get("ctx") or {}
    field = field_name(e.get("loc", ()), within)
    if kind == "json_invalid":
        return say("The request body is not JSON.")
    if not field:                           # the body as a whole
        if kind == "missing":
            return say("The request needs a body: a JSON object.")
        return say("The request body must be a JSON object.")
    if kind == "missing":
        return say("The request needs a value for {field}.", field=field)
    if kind in WHOLE:
        return say("The value of {field} must be a whole number.", field=field)
    if kind in NUMBER:
        return say("The value of {field} must be a number.", field=field)
    if kind == "finite_number":
        return say("The value of {field} must be a finite number.", field=field)
    if kind == "int_parsing_size":
        return say("The value of {field} is too long a number.", field=field)
    if kind in TRUTH:
        return say("The value of {field} must be true or false.", field=field)
    if kind == "string_type":
        return say("The value of {field} must be text.", field=field)
    if kind in LIST:
        return say("The value of {field} must be a list.", field=field)
    if kind in OBJECT:
        return say("The value of {field} must be a JSON object.", field=field)
    if kind == "string_too_short" and "min_length" in ctx:
        return say_n("The value of {field} must be at least {n} character long.",
                     "The value of {field} must be at least {n} characters long.", int(ctx["min_length"]), field=field)
    if kind == "string_too_long" and "max_length" in ctx:
        return say_n("The value of {field} must be at most {n} character long.",
                     "The value of {field} must be at most {n} characters long.", int(ctx["max_length"]), field=field)
    if kind == "too_short" and "min_length" in ctx:
        return say_n("The value of {field} must hold at least {n} item.",
                     "The value of {field} must hold at least {n} items.", int(ctx["min_length"]), field=field)
    if kind == "too_long" and "max_length" in ctx:
        return say_n("The value of {field} must hold at most {n} item.",
                     "The value of {field} must hold at most {n} items.", int(ctx["max_length"]), field=field)
    if kind == "string_pattern_mismatch" and "pattern" in ctx:
        return say("The value of {field} must match the pattern {pattern}.", field=field, pattern=str(ctx["pattern"]))
    if kind == "greater_than_equal" and "ge" in ctx:
        return say("The value of {field} must be at least {limit}.", field=field, limit=number(ctx["ge"]))
    if kind == "greater_than" and "gt" in ctx:
        return say("The value of {field} must be more than {limit}.", field=field, limit=number(ctx["gt"]))
    if kind == "less_than_equal" and "le" in ctx:
        return say("The value of {field} must be at most {limit}.", field=field, limit=number(ctx["le"]))
    if kind == "less_than" and "lt" in ctx:
        return say("The value of {field} must be less than {limit}.", field=field, limit=number(ctx["lt"]))
    return say("The value of {field} is not valid ({why}).", field=field, why=str(e.get("msg", kind)))
