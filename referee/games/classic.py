"""Classic War: 2-4 players, one face-down stack each, and every variant of
its rule document as a rule option (docs/classic.md: the document and warref's choices).

The referee sees the cards turned up and how many go face down; stacks are counts. With the race
for an ace, won cards go to a face-up pile that is turned over when the stack runs out, so each
seat has a ``stack`` and a ``won`` count (``won`` stays 0 in the other variants). Casino War is a
game of its own (casino.py).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any

from ..deck import Deck, Face
from ..errors import BadEvent, IllegalEvent
from ..events import Down, Flip, Flips, Recount, TimeUp
from ..game import Game, SeatedState, cards_n, said_list
from ..options import Option, max_battles_option, timed_tie_option
from ..rulings import Ruling, article
from ..say import Card, Names, Said, say, say_n, to_translate

ACE = 14
RANK_WORDS = {11: "jack", 12: "queen", 13: "king", 14: "ace", 15: "joker"}

OPTIONS = (
    Option("war_down", "1", to_translate("How many cards each player lays face down in a war before turning the next "
                                         "one up."),
           choices=("1", "3", "rank"),
           choice_help={"1": to_translate("one card, the base rule of both published accounts"),
                        "3": to_translate("three cards (I-de-clare-war), the famous variant"),
                        "rank": to_translate("the tied rank sets it: 2 for twos ... 10 for a court card, 11 for aces "
                                             "(Razboi); if someone can't cover it, everyone lays what the shortest "
                                             "stack can")},
           label=to_translate("Cards face down in a war"),
           choice_labels={"1": to_translate("One"), "3": to_translate("Three"),
                          "rank": to_translate("As many as the rank")}),
    Option("short", "last_card_stands", to_translate("What happens to a player who runs short of cards in a war."),
           choices=("last_card_stands", "lose", "last_card_once"),
           choice_help={"last_card_stands": to_translate("your last card is turned up and fights every round of "
                                                         "the war"),
                        "lose": to_translate("you lose on the spot; if several run short, the first to run out "
                                             "loses, and at the same moment it is a draw"),
                        "last_card_once": to_translate("your last card is turned up and fights, but with no card "
                                                       "left to turn up you lose (how computer studies of War "
                                                       "play it)")},
           label=to_translate("Short of cards in a war"),
           choice_labels={"last_card_stands": to_translate("Last card fights on"),
                          "lose": to_translate("Out of cards, out of the game"),
                          "last_card_once": to_translate("Last card fights once")}),
    Option("fewest_cards_fix", False, to_translate("With three cards down, a war between unequal stacks is a fair "
                                                   "fight: the player with fewest cards plays all they have and the "
                                                   "others lay the same number."),
           kind="bool", label=to_translate("Fair wars for short stacks")),
    Option("jokers", False, to_translate("Jokers high: both jokers stay in (54 cards), beat an ace and tie each "
                                         "other."),
           kind="bool", label=to_translate("Jokers high")),
    Option("war", "bury", to_translate("How a tie is settled."), choices=("bury", "race"),
           choice_help={"bury": to_translate("a war: cards face down, then one up"),
                        "race": to_translate("race for an ace: the tied players turn cards up one at a time and the "
                                             "first ace takes everything; won cards go to a face-up pile")},
           label=to_translate("How a tie is settled"),
           choice_labels={"bury": to_translate("War"), "race": to_translate("Race for an ace")}),
    timed_tie_option(to_translate("What happens when players tie for the most cards at the end of a timed game or "
                                  "the battle cap.")),
    max_battles_option(to_translate("End the game after this many battles (a war belongs to the battle that started "
                                    "it); the most cards wins.")),
)


def rank_word(value: int) -> str:
    return RANK_WORDS.get(value, str(value))


def count_word(n: int) -> str:
    """'Two' ... 'Five' (a message each), else the number."""
    if n == 2:
        return say("Two")
    if n == 3:
        return say("Three")
    if n == 4:
        return say("Four")
    if n == 5:
        return say("Five")
    return str(n)


def ranks_word(value: int, n: int) -> Said:
    """'Two 7s', 'Three queens': a phrase of its own for each rank (Portuguese says "Duas damas")."""
    if value == 12 and n == 2:
        return say("Two queens")
    count = count_word(n)
    if value == 11:
        return say_n("{count} jack", "{count} jacks", n, count=count)
    if value == 12:
        return say_n("{count} queen", "{count} queens", n, count=count)
    if value == 13:
        return say_n("{count} king", "{count} kings", n, count=count)
    if value == 14:
        return say_n("{count} ace", "{count} aces", n, count=count)
    if value == 15:
        return say_n("{count} joker", "{count} jokers", n, count=count)
    return say_n("{count} {rank}", "{count} {rank}s", n, count=count, rank=value)


def ranks_plural(value: int) -> Said:
    """'kings', '7s': a rank said in the plural, as in 'A war over kings'."""
    if value == 11:
        return say("jacks")
    if value == 12:
        return say("queens")
    if value == 13:
        return say("kings")
    if value == 14:
        return say("aces")
    if value == 15:
        return say("jokers")
    return say("{rank}s", rank=value)


# what says a card or a count, made once each (a battle's ruling says them every time: keep it quick)
_SAID: dict[str, Card] = {}
_A_CARD: dict[str, Card] = {}


def said(face: Face) -> Card:
    """A card said by its rank ('king', '7'); other languages name it in their own words."""
    found = _SAID.get(face.code)
    if found is None:
        found = _SAID[face.code] = Card(face.code, rank_word(face.value), None)
    return found


def a_card(face: Face) -> Card:
    """A card said with its article in English ('a king', 'an 8')."""
    found = _A_CARD.get(face.code)
    if found is None:
        found = _A_CARD[face.code] = Card(face.code, article(rank_word(face.value)), None)
    return found




def rank_stake(value: int) -> int:
    """Razboi: the tied rank sets the number of cards buried (2-10 as printed, court cards 10,
    aces 11; two jokers fight an ordinary war, so they bury 11 like aces, the most the variant names)."""
    if value <= 10:
        return value
    return 10 if value <= 13 else 11


def deal(deck_size: int, players: int) -> tuple[int, int]:
    """Cards per player and cards set aside: 52 -> 26/17/13 (1 aside with three), 54 -> 27/18/13."""
    each = deck_size // players
    return each, deck_size - each * players


@dataclass(slots=True)
class Seat:
    name: str
    stack: int
    won: int = 0
    out: bool = False

    @property
    def total(self) -> int:
        return self.stack + self.won

    def take(self, n: int = 1) -> bool:
        """n cards leave the top of the stack; the face-up won pile is turned over when the stack
        runs out. Returns whether it was turned over."""
        if n <= self.stack:                # the common case: the stack covers it
            self.stack -= n
            return False
        turned = False
        for _ in range(n):
            if self.stack == 0:
                self.stack, self.won = self.won, 0
                turned = True
            self.stack -= 1
        return turned


class ClassicState(SeatedState):
    GAME = "Classic War"
    # the flip event verify passed last, and its (seat, face) pairs: apply reads each card once
    _checked: tuple[Any, Any] = (None, ())

    def __init__(self, game: "ClassicWar", players: list[str], options: dict[str, Any]):
        self.game = game
        self.options = options
        self.deck: Deck = game.deck
        self.size = game.cards_in_play(options)
        each, self.aside = deal(self.size, len(players))
        self.players = {n: Seat(n, each) for n in players}
        self._lower = {n.lower(): n for n in players}
        self.race = options["war"] == "race"
        self.middle: list[tuple[str, Face | None]] = []
        self.carried = 0                       # cards left in the middle by a race nobody won
        self.flips: dict[str, Face] = {}       # this round's face-up fighting cards
        self.standing: dict[str, Face] = {}    # last cards that fight every round (last_card_stands)
        self.owed: dict[str, int] = {}         # face-down cards still to lay in this war round
        self.fighters: list[str] = list(players)
        self.racers: list[str] = []
        self.phase = "play"                    # play | down | race | over
        self.war_depth = 0
        self.battles = 0
        self.wars = 0
        self.time_up = False
        self.sudden_death = False
        self.adjustment = 0
        self.result: dict[str, Any] | None = None

    # ------------------------------------------------------------------ views
    # (the loops below that run every event are plain for loops: on Python 3.11 a comprehension over
    # two to four seats costs a function call more)
    def counts(self) -> dict[str, int]:
        counts = {}
        for n, p in self.players.items():
            counts[n] = p.stack + p.won
        return counts

    def card_total(self) -> int:
        return sum(p.total for p in self.players.values()) + len(self.middle) + self.carried + self.aside

    def expected_total(self) -> int:
        return self.size + self.adjustment

    def snapshot(self) -> dict[str, Any]:
        return {
            "players": {n: {"stack": p.stack, "won": p.won, "out": p.out} for n, p in self.players.items()},
            "middle": [[s, f.code if f else None] for s, f in self.middle], "carried": self.carried,
            "flips": {s: f.code for s, f in self.flips.items()},
            "standing": {s: f.code for s, f in self.standing.items()}, "owed": dict(self.owed),
            "fighters": list(self.fighters), "racers": list(self.racers), "phase": self.phase,
            "war_depth": self.war_depth, "battles": self.battles, "wars": self.wars,
            "time_up": self.time_up, "sudden_death": self.sudden_death, "adjustment": self.adjustment,
            "aside": self.aside, "result": self.result,
        }

    def _waiting(self) -> list[str]:
        if self.phase == "down":
            return [s for s in self.fighters if self.owed.get(s, 0) > 0]
        if self.phase == "play":
            waiting = []
            for s in self.fighters:
                if s not in self.flips and s not in self.standing:
                    waiting.append(s)
            return waiting
        if self.phase == "race":
            return list(self.racers)
        return []

    def prompt(self) -> Ruling:
        waiting = self._waiting()
        if self.over:
            text = say("The game is over.")
        elif self.phase == "down":
            owed = [self.owed[s] for s in waiting]
            text = partial(self._down_prompt, waiting, owed)                      # said when read
        elif self.phase == "race":
            text = say("Race for an ace! {seats}: turn cards up one at a time, as fast as you can; the first "
                       "ace takes everything.", seats=Names(waiting))
        elif self.flips:
            text = say("Waiting for {seats} to turn a card up.", seats=Names(waiting))
        elif self.standing:
            seats = Names(waiting)
            stands = said_list([say("{seat} fights with the {card}", seat=s, card=said(f))
                             for s, f in self.standing.items()])
            if self.sudden_death:
                text = say("Sudden death: {fighters} play one more battle. {seats}: turn the next card up "
                           "({stands}).", fighters=Names(self.fighters), seats=seats, stands=stands)
            elif self.war_depth:
                text = say("War! {seats}: turn the next card up ({stands}).", seats=seats, stands=stands)
            else:
                text = say("Battle {number}. {seats}: turn the next card up ({stands}).",
                           number=self.battles + 1, seats=seats, stands=stands)
        elif self.sudden_death:
            text = say("Sudden death: {fighters} play one more battle. Everyone turns the top card of their "
                       "stack up at the same time.", fighters=Names(self.fighters))
        elif self.war_depth:
            text = say("War! Everyone turns the top card of their stack up at the same time.")
        else:
            text = partial(say, to_translate("Battle {number}. Everyone turns the top card of their stack up at the "
                                             "same time."), number=self.battles + 1)
        return Ruling("prompt", text, {"phase": self.phase, "waiting": waiting, "war": self.war_depth,
                                       "battle": self.battles + (0 if self.over else 1)})

    @staticmethod
    def _down_prompt(waiting: list[str], owed: list[int]) -> Said:
        """The prompt of a war's face-down cards: ``waiting`` still owe ``owed`` cards each."""
        if len(set(owed)) == 1:
            return say("War! {seats}: lay {cards} face down, then turn the next card up.",
                       seats=Names(waiting), cards=cards_n(owed[0]))
        return say("War! {seats}: lay face down: {counts}, then turn the next card up.",
                   seats=Names(waiting), counts=", ".join(f"{s} {n}" for s, n in zip(waiting, owed)))

    # ------------------------------------------------------------------ checking
    def _face(self, code: str) -> Face:
        face = self.deck.read(code)
        if face.kind == "joker" and not self.options["jokers"]:
            raise IllegalEvent(say("The jokers are out of the deck in this game (turn on the jokers option "
                                   "to play jokers high)."))
        return face

    def _verify_flip(self, e: Flip) -> None:
        self._checked = e, self._verify_flips({e.seat: e.card})

    def _verify_cards(self, e: Flips) -> None:
        self._checked = e, self._verify_flips(e.cards)

    def _verify_flips(self, cards: dict[str, str]) -> list[tuple[str, Face]]:
        """Check the cards turned up; returns each (seat, face), as the flip applies them."""
        seen: list[str] = []
        turned: list[tuple[str, Face]] = []
        players, faces, phase = self.players, self.deck.faces, self.phase
        for seat, code in cards.items():
            p = players.get(seat)
            if p is None or p.out:                 # a name in another case, or one out: _player says which
                p = self._player(seat)
            if p.name in seen:
                raise BadEvent(say("{seat} is named twice in one flips event.", seat=p.name))
            seen.append(p.name)
            if phase == "down":
                raise IllegalEvent(say("Not yet: the face-down cards come first (still to lay: {seats}).",
                                       seats=Names(self._waiting())))
            if phase == "race":
                if p.name not in self.racers:
                    raise IllegalEvent(say("{seat} isn't in the race: only {seats} race.", seat=p.name,
                                           seats=Names(self.racers)))
            else:
                if p.name not in self.fighters:
                    raise IllegalEvent(say("{seat} isn't in this battle: only {seats} play it.", seat=p.name,
                                           seats=Names(self.fighters)))
                if p.name in self.standing:
                    raise IllegalEvent(say("{seat} has no cards left: the {card} stands for {seat} in this war.",
                                           seat=p.name, card=said(self.standing[p.name])))
                if p.name in self.flips:
                    raise IllegalEvent(say("{seat} has already turned up {card} in this round.", seat=p.name,
                                           card=a_card(self.flips[p.name])))
            if p.stack + p.won < 1:
                raise IllegalEvent(say("{seat} has no cards left to turn up.", seat=p.name))
            face = faces.get(code) if type(code) is str else None
            if face is None or face.kind == "joker":   # a code as typed, or a joker: _face reads or refuses it
                face = self._face(code)
            turned.append((p.name, face))
        self._verify_beside_middle([f for _, f in turned])
        return turned

    def _verify_down(self, e: Down) -> None:
        p = self._player(e.seat)
        if self.phase != "down":
            raise IllegalEvent(say("No war is waiting for face-down cards right now."))
        owed = self.owed.get(p.name, 0)
        if p.name not in self.fighters or owed == 0:
            raise IllegalEvent(say("{seat} has no face-down cards to lay now (still to lay: {seats}).",
                                   seat=p.name, seats=Names(self._waiting())) if self._waiting() else
                               say("{seat} has no face-down cards to lay now.", seat=p.name))
        if e.count < 1 or e.count > owed:
            raise IllegalEvent(say("{seat} has {cards} left to lay face down in this war, not {count}.",
                                   seat=p.name, cards=cards_n(owed), count=e.count))

    def _verify_recount(self, e: Recount) -> None:
        p = self._player(e.seat)
        if e.count is None:
            raise BadEvent(say("A recount needs a count: how many cards the player really holds."))
        if e.count < 0:
            raise IllegalEvent(say("A recount can't be negative ({count}).", count=e.count))
        need = self._still_needs(p.name)
        if e.count < need:
            raise IllegalEvent(say("{seat} still has to play {cards} in this battle, so the recount can't be "
                                   "below {need}; recount after the battle.", seat=p.name, cards=cards_n(need),
                                   need=need))

    def _still_needs(self, seat: str) -> int:
        """Cards a seat must still put in the middle in the battle under way."""
        if self.phase == "race":
            return 1 if seat in self.racers else 0
        if self.phase not in ("play", "down") or seat not in self.fighters or seat in self.standing:
            return 0
        return self.owed.get(seat, 0) + (0 if seat in self.flips else 1) if self.middle or self.flips else 0

    # ------------------------------------------------------------------ applying
    def _flip(self, e: Flip | Flips) -> list[Ruling]:
        checked, turned = self._checked
        self._checked = (None, ())
        if checked is not e:               # not the event verify saw last: read its cards again
            cards = e.cards if type(e) is Flips else {e.seat: e.card}
            turned = [(self._named(s).name, self._face(c)) for s, c in cards.items()]
        notes: list[Ruling] = []
        for s, f in turned:                # each card leaves the seat's stack for the middle
            self.middle.append((s, f))
            p = self.players[s]
            if p.stack:                    # the common case, without a call
                p.stack -= 1
            elif p.take():
                notes.append(Ruling("turn_over", say("{seat}'s stack ran out: the face-up won pile is turned over "
                                                     "as the new stack.", seat=s), {"seat": s}))
        if self.phase == "race":
            return notes + self._race_flip(turned)
        for s, f in turned:
            self.flips[s] = f
        waiting = self._waiting()
        if not waiting:
            return notes + self._resolve()
        codes = {}
        for s, f in turned:
            codes[s] = f.code
        notes.append(Ruling("flip", lambda: say("{shown}; waiting for {seats}.", seats=Names(waiting), shown=said_list(
            [say("{seat} turns up {card}", seat=s, card=a_card(f)) for s, f in turned])),
                            {"cards": codes, "waiting": waiting}))
        return notes

    def _down(self, e: Down) -> list[Ruling]:
        p = self._named(e.seat)
        note = say("(the won pile turned over as the new stack)") if p.take(e.count) else ""
        self.middle.extend([(p.name, None)] * e.count)
        self.owed[p.name] -= e.count
        return [self._down_ruling(p.name, e.count, self.owed[p.name], note)] + self._play_on()

    def _recount(self, e: Recount) -> list[Ruling]:
        p = self._named(e.seat)
        old = p.total
        p.won = min(p.won, e.count)
        p.stack = e.count - p.won
        rulings = [self._recount_ruling(p, old)]
        if p.total == 0 and not self.middle and self.phase == "play" and not self.flips:
            return rulings + self._battle_over()
        return rulings

    # ------------------------------------------------------------------ battles and wars
    def _fighting(self) -> dict[str, Face]:
        return {**self.flips, **self.standing}

    def _resolve(self) -> list[Ruling]:
        cards = self._fighting()
        tied, top = [], 0                          # the fighters with the highest card, in seat order
        for s in self.fighters:
            value = cards[s].value
            if value > top:
                tied, top = [s], value
            elif value == top:
                tied.append(s)
        if len(tied) == 1:
            return self._take(tied[0], fighting=cards)
        if self.race:
            return self._start_race(tied, top)
        return self._start_war(tied, top, cards)

    def _start_war(self, tied: list[str], top: int, fighting: dict[str, Face]) -> list[Ruling]:
        """``fighting``: the cards that tied and the others, by seat (``_fighting``)."""
        going_on = self.war_depth > 0
        self.wars += 1
        self.war_depth += 1
        stake = {"1": 1, "3": 3}.get(self.options["war_down"]) or rank_stake(top)
        everyone = list(self.fighters)
        joined = len(everyone) > len(tied)
        head = "goes_on" if going_on else "joined" if joined else "war"
        covering = self.options["war_down"] == "rank" or (self.options["war_down"] == "3"
                                                          and self.options["fewest_cards_fix"])
        rule = self.options["short"]
        # the stacks the stake must fit: everyone who stays in the war, a last card standing (0 left)
        # included; under "lose" and "last_card_once" an empty stack leaves the war instead
        holding = [self.players[s].total for s in everyone
                   if self.players[s].total > 0 or rule not in ("lose", "last_card_once")]
        fewest = None
        if covering and holding and min(holding) < stake + 1:
            fewest = min(holding)
            stake = max(0, fewest - 1)
            then = "fewest" if fewest else "none"
        elif self.options["war_down"] == "rank":
            then = "rank"
        else:
            then = ""
        text = partial(self._war_text, head, then, tied, fewest, stake, top)     # said when read
        self.flips = {}
        rulings = [Ruling("war", text, {"tied": tied, "stake": stake, "pile": len(self.middle),
                                        "counts": self.counts()})]
        short = [s for s in everyone if self.players[s].total < stake + 1]
        losers = (short if rule == "lose" else
                  [s for s in short if self.players[s].total == 0] if rule == "last_card_once" else [])
        if losers:
            more = self._lose_short(losers, stake)
            rulings += more
            if any(r.type in ("battle", "game_over") for r in more):
                return rulings
        self.owed = {}
        for s in self.fighters:
            p = self.players[s]
            if p.total >= stake + 1:
                self.owed[s] = stake
                self.standing.pop(s, None)
            elif p.total > 0:
                self.owed[s] = p.total - 1
                self.standing.pop(s, None)
                text = (say("{seat} has only {cards}: {down} face down, then the last card is turned up to fight.",
                            seat=s, cards=cards_n(p.total), down=cards_n(p.total - 1)) if p.total > 1 else
                        say("{seat} has only {cards}: the last card is turned up to fight.", seat=s,
                            cards=cards_n(p.total)))
                rulings.append(Ruling("short", text, {"seat": s, "counts": self.counts()}))
            else:
                self.standing[s] = fighting[s]
                rulings.append(Ruling("short", say("{seat} has no cards left: the {card} stands and fights every "
                                                   "round of this war.", seat=s, card=said(fighting[s])),
                                      {"seat": s, "card": fighting[s].code}))
        if all(s in self.standing for s in self.fighters):
            return rulings + self._stalemate()
        self.phase = "down" if any(self.owed.values()) else "play"
        return rulings + [self.prompt()]

    @staticmethod
    def _war_text(head: str, then: str, tied: list[str], fewest: int | None, stake: int, top: int) -> Said:
        """What a war's ruling says: how it starts (``head``: goes_on, joined or war) and what the
        stake is (``then``: fewest, none, rank or nothing), one whole sentence for each."""
        ranks = ranks_word(top, len(tied))
        tied = Names(tied)
        if head == "goes_on":
            if then == "fewest":
                return say("{ranks}: the war goes on! The shortest stack has only {fewest}, so everyone lays "
                           "{stake} face down.", ranks=ranks, fewest=cards_n(fewest), stake=cards_n(stake))
            if then == "none":
                return say("{ranks}: the war goes on! The shortest stack has no cards left, so nobody lays a "
                           "card face down.", ranks=ranks)
            if then == "rank":
                return say("{ranks}: the war goes on! A war over {rank} buries {stake} each.", ranks=ranks,
                           rank=ranks_plural(top), stake=cards_n(stake))
            return say("{ranks}: the war goes on!", ranks=ranks)
        if head == "joined":
            if then == "fewest":
                return say("{ranks}: everyone goes to war! Everybody at the table joins in, not only {tied}. "
                           "The shortest stack has only {fewest}, so everyone lays {stake} face down.",
                           ranks=ranks, tied=tied, fewest=cards_n(fewest), stake=cards_n(stake))
            if then == "none":
                return say("{ranks}: everyone goes to war! Everybody at the table joins in, not only {tied}. "
                           "The shortest stack has no cards left, so nobody lays a card face down.",
                           ranks=ranks, tied=tied)
            if then == "rank":
                return say("{ranks}: everyone goes to war! Everybody at the table joins in, not only {tied}. "
                           "A war over {rank} buries {stake} each.", ranks=ranks, tied=tied,
                           rank=ranks_plural(top), stake=cards_n(stake))
            return say("{ranks}: everyone goes to war! Everybody at the table joins in, not only {tied}.",
                       ranks=ranks, tied=tied)
        if then == "fewest":
            return say("{ranks}: war! The shortest stack has only {fewest}, so everyone lays {stake} face down.",
                       ranks=ranks, fewest=cards_n(fewest), stake=cards_n(stake))
        if then == "none":
            return say("{ranks}: war! The shortest stack has no cards left, so nobody lays a card face down.",
                       ranks=ranks)
        if then == "rank":
            return say("{ranks}: war! A war over {rank} buries {stake} each.", ranks=ranks,
                       rank=ranks_plural(top), stake=cards_n(stake))
        return say("{ranks}: war!", ranks=ranks)

    def _lose_short(self, short: list[str], stake: int) -> list[Ruling]:
        """Players who can't fight the war lose: the first to run out, or a draw at the same moment.
        Returns the rulings; the war goes on unless they end with a battle or game_over ruling."""
        everyone = list(self.fighters)
        totals = {s: self.players[s].total for s in everyone}
        need = (say("{stake} down and one up", stake=stake) if stake and self.options["short"] == "lose"
                else say("no card left to turn up"))
        if len(short) == len(everyone):
            most = max(totals.values())
            staying = [s for s in everyone if totals[s] == most]
            if len(staying) > 1:
                text = say("{seats} can't fight the war ({need}): they run out at the same moment, so the game "
                           "is a draw.", seats=Names(everyone), need=need)
                return self._game_over(None, staying, "draw", text)
            losers = [s for s in everyone if s not in staying]
            text = say_n("Nobody can fight the war; {seats} ran out first: {seats} loses.",
                         "Nobody can fight the war; {seats} ran out first: {seats} lose.", len(losers),
                         seats=Names(losers))
        else:
            losers = short
            text = say_n("{seats} can't fight the war ({need}) and loses on the spot.",
                         "{seats} can't fight the war ({need}) and lose on the spot.", len(losers),
                         seats=Names(losers), need=need)
        for s in losers:
            p = self.players[s]
            self.middle.extend([(s, None)] * p.total)
            p.stack = p.won = 0
            p.out = True
            self.fighters.remove(s)
            self.standing.pop(s, None)
        rulings = [Ruling("out", text, {"seats": losers, "counts": self.counts()})]
        if len(self.fighters) == 1:
            return rulings + self._take(self.fighters[0], alone=True)
        return rulings

    def _stalemate(self) -> list[Ruling]:
        """Everybody in the war stands on a last card and the war is tied: nobody can go on."""
        text = say("{seats} have no cards left to go on with the war: the game is a draw.",
                   seats=Names(self.fighters))
        return self._game_over(None, list(self.fighters), "draw", text)

    # ------------------------------------------------------------------ race for an ace
    def _start_race(self, tied: list[str], top: int) -> list[Ruling]:
        self.wars += 1
        self.war_depth += 1
        self.racers = [s for s in tied if self.players[s].total > 0]
        self.flips = {}
        self.standing = {}
        self.phase = "race"
        text = (say("{ranks}: race for an ace! Only {tied} race.", ranks=ranks_word(top, len(tied)),
                    tied=Names(tied)) if len(self.fighters) > len(tied) else
                say("{ranks}: race for an ace!", ranks=ranks_word(top, len(tied))))
        rulings = [Ruling("war", text, {"tied": tied, "race": True, "pile": len(self.middle),
                                        "counts": self.counts()})]
        return rulings + self._race_check([s for s in tied if s not in self.racers])

    def _race_flip(self, turned: list[tuple[str, Face]]) -> list[Ruling]:
        aces = [s for s, f in turned if f.value == ACE]
        if len(aces) == 1:
            return self._take(aces[0], race=True)
        rulings = []
        if len(aces) > 1:
            rulings.append(Ruling("flip", say("{seats} turn up aces at the same moment: the race goes on!",
                                              seats=Names(aces)), {"cards": {s: f.code for s, f in turned}}))
        else:
            shown = said_list([say("{seat} turns up {card}", seat=s, card=a_card(f)) for s, f in turned])
            rulings.append(Ruling("flip", say("{shown}.", shown=shown), {"cards": {s: f.code for s, f in turned}}))
        return rulings + self._race_check([s for s, _ in turned])

    def _race_check(self, seats: list[str]) -> list[Ruling]:
        """Racers with no card left drop out of the race; the last one left takes the pile."""
        rulings = []
        for s in seats:
            if s in self.racers and self.players[s].total == 0:
                self.racers.remove(s)
                rulings.append(Ruling("short", say("{seat} has no cards left to race with.", seat=s), {"seat": s}))
        if len(self.racers) == 1:
            return rulings + self._take(self.racers[0], alone=True)
        if not self.racers:
            self.carried += len(self.middle)
            self.middle = []
            rulings.append(Ruling("battle", say_n("Nobody is left in the race: the {n} card stay for the next "
                                                  "battle's winner.", "Nobody is left in the race: the {n} cards "
                                                  "stay for the next battle's winner.", self.carried),
                                  {"counts": self.counts()}))
            self.war_depth = 0
            self.battles += 1
            return rulings + self._battle_over()
        return rulings

    # ------------------------------------------------------------------ after a battle
    def _take(self, winner: str, alone: bool = False, race: bool = False,
              fighting: dict[str, Face] | None = None) -> list[Ruling]:
        """``winner`` takes the middle; ``fighting``, the cards that fought if the caller has them."""
        n = len(self.middle) + self.carried
        p = self.players[winner]
        if self.race:
            p.won += n
        else:
            p.stack += n
        text = partial(self._take_text, winner, n, alone, race, self.race, self.phase, self.war_depth,
                       self._fighting() if fighting is None else fighting)   # said when read, of the battle now
        self.middle, self.carried = [], 0
        self.battles += 1
        self.war_depth = 0
        rulings = [Ruling("battle", text, {"winner": winner, "cards": n, "counts": self.counts()})]
        return rulings + self._battle_over()

    @staticmethod
    def _take_text(winner: str, n: int, alone: bool, race: bool, pile: bool, phase: str, war_depth: int,
                   fighting: dict[str, Face]) -> Said:
        """What the battle's ruling says: who takes the ``n`` cards, and why (``fighting``: the cards
        that fought, ``phase`` and ``war_depth`` as the battle ended); with the race for an ace
        (``pile``), they go onto the face-up won pile."""
        taken = cards_n(n)
        if alone:
            if phase == "race":
                return (say("Only {seat} is left in the race: {seat} takes {cards} onto the face-up won pile.",
                            seat=winner, cards=taken) if pile else
                        say("Only {seat} is left in the race: {seat} takes {cards}.", seat=winner, cards=taken))
            if war_depth:
                return (say("Only {seat} is left in the war: {seat} takes {cards} onto the face-up won pile.",
                            seat=winner, cards=taken) if pile else
                        say("Only {seat} is left in the war: {seat} takes {cards}.", seat=winner, cards=taken))
            return (say("Only {seat} is left in the battle: {seat} takes {cards} onto the face-up won pile.",
                        seat=winner, cards=taken) if pile else
                    say("Only {seat} is left in the battle: {seat} takes {cards}.", seat=winner, cards=taken))
        if race:
            return (say("{seat} turns up the first ace: {seat} takes {cards} onto the face-up won pile!",
                        seat=winner, cards=taken) if pile else
                    say("{seat} turns up the first ace: {seat} takes {cards}!", seat=winner, cards=taken))
        beaten = said_list([say("{player}'s {card}", player=s, card=said(f)) for s, f in fighting.items() if s != winner])
        if pile:
            return say("{seat}'s {card} beats {beaten}: {seat} takes {cards} onto the face-up won pile.",
                       seat=winner, card=said(fighting[winner]), beaten=beaten, cards=taken)
        return say("{seat}'s {card} beats {beaten}: {seat} takes {cards}.", seat=winner,
                   card=said(fighting[winner]), beaten=beaten, cards=taken)

    def _battle_over(self) -> list[Ruling]:
        self.flips, self.standing, self.owed, self.racers = {}, {}, {}, []
        rulings: list[Ruling] = []
        active = []                                # the players still in, after those with no card go out
        for s, p in self.players.items():
            if p.out:
                continue
            if p.stack + p.won == 0:
                p.out = True
                rulings.append(Ruling("out", say("{seat} has no cards left: {seat} is out.", seat=s),
                                      {"seat": s, "counts": self.counts()}))
            else:
                active.append(s)
        if len(active) == 1:
            return rulings + self._game_over(active[0], active, "last_standing",
                                             say("{seat} holds every card in play: {seat} wins!", seat=active[0]))
        if not active:
            return rulings + self._game_over(None, [], "draw", say("Nobody has a card left: the game is a draw."))
        cap = self.options["max_battles"]
        if self.time_up or (cap is not None and self.battles >= cap) or self.sudden_death:
            return rulings + self._score(final=self.sudden_death)   # one sudden-death battle, then shared
        return rulings + self._new_round(active)

    def _new_round(self, fighters: list[str]) -> list[Ruling]:
        self.fighters = list(fighters)
        self.phase = "play"
        return [self.prompt()]


# each event the game takes -> the function that checks it, and the one that applies it
ClassicState.CHECKS = {Flip: ClassicState._verify_flip, Flips: ClassicState._verify_cards,
                       Down: ClassicState._verify_down, Recount: ClassicState._verify_recount,
                       TimeUp: ClassicState._verify_time_up}
ClassicState.APPLIES = {Flip: ClassicState._flip, Flips: ClassicState._flip, Down: ClassicState._down,
                        Recount: ClassicState._recount, TimeUp: ClassicState._time_up}


class ClassicWar(Game):
    id = "classic"
    name = to_translate("Classic War")
    how_to_play = (
        to_translate("Deal all the cards face down, one at a time, until none are left. Keep your cards in a pile "
                     "and don't look at them."),
        to_translate("Everyone turns over the top card of their pile at the same time. The highest card wins: its "
                     "player takes all the cards turned over and puts them under their pile."),
        to_translate("The ace is the highest card, then king, queen, jack, 10, 9 ... down to 2. Suits don't matter."),
        to_translate("Two or more of the highest card? That's a war! Those players lay one card face down (or three, "
                     "if you chose that rule), then turn one more card over. The highest of those takes every card "
                     "in the middle. Another tie? The war goes on."),
        to_translate("Out of cards? You are out of the game. The last player with cards wins. In a timed game, the "
                     "player with the most cards when time is up wins."),
    )
    flips_together = True
    min_players = 2
    max_players = 4
    options = OPTIONS
    deck_id = "standard"
    state_class = ClassicState

    def cards_in_play(self, options) -> int:
        return self.deck.size - (0 if options["jokers"] else self.deck.count(kind="joker"))
