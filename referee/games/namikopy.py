"""Namikopy War: 2-5 players, everyone flips at once, the highest point value takes the cards.

The referee sees what the table shows (the cards turned face up, how many cards go face down, who a
WAR card's player picks) and keeps every player's playing pile and face-up won pile as counts, from
the deal and its own rulings. Readings of the rule document, and warref's choices where it is
silent, are in docs/namikopy.md.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from ..deck import Deck, Face, load_deck
from ..errors import BadEvent, IllegalEvent, SetupError
from ..events import Choose, Down, Flip, Recount, TimeUp
from ..game import Game, SeatedState
from ..options import Option, max_battles_option, timed_tie_option
from ..rulings import Ruling, article, how_many, join_names, plural

WAR_DOWN = 3            # cards face down in a war, before the 4th is turned up
WAR_KINDS = ("war", "joker")   # a standard deck's jokers stand in for the WAR cards
RANK_WORDS = {11: "jack", 12: "queen", 13: "king", 14: "ace"}

OPTIONS = (
    Option("deck", "namikopy", "Which cards are played.", choices=("namikopy", "standard"),
           choice_help={"namikopy": "Namikopy cards: the number is the point value, 1-12",
                        "standard": "a standard deck: 2-10 at face value, jack 11, queen 12, king 13, "
                                    "ace 14 (aces high); the two jokers are the WAR cards"},
           label="Cards", choice_labels={"namikopy": "Namikopy cards", "standard": "A standard deck"}),
    Option("war_cards", False,
           "Shuffle in the Namikopy WAR cards (MALLARD, FLAMINGO, TURKEY; with a standard deck, the "
           "two jokers): flipping one starts a war at once with the opponent its player picks.",
           kind="bool", label="WAR cards"),
    Option("cards", None,
           "How many cards are collected for the game, WAR cards included (off: the whole deck); "
           "everyone gets the same number and the rest are set aside unseen.",
           kind="int", minimum=2, can_be_off=True, label="Cards in the game"),
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
        extra = " with its WAR cards" if wars else ""
        raise SetupError(f"The {deck.name} deck has only {have} cards{extra} for Namikopy War, "
                         f"not {used}.")
    if used < players:
        raise SetupError(f"{used} cards can't be dealt to {players} players: everyone needs at least one.")
    return used // players, used % players


def said(face: Face, deck_id: str) -> str:
    """A card as said aloud: '8', 'ace', 'WAR Mallard', 'joker'."""
    if face.kind in WAR_KINDS:
        return face.name
    if deck_id == "standard" and face.value in RANK_WORDS:
        return RANK_WORDS[face.value]
    return face.label


def upper_first(text: str) -> str:
    return text[:1].upper() + text[1:]


def either(names: list[str]) -> str:
    """'Olivia', 'Olivia or Sam', 'Olivia, Sam or Alex'."""
    names = list(names)
    return ", ".join(names[:-1]) + " or " + names[-1] if len(names) > 1 else "".join(names)


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

    # ------------------------------------------------------------------ views
    def counts(self) -> dict[str, int]:
        return {n: p.total for n, p in self.players.items()}

    def piles(self) -> dict[str, dict[str, int]]:
        return {n: {"pile": p.pile, "won": p.won} for n, p in self.players.items()}

    def card_total(self) -> int:
        """Cards the referee knows of: every playing pile and face-up pile plus the middle."""
        return sum(p.total for p in self.players.values()) + len(self.middle)

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
            return [s for s in self.fighters if s not in self.flips and s not in standing]
        return []

    def _war_between(self) -> str:
        return f"War between {join_names(self.fighters)}"

    def prompt(self) -> Ruling:
        waiting = self._waiting()
        if self.over:
            text = "The game is over."
        elif self.phase == "choose":
            others = [s for s in self.fighters if s != self.chooser]
            text = (f"{self.chooser} flipped a WAR card: {self.chooser}, choose who to go to war with "
                    f"({either(others)}).")
        elif self.phase == "down":
            each = ", ".join(f"{s} {self.need[s]}" for s in waiting)
            text = f"{self._war_between()}: lay your cards face down ({each}), then turn up a war card."
        elif self.war_depth:
            stands = [f"{s}'s {self.said(self.shown[s])}" for s in self.standing()]
            extra = f" ({join_names(stands)} {'stands' if len(stands) == 1 else 'stand'})" if stands else ""
            text = f"{self._war_between()}: {join_names(waiting)}, turn up your war card{extra}."
        elif self.flips:
            text = f"Waiting for {join_names(waiting)} to flip."
        elif self.sudden_death:
            text = (f"Sudden death: {join_names(self.fighters)} play one more battle, flipping the top "
                    f"card of their playing pile at the same time.")
        else:
            text = f"Battle {self.battles + 1}. Everyone flips the top card of their playing pile at the same time."
        return Ruling("prompt", text, {"phase": self.phase, "waiting": waiting, "war": self.war_depth,
                                       "battle": self.battles + (0 if self.over else 1)})

    # ------------------------------------------------------------------ checking
    def _fighter(self, name: str) -> Player:
        p = self._player(name)
        if p.name not in self.fighters:
            what = "war" if self.war_depth or self.phase == "choose" else "battle"
            raise IllegalEvent(f"{p.name} isn't in this {what}: only {join_names(self.fighters)} play it.")
        return p

    def _verify_flip(self, e: Flip) -> None:
        p = self._fighter(e.seat)
        if self.phase == "choose":
            raise IllegalEvent(f"Not yet: {self.chooser} flipped a WAR card and first chooses who to "
                               f"go to war with.")
        if p.name in self.standing():
            raise IllegalEvent(f"{p.name} has no cards left: {p.name}'s {self.said(self.shown[p.name])} "
                               f"stands as the war card.")
        if self.phase == "down":
            raise IllegalEvent(f"Not yet: the face-down cards come first (still to lay: "
                               f"{join_names(self._waiting())}).")
        if p.name in self.flips:
            where = "war" if self.war_depth else "battle"
            raise IllegalEvent(f"{p.name} has already turned up {article(self.said(self.flips[p.name]))} "
                               f"in this {where}.")
        face = self.deck.read(e.card)
        if face.kind in WAR_KINDS and not self.options["war_cards"]:
            what = ("jokers stand in for the WAR cards, which" if self.deck.id == "standard"
                    else "WAR cards")
            raise IllegalEvent(f"{upper_first(article(face.name))} can't be played in this game: {what} "
                               f"are only played with the rule option war_cards=on.")
        if face.kind != "number" and face.kind not in WAR_KINDS:
            raise IllegalEvent(f"{upper_first(article(face.name))} is not a Namikopy War card.")
        why = self.deck.cannot_coexist([f for _, f in self.middle if f] + [face])
        if why:
            raise IllegalEvent(why)

    def _verify_down(self, e: Down) -> None:
        p = self._fighter(e.seat)
        if self.phase != "down":
            if self.phase == "choose":
                raise IllegalEvent(f"Not yet: {self.chooser} first chooses who to go to war with.")
            raise IllegalEvent("No war is waiting for face-down cards right now.")
        had = self.short.get(p.name)
        if had == 0:
            raise IllegalEvent(f"{p.name} has no cards left: {p.name}'s {self.said(self.shown[p.name])} "
                               f"stands as the war card.")
        if had == 1:
            raise IllegalEvent(f"{p.name} has only 1 card, so it is turned up as the war card with "
                               f"nothing face down.")
        left = self.need[p.name]
        full = WAR_DOWN if had is None else had - 1
        if left == 0:
            raise IllegalEvent(f"{p.name} has already laid {plural(full, 'card')} face down in this war.")
        if e.count < 1 or e.count > left:
            laid = full - left
            so_far = f" ({laid} already down, {left} to go)" if laid else ""
            if had is None:
                raise IllegalEvent(f"In a war each player lays {WAR_DOWN} cards face down, not "
                                   f"{laid + e.count}{so_far}.")
            raise IllegalEvent(f"{p.name} has only {had} cards, so {p.name} lays {full} face down and turns "
                               f"the last one up, not {laid + e.count}{so_far}.")

    def _verify_choose(self, e: Choose) -> None:
        if self.phase != "choose":
            raise IllegalEvent("No one needs to choose an opponent right now: a player chooses only after "
                               "flipping the only WAR card with more than one player to pick from.")
        p = self._player(e.seat)
        if p.name != self.chooser:
            raise IllegalEvent(f"{self.chooser} flipped the WAR card, so {self.chooser} chooses, "
                               f"not {p.name}.")
        target = self._player(e.opponent)
        if target is p:
            raise IllegalEvent(f"{p.name} can't go to war with {p.name}: choose "
                               f"{either([s for s in self.fighters if s != p.name])}.")
        if target.name not in self.fighters:
            raise IllegalEvent(f"{target.name} isn't in this battle: choose "
                               f"{either([s for s in self.fighters if s != p.name])}.")

    def _verify_recount(self, e: Recount) -> None:
        p = self._player(e.seat)
        if e.hand is not None or e.herd is not None:
            raise BadEvent("A Namikopy War recount gives one count: the playing pile and the face-up "
                           "pile together.")
        if e.count is None:
            raise BadEvent("A recount needs a count.")
        if e.count < 0:
            raise IllegalEvent(f"A recount can't be negative (count {e.count}).")
        if self.middle and p.name in self.fighters:
            raise IllegalEvent(f"{p.name}'s cards are in play: recount {p.name} when this battle is over.")

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
        return [Ruling("flip", f"{p.name} flips {article(self.said(face))}; waiting for {join_names(waiting)}.",
                       {"seat": p.name, "card": face.code, "waiting": waiting})]

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
        text = f"{chooser} picks {opponent}"
        return self._start_war([chooser, opponent], text, "war_card")

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
                lead = f"{w} flips {article(self.said(cards[w]))}"
                if len(others) == 1:
                    return self._start_war([w, others[0]], lead, "war_card")
                self.phase = "choose"
                self.chooser = w
                self.flips = {}
                text = f"{lead}: a war at once, and {w} picks who to fight ({either(others)})."
                return [Ruling("war_card", text, {"seat": w, "choices": others, "counts": self.counts()}),
                        self.prompt()]
            labels = join_names([self.said(cards[s]) for s in turned_war])
            return self._start_war(turned_war, f"{join_names(turned_war)} flip WAR cards ({labels})",
                                   "war_cards")
        if turned_war:
            verb = "turns" if len(turned_war) == 1 else "turn"
            lead = (f"{join_names(turned_war)} {verb} up "
                    f"{join_names([article(self.said(cards[s])) for s in turned_war])}")
            return self._start_war(list(self.fighters), lead, "war_card", again=True)
        values = {s: self._value(cards[s]) for s in self.fighters}
        top = max(values.values())
        tied = [s for s in self.fighters if values[s] == top]
        if len(tied) == 1:
            return self._take(tied[0])
        standing = self.standing()
        if all(s in standing for s in tied):
            return self._call_off(tied)
        word = self.said(cards[tied[0]])
        lead = f"{how_many(len(tied))} {word}s" + (" again" if self.war_depth else "")
        return self._start_war(tied, lead, "tie", again=bool(self.war_depth))

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
                back.append(f"{s} takes the {self.said(face)} back onto their face-up pile.")
        self.fighters = list(fighters)
        self.flips = {}
        self.need = {}
        self.short = {}
        for s in self.fighters:
            have = self.players[s].total
            if have < WAR_DOWN + 1:
                self.short[s] = have
            self.need[s] = min(WAR_DOWN, max(have - 1, 0))
        if again and reason == "war_card":
            text = f"{lead}: the war starts again between {join_names(self.fighters)}!"
        elif again:
            text = f"{lead}: the war goes on between {join_names(self.fighters)}!"
        else:
            text = f"{lead}: war between {join_names(self.fighters)}!"
        if back:
            text += " " + " ".join(back)
        rulings = [Ruling("war", text, {"reason": reason, "fighters": list(self.fighters),
                                        "pile": len(self.middle), "counts": self.counts()})]
        for s, had in self.short.items():
            if had == 0:
                t = f"{s} has no cards left: {s}'s {self.said(self.shown[s])} stands as the war card."
            elif had == 1:
                t = f"{s} has only 1 card: {s} turns it up as the war card, with nothing face down."
            else:
                t = (f"{s} has only {had} cards: {s} lays {had - 1} face down and turns the last one up "
                     f"as the war card.")
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
                rulings.append(Ruling("reshuffle", f"{s}'s playing pile has run out: {s} shuffles the "
                                      f"{plural(p.pile, 'face-up card')} into a new playing pile.",
                                      {"seat": s, "cards": p.pile}))
        return rulings

    def _take(self, winner: str) -> list[Ruling]:
        n = len(self.middle)
        self.players[winner].won += n
        top = self.shown[winner]
        beaten = [f"{s}'s {self.said(self.shown[s])}" for s in self.fighters if s != winner]
        values = [self._value(self.shown[s]) for s in self.fighters if s != winner]
        note = " (equal cards below the highest start no war)" if len(values) != len(set(values)) else ""
        what = " and wins the war" if self.war_depth else ""
        text = (f"{winner}'s {self.said(top)} beats {join_names(beaten)}{what}{note}: "
                f"{winner} takes {plural(n, 'card')}.")
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
        nobody = "neither of them has" if len(tied) == 2 else "none of them has"
        text = (f"{join_names(tied)} tie and {nobody} a card left to turn up: the war is called off "
                f"and everyone takes back the cards they put in ({back}).")
        rulings = [Ruling("called_off", text, {"tied": list(tied), "returned": put_in,
                                               "counts": self.counts()})]
        self._clear()
        others = [s for s in self.active() if s not in tied and self.players[s].total > 0]
        if self.sudden_death:
            return rulings + self._score(final=True)
        if not others:
            text = f"Nobody else has cards and {join_names(tied)} can't break the tie: the game is a draw."
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
                rulings.append(Ruling("out", f"{s} has no cards left: {s} is out.",
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
        return self._game_over(s, [s], "last_standing", f"{s} is the last player with cards: {s} wins!")

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
    name = "Namikopy War"
    how_to_play = (
        "Everyone gets the same number of cards, face down in a pile. Don't look!",
        "Everyone turns over their top card at the same time. The card worth the most points takes all "
        "the cards turned over, face up onto its player's pile of won cards.",
        "Only a tie for the highest card is a war: those players lay 3 cards face down and turn a 4th "
        "card over. The highest 4th card takes everything. Everyone else takes their own card back.",
        "With the WAR cards in the game, a player who turns one over picks who to go to war with.",
        "When your pile is empty, shuffle your won cards: they are your new pile. No cards left at all? "
        "You are out. The last player with cards wins; in a timed game, the player with the most cards.",
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
