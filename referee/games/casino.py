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
from functools import cache
from typing import Any, Mapping

from ..deck import Card, Deck, Face, load_deck
from ..errors import BadEvent, IllegalEvent, OptionError, SetupError
from ..events import Bet, Down, Flip, GoToWar, Recount, Surrender, TimeUp
from ..game import Game, SeatedState
from ..names import alike
from ..options import Option, max_battles_option, timed_tie_option
from ..rulings import Ruling, article, join_names, plural
from .classic import rank_word

DEALER = "Dealer"
BURN = 3            # cards burned face down before the war cards
TIE_PAYS = 10       # the tie side bet pays 10 to 1
MAX_DECKS = 8
MAX_PLAYERS = 7     # the seats at a casino table

OPTIONS = (
    Option("bankroll", 100, "How many chips each player starts with.", kind="int", label="Chips to start with"),
    Option("min_bet", 1, "The smallest bet allowed each round; a player who can't cover it is out.",
           kind="int", label="Smallest bet"),
    Option("max_bet", None, "The largest bet allowed each round (off: as many chips as you have).",
           kind="int", can_be_off=True, label="Largest bet"),
    Option("tie_bet", True, "Whether players may back a tie of the first two cards on its own, "
                            "paying 10 to 1.", kind="bool", label="Tie bets"),
    Option("odd_surrender", "house_keeps",
           "Who keeps the odd chip when a player surrenders an odd bet.",
           choices=("house_keeps", "player_keeps", "even_bets"),
           choice_help={"house_keeps": "the player loses the larger half: 7 surrendered loses 4",
                        "player_keeps": "the player loses the smaller half: 7 surrendered loses 3",
                        "even_bets": "bets must be even, so half is always a whole number of chips"},
           label="The odd chip of a surrender", choice_labels={"house_keeps": "The house keeps it",
                                                               "player_keeps": "The player keeps it",
                                                               "even_bets": "Even bets only"}),
    Option("decks", 1, f"How many 52-card decks are in the shoe (casinos use 6; at most {MAX_DECKS}); "
                       f"the shoe is reshuffled after every round.", kind="int", label="Decks in the shoe"),
    timed_tie_option("What happens when players tie for the most chips when time is up or the round cap is "
                     "reached.", sudden_death="the tied players play one more round against the dealer"),
    max_battles_option("End the game after this many rounds (a war belongs to the round that started it) and "
                       "score it like a timed game: the most chips wins.", label="End after this many rounds"),
)

def said(face: Face) -> str:
    """A card as said aloud: its rank, 2-10, jack, queen, king, ace (suits never matter), as Classic War
    says it."""
    return rank_word(face.value)


@cache
def shoe_deck(decks: int) -> Deck:
    """The standard deck without jokers, each card ``decks`` times."""
    standard = load_deck("standard")
    cards = [Card(c.code, c.kind, c.count * decks, c.name, c.value, c.also)
             for c in standard.cards if c.kind == "number"]
    hint = standard.hint.replace(", and JOKER", "")
    name = "Casino War" if decks == 1 else f"Casino War ({decks}-deck shoe)"
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
    OUT = "{name} is out of chips and out of the game."
    UNKNOWN_EXTRA = f"; the dealer's seat is {DEALER}"
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
        return {n: p.chips for n, p in self.players.items()}

    def on_table(self) -> int:
        return sum(p.staked for p in self.players.values())

    def chip_total(self) -> int:
        """Players' chips, bets on the table and the house's balance: always the bankrolls plus
        any recount corrections."""
        return sum(p.chips for p in self.players.values()) + self.on_table() + self.house

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

    def _bet_range(self) -> str:
        top = self.options["max_bet"]
        low = self.options["min_bet"]
        even = " (even numbers only)" if self.options["odd_surrender"] == "even_bets" else ""
        return (f"{low} to {top} chips{even}" if top is not None else f"at least {plural(low, 'chip')}{even}")

    def prompt(self) -> Ruling:
        waiting = self._waiting()
        named = [("the dealer" if s == DEALER else s) for s in waiting]
        if self.over:
            text = "The game is over."
        elif self.phase == "bet":
            first = (f"Sudden death: {join_names(self.seats)} play one more round. " if self.sudden_death
                     else f"Round {self.battles + 1}. ")
            side = " and a tie bet if you like" if self.options["tie_bet"] else ""
            text = f"{first}Place your bets ({self._bet_range()}){side}: waiting for {join_names(waiting)}."
        elif self.phase == "deal":
            text = f"Bets are in. Deal one card face up to {join_names(named)}."
        elif self.phase == "decide":
            text = " ".join(self._question(s) for s in waiting)
        elif self.phase == "burn":
            text = f"War! The dealer burns {BURN - self.burned} cards face down."
        else:
            text = f"War! Deal one more card face up to {join_names(named)}."
        return Ruling("prompt", text, {"phase": self.phase, "waiting": waiting,
                                       "round": self.battles + (0 if self.over else 1)})

    def _question(self, s: str) -> str:
        p = self.players[s]
        return (f"{s}, surrender (lose {surrender_loss(p.bet, self.options['odd_surrender'])}) "
                f"or go to war (bet {p.bet} more)?")

    # ------------------------------------------------------------------ checking
    @staticmethod
    def _is_dealer(name: str) -> bool:
        return str(name).strip().lower() == DEALER.lower()

    def _in_round(self, name: str) -> Player:
        p = self._player(name)
        if p.name not in self.seats:
            raise IllegalEvent(f"{p.name} sits out this sudden-death round: only "
                               f"{join_names(self.seats)} play it.")
        return p

    def _verify_bet(self, e: Bet) -> None:
        if self._is_dealer(e.seat):
            raise IllegalEvent("The dealer doesn't bet: the house covers every bet.")
        p = self._in_round(e.seat)
        if self.phase != "bet":
            raise IllegalEvent("Bets are closed: the cards are being dealt for this round.")
        if p.bet:
            raise IllegalEvent(f"{p.name} has already bet {p.bet} this round.")
        low, top = self.options["min_bet"], self.options["max_bet"]
        tie = e.tie or 0
        if e.amount < low:
            raise IllegalEvent(f"The minimum bet is {plural(low, 'chip')}; {p.name} bet {e.amount}.")
        if top is not None and e.amount > top:
            raise IllegalEvent(f"The maximum bet is {plural(top, 'chip')}; {p.name} bet {e.amount}.")
        if self.options["odd_surrender"] == "even_bets" and e.amount % 2:
            raise IllegalEvent(f"Bets must be even at this table, so a surrender can lose exactly half "
                               f"(not {e.amount}).")
        if tie < 0:
            raise IllegalEvent(f"A tie bet can't be negative ({tie}).")
        if tie and not self.options["tie_bet"]:
            raise IllegalEvent("This table plays without the tie bet (rule option tie_bet is off).")
        if tie and top is not None and tie > top:
            raise IllegalEvent(f"The maximum bet is {plural(top, 'chip')}, for the tie bet too; "
                               f"{p.name} bet {tie} on the tie.")
        if e.amount + tie > p.chips:
            both = f" plus {tie} on the tie" if tie else ""
            raise IllegalEvent(f"{p.name} has only {plural(p.chips, 'chip')}, not enough to bet "
                               f"{e.amount}{both}.")

    def _read(self, code: str) -> Face:
        if str(code).strip().upper() == "JOKER":
            raise IllegalEvent("Casino War is played without jokers: take them out of the deck.")
        return self.shoe.read(code)

    def _verify_flip(self, e: Flip) -> None:
        dealer = self._is_dealer(e.seat)
        seat = DEALER if dealer else self._in_round(e.seat).name
        if self.phase == "bet":
            raise IllegalEvent(f"Not yet: bets come before the deal (waiting for "
                               f"{join_names(self._waiting())} to bet).")
        if self.phase == "decide":
            raise IllegalEvent(f"Not yet: {join_names(self._waiting())} must first choose to "
                               f"surrender or go to war.")
        if self.phase == "burn":
            raise IllegalEvent(f"Not yet: the dealer burns {BURN} cards face down before the war cards.")
        if seat not in self._dealt_to():
            raise IllegalEvent(f"{seat} isn't in this war: only {join_names(self._dealt_to()[:-1])} "
                               f"and the dealer get a war card.")
        if seat in self.cards:
            who = "The dealer has" if dealer else f"{seat} has"
            raise IllegalEvent(f"{who} already been dealt {article(said(self.cards[seat]))}.")
        face = self._read(e.card)
        why = self.shoe.cannot_coexist(self.seen + [face])
        if why:
            raise IllegalEvent(why.replace("in the deck", "in the shoe") if self.options["decks"] > 1
                               else why)
        if len(self.seen) + self.burned + 1 > self.shoe.size:
            raise IllegalEvent("The shoe has no cards left for this round.")

    def _verify_choice(self, e: Surrender | GoToWar) -> None:
        what = "surrender" if isinstance(e, Surrender) else "go to war"
        if self._is_dealer(e.seat):
            raise IllegalEvent(f"The dealer doesn't choose: only a player who ties the dealer may {what}.")
        p = self._in_round(e.seat)
        if p.name in self.choices:
            chose = "surrender" if self.choices[p.name] == "surrender" else "go to war"
            raise IllegalEvent(f"{p.name} has already chosen to {chose}.")
        if self.phase != "decide":
            raise IllegalEvent(f"There is no tie to decide right now, so {p.name} can't {what}.")
        if p.name not in self.tied:
            raise IllegalEvent(f"{p.name} didn't tie the dealer, so there is nothing to decide.")
        if isinstance(e, GoToWar) and p.chips < p.bet:
            raise IllegalEvent(f"{p.name} has only {plural(p.chips, 'chip')}, not the {p.bet} more a war "
                               f"needs: {p.name} can only surrender.")

    def _verify_down(self, e: Down) -> None:
        if not self._is_dealer(e.seat):
            self._player(e.seat)
            raise IllegalEvent(f"In Casino War only the dealer lays cards face down (the burn), not "
                               f"{self._named(e.seat).name}.")
        if self.phase != "burn":
            raise IllegalEvent("No war is waiting for burned cards right now.")
        if e.count < 1 or self.burned + e.count > BURN:
            more = f" ({self.burned} already burned, {BURN - self.burned} to go)" if self.burned else ""
            raise IllegalEvent(f"The dealer burns {BURN} cards before a war, not "
                               f"{self.burned + e.count}{more}.")
        if len(self.seen) + self.burned + e.count > self.shoe.size:
            raise IllegalEvent("The shoe has no cards left to burn.")

    def _verify_recount(self, e: Recount) -> None:
        if self._is_dealer(e.seat):
            raise IllegalEvent("The house's chips aren't counted: recount a player's chips.")
        self._player(e.seat)
        if e.hand is not None or e.herd is not None:
            raise BadEvent("A Casino War recount gives a player's chips as count (there is no hand or herd).")
        if e.count is None:
            raise BadEvent("A recount needs a count: the chips in front of the player.")
        if e.count < 0:
            raise IllegalEvent(f"A recount can't be negative (count {e.count}).")
        if e.count > MAX_CHIPS:
            raise IllegalEvent(f"A recount of more than {MAX_CHIPS:,} chips is surely a slip (count {e.count:,}).")

    def _verify_time_up(self, e: TimeUp) -> None:
        if self.time_up:
            raise IllegalEvent("Time is already up: the current round is being finished.")

    # ------------------------------------------------------------------ applying
    def _bet(self, e: Bet) -> list[Ruling]:
        p = self._named(e.seat)
        p.bet, p.tie = e.amount, e.tie or 0
        p.chips -= p.bet + p.tie
        side = f" and {p.tie} on the tie" if p.tie else ""
        waiting = self._waiting()
        text = f"{p.name} bets {plural(p.bet, 'chip')}{side}."
        data = self._data(seat=p.name, amount=p.bet, tie=p.tie, waiting=waiting)
        rulings = [Ruling("bet", text, data)]
        if not waiting:
            self.phase = "deal"
            rulings.append(self.prompt())
        return rulings

    def _flip(self, e: Flip) -> list[Ruling]:
        face = self._read(e.card)
        seat = DEALER if self._is_dealer(e.seat) else self._named(e.seat).name
        self.cards[seat] = face
        self.seen.append(face)
        waiting = self._waiting()
        if not waiting:
            return self._settle_war() if self.phase == "war" else self._settle_deal()
        who = "The dealer draws" if seat == DEALER else f"{seat} gets"
        named = [("the dealer" if s == DEALER else s) for s in waiting]
        return [Ruling("flip", f"{who} {article(said(face))}; waiting for {join_names(named)}.",
                       {"seat": seat, "card": face.code, "waiting": waiting})]

    def _settle_deal(self) -> list[Ruling]:
        """Every player and the dealer have a card: pay or take each bet; ties wait for a choice."""
        dealer = self.cards[DEALER]
        rulings: list[Ruling] = []
        for s in self.seats:
            p, face = self.players[s], self.cards[s]
            tie = face.value == dealer.value
            side = lost_side = ""
            if p.tie:
                if tie:
                    won = TIE_PAYS * p.tie
                    p.chips += p.tie + won
                    p.change += won
                    self.house -= won
                    side = f", and the tie bet pays {TIE_PAYS} to 1: {s} wins {plural(won, 'chip')} on it"
                else:
                    p.change -= p.tie
                    self.house += p.tie
                    lost_side = f"the {p.tie}-chip tie bet"
                p.tie = 0
            if tie:
                self.tied.append(s)
                text = f"Tie! {s}'s {said(face)} ties the dealer's {said(dealer)}{side}. {self._question(s)}"
                result = "tie"
            elif face.value > dealer.value:
                p.chips += 2 * p.bet
                p.change += p.bet
                self.house -= p.bet
                but = f" but loses {lost_side}" if lost_side else ""
                text = (f"{s}'s {said(face)} beats the dealer's {said(dealer)}: {s} wins "
                        f"{plural(p.bet, 'chip')}{but} (now {plural(p.chips, 'chip')}).")
                result = "win"
            else:
                p.change -= p.bet
                self.house += p.bet
                also = f" and {lost_side}" if lost_side else ""
                text = (f"The dealer's {said(dealer)} beats {s}'s {said(face)}: {s} loses "
                        f"{plural(p.bet, 'chip')}{also} (now {plural(p.chips, 'chip')}).")
                result = "loss"
            if not tie:
                p.bet = 0
            rulings.append(Ruling("battle", text, self._data(
                seat=s, result=result, card=face.code, dealer=dealer.code, war=False,
                change=p.change, chips=p.chips)))
        if self.tied:
            self.phase = "decide"
            return rulings
        return rulings + self._round_over()

    def _choose(self, e: Surrender | GoToWar) -> list[Ruling]:
        p = self._named(e.seat)
        choice = "surrender" if isinstance(e, Surrender) else "war"
        self.choices[p.name] = choice
        if choice == "surrender":
            loss = surrender_loss(p.bet, self.options["odd_surrender"])
            p.chips += p.bet - loss
            p.change -= loss
            self.house += loss
            text = (f"{p.name} surrenders and loses {plural(loss, 'chip')}, half the bet of {p.bet} "
                    f"(now {plural(p.chips, 'chip')}).")
            if p.bet % 2:
                keeps = "the house" if self.options["odd_surrender"] == "house_keeps" else p.name
                text = (f"{p.name} surrenders and loses {plural(loss, 'chip')}, half the bet of {p.bet} "
                        f"with the odd chip to {keeps} (now {plural(p.chips, 'chip')}).")
            p.bet = 0
            rulings = [Ruling("surrender", text, self._data(seat=p.name, lost=loss, change=p.change,
                                                             chips=p.chips))]
        else:
            p.war = p.bet
            p.chips -= p.war
            self.wars += 1
            text = f"{p.name} goes to war: {p.war} more {'chip' if p.war == 1 else 'chips'} on the table."
            rulings = [Ruling("war", text, self._data(seat=p.name, amount=p.war))]
        if self._waiting():
            return rulings
        if any(c == "war" for c in self.choices.values()):
            self.phase = "burn"
            return rulings + [self.prompt()]
        return rulings + self._round_over()

    def _burn(self, e: Down) -> list[Ruling]:
        self.burned += e.count
        left = BURN - self.burned
        text = f"The dealer burns {plural(e.count, 'card')}" + (f"; {left} more to go." if left else ".")
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
                how = "beats" if face.value > dealer.value else "ties"
                text = (f"{s}'s {said(face)} {how} the dealer's {said(dealer)} in the war: both bets come "
                        f"back and {s} wins {plural(p.bet, 'chip')} (now {plural(p.chips, 'chip')}).")
                result = "win" if face.value > dealer.value else "tie"
            else:
                lost = p.bet + p.war
                p.change -= lost
                self.house += lost
                text = (f"The dealer's {said(dealer)} beats {s}'s {said(face)} in the war: {s} loses both "
                        f"bets, {plural(lost, 'chip')} (now {plural(p.chips, 'chip')}).")
                result = "loss"
            p.bet = p.war = 0
            rulings.append(Ruling("battle", text, self._data(
                seat=s, result=result, card=face.code, dealer=dealer.code, war=True,
                change=p.change, chips=p.chips)))
        return rulings + self._round_over()

    def _recount(self, e: Recount) -> list[Ruling]:
        p = self._named(e.seat)
        old = p.chips
        p.chips = e.count
        self.adjustment += p.chips - old
        had = f"; the referee had {old}." if p.chips != old else ", as the referee had."
        text = f"Recount: {p.name} has {plural(p.chips, 'chip')} in front of them{had}"
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
            return [Ruling("time_up", "Time is up! The sudden-death round still decides the game.",
                           self._data())]
        if self.phase == "bet" and not any(self.players[s].bet for s in self.seats):
            return [Ruling("time_up", "Time is up!", self._data())] + self._score()
        return [Ruling("time_up", "Time is up! Finish this round, and any war in it; then the most chips "
                                  "wins.", self._data())]

    # ------------------------------------------------------------------ the round's end
    def _broke(self, s: str) -> list[Ruling]:
        p = self.players[s]
        p.out = True
        if s in self.seats:
            self.seats.remove(s)
        low = self.options["min_bet"]
        text = (f"{s} has no chips left: {s} is out." if p.chips == 0 else
                f"{s} has only {plural(p.chips, 'chip')}, less than the minimum bet of {low}: {s} is out.")
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
        who = "Everyone is" if len(self.players) > 1 else f"{next(iter(self.players))} is"
        return self._game_over(None, [], "broke", f"{who} out of chips: the house wins.")

    def _score(self) -> list[Ruling]:
        """Time is up or the round cap is reached: the most chips wins. After a sudden-death round
        only the tied players are compared: the others had already lost."""
        pool = list(self.contenders) if self.sudden_death else list(self.players)
        chips = {s: self.players[s].chips for s in pool}
        best = max(chips.values())
        top = [s for s in pool if chips[s] == best]
        why = ("After the sudden-death round" if self.sudden_death else "Time is up" if self.time_up
               else f"That was round {self.battles}, the last one")
        reason = "time_up" if self.time_up else "max_battles"
        if len(self.players) == 1:
            s = top[0]
            diff = chips[s] - self.options["bankroll"]
            if diff > 0:
                return self._game_over(s, [s], reason, f"{why}: {s} ends with {plural(best, 'chip')}, "
                                                           f"{diff} up on the house: {s} wins!")
            if diff == 0:
                return self._game_over(None, [], reason, f"{why}: {s} ends with {plural(best, 'chip')} "
                                                            f"and breaks even with the house.")
            return self._game_over(None, [], reason, f"{why}: {s} ends with {plural(best, 'chip')}, "
                                                        f"{-diff} down: the house wins.")
        if len(top) == 1:
            others = ", ".join(f"{s} {self.players[s].chips}" for s in self.players if s != top[0])
            return self._game_over(top[0], top, reason, f"{why}: {top[0]} wins with "
                                                        f"{plural(best, 'chip')} ({others}).")
        if self.options["timed_tie"] == "shared" or best < self.options["min_bet"]:
            return self._game_over(None, top, reason, f"{why}: {join_names(top)} share the win with "
                                                      f"{best} chips each.")
        self.sudden_death = True
        self.contenders = list(top)
        text = f"{why}: {join_names(top)} are tied with {best} chips each. Sudden death!"
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
    name = "Casino War"
    how_to_play = (
        "Each player plays against the dealer (the house) with a pile of chips.",
        "Everyone bets some chips. Then each player gets one card face up, and the dealer gets one card "
        "that plays against everyone.",
        "Your card higher than the dealer's? You win as many chips as you bet. Lower? You lose your bet. "
        "The ace is the highest card; suits don't matter.",
        "Same card as the dealer? Choose: give up half your bet, or go to war by betting the same again. "
        "The dealer burns 3 cards, and you and the dealer each get one more card. Win or tie it: you win "
        "your first bet. Lower: you lose both bets.",
        "A tie bet, on its own, wins 10 times itself when your first card ties the dealer's.",
        "Can't pay the smallest bet? You are out. Alone against the house, you win if you end with more "
        "chips than you started with; with others, in a timed game, the player with the most chips wins.",
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
            raise SetupError(f"{DEALER} is the house's seat in Casino War; give the player another name.")
        return names

    def resolve_options(self, given: Mapping[str, Any] | None) -> dict[str, Any]:
        values = super().resolve_options(given)
        low, top, bank = values["min_bet"], values["max_bet"], values["bankroll"]
        if top is not None and top < low:
            raise OptionError(f"Rule option max_bet ({top}) can't be below min_bet ({low}).")
        if low > bank:
            raise OptionError(f"Rule option min_bet ({low}) can't be more than the bankroll ({bank}).")
        if values["decks"] > MAX_DECKS:
            raise OptionError(f"Rule option decks must be at most {MAX_DECKS} (got {values['decks']}).")
        if values["odd_surrender"] == "even_bets" and (low % 2 or (top is not None and top < 2)):
            raise OptionError("With odd_surrender = even_bets, min_bet must be even.")
        return values
