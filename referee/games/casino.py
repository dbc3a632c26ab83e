"""Casino War: each player bets chips against the house; one card each for the players and one for
the dealer; the higher card wins even money. On a tie the player surrenders half the bet or goes to
war (a second, equal bet; three cards burned; one more card each). A tie side bet pays 10 to 1.

The dealer is implicit: it is not one of the players, it sits at the seat called "Dealer", and the
house has no bankroll limit. The referee sees the bets, the cards dealt face up and the burn, and
keeps every player's chips (and the house's balance) from the bankrolls and its own rulings.
Readings of the rule documents, and warref's choices where they are silent, are in docs/casino.md.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cache, partial
from typing import Any, Mapping

from ..deck import Card, Deck, Face, load_deck
from ..errors import BadEvent, IllegalEvent, OptionError, SetupError, UnknownCard
from ..events import Bet, Down, Flip, GoToWar, Recount, Surrender, TimeUp
from ..game import Game, SeatedState, cards_n, said_list
from ..names import alike
from ..options import Option, max_battles_option, timed_tie_option
from ..rulings import Ruling
from ..say import Names, Said, say, say_n, to_translate
from .classic import a_card, said

DEALER = "Dealer"
BURN = 3            # cards burned face down before the war cards
TIE_PAYS = 10       # the tie side bet pays 10 to 1
MAX_DECKS = 8
MAX_PLAYERS = 7     # the seats at a casino table

OPTIONS = (
    Option("bankroll", 100, to_translate("How many chips each player starts with."), kind="int",
           label=to_translate("Chips to start with")),
    Option("min_bet", 1, to_translate("The smallest bet allowed each round; a player who can't cover it is out."),
           kind="int", label=to_translate("Smallest bet")),
    Option("max_bet", None, to_translate("The largest bet allowed each round (off: as many chips as you have)."),
           kind="int", can_be_off=True, label=to_translate("Largest bet")),
    Option("tie_bet", True, to_translate("Whether players may back a tie of the first two cards on its own, "
                                         "paying 10 to 1."), kind="bool", label=to_translate("Tie bets")),
    Option("odd_surrender", "house_keeps",
           to_translate("Who keeps the odd chip when a player surrenders an odd bet."),
           choices=("house_keeps", "player_keeps", "even_bets"),
           choice_help={"house_keeps": to_translate("the player loses the larger half: 7 surrendered loses 4"),
                        "player_keeps": to_translate("the player loses the smaller half: 7 surrendered loses 3"),
                        "even_bets": to_translate("bets must be even, so half is always a whole number of chips")},
           label=to_translate("The odd chip of a surrender"),
           choice_labels={"house_keeps": to_translate("The house keeps it"),
                          "player_keeps": to_translate("The player keeps it"),
                          "even_bets": to_translate("Even bets only")}),
    # the sentence says MAX_DECKS (8) as a number: a translator's catalog holds it whole
    Option("decks", 1, to_translate("How many 52-card decks are in the shoe (casinos use 6; at most 8); the shoe is "
                                    "reshuffled after every round."), kind="int", label=to_translate("Decks in the shoe")),
    timed_tie_option(to_translate("What happens when players tie for the most chips when time is up or the round cap "
                                  "is reached."),
                     sudden_death=to_translate("the tied players play one more round against the dealer")),
    max_battles_option(to_translate("End the game after this many rounds (a war belongs to the round that started it) "
                                    "and score it like a timed game: the most chips wins."),
                       label=to_translate("End after this many rounds")),
)

# a card is said aloud by its rank, 2-10, jack, queen, king, ace (suits never matter), as Classic War
# says it (classic.said, classic.a_card)


def chips(n: int) -> Said:
    """'1 chip', '5 chips'."""
    return say_n("{n} chip", "{n} chips", n)


def seats_said(seats: list[str]) -> Any:
    """Seats said as a list, the dealer's as "the dealer"."""
    if DEALER not in seats:
        return Names(seats)
    return said_list([say("the dealer") if s == DEALER else s for s in seats])


def sentences(texts: list[Any]) -> Any:
    """Sentences said one after the other, each keeping its message."""
    if len(texts) == 1:
        return texts[0]
    return say("{a} {b}", a=texts[0], b=sentences(texts[1:]))


@cache
def shoe_deck(decks: int) -> Deck:
    """The standard deck without jokers, each card ``decks`` times."""
    standard = load_deck("standard")
    cards = [Card(c.code, c.kind, c.count * decks, c.name, c.value, c.also)
             for c in standard.cards if c.kind == "number"]
    hint = to_translate("rank then suit, such as AS, 10D, JC, QH, KS (ranks 2-10 J Q K A, suits C D H S)")
    assert standard.hint == hint + ", and JOKER", "the shoe's hint is the standard deck's without the jokers"
    name = to_translate("Casino War") if decks == 1 else say("Casino War ({n}-deck shoe)", n=decks)
    return Deck(f"casino-{decks}", name, cards, hint)


def surrender_loss(bet: int, odd_surrender: str) -> int:
    """What a surrender costs: half the bet, the odd chip going as the option says."""
    return -(-bet // 2) if odd_surrender == "house_keeps" else bet // 2


MAX_CHIPS = 1_000_000          # a recount above this is a typing slip, not a stack


@dataclass(slots=True)
class Player:
    name: str
    chips: int                 # chips in front of the player, not counting bets on the table
    bet: int = 0               # this round's bet on the table (the first bet)
    tie: int = 0               # this round's tie side bet on the table
    war: int = 0               # the second bet, when the player goes to war
    change: int = 0            # what this round has won (+) or lost (-) so far, settled bets only
    out: bool = False

    @property
    def staked(self) -> int:
        return self.bet + self.tie + self.war


class CasinoState(SeatedState):
    OUT = to_translate("{name} is out of chips and out of the game.")
    UNKNOWN_EXTRA = say("; the dealer's seat is {dealer}", dealer=DEALER)
    GAME = "Casino War"

    def __init__(self, game: "CasinoWar", players: list[str], options: dict[str, Any]):
        self.game = game
        self.options = options
        self.shoe: Deck = shoe_deck(options["decks"])
        self.players: dict[str, Player] = {n: Player(n, options["bankroll"]) for n in players}
        self._lower = {n.lower(): n for n in players}
        self.start_total = options["bankroll"] * len(players)
        self.house = 0                        # the house's winnings (negative: it has paid out)
        self.adjustment = 0                   # chips added (+) or removed (-) by recounts
        self.phase = "bet"                    # bet | deal | decide | burn | war | over
        self.seats: list[str] = list(players)  # who plays this round
        self.cards: dict[str, Face] = {}      # this deal's face-up cards, the dealer's included
        self.seen: list[Face] = []            # every face-up card of this round (the shoe check)
        self.tied: list[str] = []             # players who tied the dealer's first card
        self.choices: dict[str, str] = {}     # tied player -> surrender | war
        self.burned = 0
        self.time_up = False
        self.sudden_death = False
        self.contenders: list[str] = []       # the players tied for the most chips, in sudden death
        self.battles = 0                      # rounds finished
        self.wars = 0                         # wars gone to (one per player who went)
        self.result: dict[str, Any] | None = None

    # ------------------------------------------------------------------ views
    def counts(self) -> dict[str, int]:
        """Every player's chips, not counting bets on the table (those belong to nobody yet)."""
        counts = {}
        for n, p in self.players.items():        # a loop, not a comprehension: quicker for a few seats
            counts[n] = p.chips
        return counts

    def on_table(self) -> int:
        staked = 0
        for p in self.players.values():
            staked += p.staked
        return staked

    def chip_total(self) -> int:
        """Players' chips, bets on the table and the house's balance: always the bankrolls plus
        any recount corrections."""
        chips = self.house
        for p in self.players.values():
            chips += p.chips + p.staked
        return chips

    def expected_total(self) -> int:
        return self.start_total + self.adjustment

    def snapshot(self) -> dict[str, Any]:
        return {
            "players": {n: {"chips": p.chips, "bet": p.bet, "tie": p.tie, "war": p.war,
                            "change": p.change, "out": p.out} for n, p in self.players.items()},
            "house": self.house, "adjustment": self.adjustment, "phase": self.phase,
            "seats": list(self.seats), "cards": {s: f.code for s, f in self.cards.items()},
            "seen": [f.code for f in self.seen], "tied": list(self.tied), "choices": dict(self.choices),
            "burned": self.burned, "time_up": self.time_up, "sudden_death": self.sudden_death,
            "contenders": list(self.contenders), "battles": self.battles, "wars": self.wars, "result": self.result,
        }

    def _data(self, **extra: Any) -> dict[str, Any]:
        return {**extra, "counts": self.counts(), "house": self.house}

    # ------------------------------------------------------------------ who still has to act
    def _dealt_to(self) -> list[str]:
        """Who gets a face-up card in this deal: the round's players (or those at war), then the dealer."""
        if self.phase == "war":
            return [s for s in self.tied if self.choices.get(s) == "war"] + [DEALER]
        return self.seats + [DEALER]

    def _waiting(self) -> list[str]:
        if self.phase == "bet":
            return [s for s in self.seats if not self.players[s].bet]
        if self.phase in ("deal", "war"):
            return [s for s in self._dealt_to() if s not in self.cards]
        if self.phase == "decide":
            return [s for s in self.tied if s not in self.choices]
        if self.phase == "burn":
            return [DEALER]
        return []

    @staticmethod
    def _bet_range(options: dict[str, Any]) -> Said:
        top = options["max_bet"]
        low = options["min_bet"]
        if options["odd_surrender"] == "even_bets":
            return (say("{low} to {top} chips (even numbers only)", low=low, top=top) if top is not None
                    else say("at least {chips} (even numbers only)", chips=chips(low)))
        return (say("{low} to {top} chips", low=low, top=top) if top is not None
                else say("at least {chips}", chips=chips(low)))

    def prompt(self) -> Ruling:
        waiting = self._waiting()
        phase = self.phase
        # said when read (referee/rulings.py), of the table as it is now: the options never change
        questions = tuple((s, self.players[s].bet) for s in waiting) if phase == "decide" else ()
        text = partial(self._prompt_text, self.options, self.over, phase, self.sudden_death,
                       tuple(self.seats) if self.sudden_death else (), self.battles + 1, tuple(waiting), questions,
                       self.burned)
        return Ruling("prompt", text, {"phase": phase, "waiting": waiting,
                                       "round": self.battles + (0 if self.over else 1)})

    @staticmethod
    def _prompt_text(options: dict[str, Any], over: bool, phase: str, sudden_death: bool, players: tuple[str, ...],
                     number: int, waiting: tuple[str, ...], questions: tuple[tuple[str, int], ...],
                     burned: int) -> Said:
        """What the prompt says: ``players``, the sudden death's; ``questions``, each tied seat's bet."""
        if over:
            return say("The game is over.")
        if phase == "bet":
            bets, seats = CasinoState._bet_range(options), Names(waiting)
            if sudden_death:
                return (say("Sudden death: {players} play one more round. Place your bets ({bets}) and a tie bet if "
                            "you like: waiting for {seats}.", players=Names(players), bets=bets, seats=seats)
                        if options["tie_bet"] else
                        say("Sudden death: {players} play one more round. Place your bets ({bets}): waiting for "
                            "{seats}.", players=Names(players), bets=bets, seats=seats))
            return (say("Round {number}. Place your bets ({bets}) and a tie bet if you like: waiting for {seats}.",
                        number=number, bets=bets, seats=seats) if options["tie_bet"] else
                    say("Round {number}. Place your bets ({bets}): waiting for {seats}.",
                        number=number, bets=bets, seats=seats))
        if phase == "deal":
            return say("Bets are in. Deal one card face up to {seats}.", seats=seats_said(list(waiting)))
        if phase == "decide":
            return sentences([CasinoState._question(s, bet, options["odd_surrender"]) for s, bet in questions])
        if phase == "burn":
            # the English says "cards" for any count, as it always has: the plural is for other languages
            return say_n("War! The dealer burns {n} cards face down.", "War! The dealer burns {n} cards face down.",
                         BURN - burned)
        return say("War! Deal one more card face up to {seats}.", seats=seats_said(list(waiting)))

    @staticmethod
    def _question(s: str, bet: int, odd_surrender: str) -> Said:
        return say("{seat}, surrender (lose {loss}) or go to war (bet {bet} more)?", seat=s,
                   loss=surrender_loss(bet, odd_surrender), bet=bet)

    # ------------------------------------------------------------------ checking
    @staticmethod
    def _is_dealer(name: str) -> bool:
        return name == DEALER or str(name).strip().lower() == DEALER.lower()

    def _in_round(self, name: str) -> Player:
        p = self._player(name)
        if p.name not in self.seats:
            raise IllegalEvent(say("{seat} sits out this sudden-death round: only {seats} play it.", seat=p.name,
                                   seats=Names(self.seats)))
        return p

    def _verify_bet(self, e: Bet) -> None:
        if self._is_dealer(e.seat):
            raise IllegalEvent(say("The dealer doesn't bet: the house covers every bet."))
        p = self._in_round(e.seat)
        if self.phase != "bet":
            raise IllegalEvent(say("Bets are closed: the cards are being dealt for this round."))
        if p.bet:
            raise IllegalEvent(say("{seat} has already bet {bet} this round.", seat=p.name, bet=p.bet))
        low, top = self.options["min_bet"], self.options["max_bet"]
        tie = e.tie or 0
        if e.amount < low:
            raise IllegalEvent(say("The minimum bet is {chips}; {seat} bet {amount}.", chips=chips(low), seat=p.name,
                                   amount=e.amount))
        if top is not None and e.amount > top:
            raise IllegalEvent(say("The maximum bet is {chips}; {seat} bet {amount}.", chips=chips(top), seat=p.name,
                                   amount=e.amount))
        if self.options["odd_surrender"] == "even_bets" and e.amount % 2:
            raise IllegalEvent(say("Bets must be even at this table, so a surrender can lose exactly half "
                                   "(not {amount}).", amount=e.amount))
        if tie < 0:
            raise IllegalEvent(say("A tie bet can't be negative ({tie}).", tie=tie))
        if tie and not self.options["tie_bet"]:
            raise IllegalEvent(say("This table plays without the tie bet (rule option tie_bet is off)."))
        if tie and top is not None and tie > top:
            raise IllegalEvent(say("The maximum bet is {chips}, for the tie bet too; {seat} bet {tie} on the tie.",
                                   chips=chips(top), seat=p.name, tie=tie))
        if e.amount + tie > p.chips:
            raise IllegalEvent(say("{seat} has only {chips}, not enough to bet {amount} plus {tie} on the tie.",
                                   seat=p.name, chips=chips(p.chips), amount=e.amount, tie=tie) if tie else
                               say("{seat} has only {chips}, not enough to bet {amount}.", seat=p.name,
                                   chips=chips(p.chips), amount=e.amount))

    def _read(self, code: str) -> Face:
        try:
            return self.shoe.read(code)
        except UnknownCard:                     # the shoe holds no joker: say why
            if str(code).strip().upper() == "JOKER":
                raise IllegalEvent(say("Casino War is played without jokers: take them out of the deck.")) from None
            raise

    def _verify_flip(self, e: Flip) -> None:
        dealer = self._is_dealer(e.seat)
        seat = DEALER if dealer else self._in_round(e.seat).name
        if self.phase == "bet":
            raise IllegalEvent(say("Not yet: bets come before the deal (waiting for {seats} to bet).",
                                   seats=Names(self._waiting())))
        if self.phase == "decide":
            raise IllegalEvent(say("Not yet: {seats} must first choose to surrender or go to war.",
                                   seats=Names(self._waiting())))
        if self.phase == "burn":
            raise IllegalEvent(say("Not yet: the dealer burns {n} cards face down before the war cards.", n=BURN))
        if seat not in self._dealt_to():
            raise IllegalEvent(say("{seat} isn't in this war: only {seats} and the dealer get a war card.", seat=seat,
                                   seats=Names(self._dealt_to()[:-1])))
        if seat in self.cards:
            raise IllegalEvent(say("The dealer has already been dealt {card}.", card=a_card(self.cards[seat])) if dealer
                               else say("{seat} has already been dealt {card}.", seat=seat,
                                        card=a_card(self.cards[seat])))
        face = self._read(e.card)
        why = self.shoe.cannot_coexist(self.seen + [face])
        if why:
            raise IllegalEvent(self._in_the_shoe(why) if self.options["decks"] > 1 else why)
        if len(self.seen) + self.burned + 1 > self.shoe.size:
            raise IllegalEvent(say("The shoe has no cards left for this round."))

    @staticmethod
    def _in_the_shoe(why: str) -> str:
        """The deck's refusal of a card seen too often, said of the shoe."""
        args = getattr(why, "args", None) or {}
        if getattr(why, "id", None) == ("There are only {n} cards that read {card} in the deck, and all of them are "
                                        "already on the table."):
            return say("There are only {n} cards that read {card} in the shoe, and all of them are already on the "
                       "table.", **args)
        if getattr(why, "id", None) == ("There are only {n} {card} cards in the deck, and all of them are already on "
                                        "the table."):
            return say("There are only {n} {card} cards in the shoe, and all of them are already on the table.", **args)
        return why.replace("in the deck", "in the shoe")

    def _verify_choice(self, e: Surrender | GoToWar) -> None:
        surrender = isinstance(e, Surrender)
        if self._is_dealer(e.seat):
            raise IllegalEvent(say("The dealer doesn't choose: only a player who ties the dealer may surrender.")
                               if surrender else
                               say("The dealer doesn't choose: only a player who ties the dealer may go to war."))
        p = self._in_round(e.seat)
        if p.name in self.choices:
            raise IllegalEvent(say("{seat} has already chosen to surrender.", seat=p.name)
                               if self.choices[p.name] == "surrender" else
                               say("{seat} has already chosen to go to war.", seat=p.name))
        if self.phase != "decide":
            raise IllegalEvent(say("There is no tie to decide right now, so {seat} can't surrender.", seat=p.name)
                               if surrender else
                               say("There is no tie to decide right now, so {seat} can't go to war.", seat=p.name))
        if p.name not in self.tied:
            raise IllegalEvent(say("{seat} didn't tie the dealer, so there is nothing to decide.", seat=p.name))
        if isinstance(e, GoToWar) and p.chips < p.bet:
            raise IllegalEvent(say("{seat} has only {chips}, not the {bet} more a war needs: {seat} can only "
                                   "surrender.", seat=p.name, chips=chips(p.chips), bet=p.bet))

    def _verify_down(self, e: Down) -> None:
        if not self._is_dealer(e.seat):
            self._player(e.seat)
            raise IllegalEvent(say("In Casino War only the dealer lays cards face down (the burn), not {seat}.",
                                   seat=self._named(e.seat).name))
        if self.phase != "burn":
            raise IllegalEvent(say("No war is waiting for burned cards right now."))
        if e.count < 1 or self.burned + e.count > BURN:
            raise IllegalEvent(say("The dealer burns {n} cards before a war, not {count} ({burned} already burned, "
                                   "{left} to go).", n=BURN, count=self.burned + e.count, burned=self.burned,
                                   left=BURN - self.burned) if self.burned else
                               say("The dealer burns {n} cards before a war, not {count}.", n=BURN,
                                   count=self.burned + e.count))
        if len(self.seen) + self.burned + e.count > self.shoe.size:
            raise IllegalEvent(say("The shoe has no cards left to burn."))

    def _verify_recount(self, e: Recount) -> None:
        if self._is_dealer(e.seat):
            raise IllegalEvent(say("The house's chips aren't counted: recount a player's chips."))
        self._player(e.seat)
        if e.hand is not None or e.herd is not None:
            raise BadEvent(say("A Casino War recount gives a player's chips as count (there is no hand or herd)."))
        if e.count is None:
            raise BadEvent(say("A recount needs a count: the chips in front of the player."))
        if e.count < 0:
            raise IllegalEvent(say("A recount can't be negative (count {count}).", count=e.count))
        if e.count > MAX_CHIPS:
            most, count = f"{MAX_CHIPS:,}", f"{e.count:,}"
            raise IllegalEvent(say("A recount of more than {most} chips is surely a slip (count {count}).",
                                   most=most, count=count))

    def _verify_time_up(self, e: TimeUp) -> None:
        if self.time_up:
            raise IllegalEvent(say("Time is already up: the current round is being finished."))

    # ------------------------------------------------------------------ applying
    # each ruling's sentence is said when read (referee/rulings.py), from the values it says as they are now
    def _bet(self, e: Bet) -> list[Ruling]:
        p = self._named(e.seat)
        p.bet, p.tie = e.amount, e.tie or 0
        p.chips -= p.bet + p.tie
        waiting = self._waiting()
        data = self._data(seat=p.name, amount=p.bet, tie=p.tie, waiting=waiting)
        rulings = [Ruling("bet", partial(self._bet_text, p.name, p.bet, p.tie), data)]
        if not waiting:
            self.phase = "deal"
            rulings.append(self.prompt())
        return rulings

    @staticmethod
    def _bet_text(seat: str, bet: int, tie: int) -> Said:
        return (say("{seat} bets {chips} and {tie} on the tie.", seat=seat, chips=chips(bet), tie=tie) if tie
                else say("{seat} bets {chips}.", seat=seat, chips=chips(bet)))

    def _flip(self, e: Flip) -> list[Ruling]:
        face = self._read(e.card)
        seat = DEALER if self._is_dealer(e.seat) else self._named(e.seat).name
        self.cards[seat] = face
        self.seen.append(face)
        waiting = self._waiting()
        if not waiting:
            return self._settle_war() if self.phase == "war" else self._settle_deal()
        return [Ruling("flip", partial(self._flip_text, seat, face, tuple(waiting)),
                       {"seat": seat, "card": face.code, "waiting": waiting})]

    @staticmethod
    def _flip_text(seat: str, face: Face, waiting: tuple[str, ...]) -> Said:
        return (say("The dealer draws {card}; waiting for {seats}.", card=a_card(face), seats=seats_said(list(waiting)))
                if seat == DEALER else
                say("{seat} gets {card}; waiting for {seats}.", seat=seat, card=a_card(face),
                    seats=seats_said(list(waiting))))

    def _settle_deal(self) -> list[Ruling]:
        """Every player and the dealer have a card: pay or take each bet; ties wait for a choice."""
        dealer = self.cards[DEALER]
        odd = self.options["odd_surrender"]
        rulings: list[Ruling] = []
        for s in self.seats:
            p, face = self.players[s], self.cards[s]
            tie = face.value == dealer.value
            won = lost_side = 0
            if p.tie:
                if tie:
                    won = TIE_PAYS * p.tie
                    p.chips += p.tie + won
                    p.change += won
                    self.house -= won
                else:
                    p.change -= p.tie
                    self.house += p.tie
                    lost_side = p.tie
                p.tie = 0
            if tie:
                self.tied.append(s)
                result = "tie"
            elif face.value > dealer.value:
                p.chips += 2 * p.bet
                p.change += p.bet
                self.house -= p.bet
                result = "win"
            else:
                p.change -= p.bet
                self.house += p.bet
                result = "loss"
            text = partial(self._deal_text, result, s, face, dealer, won, lost_side, p.bet, p.chips, odd)
            if not tie:
                p.bet = 0
            rulings.append(Ruling("battle", text, self._data(
                seat=s, result=result, card=face.code, dealer=dealer.code, war=False,
                change=p.change, chips=p.chips)))
        if self.tied:
            self.phase = "decide"
            return rulings
        return rulings + self._round_over()

    @staticmethod
    def _deal_text(result: str, s: str, face: Face, dealer: Face, won: int, lost_side: int, bet: int, total: int,
                   odd_surrender: str) -> Said:
        """What a deal's ruling for seat ``s`` says: ``won`` on the tie bet, or ``lost_side`` (the tie bet
        lost); ``bet`` the first bet, ``total`` the chips after it."""
        card, theirs = said(face), said(dealer)
        if result == "tie":
            question = CasinoState._question(s, bet, odd_surrender)
            return (say("Tie! {seat}'s {card} ties the dealer's {dealer}, and the tie bet pays {pays} to 1: {seat} "
                        "wins {won} on it. {question}", seat=s, card=card, dealer=theirs, pays=TIE_PAYS,
                        won=chips(won), question=question) if won else
                    say("Tie! {seat}'s {card} ties the dealer's {dealer}. {question}", seat=s, card=card,
                        dealer=theirs, question=question))
        if result == "win":
            return (say("{seat}'s {card} beats the dealer's {dealer}: {seat} wins {chips} but loses the {tie}-chip "
                        "tie bet (now {total}).", seat=s, card=card, dealer=theirs, chips=chips(bet),
                        tie=lost_side, total=chips(total)) if lost_side else
                    say("{seat}'s {card} beats the dealer's {dealer}: {seat} wins {chips} (now {total}).", seat=s,
                        card=card, dealer=theirs, chips=chips(bet), total=chips(total)))
        return (say("The dealer's {dealer} beats {seat}'s {card}: {seat} loses {chips} and the {tie}-chip "
                    "tie bet (now {total}).", seat=s, card=card, dealer=theirs, chips=chips(bet),
                    tie=lost_side, total=chips(total)) if lost_side else
                say("The dealer's {dealer} beats {seat}'s {card}: {seat} loses {chips} (now {total}).", seat=s,
                    card=card, dealer=theirs, chips=chips(bet), total=chips(total)))

    def _choose(self, e: Surrender | GoToWar) -> list[Ruling]:
        p = self._named(e.seat)
        choice = "surrender" if isinstance(e, Surrender) else "war"
        self.choices[p.name] = choice
        if choice == "surrender":
            odd = self.options["odd_surrender"]
            loss = surrender_loss(p.bet, odd)
            p.chips += p.bet - loss
            p.change -= loss
            self.house += loss
            text = partial(self._surrender_text, p.name, loss, p.bet, p.chips, odd)
            p.bet = 0
            rulings = [Ruling("surrender", text, self._data(seat=p.name, lost=loss, change=p.change,
                                                             chips=p.chips))]
        else:
            p.war = p.bet
            p.chips -= p.war
            self.wars += 1
            text = partial(self._war_bet_text, p.name, p.war)
            rulings = [Ruling("war", text, self._data(seat=p.name, amount=p.war))]
        if self._waiting():
            return rulings
        if any(c == "war" for c in self.choices.values()):
            self.phase = "burn"
            return rulings + [self.prompt()]
        return rulings + self._round_over()

    @staticmethod
    def _war_bet_text(seat: str, n: int) -> Said:
        return say_n("{seat} goes to war: {n} more chip on the table.", "{seat} goes to war: {n} more chips on the table.",
                     n, seat=seat)

    @staticmethod
    def _surrender_text(seat: str, loss: int, bet: int, total: int, odd_surrender: str) -> Said:
        if not bet % 2:
            return say("{seat} surrenders and loses {chips}, half the bet of {bet} (now {total}).", seat=seat,
                       chips=chips(loss), bet=bet, total=chips(total))
        if odd_surrender == "house_keeps":
            return say("{seat} surrenders and loses {chips}, half the bet of {bet} with the odd chip to the house "
                       "(now {total}).", seat=seat, chips=chips(loss), bet=bet, total=chips(total))
        return say("{seat} surrenders and loses {chips}, half the bet of {bet} with the odd chip to {seat} "
                   "(now {total}).", seat=seat, chips=chips(loss), bet=bet, total=chips(total))

    def _burn(self, e: Down) -> list[Ruling]:
        self.burned += e.count
        left = BURN - self.burned
        text = (partial(say, to_translate("The dealer burns {cards}; {left} more to go."), cards=cards_n(e.count),
                        left=left) if left
                else partial(say, to_translate("The dealer burns {cards}."), cards=cards_n(e.count)))
        rulings = [Ruling("down", text, {"seat": DEALER, "count": e.count, "burned": self.burned})]
        if not left:
            self.phase = "war"
            self.cards = {}
            rulings.append(self.prompt())
        return rulings

    def _settle_war(self) -> list[Ruling]:
        dealer = self.cards[DEALER]
        rulings: list[Ruling] = []
        for s in self._dealt_to()[:-1]:
            p, face = self.players[s], self.cards[s]
            if face.value >= dealer.value:
                p.chips += p.bet + p.war + p.bet
                p.change += p.bet
                self.house -= p.bet
                text = partial(self._war_text, s, face, dealer, p.bet, p.chips)
                result = "win" if face.value > dealer.value else "tie"
            else:
                lost = p.bet + p.war
                p.change -= lost
                self.house += lost
                text = partial(self._war_text, s, face, dealer, lost, p.chips)
                result = "loss"
            p.bet = p.war = 0
            rulings.append(Ruling("battle", text, self._data(
                seat=s, result=result, card=face.code, dealer=dealer.code, war=True,
                change=p.change, chips=p.chips)))
        return rulings + self._round_over()

    @staticmethod
    def _war_text(s: str, face: Face, dealer: Face, amount: int, total: int) -> Said:
        """What a war's ruling for seat ``s`` says: ``amount`` won (a win or tie) or lost (both bets)."""
        if face.value > dealer.value:
            return say("{seat}'s {card} beats the dealer's {dealer} in the war: both bets come back and {seat} "
                       "wins {chips} (now {total}).", seat=s, card=said(face), dealer=said(dealer),
                       chips=chips(amount), total=chips(total))
        if face.value == dealer.value:
            return say("{seat}'s {card} ties the dealer's {dealer} in the war: both bets come back and {seat} "
                       "wins {chips} (now {total}).", seat=s, card=said(face), dealer=said(dealer),
                       chips=chips(amount), total=chips(total))
        return say("The dealer's {dealer} beats {seat}'s {card} in the war: {seat} loses both bets, {chips} "
                   "(now {total}).", seat=s, card=said(face), dealer=said(dealer), chips=chips(amount),
                   total=chips(total))

    def _recount(self, e: Recount) -> list[Ruling]:
        p = self._named(e.seat)
        old = p.chips
        p.chips = e.count
        self.adjustment += p.chips - old
        text = (say("Recount: {seat} has {chips} in front of them; the referee had {old}.", seat=p.name,
                    chips=chips(p.chips), old=old) if p.chips != old else
                say("Recount: {seat} has {chips} in front of them, as the referee had.", seat=p.name,
                    chips=chips(p.chips)))
        rulings = [Ruling("recount", text, self._data(seat=p.name, count=p.chips, was=old))]
        if self.phase == "bet" and not p.bet and p.chips < self.options["min_bet"]:
            rulings += self._broke(p.name)
            if not self.active():
                return rulings + self._everyone_broke()
            if self.phase == "bet" and not self._waiting():
                self.phase = "deal"
                rulings.append(self.prompt())
        return rulings

    def _time_up(self, e: TimeUp) -> list[Ruling]:
        self.time_up = True
        if self.sudden_death:
            return [Ruling("time_up", say("Time is up! The sudden-death round still decides the game."),
                           self._data())]
        if self.phase == "bet" and not any(self.players[s].bet for s in self.seats):
            return [Ruling("time_up", say("Time is up!"), self._data())] + self._score()
        return [Ruling("time_up", say("Time is up! Finish this round, and any war in it; then the most chips wins."),
                       self._data())]

    # ------------------------------------------------------------------ the round's end
    def _broke(self, s: str) -> list[Ruling]:
        p = self.players[s]
        p.out = True
        if s in self.seats:
            self.seats.remove(s)
        low = self.options["min_bet"]
        text = (say("{seat} has no chips left: {seat} is out.", seat=s) if p.chips == 0 else
                say("{seat} has only {chips}, less than the minimum bet of {low}: {seat} is out.", seat=s,
                    chips=chips(p.chips), low=low))
        return [Ruling("out", text, self._data(seat=s))]

    def _round_over(self) -> list[Ruling]:
        self.battles += 1
        rulings: list[Ruling] = []
        for p in self.players.values():
            p.change = 0
        self.cards, self.seen, self.tied, self.choices, self.burned = {}, [], [], {}, 0
        for s in self.active():
            if self.players[s].chips < self.options["min_bet"]:
                rulings += self._broke(s)
        if not self.active():
            return rulings + self._everyone_broke()
        cap = self.options["max_battles"]
        if self.sudden_death or self.time_up or (cap is not None and self.battles >= cap):
            return rulings + self._score()
        return rulings + self._new_round(self.active())

    def _new_round(self, seats: list[str]) -> list[Ruling]:
        self.seats = list(seats)
        self.phase = "bet"
        return [self.prompt()]

    def _everyone_broke(self) -> list[Ruling]:
        text = (say("Everyone is out of chips: the house wins.") if len(self.players) > 1 else
                say("{seat} is out of chips: the house wins.", seat=next(iter(self.players))))
        return self._game_over(None, [], "broke", text)

    def _score(self) -> list[Ruling]:
        """Time is up or the round cap is reached: the most chips wins. After a sudden-death round
        only the tied players are compared: the others had already lost."""
        pool = list(self.contenders) if self.sudden_death else list(self.players)
        chips_of = {s: self.players[s].chips for s in pool}
        best = max(chips_of.values())
        top = [s for s in pool if chips_of[s] == best]
        why = (say("After the sudden-death round") if self.sudden_death else say("Time is up") if self.time_up
               else say("That was round {number}, the last one", number=self.battles))
        reason = "time_up" if self.time_up else "max_battles"
        most = chips_of[top[0]]
        if len(self.players) == 1:
            s = top[0]
            diff = most - self.options["bankroll"]
            if diff > 0:
                return self._game_over(s, [s], reason, say("{why}: {seat} ends with {chips}, {diff} up on the house: "
                                                           "{seat} wins!", why=why, seat=s, chips=chips(most),
                                                           diff=diff))
            if diff == 0:
                return self._game_over(None, [], reason, say("{why}: {seat} ends with {chips} and breaks even with the "
                                                             "house.", why=why, seat=s, chips=chips(most)))
            return self._game_over(None, [], reason, say("{why}: {seat} ends with {chips}, {diff} down: the house "
                                                         "wins.", why=why, seat=s, chips=chips(most), diff=-diff))
        if len(top) == 1:
            others = ", ".join(f"{s} {self.players[s].chips}" for s in self.players if s != top[0])
            return self._game_over(top[0], top, reason, say("{why}: {seat} wins with {chips} ({others}).", why=why,
                                                            seat=top[0], chips=chips(most), others=others))
        # the English says "chips" for any count, as it always has: the plural is for other languages
        if self.options["timed_tie"] == "shared" or best < self.options["min_bet"]:
            return self._game_over(None, top, reason, say_n("{why}: {seats} share the win with {n} chips each.",
                                                            "{why}: {seats} share the win with {n} chips each.", best,
                                                            why=why, seats=Names(top)))
        self.sudden_death = True
        self.contenders = list(top)
        text = say_n("{why}: {seats} are tied with {n} chips each. Sudden death!",
                     "{why}: {seats} are tied with {n} chips each. Sudden death!", best, why=why, seats=Names(top))
        return [Ruling("tie", text, self._data(tied=top))] + self._new_round(top)

    def _game_over(self, winner: str | None, winners: list[str], reason: str, text: str) -> list[Ruling]:
        self.phase = "over"
        self.over = True
        self.seats = []
        self.result = {"winner": winner, "winners": list(winners), "reason": reason, "text": text}
        return [Ruling("game_over", text, self._data(winner=winner, winners=list(winners), reason=reason,
                                                     battles=self.battles, wars=self.wars))]


# each event the game takes -> the function that checks it, and the one that applies it
CasinoState.CHECKS = {Bet: CasinoState._verify_bet, Flip: CasinoState._verify_flip,
                      Surrender: CasinoState._verify_choice, GoToWar: CasinoState._verify_choice,
                      Down: CasinoState._verify_down, Recount: CasinoState._verify_recount,
                      TimeUp: CasinoState._verify_time_up}
CasinoState.APPLIES = {Bet: CasinoState._bet, Flip: CasinoState._flip, Surrender: CasinoState._choose,
                       GoToWar: CasinoState._choose, Down: CasinoState._burn, Recount: CasinoState._recount,
                       TimeUp: CasinoState._time_up}


class CasinoWar(Game):
    id = "casino"
    name = to_translate("Casino War")
    how_to_play = (
        to_translate("Each player plays against the dealer (the house) with a pile of chips."),
        to_translate("Everyone bets some chips. Then each player gets one card face up, and the dealer gets one card "
                     "that plays against everyone."),
        to_translate("Your card higher than the dealer's? You win as many chips as you bet. Lower? You lose your bet. "
                     "The ace is the highest card; suits don't matter."),
        to_translate("Same card as the dealer? Choose: give up half your bet, or go to war by betting the same again. "
                     "The dealer burns 3 cards, and you and the dealer each get one more card. Win or tie it: you "
                     "win your first bet. Lower: you lose both bets."),
        to_translate("A tie bet, on its own, wins 10 times itself when your first card ties the dealer's."),
        to_translate("Can't pay the smallest bet? You are out. Alone against the house, you win if you end with more "
                     "chips than you started with; with others, in a timed game, the player with the most chips "
                     "wins."),
    )
    min_players = 1
    max_players = MAX_PLAYERS
    options = OPTIONS
    state_class = CasinoState

    @property
    def deck(self) -> Deck:
        return shoe_deck(1)

    def cards_in_play(self, options) -> int:
        return shoe_deck(options["decks"]).size

    def check_players(self, players):
        names = super().check_players(players)
        if any(alike(n, DEALER) for n in names):
            raise SetupError(say("{dealer} is the house's seat in Casino War; give the player another name.",
                                 dealer=DEALER))
        return names

    def resolve_options(self, given: Mapping[str, Any] | None) -> dict[str, Any]:
        values = super().resolve_options(given)
        low, top, bank = values["min_bet"], values["max_bet"], values["bankroll"]
        if top is not None and top < low:
            raise OptionError(say("Rule option max_bet ({top}) can't be below min_bet ({low}).", top=top, low=low))
        if low > bank:
            raise OptionError(say("Rule option min_bet ({low}) can't be more than the bankroll ({bank}).", low=low,
                                  bank=bank))
        if values["decks"] > MAX_DECKS:
            raise OptionError(say("Rule option decks must be at most {most} (got {decks}).", most=MAX_DECKS,
                                  decks=values["decks"]))
        if values["odd_surrender"] == "even_bets" and (low % 2 or (top is not None and top < 2)):
            raise OptionError(say("With odd_surrender = even_bets, min_bet must be even."))
        return values
