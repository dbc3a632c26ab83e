"""Guerra: points, rodadas, Ofensivas and the endgame (2 players, or teams 2x2 and 3x3).

The referee sees the cards played in each rodada at their seat (a face-down card is BACK) and the
decisions entered on the dashboard: raises and their answers, trocas por sequência (the run shown,
the even/odd call, the die), abstenções, the cut. It never sees a hidden hand: it keeps how many
cards each player holds, and the cards a failed troca showed to the table. Readings of the rule
document, and warref's choices where it is silent, are in docs/guerra.md.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from typing import Any

from ..deck import Deck, Face, load_deck
from ..errors import BadEvent, IllegalEvent, SetupError
from ..events import Abstain, Accept, Call, Cut, Event, Flip, Raise, Refuse, Roll, TimeUp, parse_event
from ..game import Game, SeatedState
from ..options import Option
from ..rulings import Ruling
from ..say import Card, Names, Said, say, say_n, to_translate

HAND_SIZE = 3
TARGET = 6          # points that win the game
MAX_VALUE = 6       # the most a confronto can be worth
FIM = 5             # points at which Fim de Guerra starts
BACK = "BACK"
ORDINALS = ("1st", "2nd", "3rd")


_NTH = (say("1st"), say("2nd"), say("3rd"))     # made once: a message is never changed


def nth(rodada: int):
    """The rodada's ordinal as a message ("1st"), so each language says it its own way."""
    return _NTH[rodada]

OPTIONS = (
    Option("deck", "auto", to_translate("Which deck is played."), choices=("auto", "basic", "advanced"),
           choice_help={"auto": to_translate("the 40-card deck for 2 players and 2x2, the 46-card advanced deck "
                                             "for 3x3"),
                        "basic": to_translate("the 40-card deck, 1-10 in four suits"),
                        "advanced": to_translate("the 46-card deck, adding 11 and 12 in three suits")},
           label=to_translate("Deck"),
           choice_labels={"auto": to_translate("Chosen by the number of players"),
                          "basic": to_translate("Basic, 40 cards"), "advanced": to_translate("Advanced, 46 cards")}),
    Option("cut", "optional", to_translate("Whether the referee waits for the cut before each confronto."),
           choices=("optional", "required"),
           choice_help={"optional": to_translate("the cut may be entered before the deal, or left out"),
                        "required": to_translate("nothing else happens in a confronto until the cut is entered")},
           label=to_translate("The cut"),
           choice_labels={"optional": to_translate("Optional"), "required": to_translate("Required")}),
    Option("timed_tie", "shared", to_translate("What happens when the sides have the same points at the end of "
                                               "a timed game."), choices=("shared", "sudden_death"),
           choice_help={"shared": to_translate("the sides share the win"),
                        "sudden_death": to_translate("confrontos go on until one side scores")},
           label=to_translate("A tie when time is up"),
           choice_labels={"shared": to_translate("Shared win"),
                          "sudden_death": to_translate("Play on until one side scores")}),
)

PARITY = {"even": 0, "par": 0, "odd": 1, "impar": 1, "ímpar": 1}
SPOKEN = {1: "1 (ace)"}


_NORMALIZED: dict[str, str] = {}     # codes as sent -> as the deck names them (most are the same)


def normalize(code: str) -> str:
    """1 for A, 11 for J, 12 for Q, with or without a suit: '1S' -> 'AS', '12' -> 'Q'."""
    found = _NORMALIZED.get(code) if type(code) is str else None
    if found is None:
        found = _normalize(code)
        if type(code) is str and len(_NORMALIZED) < 4096:
            _NORMALIZED[code] = found
    return found


def _normalize(code: str) -> str:
    key = str(code).strip().upper().replace(" ", "")
    for num, letter in (("12", "Q"), ("11", "J"), ("1", "A")):
        if key == num or (key.startswith(num) and key[len(num):] in ("C", "D", "H", "S")):
            return letter + key[len(num):]
    return key


def played_card(face: Face | None):
    """A card played, as a rodada's end says it: by its number, or "face-down card"."""
    return say("face-down card") if face is None else Card(face.code, face.label, face.value)


def points(n: int) -> str:
    return say_n("{n} point", "{n} points", n)


def confronto_decided(results: list[int | None]) -> tuple[bool, int | None]:
    """(whether a confronto is over, the winning side or None for three ties) from its rodadas'
    results so far (a side, or None for a tied rodada): the rule document's tie rules."""
    r = results
    if len(r) == 2:
        if r[0] is not None and r[1] in (r[0], None):
            return True, r[0]
        if r[0] is None and r[1] is not None:
            return True, r[1]
        return False, None
    if len(r) == 3:
        if r[2] is not None:
            return True, r[2]
        return True, r[0]      # r[0] and r[1] differ, or all three tied (None)
    return False, None


@dataclass(slots=True)
class Player:
    name: str
    side: int
    hand: int = 0
    out: bool = False                                   # never set: nobody leaves a game of Guerra
    known: list[Face] = field(default_factory=list)     # shown by a failed troca, still in hand
    failed_troca: bool = False


class GuerraState(SeatedState):
    UNKNOWN_EXTRA = ""
    GAME = "Guerra"
    # every card of this confronto as the table saw it: (rodada index, seat, code or None face down)
    played: tuple[tuple[int, str, str | None], ...] = ()

    def __init__(self, game: "Guerra", players: list[str], options: dict[str, Any]):
        self.game = game
        self.options = options
        self.deck: Deck = game.deck_for(len(players), options)
        self.seats = list(players)
        self.players = {n: Player(n, i % 2) for i, n in enumerate(players)}
        self._lower = {n.lower(): n for n in players}
        self.teams = len(players) > 2
        self.side_names = [Names(players[s::2]) for s in (0, 1)]
        self.scores = [0, 0]
        self.dealer = 0                       # seat index; the first seat named deals first
        self.confrontos = 0                   # confrontos finished
        self.carry = 1                        # what the next ordinary confronto starts at
        self.ofensivas = 0
        self.tied_rodadas = 0
        self.time_up = False
        self.result: dict[str, Any] | None = None
        self._start_confronto()

    # ------------------------------------------------------------------ views
    def side_of(self, seat: str) -> int:
        return self.players[seat].side

    def side_n(self, side: int) -> int:
        """How many players a side has: the count a sentence about the side agrees with (Alex scores,
        Alex and Sam score)."""
        return len(self.side_names[side].names)

    def counts(self) -> dict[str, int]:
        return {n: p.hand for n, p in self.players.items()}

    def score(self) -> dict[str, int]:
        return {self.side_names[s]: self.scores[s] for s in (0, 1)}

    def snapshot(self) -> dict[str, Any]:
        return {
            "players": {n: {"hand": p.hand, "known": [f.code for f in p.known], "failed": p.failed_troca}
                        for n, p in self.players.items()},
            "scores": list(self.scores), "dealer": self.dealer, "confrontos": self.confrontos,
            "carry": self.carry, "mode": self.mode, "phase": self.phase, "value": self.value,
            "pending": self.pending, "last_raise": self.last_raise, "cut": self.cut_choice,
            "abstentions": self.abstentions, "stock": self.stock, "troca": self.troca,
            "rodada": self.rodada, "leader": self.leader,
            "plays": [[s, f.code if f else None] for s, f in self.plays],
            "results": list(self.results), "out_cards": [f.code for f in self.out_cards],
            "time_up": self.time_up, "result": self.result, "ofensivas": self.ofensivas,
            "tied_rodadas": self.tied_rodadas,
        }

    def next_seat(self, i: int) -> int:
        return (i + 1) % len(self.seats)

    def order(self) -> list[str]:
        i = self.seats.index(self.leader)
        return self.seats[i:] + self.seats[:i]

    def to_play(self) -> str | None:
        seats, k = self.seats, len(self.plays)          # order()[k], without building the order
        n = len(seats)
        return seats[(seats.index(self.leader) + k) % n] if k < n else None

    def first_receiver(self) -> str:
        return self.seats[self.next_seat(self.dealer)]

    def prompt(self) -> Ruling:
        if self.over:
            return Ruling("prompt", say("The game is over."), self._prompt_data([]))
        # the sentences of the common prompts are said when read (referee/rulings.py), of the table as it is now
        dealer, cutter = self.seats[self.dealer], self.first_receiver()
        if self.phase == "cut":
            text = partial(say, to_translate("Confronto {number}: {dealer} shuffles; {cutter} cuts and chooses up or "
                                             "down."), number=self.confrontos + 1, dealer=dealer, cutter=cutter)
            waiting = [cutter]
        elif self.phase == "decide":
            side = self.fim_side
            text = say_n("Fim de Guerra: {side} has 5 points and looks at the hand: accept (win: +1 and the "
                         "game; lose: the other side +2) or refuse (the other side +1).",
                         "Fim de Guerra: {side} have 5 points and look at all their hands: accept (win: +1 "
                         "and the game; lose: the other side +2) or refuse (the other side +1).",
                         self.side_n(side), side=self.side_names[side])
            waiting = [s for s in self.seats if self.side_of(s) == side]
        elif self.troca:
            text = say("{seat} rolls the die for the troca ({parity} called).", seat=self.troca["seat"],
                       parity=say(self.troca["parity"]))
            waiting = [self.troca["seat"]]
        elif self.pending:
            answer = 1 - self.pending["side"]
            text = partial(self._answer_text, self.side_names[answer], self.pending["value"])
            waiting = [s for s in self.seats if self.side_of(s) == answer]
        else:
            nxt = self.to_play()
            # said when read (referee/rulings.py), of the table as it is now
            if self.phase == "deal":
                text = partial(self._deal_text, self.mode, self.confrontos + 1, self.value, dealer, self.rodada, nxt)
            elif not self.plays:
                text = partial(say, to_translate("{nth} rodada: {seat} plays."), nth=nth(self.rodada), seat=nxt)
            else:
                text = partial(say, to_translate("{seat} plays."), seat=nxt)
            waiting = [nxt]
        return Ruling("prompt", text, self._prompt_data(waiting))

    def _prompt_data(self, waiting: list[str]) -> dict[str, Any]:
        return {"phase": self.phase, "mode": self.mode, "confronto": self.confrontos + 1, "rodada": self.rodada + 1,
                "value": self.value, "score": self.score(), "waiting": waiting}

    @staticmethod
    def _answer_text(side: Names, value: int) -> Said:
        """The prompt to answer an Ofensiva to ``value``."""
        return (say("{side}: accept the Ofensiva ({points}), refuse it, or raise to {higher}.",
                    side=side, points=points(value), higher=value + 1) if value < MAX_VALUE else
                say("{side}: accept the Ofensiva ({points}) or refuse it.", side=side, points=points(value)))

    @staticmethod
    def _deal_text(mode: str, number: int, value: int, dealer: str, rodada: int, seat: str) -> Said:
        head = (say("Confronto {number}, worth {points}", number=number, points=points(value))
                if mode == "normal" else
                say("Confronto {number} (Guerra Fria: nobody looks at their cards)", number=number)
                if mode == "fria" else say("Confronto {number} (Fim de Guerra accepted)", number=number))
        return say("{head}: {dealer} deals 3 cards each. {nth} rodada: {seat} plays first.", head=head,
                   dealer=dealer, nth=nth(rodada), seat=seat)

    def public_view(self) -> dict[str, Any]:
        """What every seat may know, as plain data: the score, the stakes, the cards seen this
        confronto (face-down cards as None), the hands a failed troca showed, the card counts. No
        hidden hand is in it (the referee never holds one)."""
        return {
            "seats": list(self.seats), "sides": [self.side_of(s) for s in self.seats], "teams": self.teams,
            "side_names": list(self.side_names), "scores": list(self.scores), "value": self.value,
            "carry": self.carry, "mode": self.mode, "phase": self.phase, "fim_side": self.fim_side,
            "pending": dict(self.pending) if self.pending else None, "last_raise": self.last_raise,
            "rodada": self.rodada, "leader": self.leader, "to_play": None if self.over else self.to_play(),
            "plays": [(s, f.code if f else None) for s, f in self.plays], "results": list(self.results),
            "played": list(self.played), "out_cards": [f.code for f in self.out_cards],
            "known": {n: [f.code for f in p.known] for n, p in self.players.items() if p.known},
            "failed_troca": [n for n, p in self.players.items() if p.failed_troca],
            "counts": self.counts(), "stock": self.stock, "abstentions": self.abstentions,
            "trocas_done": self.trocas_done, "troca": dict(self.troca) if self.troca else None,
            "dealer": self.seats[self.dealer], "first_receiver": self.first_receiver(),
            "cut": self.cut_choice, "confrontos": self.confrontos, "time_up": self.time_up, "over": self.over,
            "deck": {c.code: c.value for c in self.deck.cards},
        }

    def legal_events(self, seat: str, hand: list[str] | None = None) -> list[dict[str, Any]]:
        """Every event ``seat`` may send now, each one checked by ``verify``: its cards face up (from
        ``hand``, the cards it holds, which the referee does not know) or face down, an Ofensiva, an
        answer, an abstenção, a troca (when ``hand`` is a run; even and odd), the die of its troca
        (1-6) and the cut (up and down). ``time_up`` and ``undo`` belong to no seat and are left out."""
        if self.over or str(seat).strip().lower() not in self._lower:
            return []
        seat = self._lower[str(seat).strip().lower()]
        out: list[dict[str, Any]] = []
        candidates: list[dict[str, Any]] = [{"type": "flip", "seat": seat, "card": c} for c in hand or []]
        if self.players[seat].hand > 0:
            candidates.append({"type": "flip", "seat": seat, "card": BACK})
        candidates += [{"type": k, "seat": seat} for k in ("raise", "accept", "refuse", "abstain")]
        if hand is not None and len(hand) == HAND_SIZE:
            candidates += [{"type": "call", "seat": seat, "cards": " ".join(hand), "parity": p}
                           for p in ("even", "odd")]
        candidates += [{"type": "roll", "seat": seat, "die": d} for d in range(1, 7)]
        candidates += [{"type": "cut", "seat": seat, "choice": c} for c in ("up", "down")]
        for c in candidates:
            try:
                self.verify(parse_event(c))
            except IllegalEvent:
                continue
            out.append(c)
        return out

    # ------------------------------------------------------------------ a new confronto
    def _start_confronto(self) -> None:
        n = len(self.seats)
        for p in self.players.values():
            p.hand = HAND_SIZE
            p.known = []
            p.failed_troca = False
        at5 = [s for s in (0, 1) if self.scores[s] == FIM]
        self.mode = "fria" if len(at5) == 2 else "fim" if at5 else "normal"
        self.fim_side = at5[0] if self.mode == "fim" else None
        self.value = self.carry if self.mode == "normal" else 1
        self.pending: dict[str, Any] | None = None
        self.last_raise: int | None = None     # the side of the last Ofensiva accepted
        self.cut_choice: str | None = None
        self.abstentions = 0
        self.trocas_done = False
        self.stock = self.deck.size - HAND_SIZE * n
        self.troca: dict[str, Any] | None = None
        self.rodada = 0
        self.leader = self.first_receiver()
        self.plays: list[tuple[str, Face | None]] = []
        self.played = ()
        self.results: list[int | None] = []
        self.out_cards: list[Face] = []        # played face up or thrown away this confronto
        if self.options["cut"] == "required":
            self.phase = "cut"
        else:
            self.phase = "decide" if self.mode == "fim" else "deal"

    def _after_cut_phase(self) -> str:
        return "decide" if self.mode == "fim" else "deal"

    # ------------------------------------------------------------------ checking
    def _no_such_event(self, event: Event) -> str:
        if event.TYPE == "flips":
            return say("Guerra has no {kind} event (Guerra is played in turn: one flip at a time).", kind=event.TYPE)
        return say("Guerra has no {kind} event.", kind=event.TYPE)

    def _cut_first(self):
        return say("First the cut: {seat} cuts and chooses up or down.", seat=self.first_receiver())

    def _busy(self) -> None:
        """Refuse anything else while the table owes an answer, a roll, a cut or a decision."""
        if self.phase == "cut":
            raise IllegalEvent(self._cut_first())
        if self.phase == "decide":
            raise IllegalEvent(say_n("First {side} decides on Fim de Guerra: accept or refuse.",
                                     "First {side} decide on Fim de Guerra: accept or refuse.",
                                     self.side_n(self.fim_side), side=self.side_names[self.fim_side]))
        if self.troca:
            raise IllegalEvent(say("First {seat} rolls the die for the troca por sequência.", seat=self.troca["seat"]))
        if self.pending:
            other = 1 - self.pending["side"]
            raise IllegalEvent(say_n("First the Ofensiva to {value} is answered: {side} accepts, refuses or raises.",
                                     "First the Ofensiva to {value} is answered: {side} accept, refuse or raise.",
                                     self.side_n(other), value=self.pending["value"], side=self.side_names[other]))

    def _read(self, code: str) -> Face:
        face = self.deck.read(normalize(code))
        if face.kind != "number":
            raise IllegalEvent(say("{card} is not a Guerra card.", card=Card(face.code, face.name)))
        return face

    def _in_hands(self) -> list[Face]:
        return [f for p in self.players.values() for f in p.known]

    def _verify_flip(self, e: Flip) -> None:
        p = self._player(e.seat)
        self._busy()
        nxt = self.to_play()
        if p.name != nxt:
            raise IllegalEvent(say("Not {seat}'s turn: {next} plays now in the {nth} rodada.", seat=p.name, next=nxt,
                                   nth=nth(self.rodada)))
        if normalize(e.card) == BACK:
            if self.rodada == 0:
                raise IllegalEvent(say("In the 1st rodada cards are always played face up: no encoberta."))
            if len(self.plays) == len(self.seats) - 1 and self.plays[0][1] is None:
                raise IllegalEvent(say("{first} played the first card face down, so {seat}, the last to play, "
                                       "must show this one.", first=self.plays[0][0], seat=p.name))
            return
        face = self._read(e.card)
        if p.known and not any(face.code == k.code or face.code in k.members or k.code in face.members
                               for k in p.known):
            raise IllegalEvent(say("{seat}'s hand was shown in a failed troca ({cards}): {card} is not in it.",
                                   seat=p.name, cards=self._cards(p.known), card=Card(face.code, face.name)))
        others = self.out_cards + [k for k in self._in_hands() if not self._same(k, face, p)]
        why = self.deck.cannot_coexist(others + [face])
        if why:
            raise IllegalEvent(why)

    @staticmethod
    def _same(k: Face, face: Face, p: Player) -> bool:
        """Whether a known card of ``p`` is the one being played (so it is not counted twice)."""
        return k in p.known and (face.code == k.code or face.code in k.members or k.code in face.members)

    @staticmethod
    def _cards(faces: list[Face]) -> str:
        return ", ".join(f.code for f in faces)

    def _verify_raise(self, e: Raise) -> None:
        p = self._player(e.seat)
        if self.mode == "fim":
            raise IllegalEvent(say("No Ofensivas in Fim de Guerra: the stakes are fixed (+1 and the game, or "
                                   "the other side +2)."))
        if self.mode == "fria":
            raise IllegalEvent(say("No Ofensivas in Guerra Fria: the last confronto is worth the game."))
        if self.phase == "cut":
            raise IllegalEvent(self._cut_first())
        if self.troca:
            raise IllegalEvent(say("First {seat} rolls the die for the troca por sequência.", seat=self.troca["seat"]))
        side = p.side
        if self.pending:
            if self.pending["side"] == side:
                raise IllegalEvent(say_n("{side} already raised to {value}: now {other} answers.",
                                         "{side} already raised to {value}: now {other} answer.", self.side_n(1 - side),
                                         side=self.side_names[side], value=self.pending["value"],
                                         other=self.side_names[1 - side]))
            target = self.pending["value"] + 1
        else:
            if self.last_raise == side:
                raise IllegalEvent(say_n("{side} made the last Ofensiva: now it waits for {other} to raise.",
                                         "{side} made the last Ofensiva: now they wait for {other} to raise.",
                                         self.side_n(side), side=self.side_names[side], other=self.side_names[1 - side]))
            target = self.value + 1
        if target > MAX_VALUE:
            raise IllegalEvent(say("The confronto can't be worth more than {most} points: no more Ofensivas.",
                                   most=MAX_VALUE))

    def _verify_answer(self, e: Accept | Refuse) -> None:
        p = self._player(e.seat)
        accept = isinstance(e, Accept)
        if self.phase == "decide":
            if p.side != self.fim_side:
                raise IllegalEvent(say("Fim de Guerra is {side}'s decision, not {seat}'s.",
                                       side=self.side_names[self.fim_side], seat=p.name))
            return
        if self.phase == "cut":
            raise IllegalEvent(self._cut_first())
        if not self.pending:
            raise IllegalEvent(say("There is no Ofensiva to accept.") if accept else say("There is no Ofensiva to refuse."))
        if p.side == self.pending["side"]:
            other, n = self.side_names[1 - p.side], self.side_n(1 - p.side)
            raise IllegalEvent(
                say_n("{seat} can't accept their own Ofensiva: {side} answers.",
                      "{seat} can't accept their side’s Ofensiva: {side} answer.", n, seat=p.name, side=other)
                if accept else
                say_n("{seat} can't refuse their own Ofensiva: {side} answers.",
                      "{seat} can't refuse their side’s Ofensiva: {side} answer.", n, seat=p.name, side=other))

    def _before_play(self, what: str) -> None:
        """``what``: "troca" or "abstenção"; refused in Fim de Guerra, Guerra Fria and after the play began."""
        troca = what == "troca"
        if self.mode != "normal":
            raise IllegalEvent(
                (say("No troca por sequência in Fim de Guerra.") if troca else say("No abstenção in Fim de Guerra."))
                if self.mode == "fim" else
                (say("No troca por sequência in Guerra Fria.") if troca else say("No abstenção in Guerra Fria.")))
        self._busy()
        if self.phase != "deal":
            raise IllegalEvent(say("Too late for a troca por sequência: it comes before the first card and the "
                                   "first Ofensiva.") if troca else
                               say("Too late for an abstenção: it comes before the first card and the first "
                                   "Ofensiva."))

    def _verify_call(self, e: Call) -> None:
        p = self._player(e.seat)
        self._before_play("troca")
        if p.failed_troca:
            raise IllegalEvent(say("{seat}'s troca failed: the hand, now known, is kept.", seat=p.name))
        if str(e.parity).strip().lower() not in PARITY:
            raise BadEvent(say("Call even or odd (par or impar), not {given}.", given=repr(e.parity)))
        codes = [c for c in str(e.cards).replace(",", " ").split() if c]
        if len(codes) != HAND_SIZE:
            raise IllegalEvent(say("A troca por sequência shows the whole hand: 3 cards (got {n}).", n=len(codes)))
        faces = [self._read(c) for c in codes]
        values = sorted(f.value for f in faces)
        if values != list(range(values[0], values[0] + 3)):
            raise IllegalEvent(say("{cards} is not a run of three in a row ({values}), so there is no troca.",
                                   cards=" ".join(codes), values=", ".join(map(str, values))))
        why = self.deck.cannot_coexist(self.out_cards + self._in_hands() + faces)
        if why:
            raise IllegalEvent(why)
        if self.stock < HAND_SIZE:
            raise IllegalEvent(say("There aren't enough cards left in the deck for a new hand."))

    def _verify_roll(self, e: Roll) -> None:
        p = self._player(e.seat)
        if not self.troca:
            raise IllegalEvent(say("Nobody is waiting for a die roll: the die comes after a troca call."))
        if p.name != self.troca["seat"]:
            raise IllegalEvent(say("{roller} rolls the die for the troca, not {seat}.", roller=self.troca["seat"],
                                   seat=p.name))
        if not 1 <= e.die <= 6:
            raise IllegalEvent(say("A die shows 1 to 6, not {die}.", die=e.die))

    def _verify_abstain(self, e: Abstain) -> None:
        p = self._player(e.seat)
        self._before_play("abstenção")
        first = self.first_receiver()
        if p.name != first:
            raise IllegalEvent(say("Only {seat}, who receives cards first, may abstain.", seat=first))
        if self.trocas_done:
            raise IllegalEvent(say("Too late to abstain: a troca por sequência has already been called."))
        if self.abstentions >= 2:
            raise IllegalEvent(say("{seat} has abstained twice: the 4th hand must be kept.", seat=p.name))
        need = HAND_SIZE * (1 if self.abstentions == 0 else 2)
        if self.stock < need:
            raise IllegalEvent(say("There aren't enough cards left in the deck to abstain."))

    def _verify_cut(self, e: Cut) -> None:
        p = self._player(e.seat)
        cutter = self.first_receiver()
        if self.phase != "cut" and (self.cut_choice is not None or self.phase != self._after_cut_phase()
                                    or self.abstentions or self.trocas_done or self.pending
                                    or self.last_raise is not None or self.troca):
            raise IllegalEvent(say("Too late to cut: the cards of this confronto are already dealt."))
        if p.name != cutter:
            raise IllegalEvent(say("{cutter}, on {dealer}'s left, cuts, not {seat}.", cutter=cutter,
                                   dealer=self.seats[self.dealer], seat=p.name))
        if str(e.choice).strip().lower() not in ("up", "down", "subindo", "descendo"):
            raise BadEvent(say("The cutter chooses up (deal from the bottom) or down (from the top), not {given}.",
                               given=repr(e.choice)))

    def _verify_time_up(self, e: TimeUp) -> None:
        if self.time_up:
            raise IllegalEvent(say("Time is already up: the current confronto is being finished."))

    # ------------------------------------------------------------------ applying
    def _cut(self, e: Cut) -> list[Ruling]:
        p = self._named(e.seat)
        choice = {"subindo": "up", "descendo": "down"}.get(e.choice.strip().lower(), e.choice.strip().lower())
        self.cut_choice = choice
        if self.phase == "cut":
            self.phase = self._after_cut_phase()
        text = partial(say, to_translate("{seat} cuts and chooses up: the cards are dealt from the bottom.")
                       if choice == "up" else to_translate("{seat} cuts and chooses down: the cards are dealt from the "
                                                           "top."), seat=p.name)
        return [Ruling("cut", text, {"seat": p.name, "choice": choice}),
                self.prompt()]

    def _abstain(self, e: Abstain) -> list[Ruling]:
        p = self._named(e.seat)
        self.abstentions += 1
        if self.abstentions == 1:
            self.stock -= HAND_SIZE
            text = say("{seat} abstains: the unseen hand is thrown away for a new one.", seat=p.name)
        else:
            self.stock -= 2 * HAND_SIZE
            text = say("{seat} abstains a 2nd time: this hand and the next are thrown away, and the 4th hand "
                       "must be kept.", seat=p.name)
        return [Ruling("abstain", text, {"seat": p.name, "abstentions": self.abstentions,
                                         "counts": self.counts()}), self.prompt()]

    def _call(self, e: Call) -> list[Ruling]:
        p = self._named(e.seat)
        faces = [self._read(c) for c in e.cards.replace(",", " ").split()]
        parity = "even" if PARITY[e.parity.strip().lower()] == 0 else "odd"
        self.trocas_done = True
        self.troca = {"seat": p.name, "parity": parity, "cards": [f.code for f in faces]}
        values = ", ".join(str(v) for v in sorted(f.value for f in faces))
        return [Ruling("call", say("{seat} shows a run ({values}) for a troca por sequência and calls {parity}.",
                               seat=p.name, values=values, parity=say(parity)),
                       {"seat": p.name, "cards": [f.code for f in faces], "parity": parity}), self.prompt()]

    def _roll(self, e: Roll) -> list[Ruling]:
        p = self._named(e.seat)
        troca = self.troca
        self.troca = None
        faces = [self._read(c) for c in troca["cards"]]
        rolled = "even" if e.die % 2 == 0 else "odd"
        won = rolled == troca["parity"]
        if won:
            self.out_cards.extend(faces)
            self.stock -= HAND_SIZE
            text = say("{seat} rolls {die} ({parity}): the call is right, and the run is swapped for a new hand.",
                       seat=p.name, die=e.die, parity=say(rolled))
        else:
            p.known = faces
            p.failed_troca = True
            text = (say("{seat} rolls {die} ({parity}): the call is wrong. {seat} keeps the hand, and the other "
                        "team now know it.", seat=p.name, die=e.die, parity=say(rolled)) if self.teams else
                    say("{seat} rolls {die} ({parity}): the call is wrong. {seat} keeps the hand, and the other "
                        "side now knows it.", seat=p.name, die=e.die, parity=say(rolled)))
        return [Ruling("roll", text, {"seat": p.name, "die": e.die, "swapped": won, "counts": self.counts()}),
                self.prompt()]

    def _raise(self, e: Raise) -> list[Ruling]:
        p = self._named(e.seat)
        side = p.side
        rulings: list[Ruling] = []
        if self.pending:            # raising again accepts the Ofensiva on the table
            self.value = self.pending["value"]
            self.last_raise = self.pending["side"]
            self.ofensivas += 1
            target = self.value + 1
            text = partial(self._raise_again_text, p.name, self.value, self.side_names[side], self.side_n(side),
                           target)
        else:
            target = self.value + 1
            text = partial(self._raise_text, p.name, target)
        if self.phase == "deal":
            self.phase = "play"
        self.pending = {"side": side, "value": target, "seat": p.name}
        rulings.append(Ruling("raise", text, {"seat": p.name, "side": self.side_names[side], "value": self.value,
                                             "proposed": target}))
        return rulings + [self.prompt()]

    @staticmethod
    def _raise_again_text(seat: str, value: int, side: Names, n: int, target: int) -> Said:
        return say_n("{seat} raises again: the confronto is worth {points}, and {side} proposes {target}.",
                     "{seat} raises again: the confronto is worth {points}, and {side} propose {target}.",
                     n, seat=seat, points=points(value), side=side, target=target)

    @staticmethod
    def _raise_text(seat: str, target: int) -> Said:
        return say("Ofensiva! {seat} proposes to raise the confronto to {points}.", seat=seat, points=points(target))

    def _accept(self, e: Accept) -> list[Ruling]:
        p = self._named(e.seat)
        if self.phase == "decide":
            self.phase = "deal"
            text = say("{seat} accepts Fim de Guerra for {side}: winning this confronto is +1 and the game; losing "
                       "it gives {other} +2.", seat=p.name, side=self.side_names[self.fim_side],
                       other=self.side_names[1 - self.fim_side])
            return [Ruling("accept", text, {"seat": p.name, "fim_de_guerra": True}), self.prompt()]
        self.value = self.pending["value"]
        self.last_raise = self.pending["side"]
        self.pending = None
        self.ofensivas += 1
        text = partial(self._accept_text, p.name, self.value)
        return [Ruling("accept", text, {"seat": p.name, "value": self.value}), self.prompt()]

    @staticmethod
    def _accept_text(seat: str, value: int) -> Said:
        return say("{seat} accepts: the confronto is now worth {points}.", seat=seat, points=points(value))

    def _refuse(self, e: Refuse) -> list[Ruling]:
        p = self._named(e.seat)
        if self.phase == "decide":
            other = 1 - self.fim_side
            text = say_n("{seat} refuses Fim de Guerra: {side} scores 1 point.",
                         "{seat} refuses Fim de Guerra: {side} score 1 point.", self.side_n(other), seat=p.name,
                         side=self.side_names[other])
            return [Ruling("refuse", text, {"seat": p.name, "fim_de_guerra": True})] + self._award(other, 1, "refused")
        raiser = self.pending["side"]
        value = self.value
        self.pending = None
        text = partial(self._refuse_text, p.name, self.side_names[raiser], self.side_n(raiser), value)
        return [Ruling("refuse", text, {"seat": p.name, "value": value})] + self._award(raiser, value, "refused")

    @staticmethod
    def _refuse_text(seat: str, side: Names, n: int, value: int) -> Said:
        return say_n("{seat} refuses the Ofensiva: {side} scores {points}, the last value accepted.",
                     "{seat} refuses the Ofensiva: {side} score {points}, the last value accepted.",
                     n, seat=seat, side=side, points=points(value))

    def _flip(self, e: Flip) -> list[Ruling]:
        p = self._named(e.seat)
        if self.phase == "deal":
            self.phase = "play"
        if normalize(e.card) == BACK:
            face = None
        else:
            face = self._read(e.card)
            match = next((k for k in p.known if self._same(k, face, p)), None)
            if match is not None:
                p.known.remove(match)
            self.out_cards.append(face)
        p.hand -= 1
        self.plays.append((p.name, face))
        self.played = self.played + ((self.rodada, p.name, face.code if face else None),)
        if len(self.plays) < len(self.seats):
            nxt = self.to_play()
            return [Ruling("flip", partial(self._flip_text, p.name, face, nxt),
                           {"seat": p.name, "card": face.code if face else BACK, "waiting": [nxt],
                            "counts": self.counts()})]
        rulings = [Ruling("flip", partial(self._flip_text, p.name, face, None),
                          {"seat": p.name, "card": face.code if face else BACK, "waiting": [],
                           "counts": self.counts()})]
        return rulings + self._end_rodada()

    @staticmethod
    def _flip_text(seat: str, face: Face | None, nxt: str | None) -> Said:
        """What a card played says (``face`` None: face down); ``nxt``, who plays next (None: nobody)."""
        card = None if face is None else Card(face.code, face.label, face.value)
        if nxt is not None:
            return (say("{seat} plays a card face down (encoberta, worth 0); {next} is next.", seat=seat, next=nxt)
                    if card is None else say("{seat} plays {card}; {next} is next.", seat=seat, card=card, next=nxt))
        return (say("{seat} plays a card face down (encoberta, worth 0).", seat=seat) if card is None
                else say("{seat} plays {card}.", seat=seat, card=card))

    # ------------------------------------------------------------------ rodadas and confrontos
    def _end_rodada(self) -> list[Ruling]:
        best: list[tuple[int, str | None]] = [(-1, None), (-1, None)]
        for seat, face in self.plays:
            v = 0 if face is None else face.value
            side = self.side_of(seat)
            if v > best[side][0]:
                best[side] = (v, seat)
        faces = dict(self.plays)
        if best[0][0] == best[1][0]:
            winner = None
            self.tied_rodadas += 1
            a, b = best[0][1], best[1][1]
            text = partial(self._tie_text, self.rodada, faces[a], faces[b], self.leader)
        else:
            winner = 0 if best[0][0] > best[1][0] else 1
            seat = best[winner][1]
            other = best[1 - winner][1]
            text = partial(self._won_text, self.rodada, seat, faces[seat], other, faces[other],
                           self.side_names[winner], self.side_n(winner))
            self.leader = seat
        self.results.append(winner)
        data = {"rodada": self.rodada + 1, "winner": None if winner is None else self.side_names[winner],
                "results": [None if r is None else self.side_names[r] for r in self.results]}
        rulings = [Ruling("rodada", text, data)]
        decided, side = self._decided()
        if decided:
            return rulings + self._confronto_won(side)
        self.rodada += 1
        self.plays = []
        return rulings + [self.prompt()]

    @staticmethod
    def _tie_text(rodada: int, face: Face | None, other_face: Face | None, leader: str) -> Said:
        return say("The {nth} rodada is a tie ({card} and {other_card}); {seat} leads again.", nth=nth(rodada),
                   card=played_card(face), other_card=played_card(other_face), seat=leader)

    @staticmethod
    def _won_text(rodada: int, seat: str, face: Face | None, other: str, other_face: Face | None, side: Names,
                  n: int) -> Said:
        """``seat``'s ``face`` beat ``other``'s: ``side`` (of ``n`` players) wins the rodada."""
        return say_n("{seat}'s {card} beats {other}'s {other_card}: {side} wins the {nth} rodada.",
                     "{seat}'s {card} beats {other}'s {other_card}: {side} win the {nth} rodada.",
                     n, seat=seat, card=played_card(face), other=other, other_card=played_card(other_face),
                     side=side, nth=nth(rodada))

    def _decided(self) -> tuple[bool, int | None]:
        """(whether the confronto is over, the winning side or None for three ties)."""
        return confronto_decided(self.results)

    def _confronto_won(self, side: int | None) -> list[Ruling]:
        if side is None:
            if self.mode == "normal":
                self.carry = 2
                text = say("Three ties: nobody scores, and the next confronto starts worth 2 points.")
            else:
                text = say("Three ties: nobody scores.")
            return [Ruling("confronto", text, {"winner": None, "points": 0})] + self._award(None, 0, "three_ties")
        if self.mode == "fim":
            if side == self.fim_side:
                pts = 1
            else:
                pts = 2
        else:
            pts = self.value
        text = partial(self._confronto_text, self.side_names[side], self.side_n(side), pts)
        return [Ruling("confronto", text, {"winner": self.side_names[side], "points": pts})] + \
            self._award(side, pts, "won")

    @staticmethod
    def _confronto_text(side: Names, n: int, pts: int) -> Said:
        return say_n("{side} wins the confronto: +{points}.", "{side} win the confronto: +{points}.", n, side=side,
                     points=points(pts))

    def _award(self, side: int | None, pts: int, how: str) -> list[Ruling]:
        if side is not None:
            self.scores[side] += pts
            if how != "three_ties" and self.mode == "normal":
                self.carry = 1
        self.confrontos += 1
        sc = self.score()
        text = partial(say, to_translate("Score: {side} {points}, {other} {other_points}."), side=self.side_names[0],
                       points=self.scores[0], other=self.side_names[1], other_points=self.scores[1])
        rulings = [Ruling("score", text, {"score": sc, "confrontos": self.confrontos})]
        top = max(self.scores)
        if top >= TARGET:
            w = self.scores.index(top)
            return rulings + self._game_over(w, say_n("{side} wins the game with {points}!",
                                                      "{side} win the game with {points}!", self.side_n(w),
                                                      side=self.side_names[w], points=points(top)), "six_points")
        if self.time_up:
            ended = self._time_up_result()
            if ended[-1].type == "game_over":
                return rulings + ended
            rulings.extend(ended)
        self.dealer = self.next_seat(self.dealer)
        self._start_confronto()
        if self.mode == "fria":
            rulings.append(Ruling("guerra_fria", say("Guerra Fria: both sides have 5 points. Nobody looks at "
                                                     "their own cards: choose blindly!"), {"score": sc}))
        elif self.mode == "fim":
            rulings.append(Ruling("fim_de_guerra", say_n("Fim de Guerra: {side} has 5 points. No Ofensivas, "
                                                         "trocas or abstenções.", "Fim de Guerra: {side} have 5 "
                                                         "points. No Ofensivas, trocas or abstenções.",
                                                         self.side_n(self.fim_side), side=self.side_names[self.fim_side]),
                                  {"score": sc}))
        return rulings + [self.prompt()]

    def _time_up_result(self) -> list[Ruling]:
        """Time is up and no confronto is being played: the side with more points wins; level sides
        share the win, or play on in sudden death (a ``tie`` ruling, and the game goes on)."""
        if self.scores[0] != self.scores[1]:
            w = 0 if self.scores[0] > self.scores[1] else 1
            return self._game_over(w, say_n("Time is up: {side} wins with {points} to {other_points}.",
                                            "Time is up: {side} win with {points} to {other_points}.", self.side_n(w),
                                            side=self.side_names[w], points=points(self.scores[w]),
                                            other_points=self.scores[1 - w]), "time_up")
        if self.options["timed_tie"] == "shared":
            return self._game_over(None, say("Time is up with {points} each: {side} and {other} share the win.",
                                             points=points(self.scores[0]), side=self.side_names[0],
                                             other=self.side_names[1]), "time_up")
        return [Ruling("tie", say("Time is up and the sides are level: confrontos go on until one side scores."),
                       {"score": self.score()})]

    def confronto_begun(self) -> bool:
        """Whether anything of the current confronto has happened: a cut, an abstenção, a troca, an
        Ofensiva, a Fim de Guerra decision or a card."""
        waiting = self.phase in ("cut", "decide") or (self.phase == "deal" and self.mode != "fim")
        return not (waiting and self.rodada == 0 and not self.plays and self.cut_choice is None
                    and not self.abstentions and not self.trocas_done and not self.pending
                    and self.last_raise is None and not self.troca)

    def _time_up(self, e: TimeUp) -> list[Ruling]:
        self.time_up = True
        if self.confrontos and not self.confronto_begun():
            # between two confrontos: nothing is being played, so the game ends now (with level
            # sides under sudden death, the next confronto decides)
            return [Ruling("time_up", say("Time is up!"), {"score": self.score()})] + self._time_up_result()
        return [Ruling("time_up", say("Time is up! This confronto is finished, then the side with more points wins."),
                       {"score": self.score()})]

    def _game_over(self, side: int | None, text: str, reason: str) -> list[Ruling]:
        self.over = True
        self.phase = "over"
        winners = [s for s in self.seats if side is None or self.side_of(s) == side]
        winner = None if side is None else self.side_names[side]
        self.result = {"winner": winner, "winners": winners, "reason": reason, "text": text}
        return [Ruling("game_over", text, {"winner": winner, "winners": winners, "reason": reason,
                                           "score": self.score(), "confrontos": self.confrontos})]


# each event the game takes -> the function that checks it, and the one that applies it
GuerraState.CHECKS = {Flip: GuerraState._verify_flip, Raise: GuerraState._verify_raise,
                      Accept: GuerraState._verify_answer, Refuse: GuerraState._verify_answer,
                      Call: GuerraState._verify_call, Roll: GuerraState._verify_roll,
                      Abstain: GuerraState._verify_abstain, Cut: GuerraState._verify_cut,
                      TimeUp: GuerraState._verify_time_up}
GuerraState.APPLIES = {Flip: GuerraState._flip, Raise: GuerraState._raise, Accept: GuerraState._accept,
                       Refuse: GuerraState._refuse, Call: GuerraState._call, Roll: GuerraState._roll,
                       Abstain: GuerraState._abstain, Cut: GuerraState._cut, TimeUp: GuerraState._time_up}


class Guerra(Game):
    id = "guerra"
    name = to_translate("Guerra")
    how_to_play = (
        to_translate("Two players, or two teams of 2 or 3 sitting in turns around the table. The first side to "
                     "reach 6 points wins."),
        to_translate("Each confronto, everyone gets 3 cards. A confronto has up to 3 rodadas: in each rodada "
                     "everyone plays one card, and the highest number wins it. Suits don't matter; 1 is the "
                     "lowest card."),
        to_translate("The side that wins 2 rodadas (or the 1st rodada and a tie) wins the confronto and its "
                     "points: 1 point, or more after an Ofensiva."),
        to_translate("Ofensiva! At any moment you may ask to make the confronto worth 1 point more. The other "
                     "side accepts, refuses (then your side scores what it was worth and the confronto ends) or "
                     "raises again. Never more than 6 points."),
        to_translate("In the 2nd and 3rd rodadas you may play a card face down (an encoberta): it is worth 0."),
        to_translate("Dealt three numbers in a row, such as 7, 8, 9? Show them, say even or odd and roll the die. "
                     "Right: you get a new hand. Wrong: you keep your hand, and everyone has seen it."),
        to_translate("The player who gets cards first may throw the hand away without looking and take the next "
                     "one (an abstenção), at most twice."),
        to_translate("At 5 points a side looks at its cards and decides whether to play Fim de Guerra: winning it "
                     "wins the game, losing it gives the other side 2 points, refusing gives them 1. Both sides "
                     "at 5: Guerra Fria, everyone plays without looking at their own cards!"),
    )
    # the game's own words (Portuguese, kept in every language) and what each means
    words = {
        "confronto": to_translate("one deal of 3 cards each, played for points (1, or more after Ofensivas)"),
        "rodada": to_translate("one round of the confronto: everyone plays one card; the highest wins it"),
        "Ofensiva": to_translate("asking to make the confronto worth 1 point more; the other side accepts, "
                                 "refuses or raises again"),
        "encoberta": to_translate("a card played face down in the 2nd or 3rd rodada; it is worth 0"),
        "troca": to_translate("showing three numbers in a row, saying even or odd and rolling the die: right gives "
                              "a new hand; a wrong call costs your secret, because you keep the hand everyone has "
                              "now seen"),
        "abstenção": to_translate("throwing your first hand away without looking and taking the next one (at most "
                                  "twice)"),
        "Fim de Guerra": to_translate("a side at 5 points looks at its cards and plays for the game: win and it "
                                      "wins, lose and the others get 2 points, refuse and they get 1"),
        "Guerra Fria": to_translate("both sides at 5 points: nobody may look at their own cards"),
        to_translate("the cut"): to_translate("before the deal, the player after the dealer chooses up (deal from the "
                                          "bottom) or down (from the top)"),
    }
    min_players = 2
    max_players = 6
    player_counts = (2, 4, 6)          # 2 players, or teams of 2 or 3
    options = OPTIONS

    @property
    def deck(self) -> Deck:
        return load_deck("guerra")

    @staticmethod
    def deck_for(players: int, options: dict[str, Any]) -> Deck:
        choice = options.get("deck", "auto")
        advanced = choice == "advanced" or (choice == "auto" and players == 6)
        return load_deck("guerra-advanced" if advanced else "guerra")

    def check_players(self, players):
        if len(players) in range(self.min_players, self.max_players + 1) and len(players) not in self.player_counts:
            raise SetupError(say("Guerra is for 2 players, or teams of 2 or 3 (4 or 6 players; got {n}).",
                                 n=len(players)))
        return super().check_players(players)

    def cards_in_play(self, options) -> int:
        return self.deck_for(2, options).size

    def _new_state(self, players: list[str], options: dict[str, Any]) -> GuerraState:
        return GuerraState(self, players, options)
