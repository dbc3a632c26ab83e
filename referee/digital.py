"""Guerra played on screens: the table deals, the seats decide (pure: no I/O, no clock).

``DigitalGuerra`` is the table a simulator or a server needs: it shuffles and deals real cards
(from a seeded ``random.Random``, so a seed and the list of moves replay the same game), keeps
every hand, rolls the die of each troca, and feeds the real referee (``Table("guerra", ...)``) only
what the table shows. At any moment it says which decision the table waits for and from which
seats (:meth:`waiting`), which moves a seat has (:meth:`moves`), what a seat may see
(:meth:`view`, built by ``referee.npc.seat_view``), and what a seat does when its time runs out
(:meth:`timeout_move`: an answer is a refusal, a card is the weakest one face up).

The decisions of a confronto come in the order of the rule document: the cut (the first receiver,
before the deal), Fim de Guerra (any seat of the side at 5), the first receiver's abstenções (it has
not looked at its cards), each seat's troca por sequência in turn (only a seat holding a run is
asked), then the rodadas: the seat to play, or any seat of the side that owes an answer to an
Ofensiva. ``referee.sim.guerra.NpcMatch`` drives this class with NPCs; ``web.rooms`` with phones.
"""
from __future__ import annotations

import random
from typing import Any, Mapping, Sequence

from .errors import IllegalEvent
from .games.guerra import Guerra
from .npc import Move, SeatView, moves_for, seat_view
from .rulings import Ruling
from .say import say
from .table import Table

class DigitalGuerra:
    def __init__(self, players: Sequence[str], seed: Any, options: Mapping[str, Any] | None = None):
        self.seed = seed
        self.table = Table("guerra", list(players), options)
        self.names = list(self.table.players)
        self.n = len(self.names)
        self.rng = random.Random(f"{seed}:table")
        deck = Guerra.deck_for(self.n, self.table.options)
        self.cards = [c.code for c in deck.cards for _ in range(c.count)]
        self.values = {c.code: c.value for c in deck.cards}
        self.moves_made: list[dict[str, Any]] = []      # (seat, move) in order: with the seed, the game
        self.rulings: list[Ruling] = []                  # every ruling the referee gave
        self.events = 0
        self._new_confronto()

    # ------------------------------------------------------------------ reading the table
    @property
    def state(self):
        return self.table.state

    @property
    def over(self) -> bool:
        return bool(self.state.over)

    def waiting(self) -> tuple[str, list[str]] | None:
        """(the decision the table waits for, the seats that may make it, the first one to ask
        first), or None when the game is over. Kinds are those of ``referee.npc.KINDS``."""
        if self.over:
            return None
        state = self.state
        if self.stage == "cut":
            return "cut", [self.first]
        if self.stage == "fim":
            side = state.fim_side
            return "fim", [s for s in self._from(self.first) if self._side(s) == side]
        if self.stage == "abstain":
            return "abstain", [self.first]
        if self.stage == "troca":
            return "troca", [self._from(self.first)[self.troca_at]]
        if state.pending:
            side = 1 - state.pending["side"]
            after = self.names[(self.names.index(state.pending["seat"]) + 1) % self.n]
            return "answer", [s for s in self._from(after) if self._side(s) == side]
        return "turn", [state.to_play()]

    def moves(self, seat: str) -> list[Move]:
        """The moves ``seat`` may make now (empty when the table waits for somebody else)."""
        w = self.waiting()
        if w is None or seat not in w[1]:
            return []
        return moves_for(self.state, seat, self.hands[seat], w[0])

    def looked(self, seat: str) -> bool:
        """Whether ``seat`` has looked at its hand: the first receiver may abstain only blindly."""
        return not (seat == self.first and self.stage in ("cut", "abstain"))

    def view(self, seat: str) -> SeatView:
        return seat_view(self.state, seat, self.hands, self.down, looked=self.looked(seat))

    def timeout_move(self, seat: str) -> Move | None:
        """What happens when ``seat``'s time runs out: an answer (an Ofensiva, Fim de Guerra) is a
        refusal, a card is the seat's weakest card face up; a cut, an abstenção or a troca is not
        made (or, where the cut is required, the cut is down: the deal from the top)."""
        moves = self.moves(seat)
        if not moves:
            return None
        for m in moves:
            if m.kind in ("refuse", "pass"):
                return m
        ups = [m for m in moves if m.kind == "flip" and not m.down]
        if ups:
            return min(ups, key=lambda m: (self.values[self.hands[seat][m.slot]], m.slot))
        cuts = [m for m in moves if m.kind == "cut" and m.choice == "down"]
        return cuts[0] if cuts else moves[0]

    # ------------------------------------------------------------------ playing
    def act(self, seat: str, move: Move | Mapping[str, Any], timed_out: bool = False) -> list[Ruling]:
        """Make ``seat``'s move; IllegalEvent (nothing changed) when it is not one of its moves now.
        ``timed_out``: the move is the timer's (``timeout_move``), and the rulings say so first."""
        move = move if isinstance(move, Move) else Move(**dict(move))
        w = self.waiting()
        if w is None:
            raise IllegalEvent("The game is over.")
        if seat not in self.names:
            raise IllegalEvent(say("There is no seat {seat} at this table.", seat=repr(seat)))
        if seat not in w[1]:
            raise IllegalEvent(say("It is not {seat}'s decision now: the table waits for {waiting} ({kind}).",
                                   seat=seat, waiting=" or ".join(w[1]), kind=w[0]))
        if move not in self.moves(seat):
            raise IllegalEvent(say("{seat} cannot do that now ({move}).", seat=seat, move=move.kind))
        before = len(self.rulings)
        kind = w[0]
        if timed_out:
            self.rulings.append(Ruling("timeout", self.timeout_text(seat, kind, move),
                                       {"seat": seat, "decision": kind, "move": move.to_json()}))
        self.moves_made.append({"seat": seat, "move": move.to_json()})
        if kind == "cut":
            if move.kind == "cut":
                self._send(move.event(seat, []))
                if move.choice == "up":
                    self.pack.reverse()              # dealt from the bottom
            self._deal()
        elif kind == "abstain":
            if move.kind == "abstain":
                self.abstained += 1
                self.thrown += self.hands[seat]
                if self.abstained == 2:              # the next hand is thrown away too
                    self.thrown += [self.pack.pop(0) for _ in range(3)]
                self.hands[seat] = [self.pack.pop(0) for _ in range(3)]
                self._send(move.event(seat, []))
            else:
                self.stage = "troca"
        elif kind == "troca":
            if move.kind == "call":
                self._send(move.event(seat, self.hands[seat]))
                die = self.rng.randint(1, 6)
                self._send({"type": "roll", "seat": seat, "die": die})
                if (die % 2 == 0) == (move.parity == "even"):
                    self.up += self.hands[seat]      # the run shown leaves the confronto
                    self.hands[seat] = [self.pack.pop(0) for _ in range(3)]
            else:
                self.troca_at += 1
        elif move.kind == "flip":
            event = move.event(seat, self.hands[seat])
            card = self.hands[seat].pop(move.slot)
            (self.down[seat] if move.down else self.up).append(card)
            self._send(event)
        else:
            self._send(move.event(seat, self.hands[seat]))
        self._advance()
        return self.rulings[before:]

    def timeout_text(self, seat: str, kind: str, move: Move) -> str:
        """What the timer did for ``seat``, said as the timer's, never as the seat's own choice."""
        if move.kind == "flip":
            card = self.hands[seat][move.slot]
            what = (say("the weakest card, {number}, is played face up", number=self.values[card]) if not move.down
                    else say("a card is played face down"))
        elif kind == "fim":
            what = say("Fim de Guerra is refused") if move.kind == "refuse" else say("Fim de Guerra: {move}", move=move.kind)
        elif kind == "answer":
            what = say("the Ofensiva is refused") if move.kind == "refuse" else say("the Ofensiva: {move}", move=move.kind)
        elif kind == "troca":
            what = say("no troca")
        elif kind == "abstain":
            what = say("no abstenção")
        elif kind == "cut":
            what = say("no cut: the deal is from the top")
        else:
            what = move.kind
        return say("Time ran out for {seat}: {what}.", seat=seat, what=what)

    def replay(self, moves: Sequence[Mapping[str, Any]]) -> None:
        """Make the moves of a saved game again (each as ``{"seat": ..., "move": {...}}``, with
        ``"by": "timer"`` for a move the timer made)."""
        for m in moves:
            self.act(m["seat"], m["move"], timed_out=m.get("by") == "timer")

    def check(self) -> None:
        """No card created or lost, and the referee counts what the seats hold (AssertionError)."""
        everything = sorted(self.pack + self.up + self.thrown
                            + [c for s in self.names for c in self.hands[s] + self.down[s]])
        if everything != sorted(self.cards):
            raise AssertionError(f"cards created or lost: {len(everything)} of {len(self.cards)}")
        if self.dealt and not self.over:
            mine = {s: len(h) for s, h in self.hands.items()}
            if self.state.counts() != mine:
                raise AssertionError(f"referee counts {self.state.counts()}, real hands {mine}")
            if sorted(f.code for f in self.state.out_cards) != sorted(self.up):
                raise AssertionError(f"referee saw {[f.code for f in self.state.out_cards]}, "
                                     f"the table shows {self.up}")

    # ------------------------------------------------------------------ inside
    def _side(self, seat: str) -> int:
        return self.names.index(seat) % 2

    def _from(self, seat: str) -> list[str]:
        i = self.names.index(seat)
        return self.names[i:] + self.names[:i]

    def _send(self, event: dict) -> None:
        self.rulings += self.table.submit(event)     # an illegal event here is a bug: let it raise
        self.events += 1

    def _new_confronto(self) -> None:
        self.confronto = self.state.confrontos
        self.pack = list(self.cards)
        self.rng.shuffle(self.pack)
        self.hands: dict[str, list[str]] = {s: [] for s in self.names}
        self.down: dict[str, list[str]] = {s: [] for s in self.names}
        self.up: list[str] = []
        self.thrown: list[str] = []
        self.first = self.state.first_receiver()
        self.abstained = 0
        self.troca_at = 0
        self.dealt = False
        self.stage = "cut"
        self._advance()

    def _deal(self) -> None:
        for s in self._from(self.first):
            self.hands[s] = [self.pack.pop(0) for _ in range(3)]
        self.dealt = True
        self.stage = "fim"

    def _advance(self) -> None:
        """Move past every decision nobody can make now (no cut offered, no run to swap ...)."""
        while not self.over:
            if self.state.confrontos != self.confronto:
                self._new_confronto()
                return
            if self.stage == "cut":
                if moves_for(self.state, self.first, [], "cut"):
                    return
                self._deal()
            elif self.stage == "fim":
                if self.state.phase == "decide":
                    return
                self.stage = "abstain" if self.state.mode == "normal" else "play"
            elif self.stage == "abstain":
                if moves_for(self.state, self.first, self.hands[self.first], "abstain"):
                    return
                self.stage = "troca"
            elif self.stage == "troca":
                order = self._from(self.first)
                while self.troca_at < self.n and not moves_for(self.state, order[self.troca_at],
                                                               self.hands[order[self.troca_at]], "troca"):
                    self.troca_at += 1
                if self.troca_at < self.n:
                    return
                self.stage = "play"
            else:
                return
