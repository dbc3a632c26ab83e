"""Namikopy War: 2-5 players, everyone flips at once, the highest point value takes the cards.

The referee sees what the table shows (the cards turned face up, how many cards go face down, who a
WAR card's player picks) and keeps every player's playing pile and face-up won pile as counts, from
the deal and its own rulings. Readings of the rule document, and warref's choices where it is
silent, are in docs/namikopy.md.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any, Mapping

from ..deck import Deck, Face, load_deck
from ..errors import BadEvent, IllegalEvent, SetupError
from ..events import Choose, Down, Flip, Recount, TimeUp
from ..game import Game, SeatedState, cards_n, said_list
from ..options import Option, max_battles_option, timed_tie_option
from ..rulings import Ruling, article
from ..say import Card, Names, Said, say, say_n, to_translate
from .classic import ranks_word

WAR_DOWN = 3            # cards face down in a war, before the 4th is turned up
WAR_KINDS = ("war", "joker")   # a standard deck's jokers stand in for the WAR cards
RANK_WORDS = {11: "jack", 12: "queen", 13: "king", 14: "ace"}

OPTIONS = (
    Option("deck", "namikopy", to_translate("Which cards are played."), choices=("namikopy", "standard"),
           choice_help={"namikopy": to_translate("Namikopy cards: the number is the point value, 1-12"),
                        "standard": to_translate("a standard deck: 2-10 at face value, jack 11, queen 12, king 13, "
                                                 "ace 14 (aces high); the two jokers are the WAR cards")},
           label=to_translate("Cards"),
           choice_labels={"namikopy": to_translate("Namikopy cards"), "standard": to_translate("A standard deck")}),
    Option("war_cards", False,
           to_translate("Shuffle in the Namikopy WAR cards (MALLARD, FLAMINGO, TURKEY; with a standard deck, the "
                        "two jokers): flipping one starts a war at once with the opponent its player picks."),
           kind="bool", label=to_translate("WAR cards")),
    Option("cards", None,
           to_translate("How many cards are collected for the game, WAR cards included (off: the whole deck); "
                        "everyone gets the same number and the rest are set aside unseen."),
           kind="int", minimum=2, can_be_off=True, label=to_translate("Cards in the game")),
    timed_tie_option(),
    max_battles_option(),
)


def cards_in_play(deck: Deck, war_cards: bool) -> tuple[int, int]:
    """(numbered cards, WAR cards) this deck brings to a game."""
    wars = sum(deck.count(kind=k) for k in WAR_KINDS) if war_cards else 0
    return deck.count(kind="number"), wars


def deal_size(deck: Deck, options: dict[str, Any], players: int) -> tuple[int, int]:
    """(cards per player, cards set aside). Raises SetupError when the cards can't be dealt."""
    numbers, wars = cards_in_play(deck, options["war_cards"])
    have = numbers + wars
    used = options["cards"] if options["cards"] is not None else have
    if used > have:
        raise SetupError(say("The {deck} deck has only {have} cards with its WAR cards for Namikopy War, not {used}.",
                             deck=say(deck.name), have=have, used=used) if wars else
                         say("The {deck} deck has only {have} cards for Namikopy War, not {used}.",
                             deck=say(deck.name), have=have, used=used))
    if used < players:
        raise SetupError(say("{used} cards can't be dealt to {players} players: everyone needs at least one.",
                             used=used, players=players))
    return used // players, used % players


def said(face: Face, deck_id: str) -> str:
    """A card as said aloud: '8', 'ace', 'WAR Mallard', 'joker'."""
    if face.kind in WAR_KINDS:
        return face.name
    if deck_id == "standard" and face.value in RANK_WORDS:
        return RANK_WORDS[face.value]
    return face.label


def spoken(face: Face, deck_id: str, text: str) -> Any:
    """A card in a sentence, said in English as ``text`` ('8', 'an 8', 'the jack'), carrying its message:
    a numbered card by its number (Portuguese "o 8"), a standard deck's jack, queen, king or ace read
    by its code (rank and suit, "o valete de copas", or the rank alone, "o valete"), the joker as "o jóquer";
    a WAR card by its printed name ("a WAR Mallard", which Portuguese reads as it is)."""
    if face.kind == "number":
        if deck_id != "standard" or face.value not in RANK_WORDS:
            return Card(face.code, text, face.value)
        return Card(face.code, text)
    if face.code == "JOKER":
        return Card(face.code, text)
    return text


def upper_first(text: str) -> str:
    return text[:1].upper() + text[1:]


@dataclass(slots=True)
class Player:
    name: str
    pile: int             # the face-down playing pile
    won: int = 0          # the face-up pile of won (and taken-back) cards
    out: bool = False

    @property
    def total(self) -> int:
        return self.pile + self.won


class NamikopyState(SeatedState):
    GAME = "Namikopy War"

    def __init__(self, game: "NamikopyWar", players: list[str], options: dict[str, Any]):
        self.game = game
        self.options = options
        self.deck: Deck = load_deck(options["deck"])
        per, aside = deal_size(self.deck, options, len(players))
        self.dealt = per * len(players)
        self.set_aside = aside
        self.players: dict[str, Player] = {n: Player(n, per) for n in players}
        self._lower = {n.lower(): n for n in players}
        self.middle: list[tuple[str, Face | None]] = []   # (seat, face) or (seat, None) face down
        self.fighters: list[str] = list(players)           # who plays the current battle or war round
        self.flips: dict[str, Face] = {}                   # cards turned up this round
        self.shown: dict[str, Face] = {}                   # each fighter's card in play (stands if short)
        self.need: dict[str, int] = {}                     # face-down cards still to lay this war round
        self.short: dict[str, int] = {}                    # fighters short of cards: cards they had
        self.phase = "play"                                # play | choose | down | over
        self.chooser: str | None = None
        self.war_depth = 0
        self.time_up = False
        self.sudden_death = False
        self.battles = 0
        self.wars = 0
        self.adjustment = 0
        self.result: dict[str, Any] | None = None
        self._spoken: dict[Any, Any] = {}                 # the cards as said in rulings, made once each

    # ------------------------------------------------------------------ views
    def counts(self) -> dict[str, int]:
        counts = {}
        for n, p in self.players.items():        # a loop, not a comprehension: quicker for a few seats
            counts[n] = p.pile + p.won
        return counts

    def piles(self) -> dict[str, dict[str, int]]:
        return {n: {"pile": p.pile, "won": p.won} for n, p in self.players.items()}

    def card_total(self) -> int:
        """Cards the referee knows of: every playing pile and face-up pile plus the middle."""
        total = len(self.middle)
        for p in self.players.values():          # a loop, not a generator: quicker for a few seats
            total += p.total
        return total

    def expected_total(self) -> int:
        """The cards dealt, plus any recount corrections (the cards set aside never play)."""
        return self.dealt + self.adjustment

    def snapshot(self) -> dict[str, Any]:
        return {
            "players": {n: {"pile": p.pile, "won": p.won, "out": p.out} for n, p in self.players.items()},
            "middle": [[s, f.code if f else None] for s, f in self.middle],
            "fighters": list(self.fighters), "flips": {s: f.code for s, f in self.flips.items()},
            "shown": {s: f.code for s, f in self.shown.items()}, "need": dict(self.need),
            "short": dict(self.short), "phase": self.phase, "chooser": self.chooser,
            "war_depth": self.war_depth, "time_up": self.time_up, "sudden_death": self.sudden_death,
            "battles": self.battles, "wars": self.wars, "adjustment": self.adjustment,
            "result": self.result,
        }

    def said(self, face: Face) -> str:
        return said(face, self.deck.id)

    def card(self, face: Face) -> Any:
        """'8', 'jack', 'WAR Mallard', carrying its message where it has one (made once per card)."""
        found = self._spoken.get(face.code)
        if found is None:
            found = self._spoken[face.code] = spoken(face, self.deck.id, said(face, self.deck.id))
        return found

    def a_card(self, face: Face) -> Any:
        """'an 8', 'a jack', 'a WAR Mallard'."""
        key = ("a", face.code)
        found = self._spoken.get(key)
        if found is None:
            found = self._spoken[key] = spoken(face, self.deck.id, article(said(face, self.deck.id)))
        return found

    def owned(self, seat: str, face: Face) -> Any:
        """"Sam's 8"."""
        key = (seat, face.code)
        found = self._spoken.get(key)
        if found is None:
            shown = self.card(face)
            if isinstance(shown, Card) and shown.number is not None:
                # as the coach says "Zé's 7" (Portuguese "o 7 de Zé"): the number itself
                found = say("{seat}'s {card}", seat=seat, card=face.value)
            elif isinstance(shown, Card):
                # a court card or the joker by its rank, as English says it ("Zé's queen", "a dama de Zé")
                rank = face.code[:-1] if face.exact and face.code != "JOKER" else face.code
                found = say("{seat}'s {rank}", seat=seat, rank=Card(rank, said(face, self.deck.id)))
            else:                                     # a WAR card by its printed name
                found = say("{seat}'s {card}", seat=seat, card=said(face, self.deck.id))
            self._spoken[key] = found
        return found

    def standing(self) -> list[str]:
        """War fighters with no card left to turn up: the card they showed last stands."""
        if not self.war_depth:
            return []
        return [s for s in self.fighters if self.short.get(s) == 0]

    def _waiting(self) -> list[str]:
        if self.phase == "down":
            return [s for s in self.fighters if self.need.get(s)]
        if self.phase == "choose":
            return [self.chooser]
        if self.phase == "play":
            standing = self.standing()
            waiting = []
            for s in self.fighters:
                if s not in self.flips and s not in standing:
                    waiting.append(s)
            return waiting
        return []

    def prompt(self) -> Ruling:
        waiting = self._waiting()
        if self.over:
            text = say("The game is over.")
        elif self.phase == "choose":
            others = [s for s in self.fighters if s != self.chooser]
            text = say("{seat} flipped a WAR card: {seat}, choose who to go to war with ({others}).",
                       seat=self.chooser, others=said_list(others, "or"))
        elif self.phase == "down":
            each = ", ".join(f"{s} {self.need[s]}" for s in waiting)     # names and numbers: "Sam 3, Mia 2"
            text = say("War between {fighters}: lay your cards face down ({each}), then turn up a war card.",
                       fighters=Names(self.fighters), each=each)
        elif self.war_depth:
            standing = self.standing()
            if standing:
                text = say_n("War between {fighters}: {seats}, turn up your war card ({stands} stands).",
                             "War between {fighters}: {seats}, turn up your war card ({stands} stand).",
                             len(standing), fighters=Names(self.fighters), seats=Names(waiting),
                             stands=said_list([self.owned(s, self.shown[s]) for s in standing]))
            else:
                text = say("War between {fighters}: {seats}, turn up your war card.", fighters=Names(self.fighters),
                           seats=Names(waiting))
        elif self.flips:
            text = say("Waiting for {seats} to flip.", seats=Names(waiting))
        elif self.sudden_death:
            text = say("Sudden death: {seats} play one more battle, flipping the top card of their playing pile at "
                       "the same time.", seats=Names(self.fighters))
        else:
            text = partial(say, to_translate("Battle {number}. Everyone flips the top card of their playing pile at "
                                             "the same time."), number=self.battles + 1)
        return Ruling("prompt", text, {"phase": self.phase, "waiting": waiting, "war": self.war_depth,
                                       "battle": self.battles + (0 if self.over else 1)})

    # ------------------------------------------------------------------ checking
    def _fighter(self, name: str) -> Player:
        p = self._player(name)
        if p.name not in self.fighters:
            raise IllegalEvent(say("{seat} isn't in this war: only {seats} play it.", seat=p.name,
                                   seats=Names(self.fighters)) if self.war_depth or self.phase == "choose"
                               else say("{seat} isn't in this battle: only {seats} play it.", seat=p.name,
                                        seats=Names(self.fighters)))
        return p

    def _verify_flip(self, e: Flip) -> None:
        p = self._fighter(e.seat)
        if self.phase == "choose":
            raise IllegalEvent(say("Not yet: {seat} flipped a WAR card and first chooses who to go to war with.",
                                   seat=self.chooser))
        if p.name in self.standing():
            raise IllegalEvent(self._stands(p.name))
        if self.phase == "down":
            raise IllegalEvent(say("Not yet: the face-down cards come first (still to lay: {seats}).",
                                   seats=Names(self._waiting())))
        if p.name in self.flips:
            card = self.a_card(self.flips[p.name])
            raise IllegalEvent(say("{seat} has already turned up {card} in this war.", seat=p.name, card=card)
                               if self.war_depth else
                               say("{seat} has already turned up {card} in this battle.", seat=p.name, card=card))
        face = self.deck.read(e.card)
        # a WAR card by its printed name ("A WAR Mallard"), a joker as a card ("A joker", "O jóquer")
        if face.kind in WAR_KINDS and not self.options["war_cards"]:
            card = spoken(face, self.deck.id, upper_first(article(face.name)))
            raise IllegalEvent(say("{card} can't be played in this game: jokers stand in for the WAR cards, which are "
                                   "only played with the rule option war_cards=on.", card=card)
                               if self.deck.id == "standard" else
                               say("{card} can't be played in this game: WAR cards are only played with the rule "
                                   "option war_cards=on.", card=card))
        if face.kind != "number" and face.kind not in WAR_KINDS:
            raise IllegalEvent(say("{card} is not a Namikopy War card.", card=upper_first(article(face.name))))
        self._verify_beside_middle([face])

    def _stands(self, s: str) -> Any:
        return say("{seat} has no cards left: {seat}'s {card} stands as the war card.", seat=s,
                   card=self.card(self.shown[s]))

    def _verify_down(self, e: Down) -> None:
        p = self._fighter(e.seat)
        if self.phase != "down":
            if self.phase == "choose":
                raise IllegalEvent(say("Not yet: {seat} first chooses who to go to war with.", seat=self.chooser))
            raise IllegalEvent(say("No war is waiting for face-down cards right now."))
        had = self.short.get(p.name)
        if had == 0:
            raise IllegalEvent(self._stands(p.name))
        if had == 1:
            raise IllegalEvent(say("{seat} has only 1 card, so it is turned up as the war card with nothing face "
                                   "down.", seat=p.name))
        left = self.need[p.name]
        full = WAR_DOWN if had is None else had - 1
        if left == 0:
            raise IllegalEvent(say("{seat} has already laid {cards} face down in this war.", seat=p.name,
                                   cards=cards_n(full)))
        if e.count < 1 or e.count > left:
            laid = full - left
            count = laid + e.count
            if had is None:
                raise IllegalEvent(say("In a war each player lays {n} cards face down, not {count} ({laid} already "
                                       "down, {left} to go).", n=WAR_DOWN, count=count, laid=laid, left=left) if laid
                                   else say("In a war each player lays {n} cards face down, not {count}.", n=WAR_DOWN,
                                            count=count))
            raise IllegalEvent(say("{seat} has only {had} cards, so {seat} lays {full} face down and turns the last "
                                   "one up, not {count} ({laid} already down, {left} to go).", seat=p.name, had=had,
                                   full=full, count=count, laid=laid, left=left) if laid
                               else say("{seat} has only {had} cards, so {seat} lays {full} face down and turns the "
                                        "last one up, not {count}.", seat=p.name, had=had, full=full, count=count))

    def _verify_choose(self, e: Choose) -> None:
        if self.phase != "choose":
            raise IllegalEvent(say("No one needs to choose an opponent right now: a player chooses only after "
                                   "flipping the only WAR card with more than one player to pick from."))
        p = self._player(e.seat)
        if p.name != self.chooser:
            raise IllegalEvent(say("{chooser} flipped the WAR card, so {chooser} chooses, not {seat}.",
                                   chooser=self.chooser, seat=p.name))
        target = self._player(e.opponent)
        if target is p:
            raise IllegalEvent(say("{seat} can't go to war with {seat}: choose {others}.", seat=p.name,
                                   others=said_list([s for s in self.fighters if s != p.name], "or")))
        if target.name not in self.fighters:
            raise IllegalEvent(say("{seat} isn't in this battle: choose {others}.", seat=target.name,
                                   others=said_list([s for s in self.fighters if s != p.name], "or")))

    def _verify_recount(self, e: Recount) -> None:
        p = self._player(e.seat)
        if e.hand is not None or e.herd is not None:
            raise BadEvent(say("A Namikopy War recount gives one count: the playing pile and the face-up pile "
                               "together."))
        if e.count is None:
            raise BadEvent(say("A recount needs a count."))
        if e.count < 0:
            raise IllegalEvent(say("A recount can't be negative (count {value}).", value=e.count))
        if self.middle and p.name in self.fighters:
            raise IllegalEvent(say("{seat}'s cards are in play: recount {seat} when this battle is over.",
                                   seat=p.name))

    # ------------------------------------------------------------------ applying
    def _take_cards(self, p: Player, n: int) -> None:
        """n cards leave a player for the middle: from the playing pile, then the face-up pile (which
        the rulings have already announced as the new playing pile)."""
        from_pile = min(n, p.pile)
        p.pile -= from_pile
        p.won -= n - from_pile

    def _flip(self, e: Flip) -> list[Ruling]:
        face = self.deck.read(e.card)
        p = self._named(e.seat)
        self._take_cards(p, 1)
        self.flips[p.name] = face
        self.middle.append((p.name, face))
        waiting = self._waiting()
        if not waiting:
            return self._resolve()
        seat = p.name
        return [Ruling("flip", lambda: say("{seat} flips {card}; waiting for {seats}.", seat=seat,
                                           card=self.a_card(face), seats=Names(waiting)),
                       {"seat": seat, "card": face.code, "waiting": waiting})]

    def _down(self, e: Down) -> list[Ruling]:
        p = self._named(e.seat)
        from_pile = min(e.count, p.pile)
        p.pile -= from_pile
        midway = self._reshuffle([p.name]) if from_pile < e.count else []
        self._take_cards(p, e.count - from_pile)
        self.middle.extend([(p.name, None)] * e.count)
        self.need[p.name] -= e.count
        rulings = [self._down_ruling(p.name, e.count, self.need[p.name])] + midway + self._reshuffle([p.name])
        return rulings + self._play_on()

    def _choose(self, e: Choose) -> list[Ruling]:
        chooser = self.chooser
        opponent = self._named(e.opponent).name
        self.chooser = None
        return self._start_war([chooser, opponent], say("{seat} picks {opponent}", seat=chooser, opponent=opponent),
                               "war_card")

    def _recount(self, e: Recount) -> list[Ruling]:
        p = self._named(e.seat)
        old = p.total
        p.won = min(p.won, e.count)
        p.pile = e.count - p.won
        rulings = [self._recount_ruling(p, old)]
        if self.middle:
            return rulings       # a player not in the war: any going out waits for the battle's end
        rulings += self._outs()
        active = self.active()
        if len(active) == 1:
            return rulings + self._last_standing(active[0])
        if p.out:
            self.fighters = [s for s in self.fighters if s != p.name]
            self.flips.pop(p.name, None)
            if len(self.fighters) < 2:      # a sudden-death battle lost a player: count again
                return rulings + self._score()
        rulings += self._reshuffle([p.name])
        return rulings

    # ------------------------------------------------------------------ battle logic
    def _value(self, face: Face) -> int:
        """A card's point value; a WAR card left standing is worth less than any number."""
        return 0 if face.kind in WAR_KINDS else face.value

    def _resolve(self) -> list[Ruling]:
        """Every fighter's card is up (or stands): a war, a winner, or a war called off."""
        self.shown.update(self.flips)
        cards = {s: self.shown[s] for s in self.fighters}
        turned_war = [s for s in self.fighters if s in self.flips and self.flips[s].kind in WAR_KINDS]
        if turned_war and not self.war_depth:
            if len(turned_war) == 1:
                w = turned_war[0]
                others = [s for s in self.fighters if s != w]
                lead = say("{seat} flips {card}", seat=w, card=self.a_card(cards[w]))
                if len(others) == 1:
                    return self._start_war([w, others[0]], lead, "war_card")
                self.phase = "choose"
                self.chooser = w
                self.flips = {}
                text = say("{lead}: a war at once, and {seat} picks who to fight ({others}).", lead=lead, seat=w,
                           others=said_list(others, "or"))
                return [Ruling("war_card", text, {"seat": w, "choices": others, "counts": self.counts()}),
                        self.prompt()]
            labels = said_list([self.card(cards[s]) for s in turned_war])
            return self._start_war(turned_war, say("{seats} flip WAR cards ({cards})", seats=Names(turned_war),
                                                   cards=labels), "war_cards")
        if turned_war:
            lead = say_n("{seats} turns up {cards}", "{seats} turn up {cards}", len(turned_war),
                         seats=Names(turned_war), cards=said_list([self.a_card(cards[s]) for s in turned_war]))
            return self._start_war(list(self.fighters), lead, "war_card", again=True)
        values = {s: self._value(cards[s]) for s in self.fighters}
        top = max(values.values())
        tied = [s for s in self.fighters if values[s] == top]
        if len(tied) == 1:
            return self._take(tied[0])
        standing = self.standing()
        if all(s in standing for s in tied):
            return self._call_off(tied)
        lead = self._tie_words(len(tied), self.said(cards[tied[0]]), cards[tied[0]].value)
        return self._start_war(tied, lead, "tie", again=bool(self.war_depth))

    def _tie_words(self, n: int, card: str, value: int | None = None) -> Any:
        """"Two 8s", "Three jacks again": the card as said in English, plain (a number or a name); a
        standard deck's jacks to aces as Classic War says them, a phrase each ("Duas damas")."""
        if self.deck.id == "standard" and value in RANK_WORDS:
            key = ("tie", value, n, bool(self.war_depth))
            found = self._spoken.get(key)
            if found is None:
                ranks = ranks_word(value, n)
                found = self._spoken[key] = say("{ranks} again", ranks=ranks) if self.war_depth else ranks
            return found
        if self.war_depth:
            return (say("Two {card}s again", card=card) if n == 2 else say("Three {card}s again", card=card) if n == 3
                    else say("Four {card}s again", card=card) if n == 4 else say("Five {card}s again", card=card)
                    if n == 5 else say("{n} {card}s again", n=n, card=card))
        return (say("Two {card}s", card=card) if n == 2 else say("Three {card}s", card=card) if n == 3
                else say("Four {card}s", card=card) if n == 4 else say("Five {card}s", card=card) if n == 5
                else say("{n} {card}s", n=n, card=card))

    def _start_war(self, fighters: list[str], lead: str, reason: str, again: bool = False) -> list[Ruling]:
        """A war (or the next round of one) between these fighters. In a fresh battle the others take
        their own card back onto their face-up pile; in a war the others' cards stay in the pile."""
        first = not self.war_depth
        self.wars += 1
        self.war_depth += 1
        left_out = [s for s in self.fighters if s not in fighters]
        back: list[str] = []
        if first:
            for s in left_out:
                i = next(i for i, (seat, f) in enumerate(self.middle) if seat == s and f is not None)
                _, face = self.middle.pop(i)
                self.players[s].won += 1
                back.append(say("{seat} takes the {card} back onto their face-up pile.", seat=s, card=self.card(face)))
        self.fighters = list(fighters)
        self.flips = {}
        self.need = {}
        self.short = {}
        for s in self.fighters:
            have = self.players[s].total
            if have < WAR_DOWN + 1:
                self.short[s] = have
            self.need[s] = min(WAR_DOWN, max(have - 1, 0))
        seats = Names(self.fighters)
        if again and reason == "war_card":
            text = say("{lead}: the war starts again between {seats}!", lead=lead, seats=seats)
        elif again:
            text = say("{lead}: the war goes on between {seats}!", lead=lead, seats=seats)
        else:
            text = say("{lead}: war between {seats}!", lead=lead, seats=seats)
        for b in back:                       # sentences one after the other
            text = say("{a} {b}", a=text, b=b)
        rulings = [Ruling("war", text, {"reason": reason, "fighters": list(self.fighters),
                                        "pile": len(self.middle), "counts": self.counts()})]
        for s, had in self.short.items():
            if had == 0:
                t = self._stands(s)
            elif had == 1:
                t = say("{seat} has only 1 card: {seat} turns it up as the war card, with nothing face down.", seat=s)
            else:   # n: the cards laid face down
                t = say_n("{seat} has only {had} cards: {seat} lays {n} face down and turns the last one up as the war "
                          "card.",
                          "{seat} has only {had} cards: {seat} lays {n} face down and turns the last one up as the war "
                          "card.", had - 1, seat=s, had=had)
            rulings.append(Ruling("short", t, {"seat": s, "cards": had, "down": self.need[s]}))
        rulings += self._reshuffle(self.fighters)
        if any(self.need.values()):
            self.phase = "down"
            return rulings + [self.prompt()]
        self.phase = "play"
        if self._waiting():
            return rulings + [self.prompt()]
        return rulings + self._resolve()      # nobody has a card to turn up: the standing cards decide

    def _reshuffle(self, names: list[str]) -> list[Ruling]:
        """A player whose playing pile has run out picks up the face-up pile as the new one."""
        rulings = []
        for s in names:
            p = self.players[s]
            if p.pile == 0 and p.won > 0 and not p.out:
                p.pile, p.won = p.won, 0
                rulings.append(Ruling("reshuffle", say_n("{seat}'s playing pile has run out: {seat} shuffles the {n} "
                                                         "face-up card into a new playing pile.",
                                                         "{seat}'s playing pile has run out: {seat} shuffles the {n} "
                                                         "face-up cards into a new playing pile.", p.pile, seat=s),
                                      {"seat": s, "cards": p.pile}))
        return rulings

    def _take(self, winner: str) -> list[Ruling]:
        n = len(self.middle)
        self.players[winner].won += n
        top, shown = self.shown[winner], [(s, self.shown[s]) for s in self.fighters]   # what the sentence says
        values = [self._value(f) for s, f in shown if s != winner]
        if len(values) != len(set(values)):
            template = (to_translate("{seat}'s {card} beats {beaten} and wins the war (equal cards below the highest "
                                     "start no war): {seat} takes {cards}.") if self.war_depth else
                        to_translate("{seat}'s {card} beats {beaten} (equal cards below the highest start no war): "
                                     "{seat} takes {cards}."))
        else:
            template = (to_translate("{seat}'s {card} beats {beaten} and wins the war: {seat} takes {cards}.")
                        if self.war_depth else to_translate("{seat}'s {card} beats {beaten}: {seat} takes {cards}."))

        def text() -> Said:
            return say(template, seat=winner, card=self.card(top), cards=cards_n(n),
                       beaten=said_list([self.owned(s, f) for s, f in shown if s != winner]))
        self.battles += 1
        rulings = [Ruling("battle", text, {"winner": winner, "cards": n, "counts": self.counts()})]
        self._clear()
        return rulings + self._battle_over()

    def _call_off(self, tied: list[str]) -> list[Ruling]:
        """The tied fighters have no card left to turn up: everyone takes back what they put in."""
        put_in: dict[str, int] = {}
        for s, _ in self.middle:
            put_in[s] = put_in.get(s, 0) + 1
        for s, n in put_in.items():
            self.players[s].won += n
        self.battles += 1
        back = ", ".join(f"{s} {n}" for s, n in put_in.items())
        text = (say("{seats} tie and neither of them has a card left to turn up: the war is called off and everyone "
                    "takes back the cards they put in ({back}).", seats=Names(tied), back=back) if len(tied) == 2
                else say("{seats} tie and none of them has a card left to turn up: the war is called off and everyone "
                         "takes back the cards they put in ({back}).", seats=Names(tied), back=back))
        rulings = [Ruling("called_off", text, {"tied": list(tied), "returned": put_in,
                                               "counts": self.counts()})]
        self._clear()
        others = [s for s in self.active() if s not in tied and self.players[s].total > 0]
        if self.sudden_death:
            return rulings + self._score(final=True)
        if not others:
            text = say("Nobody else has cards and {seats} can't break the tie: the game is a draw.", seats=Names(tied))
            return rulings + self._game_over(None, tied, "draw", text)
        return rulings + self._battle_over()

    def _clear(self) -> None:
        self.middle = []
        self.flips = {}
        self.shown = {}
        self.need = {}
        self.short = {}
        self.war_depth = 0
        self.chooser = None

    def _outs(self) -> list[Ruling]:
        rulings = []
        for s in self.active():
            if self.players[s].total == 0:
                self.players[s].out = True
                rulings.append(Ruling("out", say("{seat} has no cards left: {seat} is out.", seat=s),
                                      {"seat": s, "counts": self.counts()}))
        return rulings

    def _battle_over(self) -> list[Ruling]:
        """After the middle is taken: the empty-handed are out, the game goes on or ends."""
        rulings = self._outs()
        active = self.active()
        if len(active) == 1:
            return rulings + self._last_standing(active[0])
        cap = self.options["max_battles"]
        if self.time_up or self.sudden_death or (cap is not None and self.battles >= cap):
            return rulings + self._score()
        return rulings + self._reshuffle(active) + self._new_round(active)

    def _last_standing(self, s: str) -> list[Ruling]:
        return self._game_over(s, [s], "last_standing", say("{seat} is the last player with cards: {seat} wins!", seat=s))

    def _new_round(self, fighters: list[str]) -> list[Ruling]:
        self.fighters = list(fighters)
        self._clear()
        self.phase = "play"
        return [self.prompt()]

    def _sudden_death(self, top: list[str]) -> list[Ruling]:
        return self._reshuffle(top) + self._new_round(top)


# each event the game takes -> the function that checks it, and the one that applies it
NamikopyState.CHECKS = {Flip: NamikopyState._verify_flip, Down: NamikopyState._verify_down,
                        Choose: NamikopyState._verify_choose, Recount: NamikopyState._verify_recount,
                        TimeUp: NamikopyState._verify_time_up}
NamikopyState.APPLIES = {Flip: NamikopyState._flip, Down: NamikopyState._down, Choose: NamikopyState._choose,
                         Recount: NamikopyState._recount, TimeUp: NamikopyState._time_up}


class NamikopyWar(Game):
    id = "namikopy"
    name = to_translate("Namikopy War")
    how_to_play = (
        to_translate("Everyone gets the same number of cards, face down in a pile. Don't look!"),
        to_translate("Everyone turns over their top card at the same time. The card worth the most points takes all "
                     "the cards turned over, face up onto its player's pile of won cards."),
        to_translate("Only a tie for the highest card is a war: those players lay 3 cards face down and turn a 4th "
                     "card over. The highest 4th card takes everything. Everyone else takes their own card back."),
        to_translate("With the WAR cards in the game, a player who turns one over picks who to go to war with."),
        to_translate("When your pile is empty, shuffle your won cards: they are your new pile. No cards left at all? "
                     "You are out. The last player with cards wins; in a timed game, the player with the most cards."),
    )
    camera_deck = "namikopy"
    min_players = 2
    max_players = 5
    options = OPTIONS
    deck_id = "namikopy"
    state_class = NamikopyState

    def camera_deck_for(self, options: Mapping[str, Any]) -> str:
        """Namikopy may be played with a standard deck (its ``deck`` option)."""
        return "standard" if str(options.get("deck", "")) == "standard" else self.camera_deck

    def cards_in_play(self, options) -> int:
        numbers, wars = cards_in_play(load_deck(options["deck"]), options["war_cards"])
        return options["cards"] if options["cards"] is not None else numbers + wars
