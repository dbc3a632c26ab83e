"""Woolly Warfare: 2-3 players, hand of 3, battles, wars, Steal and Reveal.

The referee sees what the table shows (battle cards, action cards, how many cards go face down)
and keeps every player's hand and herd as counts, from the deal and its own rulings. Readings of
the rule documents, and warref's choices where they are silent, are in docs/woolly.md.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any

from ..deck import Deck, Face
from ..errors import BadEvent, IllegalEvent
from ..events import Action, Down, Flip, Recount, TimeUp
from ..game import Game, SeatedState, cards_n, said_list
from ..options import Option, max_battles_option, timed_tie_option
from ..rulings import Ruling, article
from ..say import Card, Names, Said, say, say_n, to_translate

HAND_SIZE = 3
WAR_DOWN = 2

OPTIONS = (
    Option("timed_count", "hand_and_herd",
           to_translate("When a timed game or the battle cap ends the game, which cards count toward the most "
                        "cards."),
           choices=("hand_and_herd", "herd_only"),
           choice_help={"hand_and_herd": to_translate("hand and herd together, as the how-to-play sheet says"),
                        "herd_only": to_translate("only the herd pile, as the official rulebook says")},
           label=to_translate("Cards that count when time is up"),
           choice_labels={"hand_and_herd": to_translate("Hand and herd"), "herd_only": to_translate("Herd only")}),
    timed_tie_option(),
    max_battles_option(),
)


def deal_sizes(deck_size: int, players: int) -> list[int]:
    """As evenly as possible, the first seats getting the extra cards (71: 36/35, 24/24/23)."""
    base, extra = divmod(deck_size, players)
    return [base + (1 if i < extra else 0) for i in range(players)]


def said(face: Face) -> str:
    """A battle card as said aloud: '8', 'War card'."""
    return "War card" if face.kind == "war" else face.label


# a battle card in a sentence, carrying its message: a number by its number ("an 8", Portuguese "o 8"),
# the War card as a phrase of its own
def a_card(face: Face) -> Any:
    """'an 8', 'a War card'."""
    return say("a War card") if face.kind == "war" else Card(face.code, article(face.label), face.value)


def a_card_first(face: Face) -> Any:
    """'An 8', 'A war card': at the start of a sentence (str.capitalize, as always)."""
    return say("A war card") if face.kind == "war" else Card(face.code, article(face.label).capitalize(), face.value)


def owned(seat: str, face: Face) -> Any:
    """"Sam's 8", "Sam's War card"."""
    if face.kind == "war":
        return say("{seat}'s War card", seat=seat)
    return say("{seat}'s {card}", seat=seat, card=face.value)   # as the coach says "Zé's 7": the number


@dataclass(slots=True)
class Player:
    name: str
    hand: int
    herd: int
    out: bool = False
    robbed: bool = False  # a card was stolen from the hand: refill waits for the battle's end

    @property
    def total(self) -> int:
        return self.hand + self.herd

    def refill(self) -> None:
        draw = min(max(HAND_SIZE - self.hand, 0), self.herd)
        self.hand += draw
        self.herd -= draw
        self.robbed = False

    def take_one(self) -> None:
        """One card leaves the player for the middle: from the hand, or the herd top if the hand is empty."""
        if self.hand:
            self.hand -= 1
        else:
            self.herd -= 1


class WoollyState(SeatedState):
    GAME = "Woolly Warfare"

    def __init__(self, game: "WoollyWarfare", players: list[str], options: dict[str, Any]):
        self.game = game
        self.deck: Deck = game.deck
        self.options = options
        self.players: dict[str, Player] = {}
        for name, size in zip(players, deal_sizes(self.deck.size, len(players))):
            hand = min(HAND_SIZE, size)
            self.players[name] = Player(name, hand, size - hand)
        self._lower = {n.lower(): n for n in players}
        self.middle: list[tuple[str, Face | None]] = []   # (seat, face) or (seat, None) face down
        self.flips: dict[str, Face] = {}                   # this round's battle cards
        self.downs: dict[str, int] = {}                    # face-down cards laid this war round
        self.fighters: list[str] = list(players)           # who plays the current battle
        self.phase = "play"                                # play | down | over
        self.war_depth = 0
        self.time_up = False
        self.sudden_death = False
        self.battles = 0
        self.wars = 0
        self.used: dict[str, int] = {c.code: 0 for c in self.deck.cards if c.kind == "action"}
        self.adjustment = 0
        self.result: dict[str, Any] | None = None
        self._spoken: dict[Any, Any] = {}                 # the cards as said in rulings, made once each

    def _a_card(self, face: Face) -> Any:
        found = self._spoken.get(face.code)
        if found is None:
            found = self._spoken[face.code] = a_card(face)
        return found

    def _owned(self, seat: str, face: Face) -> Any:
        key = (seat, face.code)
        found = self._spoken.get(key)
        if found is None:
            found = self._spoken[key] = owned(seat, face)
        return found

    def _number(self, face: Face) -> Any:
        key = ("", face.code)
        found = self._spoken.get(key)
        if found is None:
            found = self._spoken[key] = Card(face.code, face.label, face.value)
        return found

    # ------------------------------------------------------------------ views
    # (the loops below that run every event are plain for loops: on Python 3.11 a comprehension over
    # two or three seats costs a function call more)
    def counts(self) -> dict[str, int]:
        counts = {}
        for n, p in self.players.items():
            counts[n] = p.hand + p.herd
        return counts

    def card_total(self) -> int:
        """Cards the referee knows of: every hand and herd plus the middle."""
        total = len(self.middle)
        for p in self.players.values():
            total += p.hand + p.herd
        return total

    def expected_total(self) -> int:
        """The deck less the action cards used, plus any recount corrections."""
        return self.deck.size - sum(self.used.values()) + self.adjustment

    def snapshot(self) -> dict[str, Any]:
        return {
            "players": {n: {"hand": p.hand, "herd": p.herd, "out": p.out, "robbed": p.robbed}
                        for n, p in self.players.items()},
            "middle": [[s, f.code if f else None] for s, f in self.middle],
            "flips": {s: f.code for s, f in self.flips.items()},
            "downs": dict(self.downs), "fighters": list(self.fighters), "phase": self.phase,
            "war_depth": self.war_depth, "time_up": self.time_up, "sudden_death": self.sudden_death,
            "battles": self.battles, "wars": self.wars, "used": dict(self.used),
            "adjustment": self.adjustment, "result": self.result,
        }

    def _waiting(self) -> list[str]:
        if self.phase == "down":
            return [s for s in self.fighters if self.downs[s] < WAR_DOWN]
        if self.phase == "play":
            waiting = []
            for s in self.fighters:
                if s not in self.flips:
                    waiting.append(s)
            return waiting
        return []

    def prompt(self) -> Ruling:
        waiting = self._waiting()
        if self.over:
            text = say("The game is over.")
        elif self.phase == "down":
            # said to the seats laying cards (n of them: one or more)
            if all(self.downs[s] == 0 for s in waiting):
                text = say_n("War! {seats}: lay {cards} face down from the top of your herd (from your hand if the "
                             "herd runs out).",
                             "War! {seats}: lay {cards} face down from the top of your herd (from your hand if the "
                             "herd runs out).", len(waiting), seats=Names(waiting),
                             cards=cards_n(WAR_DOWN))
            else:   # some cards are already down (an undo in the middle of the war): say what is left
                left = said_list([say_n("{seat} {n} more card", "{seat} {n} more cards", WAR_DOWN - self.downs[s], seat=s)
                                  if self.downs[s] else say_n("{seat} {n} card", "{seat} {n} cards", WAR_DOWN, seat=s)
                                  for s in waiting], last=",")
                text = say_n("War! {seats}: lay face down from the top of your herd (from your hand if the herd runs "
                             "out): {left}.",
                             "War! {seats}: lay face down from the top of your herd (from your hand if the herd runs "
                             "out): {left}.", len(waiting), seats=Names(waiting), left=left)
        elif self.flips:
            text = say("Waiting for {seats} to flip.", seats=Names(waiting))
        elif self.sudden_death:
            text = (say("Sudden death: {seats} play one more battle. Play Steal or Reveal if you like, then everyone "
                        "chooses a new battle card and flips together.", seats=Names(self.fighters)) if self.war_depth
                    else say("Sudden death: {seats} play one more battle. Play Steal or Reveal if you like, then "
                             "everyone chooses a battle card and flips together.", seats=Names(self.fighters)))
        elif self.war_depth:
            text = say("War! Play Steal or Reveal if you like, then everyone chooses a new battle card and flips "
                       "together.")
        else:
            text = partial(say, to_translate("Battle {number}. Play Steal or Reveal if you like, then everyone "
                                             "chooses a battle card and flips together."), number=self.battles + 1)
        return Ruling("prompt", text, {"phase": self.phase, "waiting": waiting, "war": self.war_depth,
                                       "battle": self.battles + (0 if self.over else 1)})

    # ------------------------------------------------------------------ checking
    def _fighter(self, name: str) -> Player:
        p = self._player(name)
        if p.name not in self.fighters:
            raise IllegalEvent(say("{seat} isn't in this battle: only {seats} play it.", seat=p.name,
                                   seats=Names(self.fighters)))
        return p

    def _verify_flip(self, e: Flip) -> None:
        p = self._fighter(e.seat)
        if self.phase == "down":
            raise IllegalEvent(say("Not yet: everyone lays {n} cards face down first (still to lay: {seats}).",
                                   n=WAR_DOWN, seats=Names(self._waiting())))
        if p.name in self.flips:
            raise IllegalEvent(say("{seat} has already flipped {card} in this battle.", seat=p.name,
                                   card=self._a_card(self.flips[p.name])))
        face = self.deck.read(e.card)
        if face.kind == "action":     # the action cards' names (Steal, Reveal) are printed in English
            raise IllegalEvent(say("{card} can't be a battle card: play it as an action before the flip.",
                                   card=face.name))
        if face.kind not in ("number", "war"):
            raise IllegalEvent(say("{card} can't be a battle card.", card=face.name))
        self._verify_beside_middle([face])

    def _verify_down(self, e: Down) -> None:
        p = self._fighter(e.seat)
        if self.phase != "down":
            raise IllegalEvent(say("No war is waiting for face-down cards right now."))
        laid = self.downs[p.name]
        if laid >= WAR_DOWN:
            raise IllegalEvent(say("{seat} has already laid {n} cards face down in this war.", seat=p.name,
                                   n=WAR_DOWN))
        if e.count < 1 or laid + e.count > WAR_DOWN:
            if laid:
                raise IllegalEvent(say("In a war each player lays {n} cards face down, not {count} ({laid} already "
                                       "down, {left} to go).", n=WAR_DOWN, count=laid + e.count, laid=laid,
                                       left=WAR_DOWN - laid))
            raise IllegalEvent(say("In a war each player lays {n} cards face down, not {count}.", n=WAR_DOWN,
                                   count=laid + e.count))

    def _verify_action(self, e: Action) -> None:
        p = self._fighter(e.seat)
        face = self.deck.read(e.card)
        if face.kind != "action":
            raise IllegalEvent(say("{card} is a battle card, not an action: flip it instead.", card=a_card_first(face)))
        if self.phase == "down":
            raise IllegalEvent(say("Not yet: {card} comes after everyone has laid their face-down cards.",
                                   card=face.name))
        if self.flips and (p.name in self.flips or not self._forced(p)):
            raise IllegalEvent(say("Too late for {card}: battle cards are already being flipped, and actions come "
                                   "before the flip.", card=face.name))
        if p.total < 1:
            raise IllegalEvent(say("{seat} has no cards, so can't be holding {card}.", seat=p.name, card=face.name))
        have = self.deck.count(code=face.code)
        if self.used[face.code] >= have:
            raise IllegalEvent(say("All {n} {card} cards have already been played, and used action cards leave the "
                                   "game.", n=have, card=face.name))
        if face.code != "STEAL":
            return
        if not e.target:
            if any(self.players[f].total for f in self.fighters if f != p.name):
                raise BadEvent(say("A Steal needs a target: the opponent to steal from."))
            return   # a forced Steal with nothing left to take
        target = self._player(e.target)
        if target is p:
            raise IllegalEvent(say("{seat} can't steal from {seat}: name an opponent.", seat=p.name))
        if target.name not in self.fighters:
            raise IllegalEvent(say("{seat} isn't in this battle: steal from {seats}.", seat=target.name,
                                   seats=Names([f for f in self.fighters if f != p.name])))
        source = (e.source or "").lower()
        if source not in ("hand", "herd"):
            raise BadEvent(say('A Steal says where it takes from: "from": "hand" or "from": "herd".'))
        if getattr(target, source) == 0:
            other = "herd" if source == "hand" else "hand"
            if getattr(target, other) == 0:
                raise IllegalEvent(say("{seat} has no cards left to steal.", seat=target.name))
            raise IllegalEvent(say("{seat}'s hand is empty: steal from the herd instead.", seat=target.name)
                               if source == "hand" else
                               say("{seat}'s herd is empty: steal from the hand instead.", seat=target.name))

    @staticmethod
    def _forced(p: Player) -> bool:
        """Whether an action may still come after the flip has begun: only when it is provably
        forced, i.e. the player holds at most one card in hand, so the action is their only hand
        card (which can't be flipped) or the top of their herd taken because Steals emptied it."""
        return p.hand <= 1

    def _verify_recount(self, e: Recount) -> None:
        p = self._player(e.seat)
        for key in ("count", "hand", "herd"):
            value = getattr(e, key)
            if value is not None and value < 0:
                raise IllegalEvent(
                    say("A recount can't be negative (count {value}).", value=value) if key == "count" else
                    say("A recount can't be negative (hand {value}).", value=value) if key == "hand" else
                    say("A recount can't be negative (herd {value}).", value=value))
            if value is not None and value > self.deck.size:
                size = self.deck.size
                raise IllegalEvent(
                    say("A recount can't be more than the deck's {size} cards (count {value}).", size=size,
                        value=value) if key == "count" else
                    say("A recount can't be more than the deck's {size} cards (hand {value}).", size=size,
                        value=value) if key == "hand" else
                    say("A recount can't be more than the deck's {size} cards (herd {value}).", size=size,
                        value=value))
        if e.count is None and e.hand is None and e.herd is None:
            raise BadEvent(say("A recount needs a count (or hand and herd)."))
        hand, herd = self._recounted(p, e)
        if e.count is not None and hand + herd != e.count:
            raise IllegalEvent(say("The recount doesn't add up: hand {hand} + herd {herd} is not {count}.", hand=hand,
                                   herd=herd, count=e.count))

    @staticmethod
    def _recounted(p: Player, e: Recount) -> tuple[int, int]:
        """The hand and herd a recount sets: a bare total keeps the hand (at most the total)."""
        if e.hand is None and e.herd is None:
            hand = min(p.hand, e.count)
            return hand, e.count - hand
        return (p.hand if e.hand is None else e.hand), (p.herd if e.herd is None else e.herd)

    # ------------------------------------------------------------------ applying
    def _flip(self, e: Flip) -> list[Ruling]:
        face = self.deck.read(e.card)
        p = self._named(e.seat)
        p.take_one()
        self.flips[p.name] = face
        self.middle.append((p.name, face))
        if len(self.flips) == len(self.fighters):
            return self._resolve()
        waiting, seat = self._waiting(), p.name
        return [Ruling("flip", lambda: say("{seat} flips {card}; waiting for {seats}.", seat=seat,
                                           card=self._a_card(face), seats=Names(waiting)),
                       {"seat": seat, "card": face.code, "waiting": waiting})]

    def _down(self, e: Down) -> list[Ruling]:
        p = self._named(e.seat)
        from_herd = min(e.count, p.herd)
        p.herd -= from_herd
        p.hand -= e.count - from_herd
        self.middle.extend([(p.name, None)] * e.count)
        self.downs[p.name] += e.count
        return [self._down_ruling(p.name, e.count, WAR_DOWN - self.downs[p.name])] + self._play_on()

    def _action(self, e: Action) -> list[Ruling]:
        p, face = self._named(e.seat), self.deck.read(e.card)
        target = self._named(e.target) if face.code == "STEAL" and e.target else None
        source = e.source.lower() if target is not None else None
        p.take_one()                      # from the hand, or drawn from the herd if the hand is empty
        self.used[face.code] += 1
        if face.code == "STEAL" and target is None:
            text = say("{seat} plays Steal, but no opponent has a card left to take.", seat=p.name)
        elif target is not None:
            setattr(target, source, getattr(target, source) - 1)
            p.hand += 1
            if source == "hand":
                target.robbed = True
                text = say("{seat} plays Steal and takes a random card from {target}'s hand. {target} draws back up "
                           "only when the battle ends or a war starts.", seat=p.name, target=target.name)
            else:
                text = say("{seat} plays Steal and takes a random card from {target}'s herd.", seat=p.name,
                           target=target.name)
        else:
            drew = 1 if p.herd else 0
            p.herd -= drew
            p.hand += drew
            others = [f for f in self.fighters if f != p.name]     # n of them show their hands
            text = (say_n("{seat} plays Reveal: {others} shows their hand to {seat}, who draws 1 card.",
                          "{seat} plays Reveal: {others} show their hands to {seat}, who draws 1 card.",
                          len(others), seat=p.name, others=Names(others)) if drew
                    else say_n("{seat} plays Reveal: {others} shows their hand to {seat}, whose herd is empty, so no "
                               "card is drawn.",
                               "{seat} plays Reveal: {others} show their hands to {seat}, whose herd is empty, so no "
                               "card is drawn.", len(others), seat=p.name, others=Names(others)))
        data = {"seat": p.name, "card": face.code, "counts": self.counts()}
        if target is not None:
            data.update(target=target.name, **{"from": source})
        return [Ruling("action", text, data)] + self._check_outs()

    def _recount(self, e: Recount) -> list[Ruling]:
        p = self._named(e.seat)
        hand, herd = self._recounted(p, e)
        old = p.total
        p.hand, p.herd = hand, herd
        split = (hand, herd) if e.hand is not None or e.herd is not None else None
        return [self._recount_ruling(p, old, split)] + self._check_outs()

    # ------------------------------------------------------------------ battle logic
    def _resolve(self) -> list[Ruling]:
        """Every fighter has flipped: a war, or the highest number takes the middle."""
        faces = []
        war_cards = []
        numbers: dict[int, int] = {}              # how many fighters turned up each number
        for s in self.fighters:
            f = self.flips[s]
            faces.append((s, f))
            if f.kind == "war":
                war_cards.append(s)
            elif f.kind == "number":
                numbers[f.value] = numbers.get(f.value, 0) + 1
        pairs = sorted(v for v, n in numbers.items() if n >= 2)
        if war_cards or pairs:
            return self._start_war(faces, war_cards, pairs, numbers)
        winner = max(faces, key=lambda sf: sf[1].value)[0]
        return self._take(winner)

    def _start_war(self, faces, war_cards, pairs, numbers) -> list[Ruling]:
        going_on = self.war_depth > 0
        self.wars += 1
        self.war_depth += 1
        # at most 3 players: one pair (two or three of a number), or War cards, or one War card and a pair
        text = self._war_words(war_cards, pairs[0] if pairs else None, numbers, going_on)
        if pairs and not war_cards:
            top_seat, top = max(faces, key=lambda sf: sf[1].value)
            if numbers.get(top.value, 0) == 1:
                text = say("{war} {seat}'s {card} doesn't win.", war=text, seat=top_seat,
                           card=self._number(top))
        self.flips = {}
        for s in self.fighters:
            self.players[s].refill()
        self.phase = "down"
        self.downs = {s: 0 for s in self.fighters}
        rulings = [Ruling("war", text, {"reason": "war_card" if war_cards else "equal_numbers",
                                        "pile": len(self.middle), "counts": self.counts()})]
        outs = self._check_outs()
        return rulings + (outs if outs else [self.prompt()])

    @staticmethod
    def _war_words(war_cards: list[str], pair: int | None, numbers: dict[int, int], going_on: bool) -> Any:
        """Why the war starts (or goes on): "Two 8s: everyone goes to war!", "Sam played a War card: ..."."""
        seats = Names(war_cards)
        if war_cards and pair is not None:          # 3 players: one War card and two of a number
            return (say("{seats} played a War card and there are two {number}s: the war goes on!", seats=seats,
                        number=pair) if going_on
                    else say("{seats} played a War card and there are two {number}s: everyone goes to war!",
                             seats=seats, number=pair))
        if war_cards:
            if len(war_cards) == 1:
                return (say("{seats} played a War card: the war goes on!", seats=seats) if going_on
                        else say("{seats} played a War card: everyone goes to war!", seats=seats))
            return (say("{seats} played War cards: the war goes on!", seats=seats) if going_on
                    else say("{seats} played War cards: everyone goes to war!", seats=seats))
        if numbers[pair] == 2:
            return (say("Two {number}s: the war goes on!", number=pair) if going_on
                    else say("Two {number}s: everyone goes to war!", number=pair))
        return (say("Three {number}s: the war goes on!", number=pair) if going_on
                else say("Three {number}s: everyone goes to war!", number=pair))

    def _check_outs(self) -> list[Ruling]:
        """Put out every player who has run out: no cards left outside the middle, or, while
        laying face-down cards in a war, too few to finish laying and still flip a battle card."""
        rulings: list[Ruling] = []
        departed: list[str] = []
        for s in list(self.fighters):
            p = self.players[s]
            if self.phase == "down":
                need = WAR_DOWN - self.downs[s]
                short = p.total < need + 1
            else:
                short = p.total == 0 and s not in self.flips
            if not short:
                continue
            laid = p.total
            self.middle.extend([(s, None)] * laid)
            p.hand = p.herd = 0
            p.out = True
            self.fighters.remove(s)
            self.downs.pop(s, None)
            departed.append(s)
            if laid:
                text = say_n("{seat} has only {n} card, not enough to lay {down} face down and still flip one: it "
                             "goes into the war pile and {seat} is out.",
                             "{seat} has only {n} cards, not enough to lay {down} face down and still flip one: they "
                             "go into the war pile and {seat} is out.", laid, seat=s, down=WAR_DOWN)
            elif self.phase == "down":
                text = say("{seat} has no cards left for the war: {seat} is out.", seat=s)
            else:
                text = say("{seat} has no cards left: {seat} is out.", seat=s)
            rulings.append(Ruling("out", text, {"seat": s, "counts": self.counts()}))
        for s, p in self.players.items():  # players sitting out a sudden-death battle
            if not p.out and s not in self.fighters and p.total == 0:
                p.out = True
                rulings.append(Ruling("out", say("{seat} has no cards left: {seat} is out.", seat=s),
                                      {"seat": s, "counts": self.counts()}))
        if departed:
            rulings += self._after_departure(departed)
        return rulings

    def _after_departure(self, departed: list[str]) -> list[Ruling]:
        if not self.fighters:
            if self.active():
                return self._score(final=True)
            text = (say("{seats} ran out of cards at the same moment: the game is a draw.", seats=Names(departed))
                    if len(departed) > 1 else say("{seat} ran out of cards: the game is a draw.", seat=departed[0]))
            return self._game_over(None, departed, "draw", text)
        if len(self.fighters) == 1:
            if self.middle:
                return self._take(self.fighters[0], alone=True)
            return self._battle_over()
        if self.phase == "down" and not self._waiting():
            self.phase = "play"
            return [self.prompt()]
        if self.phase == "play" and len(self.flips) == len(self.fighters):
            return self._resolve()
        return []

    def _take(self, winner: str, alone: bool = False) -> list[Ruling]:
        n = len(self.middle)
        self.players[winner].herd += n
        if alone:
            text = partial(say, to_translate("Only {seat} is left in the war: {seat} takes {cards}.") if self.war_depth
                           else to_translate("Only {seat} is left in the battle: {seat} takes {cards}."), seat=winner,
                           cards=cards_n(n))
        else:
            flips = self.flips                  # replaced below, not changed: the sentence reads it later

            def text() -> Said:
                return say("{seat}'s {card} beats {beaten}: {seat} takes {cards}.", seat=winner,
                           card=self._number(flips[winner]), cards=cards_n(n),
                           beaten=said_list([self._owned(s, f) for s, f in flips.items() if s != winner]))
        self.middle = []
        self.flips = {}
        self.downs = {}
        self.war_depth = 0
        self.battles += 1
        rulings = [Ruling("battle", text, {"winner": winner, "cards": n, "counts": self.counts()})]
        return rulings + self._battle_over()

    def _battle_over(self) -> list[Ruling]:
        """After the middle is taken: everyone refills, the empty-handed are out, the game goes on
        or ends."""
        rulings: list[Ruling] = []
        for s in self.active():
            p = self.players[s]
            p.refill()
            if p.total == 0:
                p.out = True
                rulings.append(Ruling("out", say("{seat} has no cards left: {seat} is out.", seat=s),
                                      {"seat": s, "counts": self.counts()}))
        active = self.active()
        if len(active) == 1:
            return rulings + self._game_over(active[0], active, "last_standing",
                                             say("{seat} is the last player with cards: {seat} wins!", seat=active[0]))
        cap = self.options["max_battles"]
        if self.time_up or (cap is not None and self.battles >= cap):
            return rulings + self._score()
        return rulings + self._new_round(active)

    def _new_round(self, fighters: list[str]) -> list[Ruling]:
        self.fighters = list(fighters)
        self.flips = {}
        self.downs = {}
        self.phase = "play"
        return [self.prompt()]

    def _score_of(self, seat: str) -> int:
        return self.players[seat].herd if self.options["timed_count"] == "herd_only" else self.players[seat].total

    def _where(self) -> str:
        return say("in the herd") if self.options["timed_count"] == "herd_only" else ""


# each event the game takes -> the function that checks it, and the one that applies it
WoollyState.CHECKS = {Flip: WoollyState._verify_flip, Down: WoollyState._verify_down,
                      Action: WoollyState._verify_action, Recount: WoollyState._verify_recount,
                      TimeUp: WoollyState._verify_time_up}
WoollyState.APPLIES = {Flip: WoollyState._flip, Down: WoollyState._down, Action: WoollyState._action,
                       Recount: WoollyState._recount, TimeUp: WoollyState._time_up}


class WoollyWarfare(Game):
    id = "woolly"
    name = to_translate("Woolly Warfare")
    how_to_play = (
        to_translate("Deal all 71 alpaca cards. Take 3 into your hand; the rest stay face down in front of you: that "
                     "is your herd."),
        to_translate("Before a battle you may play a Steal card (take one card from another player's hand or herd, "
                     "without looking) or a Reveal card (everyone shows you their hand, then you take a card from "
                     "your herd)."),
        to_translate("Then everyone puts a number card or a War card from their hand face up at the same time. The "
                     "highest number takes all the cards in the middle."),
        to_translate("Two cards with the same number, or a War card, mean everyone goes to war: each player lays 2 "
                     "cards face down from the herd, then plays one more card. The highest takes everything."),
        to_translate("After each battle, take cards from your herd until you hold 3 again. Out of cards? You are "
                     "out. The last player left wins; in a timed game, the player with the most cards."),
    )
    camera_deck = "woolly"
    min_players = 2
    max_players = 3
    options = OPTIONS
    deck_id = "woolly"
    state_class = WoollyState
