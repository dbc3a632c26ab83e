"""What one seat may see of a Guerra table, and the moves it may make, without a single card of
another seat's hidden hand.

The referee never holds a hidden hand, so the table that deals (a simulator, a server) passes every
hand to :func:`seat_view`, which keeps only what the seat may see:

- its own hand, once it has looked at it (the first receiver abstains without looking; in Guerra
  Fria nobody looks: the hand is all ``None``) and the cards it laid face down this confronto;
- in Fim de Guerra, the hands of its partners (the team checks all its hands before deciding);
- everything public from the referee (``GuerraState.public_view``): the score, the stakes and the
  Ofensiva on the table, every card shown this confronto (a face-down card is ``None``), the hands
  a failed troca showed, how many cards each seat holds, the stock.

:func:`moves_for` turns the referee's ``legal_events`` into :class:`Move` objects that name a card
by its place in the hand (``slot``), so a seat that may not look at its cards chooses blindly.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

BACK = "BACK"
KINDS = ("cut", "abstain", "troca", "fim", "answer", "turn")


@dataclass(frozen=True)
class SeatView:
    seat: str
    seats: tuple[str, ...]                 # in playing order (teams alternate)
    side: int                              # 0: seats 1, 3, 5; 1: seats 2, 4, 6
    teams: bool
    scores: tuple[int, int]                # by side
    value: int                             # the confronto's accepted value
    carry: int
    mode: str                              # normal | fim | fria
    phase: str
    fim_side: int | None
    pending: tuple[int, int] | None        # (raising side, proposed value)
    last_raise: int | None                 # the side of the last accepted Ofensiva
    rodada: int                            # 0, 1, 2
    leader: str
    to_play: str | None
    plays: tuple[tuple[str, str | None], ...]            # this rodada so far; None = face down
    results: tuple[int | None, ...]                      # rodadas won by side (None: tied)
    played: tuple[tuple[int, str, str | None], ...]      # every card of this confronto
    hand: tuple[str | None, ...]           # own hand; None for a card the seat may not look at
    looked: bool
    my_down: tuple[str, ...]               # own cards laid face down this confronto
    known: tuple[tuple[str, tuple[str, ...]], ...]       # other seats' cards this seat knows
    counts: tuple[tuple[str, int], ...]
    out_cards: tuple[str, ...]             # shown this confronto: played face up, runs swapped away
    stock: int
    abstentions: int
    trocas_done: bool
    failed_troca: tuple[str, ...]
    first_receiver: str
    dealer: str
    confrontos: int
    deck: tuple[tuple[str, int], ...]      # every card code of the deck in play and its number

    # -- helpers for players -------------------------------------------------------------------
    def side_of(self, seat: str) -> int:
        return self.seats.index(seat) % 2

    @property
    def my_score(self) -> int:
        return self.scores[self.side]

    @property
    def their_score(self) -> int:
        return self.scores[1 - self.side]

    def count(self, seat: str) -> int:
        return dict(self.counts)[seat]

    def known_of(self, seat: str) -> tuple[str, ...]:
        return dict(self.known).get(seat, ())

    def values(self) -> dict[str, int]:
        return dict(self.deck)

    def unseen(self) -> list[str]:
        """Cards this seat has not seen this confronto: in other hands, face down, or in the stock."""
        seen = set(self.out_cards) | set(self.my_down) | {c for c in self.hand if c is not None}
        for _, cards in self.known:
            seen.update(cards)
        return [c for c, _ in self.deck if c not in seen]

    def hidden(self) -> dict[str, int]:
        """How many cards of each seat's hand this seat does not know (itself included in Guerra Fria)."""
        out = {}
        for s, n in self.counts:
            if s == self.seat:
                out[s] = sum(1 for c in self.hand if c is None)
            else:
                out[s] = max(0, n - len(self.known_of(s)))
        return out


@dataclass(frozen=True)
class Move:
    """One choice: ``kind`` is flip, raise, accept, refuse, call, abstain, cut or pass (do nothing
    where the rules allow it). A flip names a card by ``slot`` in the hand, face ``down`` or up."""
    kind: str
    slot: int | None = None
    down: bool = False
    parity: str | None = None
    choice: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The move as plain data, without the fields it leaves at their defaults."""
        return {k: v for k, v in (("kind", self.kind), ("slot", self.slot), ("down", self.down),
                                  ("parity", self.parity), ("choice", self.choice))
                if v is not None and v is not False}

    def event(self, seat: str, hand: Sequence[str]) -> dict[str, Any] | None:
        """The referee event this move is at the table (None for pass); ``hand``: the real cards."""
        if self.kind == "pass":
            return None
        if self.kind == "flip":
            return {"type": "flip", "seat": seat, "card": BACK if self.down else hand[self.slot]}
        if self.kind == "call":
            return {"type": "call", "seat": seat, "cards": " ".join(hand), "parity": self.parity}
        if self.kind == "cut":
            return {"type": "cut", "seat": seat, "choice": self.choice}
        return {"type": self.kind, "seat": seat}


def seat_view(state: Any, seat: str, hands: Mapping[str, Sequence[str]],
              down: Mapping[str, Sequence[str]] | None = None, looked: bool = True) -> SeatView:
    """What ``seat`` may see: ``state`` is the referee's GuerraState, ``hands`` every seat's real
    cards (only the seat's own, and its partners' in Fim de Guerra, are read), ``down`` the cards
    each seat laid face down this confronto (only its own are read), ``looked`` whether the seat
    has looked at its hand (False for the first receiver while it may still abstain blindly)."""
    pub = state.public_view()
    seats = tuple(pub["seats"])
    side = seats.index(seat) % 2
    mode = pub["mode"]
    own = list(hands.get(seat, ()))
    sees_own = looked and mode != "fria"
    hand = tuple(own) if sees_own else tuple(None for _ in own)
    known = {s: tuple(c) for s, c in pub["known"].items() if s != seat}
    if mode == "fim" and pub["fim_side"] == side and sees_own:
        for s in seats:
            if s != seat and seats.index(s) % 2 == side:
                known[s] = tuple(hands.get(s, ()))
    pending = pub["pending"]
    return SeatView(
        seat=seat, seats=seats, side=side, teams=pub["teams"], scores=tuple(pub["scores"]),
        value=pub["value"], carry=pub["carry"], mode=mode, phase=pub["phase"], fim_side=pub["fim_side"],
        pending=(pending["side"], pending["value"]) if pending else None, last_raise=pub["last_raise"],
        rodada=pub["rodada"], leader=pub["leader"], to_play=pub["to_play"],
        plays=tuple((s, c) for s, c in pub["plays"]), results=tuple(pub["results"]),
        played=tuple(tuple(x) for x in pub["played"]), hand=hand, looked=sees_own,
        my_down=tuple((down or {}).get(seat, ())), known=tuple(sorted(known.items())),
        counts=tuple(pub["counts"].items()), out_cards=tuple(pub["out_cards"]), stock=pub["stock"],
        abstentions=pub["abstentions"], trocas_done=pub["trocas_done"],
        failed_troca=tuple(pub["failed_troca"]), first_receiver=pub["first_receiver"], dealer=pub["dealer"],
        confrontos=pub["confrontos"], deck=tuple(pub["deck"].items()))


def moves_for(state: Any, seat: str, hand: Sequence[str], kind: str) -> list[Move]:
    """The legal moves of one kind of decision, from the referee's ``legal_events`` (so none is
    illegal): ``turn`` (a card face up or down, or an Ofensiva), ``answer`` (accept, refuse, raise
    again), ``fim`` (accept or refuse Fim de Guerra), ``troca`` (call even or odd, or pass),
    ``abstain`` (abstain or pass), ``cut`` (up or down, or pass when the cut is optional).
    Empty when that decision is not the seat's now."""
    if kind not in KINDS:
        raise ValueError(f"no decision called {kind!r}: {', '.join(KINDS)}")
    legal = state.legal_events(seat, list(hand))
    by_type: dict[str, list[dict[str, Any]]] = {}
    for e in legal:
        by_type.setdefault(e["type"], []).append(e)
    out: list[Move] = []
    if kind == "turn":
        if state.pending or state.phase not in ("deal", "play"):
            return []
        flips = by_type.get("flip", [])
        up = {e["card"] for e in flips if e["card"] != BACK}
        out += [Move("flip", slot=i) for i, c in enumerate(hand) if c in up]
        if any(e["card"] == BACK for e in flips):
            out += [Move("flip", slot=i, down=True) for i in range(len(hand))]
        if out and "raise" in by_type:
            out.append(Move("raise"))
    elif kind in ("answer", "fim"):
        if (kind == "fim") != (state.phase == "decide"):
            return []
        out += [Move(k) for k in ("accept", "refuse") if k in by_type]
        if kind == "answer" and "raise" in by_type and state.pending:
            out.append(Move("raise"))
    elif kind == "troca":
        out += [Move("call", parity=e["parity"]) for e in by_type.get("call", [])]
        if out:
            out.append(Move("pass"))
    elif kind == "abstain":
        if "abstain" in by_type:
            out = [Move("abstain"), Move("pass")]
    elif kind == "cut":
        out += [Move("cut", choice=e["choice"]) for e in by_type.get("cut", [])]
        if out and state.phase != "cut":
            out.append(Move("pass"))
    return out
