"""The Game/State split: a Game is a rule set (deck, options, player range); a State is one table's
position in it. States check events without applying them (verify/can) and apply them (apply)."""
from __future__ import annotations

from abc import ABC, abstractmethod
from functools import partial
from typing import Any, Callable, Mapping, Sequence

from . import names
from .deck import Deck, load_deck
from .errors import IllegalEvent, SetupError
from .events import Event
from .options import Option, resolve_options
from .rulings import Ruling
from .say import Names, Said, say, say_n, to_translate


class State(ABC):
    over: bool = False

    @abstractmethod
    def verify(self, event: Event) -> None:
        """Raise IllegalEvent, with a sentence for players, if the event cannot happen now."""

    def can(self, event: Event) -> bool:
        try:
            self.verify(event)
        except IllegalEvent:
            return False
        return True

    def apply(self, event: Event) -> list[Ruling]:
        """Verify, then apply. A refused event changes nothing."""
        self.verify(event)
        return self._apply(event)

    @abstractmethod
    def _apply(self, event: Event) -> list[Ruling]:
        """Apply an event already verified."""

    @abstractmethod
    def prompt(self) -> Ruling:
        """What the table must do next."""

    @abstractmethod
    def counts(self) -> dict[str, int]:
        """Every player's card total (cards in the middle belong to nobody yet)."""

    @abstractmethod
    def snapshot(self) -> dict[str, Any]:
        """The whole state as plain data; equal snapshots mean equal states."""


class SeatedState(State):
    """A state whose players sit at named seats: ``players`` maps each name to an object with an
    ``out`` flag, and ``_lower`` maps lower-cased names to the names as set up. Events name seats
    in any case.

    A game's state sets, in its ``__init__``, every field declared below (the shared checks, time
    and scoring read them), and after its class maps each event class it takes to the function
    that checks it (``CHECKS``) and the one that applies it (``APPLIES``): docs/development.md,
    "Adding a game"."""
    players: dict[str, Any]
    _lower: dict[str, str]
    options: dict[str, Any]
    phase: str                         # where the table is ("play", ... "over"): each game's own words
    middle: list                       # the cards in the middle, which belong to nobody yet
    fighters: list[str]                # the seats still fighting the battle (or war) under way
    time_up: bool                      # the clock has run out (a TimeUp event)
    sudden_death: bool                 # the tied players play one battle more
    battles: int                       # battles (or rounds) played, for the result
    wars: int                          # wars played, for the result
    adjustment: int                    # cards added (or lost) by recounts, kept apart from the deck's
    result: dict[str, Any] | None = None
    OUT = to_translate("{name} is out of the game.")   # said with say(self.OUT, name=...)
    UNKNOWN_EXTRA = ""
    GAME = "This game"                 # its name, in "Classic War has no bet event."
    CHECKS: dict[type, Callable[[Any, Any], None]] = {}        # event class -> the function checking it
    APPLIES: dict[type, Callable[[Any, Any], list[Ruling]]] = {}   # event class -> the function applying it

    def verify(self, event: Any) -> None:
        if self.over:
            raise IllegalEvent(say("The game is over. {result} Undo to change it.", result=self.result["text"]))
        check = self.CHECKS.get(type(event))
        if check is None:
            raise IllegalEvent(self._no_such_event(event))
        check(self, event)

    def _apply(self, event: Any) -> list[Ruling]:
        return self.APPLIES[type(event)](self, event)

    def _new_round(self, seats: list[str]) -> list[Ruling]:
        """Start a battle between ``seats`` (a sudden death's too): each game's own."""
        raise NotImplementedError

    def _waiting(self) -> list[str]:
        """The seats the table waits for: each game's own."""
        raise NotImplementedError

    def _verify_beside_middle(self, faces: list) -> None:
        """Refuse ``faces`` (cards about to be turned up) when they cannot lie face up beside the
        middle's face-up cards: ``Deck.cannot_coexist``, its sentence (a card twice in one deck)."""
        up = []
        for _, f in self.middle:        # a loop, not a comprehension: the per-event path (issue 62)
            if f:
                up.append(f)
        up.extend(faces)
        why = self.deck.cannot_coexist(up)
        if why:
            raise IllegalEvent(why)

    def _no_such_event(self, event: Any) -> str:
        return say("{game} has no {kind} event.", game=self.GAME, kind=event.TYPE)

    def _player(self, name: str) -> Any:
        """The player an event names, who must still be in the game (else IllegalEvent)."""
        p = self.players.get(name)
        if p is None:
            real = self._lower.get(str(name).strip().lower())
            if real is None:
                raise IllegalEvent(say("There is no player called {name} at this table (players: {players}{extra}).",
                                       name=repr(name), players=Names(list(self.players)), extra=self.UNKNOWN_EXTRA))
            p = self.players[real]
        if p.out:
            raise IllegalEvent(say(self.OUT, name=p.name))
        return p

    def active(self) -> list[str]:
        """The players still in the game, in seat order."""
        active = []
        for n, p in self.players.items():        # a loop, not a comprehension: quicker for a few seats
            if not p.out:
                active.append(n)
        return active

    def _named(self, name: str) -> Any:
        """The player an already verified event names."""
        p = self.players.get(name)
        return p if p is not None else self.players[self._lower[name.strip().lower()]]

    def _verify_time_up(self, e: Any) -> None:
        if self.time_up:
            raise IllegalEvent(say("Time is already up: the current battle is being finished."))

    def _time_up(self, e: Any) -> list[Ruling]:
        """Time is up: score now if the middle is empty, else finish the battle (and any war) first."""
        self.time_up = True
        if self.sudden_death:
            return [Ruling("time_up", say("Time is up! The sudden-death battle still decides the game."),
                           {"counts": self.counts()})]
        if not self.middle:
            return [Ruling("time_up", say("Time is up!"), {"counts": self.counts()})] + self._score()
        return [Ruling("time_up", say("Time is up! Finish this battle, and any war it starts; then the most cards "
                                      "wins."), {"counts": self.counts()})]

    # laying down and recounting cards (Casino War counts chips its own way)
    def _down_ruling(self, seat: str, count: int, left: int, note: str = "") -> Ruling:
        """The ruling for ``count`` cards laid face down at ``seat``, ``left`` still to lay; ``note``, a
        phrase (a say()) after "face down": "(the won pile turned over as the new stack)"."""
        return Ruling("down", partial(down_text, seat, count, left, note),                  # said when read
                      {"seat": seat, "count": count, "pile": len(self.middle), "counts": self.counts()})

    def _play_on(self) -> list[Ruling]:
        """Once nobody still owes face-down cards: back to turning cards up, with the prompt."""
        if self._waiting():
            return []
        self.phase = "play"
        return [self.prompt()]

    def _recount_ruling(self, p: Any, old: int, split: tuple[int, int] | None = None) -> Ruling:
        """A recount has set player ``p``'s cards (the referee had ``old``): keep the difference in
        ``adjustment`` and say it; ``split``, a (hand, herd) a recount gave (Woolly Warfare)."""
        self.adjustment += p.total - old
        cards = cards_n(p.total)
        if split is None:
            text = (say("Recount: {seat} has {cards}; the referee had {old}.", seat=p.name, cards=cards, old=old)
                    if p.total != old else say("Recount: {seat} has {cards}, as the referee had.", seat=p.name,
                                               cards=cards))
        else:
            hand, herd = split
            text = (say("Recount: {seat} has {cards} (hand {hand}, herd {herd}); the referee had {old}.", seat=p.name,
                        cards=cards, hand=hand, herd=herd, old=old) if p.total != old
                    else say("Recount: {seat} has {cards} (hand {hand}, herd {herd}), as the referee had.",
                             seat=p.name, cards=cards, hand=hand, herd=herd))
        return Ruling("recount", text,
                      {"seat": p.name, "count": p.total, "was": old, "counts": self.counts()})

    # scoring a timed or capped card game (Casino War scores chips its own way)
    def _score_of(self, seat: str) -> int:
        """What counts at the end: every card the player holds."""
        return self.players[seat].total

    def _where(self) -> str:
        """Where the counted cards are, for the announcement: a phrase (say("in the herd")), or "" for
        everywhere."""
        return ""

    def _sudden_death(self, top: list[str]) -> list[Ruling]:
        """The rulings that start a sudden-death battle between the tied players."""
        return self._new_round(top)

    def _score(self, final: bool = False) -> list[Ruling]:
        """Time is up or the battle cap is reached: the most cards wins. A tie is shared (option
        ``timed_tie=shared``, or ``final``) or played off in a sudden-death battle."""
        active = self.active()
        score = {s: self._score_of(s) for s in active}
        best = max(score.values())
        top = [s for s in active if score[s] == best]
        why = (say("After the sudden-death battle") if self.sudden_death else say("Time is up") if self.time_up
               else say("That was battle {number}, the last one", number=self.battles))
        where = self._where()
        reason = "time_up" if self.time_up else "max_battles"
        if len(top) == 1:
            others = ", ".join(f"{s} {score[s]}" for s in active if s != top[0])
            cards = cards_n(best)
            if where:
                text = (say("{why}: {seat} wins with {cards} {where} ({others}).", why=why, seat=top[0], cards=cards,
                            where=where, others=others) if others
                        else say("{why}: {seat} wins with {cards} {where}.", why=why, seat=top[0], cards=cards,
                                 where=where))
            else:
                text = (say("{why}: {seat} wins with {cards} ({others}).", why=why, seat=top[0], cards=cards,
                            others=others) if others
                        else say("{why}: {seat} wins with {cards}.", why=why, seat=top[0], cards=cards))
            return self._game_over(top[0], top, reason, text)
        seats = Names(top)
        if self.options["timed_tie"] == "shared" or final:
            # the English says "cards" for any count, as it always has: the plural is for other languages
            text = (say_n("{why}: {seats} share the win with {n} cards each {where}.",
                          "{why}: {seats} share the win with {n} cards each {where}.", best, why=why, seats=seats,
                          where=where) if where
                    else say_n("{why}: {seats} share the win with {n} cards each.",
                               "{why}: {seats} share the win with {n} cards each.", best, why=why, seats=seats))
            return self._game_over(None, top, reason, text)
        self.sudden_death = True
        text = (say_n("{why}: {seats} are tied with {n} cards each {where}. Sudden death!",
                      "{why}: {seats} are tied with {n} cards each {where}. Sudden death!", best, why=why, seats=seats,
                      where=where) if where
                else say_n("{why}: {seats} are tied with {n} cards each. Sudden death!",
                           "{why}: {seats} are tied with {n} cards each. Sudden death!", best, why=why, seats=seats))
        return [Ruling("tie", text, {"tied": top, "counts": self.counts()})] + self._sudden_death(top)

    def _game_over(self, winner: str | None, winners: list[str], reason: str, text: str) -> list[Ruling]:
        """End the game: nobody fights any more; the result, and the game_over ruling with the
        counts and the battles and wars played (states that count them)."""
        self.phase = "over"
        self.over = True
        self.fighters = []
        self.result = {"winner": winner, "winners": list(winners), "reason": reason, "text": text}
        return [Ruling("game_over", text, {"winner": winner, "winners": list(winners), "reason": reason,
                                           "counts": self.counts(), "battles": self.battles,
                                           "wars": self.wars})]



def down_text(seat: str, count: int, left: int, note: str = "") -> Said:
    """What a down ruling says: ``count`` cards laid face down at ``seat``, ``left`` still to lay, and
    ``note``, a phrase after "face down" (SeatedState._down_ruling)."""
    cards = cards_n(count)
    if not note:
        return (say_n("{seat} lays {cards} face down; {n} more to go.",
                      "{seat} lays {cards} face down; {n} more to go.", left, seat=seat, cards=cards) if left
                else say("{seat} lays {cards} face down.", seat=seat, cards=cards))
    return (say_n("{seat} lays {cards} face down {note}; {n} more to go.",
                  "{seat} lays {cards} face down {note}; {n} more to go.", left, seat=seat, cards=cards,
                  note=note) if left
            else say("{seat} lays {cards} face down {note}.", seat=seat, cards=cards, note=note))


NAME_LIMIT = names.LIMIT


def check_name(name: str) -> str:
    """A player's name as the table shows and says it (referee/names.py's rule): NFC, 1-24 characters,
    none of them invisible or changing the direction of the text, no pile of marks on a letter.
    SetupError says what is wrong."""
    try:
        return names.clean(name)
    except ValueError as err:
        raise SetupError(err.args[0]) from None


# (game class, the names given) -> the seats Game.check_players made of them
_SEATED: dict[tuple[type, tuple[str, ...]], tuple[str, ...]] = {}


class Game(ABC):
    id: str = ""
    name: str = ""
    min_players: int = 2
    max_players: int = 2
    player_counts: tuple[int, ...] = ()   # the numbers of players allowed, where not every one from min to max
    options: Sequence[Option] = ()
    # "How to play", for a child of ten: short paragraphs (the dashboard and the rooms show them), and the
    # game's own words explained (Guerra's confronto, rodada ...): the one place a game's sheet is written
    how_to_play: tuple[str, ...] = ()
    words: Mapping[str, str] = {}
    deck_id: str = ""                # the deck the rules play with (referee/decks/<deck_id>.toml)
    state_class: type[State]         # the State a new game starts in
    camera_deck: str = "standard"    # the printed deck a camera reads for this game (vision's decks)
    flips_together: bool = False     # every seat turns its card at once: the camera may send one `flips`

    def camera_deck_for(self, options: Mapping[str, Any]) -> str:
        """The printed deck the camera reads under ``options`` (a game may let players choose it)."""
        return self.camera_deck

    @property
    def deck(self) -> Deck:
        return load_deck(self.deck_id)

    def allowed_counts(self) -> tuple[int, ...]:
        """Every number of players the game is for."""
        return self.player_counts or tuple(range(self.min_players, self.max_players + 1))

    def counts_text(self) -> str:
        """The numbers of players in words: "2-4", or "2, 4 or 6" where some between are not allowed."""
        counts = self.allowed_counts()
        if counts == tuple(range(counts[0], counts[-1] + 1)):
            return str(counts[0]) if len(counts) == 1 else f"{counts[0]}-{counts[-1]}"
        return said_list([str(c) for c in counts], last="or")

    def resolve_options(self, given: Mapping[str, Any] | None) -> dict[str, Any]:
        return resolve_options(self.options, given, self.name)

    def check_players(self, players: Sequence[str]) -> list[str]:
        given = [str(p).strip() for p in players]
        seats = _SEATED.get((type(self), tuple(given)))     # these names were set up before: the same seats
        if seats is not None:
            return list(seats)
        if any(not n for n in given):
            raise SetupError(say("Every player needs a name."))
        seats = [check_name(n) for n in given]
        try:                      # the same name in any case or composition, or two that look alike
            names.check_all(seats)
        except ValueError as err:
            raise SetupError(err.args[0]) from None
        if len(seats) not in self.allowed_counts():
            raise SetupError(say("{game} is for {counts} players (got {n}).", game=say(self.name),
                                 counts=self.counts_text(), n=len(seats)))
        if len(_SEATED) < 1000:                      # a simulation sets up the same names thousands of times
            _SEATED[type(self), tuple(given)] = tuple(seats)
        return seats

    def new_state(self, players: Sequence[str], options: Mapping[str, Any] | None = None) -> State:
        return self._new_state(self.check_players(players), self.resolve_options(options))

    def _new_state(self, players: list[str], options: dict[str, Any]) -> State:
        return self.state_class(self, players, options)

    def cards_in_play(self, options: Mapping[str, Any]) -> int:
        """How many cards the game is played with under these options (the deck file may hold more)."""
        return self.deck.size

    def rule_sheet(self, options: Mapping[str, Any]) -> list[str]:
        """One line per option in force, for the dashboard and `warref rules`."""
        return [o.describe(options[o.name]) for o in self.options]


_CARDS: dict[int, Any] = {}


def cards_n(n: int) -> Any:
    """"1 card", "5 cards" as a message (made once per count: the simulator says it every battle)."""
    found = _CARDS.get(n)
    if found is None:
        found = _CARDS[n] = say_n("{n} card", "{n} cards", n)
    return found


def said_list(items: list[Any], last: str = "and") -> Any:
    """Phrases said as a list, each keeping its message: "A", "A and B", "A, B and C"; ``last`` joins the
    last two: "and", "or" ("A, B or C") or "," (commas only). Names are Names; this is for phrases
    ("Sam's 8") and names said with "or"."""
    if len(items) == 1:
        return items[0]
    if len(items) == 2:
        a, b = items
        return (say("{a} and {b}", a=a, b=b) if last == "and" else say("{a} or {b}", a=a, b=b) if last == "or"
                else say("{a}, {b}", a=a, b=b))
    return say("{a}, {b}", a=items[0], b=said_list(items[1:], last))
