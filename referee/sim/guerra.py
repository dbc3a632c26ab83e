"""A simulated Guerra table: real shuffled cards, random players, fed to the referee.

The simulator is the table. It shuffles and deals real cards (from the top or the bottom, as the
cutter chooses), lets random players abstain, call trocas por sequencia and roll the die, raise and
answer Ofensivas, decide on Fim de Guerra and play their cards face up or face down in turn. It
keeps the score itself (a second reading of the rule document, written apart from
referee/games/guerra.py) and feeds the referee only what the table shows. After every event it
checks the referee's card counts, after every confronto the score, at the end the winner: any
disagreement raises Mismatch.

For the generic statistics, a GameRecord's ``battles`` are confrontos, ``wars`` tied rodadas,
``rounds`` rodadas and ``actions`` Ofensivas accepted. In team games the winning team is recorded
under its first seat (P1 for the team of P1, P3, P5; P2 for the team of P2, P4, P6).
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Iterator

from ..digital import DigitalGuerra
from ..events import Abstain, Event, Accept, Call, Cut, Flip, Raise, Refuse, Roll, TimeUp
from ..games.guerra import Guerra
from ..npc import Move, check_level, make_npc, moves_for, seat_view
from ..say import say
from ..table import Table
from .base import GameRecord, Mismatch, run_chunks

SAFETY_CONFRONTOS = 500


class GuerraSim:
    def __init__(self, players: list[str], rng: random.Random, options: dict[str, Any] | None = None,
                 raise_rate: float = 0.08, cover_rate: float = 0.2, abstain_rate: float = 0.15,
                 troca_rate: float = 0.7, fim_accept: float = 0.6, cut_rate: float = 0.5,
                 time_up_at: int | None = None):
        self.rng = rng
        self.names = list(players)
        self.n = len(players)
        self.table = Table("guerra", players, options)
        self.opt = self.table.options
        deck = Guerra.deck_for(self.n, self.opt)
        self.value = {c.code: c.value for c in deck.cards}
        self.cards = [c.code for c in deck.cards for _ in range(c.count)]
        self.raise_rate, self.cover_rate = raise_rate, cover_rate
        self.abstain_rate, self.troca_rate = abstain_rate, troca_rate
        self.fim_accept, self.cut_rate = fim_accept, cut_rate
        self.time_up_at = time_up_at
        self.score = [0, 0]
        self.record = GameRecord(players=list(players))

    def side(self, s: str) -> int:
        return self.names.index(s) % 2

    def send(self, event: Event) -> list:
        self.record.events += 1
        return self.table.submit(event)

    def check(self, hands: dict[str, list[str]], when: str) -> None:
        counts = self.table.state.counts()
        mine = {s: len(h) for s, h in hands.items()}
        if counts != mine:
            raise Mismatch(f"{when}: referee counts {counts}, real cards {mine}")

    # ------------------------------------------------------------------ one match
    def run(self) -> GameRecord:
        dealer = 0
        carry = 1
        while max(self.score) < 6:
            if self.record.battles >= SAFETY_CONFRONTOS:
                self.record.finished = False
                return self.record
            if self.time_up_at is not None and self.record.battles + 1 == self.time_up_at:
                self.send(TimeUp())
                # between two confrontos time up ends the game at once (before the first, the
                # first confronto is still played); level sides under sudden death play on
                if self.record.battles and (self.score[0] != self.score[1] or self.opt["timed_tie"] == "shared"):
                    break
            winner, pts, three_ties = self.confronto(dealer, carry)
            carry = 2 if three_ties and 5 not in self.score else 1 if not three_ties else carry
            if winner is not None:
                self.score[winner] += pts
            self.record.battles += 1
            state = self.table.state
            if list(state.scores) != self.score:
                raise Mismatch(f"after confronto {self.record.battles}: referee score {state.scores}, "
                               f"the table's {self.score}")
            dealer = (dealer + 1) % self.n
            if self.time_up_at is not None and self.record.battles >= self.time_up_at:
                if self.score[0] != self.score[1] or self.opt["timed_tie"] == "shared":
                    break
        state = self.table.state
        if not state.over:
            raise Mismatch(f"score {self.score} but the referee's game goes on")
        if max(self.score) >= 6:
            win = 0 if self.score[0] >= 6 else 1
        else:
            win = None if self.score[0] == self.score[1] else (0 if self.score[0] > self.score[1] else 1)
        members = [s for s in self.names if win is None or self.side(s) == win]
        if state.result["winners"] != members:
            raise Mismatch(f"referee winners {state.result['winners']}, the table's {members}")
        self.record.winner = None if win is None else self.names[win]
        self.record.winners = members
        self.record.reason = state.result["reason"]
        return self.record

    def confronto(self, dealer: int, carry: int) -> tuple[int | None, int, bool]:
        """Play one confronto: (winning side or None, points, three ties)."""
        rng = self.rng
        at5 = [s for s in (0, 1) if self.score[s] == 5]
        mode = "fria" if len(at5) == 2 else "fim" if at5 else "normal"
        first = (dealer + 1) % self.n
        pack = list(self.cards)
        rng.shuffle(pack)
        if self.opt["cut"] == "required" or rng.random() < self.cut_rate:
            choice = rng.choice(["up", "down"])
            self.send(Cut(self.names[first], choice))
            if choice == "up":
                pack.reverse()           # dealt from the bottom
        hands: dict[str, list[str]] = {}
        for k in range(self.n):
            s = self.names[(first + k) % self.n]
            hands[s] = [pack.pop(0) for _ in range(3)]
        self.check(hands, "after the deal")
        if mode == "fim":
            decider = rng.choice([s for s in self.names if self.side(s) == at5[0]])
            if rng.random() >= self.fim_accept:
                self.send(Refuse(decider))
                return 1 - at5[0], 1, False
            self.send(Accept(decider))
        failed: set[str] = set()
        if mode == "normal":
            s0 = self.names[first]
            abst = 0
            while abst < 2 and rng.random() < self.abstain_rate:
                abst += 1
                for _ in range(abst):            # the 2nd abstencao throws away two hands
                    hands[s0] = [pack.pop(0) for _ in range(3)]
                self.send(Abstain(s0))
            for s in self.names:
                while s not in failed and len(pack) >= 3 and self.is_run(hands[s]) and rng.random() < self.troca_rate:
                    parity = rng.choice(["even", "odd"])
                    self.send(Call(s, " ".join(hands[s]), parity))
                    die = rng.randint(1, 6)
                    self.send(Roll(s, die))
                    if (die % 2 == 0) == (parity == "even"):
                        hands[s] = [pack.pop(0) for _ in range(3)]
                    else:
                        failed.add(s)
        value = carry if mode == "normal" else 1
        last_raise: int | None = None
        leader = first
        results: list[int | None] = []
        for rodada in range(3):
            order = [self.names[(leader + k) % self.n] for k in range(self.n)]
            played: list[tuple[str, int]] = []
            first_covered = False
            for k, s in enumerate(order):
                if mode == "normal":
                    out = self.maybe_raise(value, last_raise)
                    if out is not None:
                        kind, v, side = out
                        if kind == "refused":
                            return side, v, False
                        value, last_raise = v, side
                cover = (rodada > 0 and hands[s] and rng.random() < self.cover_rate
                         and not (k == self.n - 1 and first_covered) and s not in failed)
                card = hands[s].pop(rng.randrange(len(hands[s])))
                if cover:
                    if k == 0:
                        first_covered = True
                    self.send(Flip(s, "BACK"))
                    played.append((s, 0))
                else:
                    self.send(Flip(s, card))
                    played.append((s, self.value[card]))
                if k < self.n - 1:       # after the last card the referee may be dealing already
                    self.check(hands, f"rodada {rodada + 1}")
            self.record.rounds += 1
            best = [max(v for s, v in played if self.side(s) == t) for t in (0, 1)]
            if best[0] == best[1]:
                results.append(None)
                self.record.wars += 1
            else:
                w = 0 if best[0] > best[1] else 1
                results.append(w)
                leader = self.names.index(next(s for s, v in played if self.side(s) == w and v == best[w]))
            r = results
            if len(r) == 2:
                if r[0] is not None and (r[1] is None or r[1] == r[0]):
                    return self.points(mode, at5, r[0], value)
                if r[0] is None and r[1] is not None:
                    return self.points(mode, at5, r[1], value)
            if len(r) == 3:
                if r[2] is not None:
                    return self.points(mode, at5, r[2], value)
                if r[0] is not None:
                    return self.points(mode, at5, r[0], value)
                return None, 0, True
        raise AssertionError("unreachable")

    @staticmethod
    def points(mode: str, at5: list[int], side: int, value: int) -> tuple[int, int, bool]:
        if mode == "fim":
            return side, (1 if side == at5[0] else 2), False
        return side, value, False

    def is_run(self, hand: list[str]) -> bool:
        v = sorted(self.value[c] for c in hand)
        return v == list(range(v[0], v[0] + 3))

    def maybe_raise(self, value: int, last_raise: int | None):
        """Perhaps an Ofensiva, and its answers: None, ("accepted", value, side) or ("refused", points,
        raiser's side)."""
        rng = self.rng
        if rng.random() >= self.raise_rate:
            return None
        candidates = [s for s in self.names if self.side(s) != last_raise]
        if value >= 6 or not candidates:
            return None
        raiser = rng.choice(candidates)
        side = self.side(raiser)
        self.send(Raise(raiser))
        proposed = value + 1
        while True:
            answerer = rng.choice([s for s in self.names if self.side(s) != side])
            roll = rng.random()
            if roll < 0.25:
                self.send(Refuse(answerer))
                return "refused", value, side
            if roll < 0.45 and proposed < 6:
                self.send(Raise(answerer))
                self.record.actions += 1
                value, side, proposed = proposed, 1 - side, proposed + 1
                continue
            self.send(Accept(answerer))
            self.record.actions += 1
            return "accepted", proposed, side


def simulate_guerra(players: list[str], seed: Any, options: dict[str, Any] | None = None,
                    **kwargs: Any) -> GameRecord:
    return GuerraSim(players, random.Random(seed), options, **kwargs).run()


# ---------------------------------------------------------------------- NPC matches
@dataclass
class NpcResult:
    """One NPC match: ``winner`` is the winning side (0: seats 1, 3, 5; 1: seats 2, 4, 6) or None
    for a shared win; ``levels`` the NPC level at each seat."""
    players: list[str]
    levels: list[str]
    winner: int | None
    winners: list[str]
    scores: list[int]
    reason: str
    confrontos: int
    events: int
    finished: bool = True
    log: list[dict] = field(default_factory=list, repr=False)


def seat_levels(levels: list[str] | str, players: int) -> list[str]:
    """One NPC level per seat, from one per seat, or one per side (the side of seats 1, 3, 5 first),
    or one for everybody."""
    if isinstance(levels, str):
        levels = [x for x in levels.replace(" ", "").split(",") if x]
    levels = [check_level(x) for x in levels]
    if len(levels) == players:
        return levels
    if len(levels) == 2:
        return [levels[i % 2] for i in range(players)]
    if len(levels) == 1:
        return levels * players
    raise ValueError(say("give one NPC level per seat ({players}), one per side (2) or one for all, not {n}",
                         players=players, n=len(levels)))


class NpcMatch:
    """A Guerra match of NPCs on real shuffled cards, every event through the real referee.

    The table is ``referee.digital.DigitalGuerra``: it shuffles and deals (from the top, or the
    bottom after a cut up), rolls the die of each troca, and keeps each seat's hand, the cards laid
    face down, those shown and those thrown away. Each decision goes to the first seat that may make
    it; its NPC decides from ``seat_view`` (only what its seat may see) among the moves
    ``moves_for`` takes from the referee's ``legal_events``. After every move the referee's card
    counts must match the real hands and every card of the deck must be somewhere (Mismatch
    otherwise). Randomness: the table draws on ``random.Random(f"{seed}:table")``, each NPC on its
    own ``random.Random(f"{seed}:{seat}")``: the same seed plays the same match.
    """

    def __init__(self, players: list[str], levels: list[str] | str, seed: Any,
                 options: dict[str, Any] | None = None, max_confrontos: int = SAFETY_CONFRONTOS):
        self.game = DigitalGuerra(players, seed, options)
        self.table = self.game.table
        self.names = self.game.names
        self.levels = seat_levels(levels, len(self.names))
        self.npcs = {s: make_npc(level, random.Random(f"{seed}:{s}")) for s, level in zip(self.names, self.levels)}
        self.max_confrontos = max_confrontos

    @property
    def state(self):
        return self.table.state

    @property
    def hands(self) -> dict[str, list[str]]:
        return self.game.hands

    @property
    def down(self) -> dict[str, list[str]]:
        return self.game.down

    @property
    def pack(self) -> list[str]:
        return self.game.pack

    def ask(self, seat: str, kind: str, looked: bool = True) -> Move | None:
        moves = moves_for(self.state, seat, self.hands[seat], kind)
        if not moves:
            return None
        view = seat_view(self.state, seat, self.hands, self.down, looked=looked)
        return self.npcs[seat].decide(view, kind, moves)

    def run(self) -> NpcResult:
        finished = True
        game = self.game
        while not game.over:
            if self.state.confrontos >= self.max_confrontos:
                finished = False
                break
            kind, seats = game.waiting()
            seat = seats[0]
            move = self.ask(seat, kind, game.looked(seat))
            if move is None:
                raise Mismatch(f"{seat} has no legal move: {self.state.prompt().text}")
            game.act(seat, move)
            try:
                game.check()
            except AssertionError as e:
                raise Mismatch(str(e)) from None
        state = self.state
        res = state.result or {}
        winner = None if not res.get("winner") else state.side_names.index(res["winner"])
        return NpcResult(self.names, self.levels, winner, list(res.get("winners", [])), list(state.scores),
                         res.get("reason", "unfinished"), state.confrontos, game.events, finished,
                         list(self.table.log))


def play_npc_match(players: list[str], levels: list[str] | str, seed: Any,
                   options: dict[str, Any] | None = None) -> NpcResult:
    return NpcMatch(players, levels, seed, options).run()


def _npc_chunk(args: tuple) -> list[NpcResult]:
    players, levels, seed, start, stop, options, swap = args
    out = []
    for i in range(start, stop):
        lv = list(levels)
        if swap and i % 2:
            lv = lv[1:] + lv[:1] if len(lv) == 2 else [lv[(k + 1) % len(lv)] for k in range(len(lv))]
        r = play_npc_match(players, lv, f"{seed}:{i}", options)
        r.log = []
        out.append(r)
    return out


def npc_games(players: list[str], levels: list[str], games: int, seed: Any,
              options: dict[str, Any] | None = None, jobs: int = 1, swap: bool = True,
              chunk: int = 20) -> Iterator[list[NpcResult]]:
    """Many NPC matches, yielded in chunks in match order; match i is seeded f"{seed}:{i}" (so the
    results do not depend on ``jobs``). With ``swap``, every other match moves each level one seat
    on (with two sides: the sides change places), so no level keeps the first lead."""
    levels = seat_levels(levels, len(players))
    tasks = [(list(players), levels, seed, a, min(a + chunk, games), options, swap) for a in range(0, games, chunk)]
    yield from run_chunks(_npc_chunk, tasks, jobs)
