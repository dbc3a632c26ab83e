"""What the server answers when it turns a request down (a status and one sentence): shared by the
dashboard's server (web/server.py's routes, web/keeper.py's game, web/bodies.py) and the pages that
teach warref a deck (web/teach.py)."""
from __future__ import annotations

from typing import Any

from referee.say import message_field


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
