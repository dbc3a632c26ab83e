"""Guerra NPCs: ``random``, ``easy``, ``normal`` and ``hard``.

An NPC is asked one decision at a time: :meth:`Npc.decide` gets a :class:`~.view.SeatView` (only
what its seat may see) and the legal :class:`~.view.Move` objects of that decision (from the
referee's ``legal_events``), and returns one of those moves. Its only randomness is the seeded
``random.Random`` it was given. The decisions (``kind``) are:

``cut``      cut up or down, or leave the cut out when it is optional (the cutter)
``abstain``  throw the unseen hand away, or keep it (the first receiver, before looking)
``troca``    show a run and call even or odd, or keep the hand
``fim``      accept or refuse Fim de Guerra (the side at 5 points, after looking at its hands)
``answer``   accept, refuse or raise again an Ofensiva of the other side
``turn``     play a card face up or face down (encoberta), or first propose an Ofensiva

What each level does is in docs/guerra-npc.md; in short: ``random`` picks a legal move uniformly;
``easy`` plays its highest card, covers a card it can't win with, raises on a high card now and
then and answers Ofensivas with a coin; ``normal`` estimates its chance to win the confronto from
its hand and the cards seen (a few sampled deals of the unseen cards), plays a sensible card and
raises and answers by what the chance is worth in game points; ``hard`` samples more deals, weighs
them by what the other side's Ofensivas say, reads its partner's signals and tries each of its
cards on every sampled deal before playing.

Partner signal (teams, every level but ``random``): in the 2nd rodada a player holding one of the
two highest numbers of the deck and a weaker card, with a partner still to play, plays the weaker
card face down: "I keep a winner for the 3rd rodada; take this one if you can". Partners at
``normal`` and ``hard`` read it.
"""
from __future__ import annotations

import random
from collections import Counter

from .model import game_equity, rollout, stake_equity
from .view import Move, SeatView

LEVELS = ("random", "easy", "normal", "hard")


class Npc:
    """A player of one level. ``made`` counts the decisions it has made, by kind of decision:
    cut, abstain, troca, fim, raise, accept, refuse, play (a card face up), encoberta, signal."""

    level = "random"

    def __init__(self, rng: random.Random):
        if not isinstance(rng, random.Random):
            raise TypeError("an NPC needs a seeded random.Random")
        self.rng = rng
        self.made: Counter[str] = Counter()
        self._signalled = False

    def decide(self, view: SeatView, kind: str, moves: list[Move]) -> Move:
        if not moves:
            raise ValueError(f"{view.seat} has no {kind} move to choose from")
        move = getattr(self, f"_{kind}")(view, moves)
        if move not in moves:                       # a level's bug must never reach the table
            raise AssertionError(f"{self.level} chose {move} outside {moves}")
        self._count(view, kind, move)
        return move

    def _count(self, view: SeatView, kind: str, move: Move) -> None:
        if move.kind == "pass":
            return
        if kind in ("cut", "abstain", "fim"):
            self.made[kind] += 1
        elif move.kind == "call":
            self.made["troca"] += 1
        elif move.kind == "flip":
            self.made["encoberta" if move.down else "play"] += 1
            if move.down and self._signalled:
                self.made["signal"] += 1
        else:
            self.made[move.kind] += 1
        self._signalled = False

    # ------------------------------------------------------------------ random legal play
    def _uniform(self, moves: list[Move]) -> Move:
        """A uniformly random legal event: face down counts as one event (its card then drawn)."""
        events: dict[tuple, list[Move]] = {}
        for m in moves:
            key = (m.kind, m.down, None if m.down else m.slot, m.parity, m.choice)
            events.setdefault(key, []).append(m)
        group = events[self.rng.choice(sorted(events, key=repr))]
        return self.rng.choice(group)

    def _cut(self, view, moves):
        return self._uniform(moves)

    _abstain = _troca = _fim = _answer = _turn = _cut


# ---------------------------------------------------------------------- helpers for the levels
def values_of(view: SeatView) -> dict[str, int]:
    return view.values()


def top_values(view: SeatView) -> tuple[int, int]:
    """The two highest numbers of the deck in play (10 and 9, or 12 and 11)."""
    vs = sorted({v for _, v in view.deck})
    return vs[-1], vs[-2]


def flips(moves: list[Move], view: SeatView) -> tuple[list[tuple[int, Move]], list[tuple[int, Move]]]:
    """(face-up moves, face-down moves), each with the card's number (0 where it can't be seen)."""
    val = values_of(view)
    up, down = [], []
    for m in moves:
        if m.kind != "flip":
            continue
        card = view.hand[m.slot]
        v = val[card] if card is not None else 0
        (down if m.down else up).append((v, m))
    return up, down


def partner_after(view: SeatView) -> bool:
    """Whether a partner plays after this seat in the current rodada."""
    n = len(view.seats)
    start = view.seats.index(view.leader)
    order = [view.seats[(start + k) % n] for k in range(n)]
    later = order[len(view.plays) + 1:]
    return any(view.side_of(s) == view.side for s in later)


def opponents_after(view: SeatView) -> int:
    n = len(view.seats)
    start = view.seats.index(view.leader)
    order = [view.seats[(start + k) % n] for k in range(n)]
    return sum(1 for s in order[len(view.plays) + 1:] if view.side_of(s) != view.side)


def best_so_far(view: SeatView) -> tuple[int, int]:
    """(our side's best number in this rodada, theirs); -1 for none; a face-down card is 0."""
    val = values_of(view)
    mine = theirs = -1
    for s, c in view.plays:
        v = val[c] if c is not None else 0
        if view.side_of(s) == view.side:
            mine = max(mine, v)
        else:
            theirs = max(theirs, v)
    return mine, theirs


def signal_move(view: SeatView, moves: list[Move]) -> Move | None:
    """The partner signal (see the module's note), when this is the moment for it."""
    if not view.teams or view.rodada != 1 or view.mode == "fria":
        return None
    up, down = flips(moves, view)
    if not down or not partner_after(view):
        return None
    top, second = top_values(view)
    vals = sorted(v for v, _ in up) if up else []
    if not vals or vals[-1] < second or vals[0] >= second:
        return None
    low = min(down, key=lambda vm: vm[0])
    return low[1]


def partner_signals(view: SeatView) -> list[str]:
    """Partners who gave the signal this confronto (a face-down card in the 2nd rodada) and still
    hold a card."""
    out = []
    for r, s, c in view.played:
        if r == 1 and c is None and s != view.seat and view.side_of(s) == view.side and view.count(s) > 0:
            out.append(s)
    return out


class World:
    """Deals of the unseen cards consistent with a view, and the position to play them from."""

    def __init__(self, view: SeatView, rng: random.Random, strong: list[int] | None = None):
        self.view = view
        self.rng = rng
        self.val = values_of(view)
        self.seats = view.seats
        self.me = view.seats.index(view.seat)
        self.pool = [self.val[c] for c in view.unseen()]
        self.hidden = view.hidden()
        self.base: list[list[int]] = []
        for s in view.seats:
            if s == view.seat:
                self.base.append([self.val[c] for c in view.hand if c is not None])
            else:
                self.base.append([self.val[c] for c in view.known_of(s)])
        self.need = [self.hidden[s] for s in view.seats]
        self.strong = strong or []          # seats believed to hold a card >= the deck's second value
        self.second = top_values(view)[1]
        self.leader = view.seats.index(view.leader)
        self.plays = [(view.seats.index(s), self.val[c] if c is not None else 0) for s, c in view.plays]
        self.results = list(view.results)

    def deal(self) -> tuple[list[list[int]], list[int]]:
        """One deal: every hand (sorted low to high) and the unseen cards left over (the stock and
        the cards laid face down by others)."""
        total = min(sum(self.need), len(self.pool))
        for _ in range(12):                   # a few tries to honour a partner's signal; then anything goes
            drawn = self.rng.sample(self.pool, len(self.pool))
            hands, k = [], 0
            for i, b in enumerate(self.base):
                hands.append(sorted(b + drawn[k:k + self.need[i]]))
                k += self.need[i]
            if all(max(hands[i], default=0) >= self.second for i in self.strong):
                break
        return hands, drawn[total:]

    def deals(self, k: int) -> list[list[list[int]]]:
        """``k`` deals; their leftovers are kept in ``self.lefts``."""
        out = [self.deal() for _ in range(k)]
        self.lefts = [left for _, left in out]
        return [hands for hands, _ in out]

    def result(self, hands: list[list[int]], seat: int | None = None) -> float:
        """1, 0.5 or 0: the greedy play-out of one deal for the side of ``seat`` (this seat's)."""
        side = (self.me if seat is None else seat) % 2
        w = rollout([h[:] for h in hands], self.view.rodada, self.leader, self.plays, self.results)
        return 1.0 if w == side else 0.5 if w is None else 0.0

    def chance_from(self, hands: list[list[int]], left: list[int], seat: int, k: int) -> float:
        """The chance of ``seat``'s side as ``seat`` would judge it in this deal: its own hand kept,
        every other hand drawn again from the cards it can't see."""
        others = [i for i in range(len(hands)) if i != seat]
        pool = [v for i in others for v in hands[i]] + list(left)
        need = [len(hands[i]) for i in others]
        total = sum(need)
        side = seat % 2
        score = 0.0
        for _ in range(k):
            drawn = self.rng.sample(pool, total)
            hs: list[list[int]] = [[] for _ in hands]
            hs[seat] = hands[seat][:]
            a = 0
            for i, c in zip(others, need):
                hs[i] = sorted(drawn[a:a + c])
                a += c
            w = rollout(hs, self.view.rodada, self.leader, self.plays, self.results)
            score += 1.0 if w == side else 0.5 if w is None else 0.0
        return score / max(k, 1)

    def chance(self, deals: list[list[list[int]]]) -> float:
        """The chance that this seat's side wins the confronto, ties counted half."""
        side = self.me % 2
        score = 0.0
        for hands in deals:
            w = rollout([h[:] for h in hands], self.view.rodada, self.leader, self.plays, self.results)
            score += 1.0 if w == side else 0.5 if w is None else 0.0
        return score / max(len(deals), 1)

    def chance_after(self, deals: list[list[list[int]]], value: int) -> float:
        """The chance after this seat plays ``value`` now (0 face down) from its hand."""
        side = self.me % 2
        score = 0.0
        for hands in deals:
            hs = [h[:] for h in hands]
            mine = hs[self.me]
            if value in mine:
                mine.remove(value)
            else:                                   # face down: the lowest card goes
                mine.pop(0)
            w = rollout(hs, self.view.rodada, self.leader, self.plays + [(self.me, value)], self.results)
            score += 1.0 if w == side else 0.5 if w is None else 0.0
        return score / max(len(deals), 1)


class Easy(Npc):
    """A beginner, with a beginner's mistakes where a child can see them: it throws its best card
    on a rodada it can't win, and most times it could win one it plays its lowest instead
    (keeping the best "for later"); it never covers a card, raises on a poor hand (never on a good
    one), and accepts every Ofensiva and Fim de Guerra."""
    level = "easy"
    RAISE = 0.25                 # the chance it raises when it may, holding nothing high (a bluff it can't carry)
    STRAY = 0.7                  # where it could win a rodada, the chance it plays its lowest instead
    ABSTAIN = 0.1

    def _cut(self, view, moves):
        cuts = [m for m in moves if m.kind == "cut"]
        if any(m.kind == "pass" for m in moves) and self.rng.random() < 0.5:
            return Move("pass")
        return self.rng.choice(cuts)

    def _abstain(self, view, moves):
        return Move("abstain") if self.rng.random() < self.ABSTAIN else Move("pass")

    def _troca(self, view, moves):
        return self.rng.choice([m for m in moves if m.kind == "call"])

    def _fim(self, view, moves):
        return Move("accept")

    def _answer(self, view, moves):
        return Move("accept")

    def _turn(self, view, moves):
        up, down = flips(moves, view)
        if view.mode == "fria" or not up:             # blind: any card, face up
            return self.rng.choice([m for _, m in up] or [m for _, m in down])
        if Move("raise") in moves and max(v for v, _ in up) < top_values(view)[1] and self.rng.random() < self.RAISE:
            return Move("raise")
        sig = signal_move(view, moves)
        if sig is not None:
            self._signalled = True
            return sig
        best = max(up, key=lambda vm: vm[0])
        if view.plays and best[0] <= best_so_far(view)[1]:
            return best[1]                            # can't win the rodada: its best card goes anyway
        if self.rng.random() < self.STRAY:
            return min(up, key=lambda vm: vm[0])[1]   # could win it: keeps its best "for later"
        return best[1]


class Normal(Npc):
    level = "normal"
    SAMPLES = 32
    ABSTAIN = 0.1                # blind: the new hand is no better or worse, so any rate is as good
    RAISED_DISCOUNT = 0.08       # the other side raised: its hand is likely better than a random one
    RAISE_AT = 0.55              # the chance to win the confronto at which it raises
    RERAISE_AT = 0.75            # ... at which it answers an Ofensiva by raising again
    MARGIN = 0.01

    def world(self, view: SeatView) -> World:
        return World(view, self.rng, strong=[view.seats.index(s) for s in partner_signals(view)])

    def chance(self, view: SeatView) -> float:
        w = self.world(view)
        return w.chance(w.deals(self.SAMPLES))

    def _cut(self, view, moves):
        if any(m.kind == "pass" for m in moves) and self.rng.random() < 0.5:
            return Move("pass")
        return self.rng.choice([m for m in moves if m.kind == "cut"])

    def _abstain(self, view, moves):
        # blind: a new unseen hand is as good as the old one, so this only varies the play
        return Move("abstain") if self.rng.random() < self.ABSTAIN else Move("pass")

    def _troca(self, view, moves):
        keep = self.chance(view)
        w = self.world(view)
        me = w.me
        val = w.val
        run = [val[c] for c in view.hand if c is not None]
        pool = [v for v in w.pool]
        deals = []
        for hands in w.deals(self.SAMPLES):
            # the run leaves the confronto; a new hand comes from the cards unseen by this seat
            others = [v for i, h in enumerate(hands) if i != me for v in h]
            rest = list(pool)
            for v in others:
                if v in rest:
                    rest.remove(v)
            hands[me] = sorted(self.rng.sample(rest, len(run))) if len(rest) >= len(run) else hands[me]
            deals.append(hands)
        new = w.chance(deals)
        known_cost = 0.04             # a failed call shows the hand to the other side
        call = 0.5 * new + 0.5 * (keep - known_cost)
        if call > keep + self.MARGIN:
            return self.rng.choice([m for m in moves if m.kind == "call"])
        return Move("pass")

    def _fim(self, view, moves):
        p = self.chance(view)
        me, them = view.my_score, view.their_score
        accept = p + (1 - p) * game_equity(me, them + 2)
        refuse = game_equity(me, them + 1)
        return Move("accept") if accept >= refuse else Move("refuse")

    def _answer_chance(self, view: SeatView) -> float:
        return max(0.0, self.chance(view) - self.RAISED_DISCOUNT)

    def _answer(self, view, moves):
        """Accept when playing on for the proposed value is worth more game equity than giving the
        other side the value accepted so far; raise again only with a clearly better hand."""
        p = self._answer_chance(view)
        me, them = view.my_score, view.their_score
        proposed = view.pending[1]
        if Move("raise") in moves and p >= self.RERAISE_AT:
            return Move("raise")
        accept = stake_equity(p, me, them, proposed)
        refuse = game_equity(me, them + view.value)
        return Move("accept") if accept >= refuse else Move("refuse")

    def _raise_now(self, view: SeatView, p: float) -> bool:
        """Raise with a good chance, when a bigger confronto is worth more to this side."""
        me, them = view.my_score, view.their_score
        return p >= self.RAISE_AT and stake_equity(p, me, them, view.value + 1) > stake_equity(p, me, them, view.value)

    def _turn(self, view, moves):
        up, down = flips(moves, view)
        if view.mode == "fria":
            return self.rng.choice([m for _, m in up] or [m for _, m in down])
        if Move("raise") in moves and self._raise_now(view, self.chance(view)):
            return Move("raise")
        sig = signal_move(view, moves)
        if sig is not None:
            self._signalled = True
            return sig
        return self._play(view, up, down)

    def _play(self, view: SeatView, up, down) -> Move:
        """A sensible card: win the rodada as cheaply as it can be won, else throw (or cover) the
        lowest card; lead the lowest of a full hand (the 1st rodada: a side that answers with its
        best card has spent it for the two rodadas left), later the highest."""
        if not up:
            return min(down, key=lambda vm: vm[0])[1]
        up = sorted(up, key=lambda vm: vm[0])
        if not view.plays:
            return up[0 if view.rodada == 0 and len(up) == 3 else -1][1]
        mine, theirs = best_so_far(view)
        rest = opponents_after(view)
        if mine > theirs and (rest == 0 or mine >= top_values(view)[1]):
            return (min(down, key=lambda vm: vm[0]) if down else up[0])[1]
        winners = [vm for vm in up if vm[0] > theirs]
        if winners:
            return (winners[-1] if rest else winners[0])[1]
        if view.results and view.results[0] == view.side:
            ties = [vm for vm in up if vm[0] == theirs]
            if ties:
                return ties[0][1]
        return (min(down, key=lambda vm: vm[0]) if down else up[0])[1]


class Hard(Normal):
    """Normal's plan, with a model of the other side: in every sampled deal it also judges the
    other side's chance as that side would (its hand kept, the rest drawn again), so it knows in
    which deals an Ofensiva would be accepted or refused, and weighs the deals by what the other
    side's Ofensivas say of its hand. It tries each of its cards on every deal before playing."""
    level = "hard"
    SAMPLES = 48
    INNER = 12                    # deals drawn again to judge the other side's view of one deal
    MARGIN = 0.005
    RAISE_FROM = 0.45             # a side that raised is taken to hold at least this chance ...
    BLUFF = 0.3                   # ... or to be bluffing, this much less likely

    def _raisers(self, view: SeatView) -> bool:
        """Whether the other side raised in this confronto (on the table or accepted)."""
        other = 1 - view.side
        return (view.pending is not None and view.pending[0] == other) or view.last_raise == other

    def world(self, view: SeatView) -> World:
        return World(view, self.rng, strong=[view.seats.index(s) for s in partner_signals(view)])

    def _other(self, view: SeatView) -> int:
        """The next seat of the other side after this one (who answers for it, in this model)."""
        n = len(view.seats)
        me = view.seats.index(view.seat)
        return next((me + k) % n for k in range(1, n + 1) if (me + k) % 2 != me % 2)

    def _assess(self, view: SeatView, w: World, deals: list[list[list[int]]]):
        """Per deal: this side's result, the other side's own view of its chance, and the deal's
        weight (deals where a side that raised would not have raised count less)."""
        j = self._other(view)
        mine = [w.result(h) for h in deals]
        theirs = [w.chance_from(h, left, j, self.INNER) for h, left in zip(deals, w.lefts)]
        if self._raisers(view):
            weights = [1.0 if o >= self.RAISE_FROM else self.BLUFF for o in theirs]
        else:
            weights = [1.0] * len(deals)
        return mine, theirs, weights

    @staticmethod
    def _mean(values: list[float], weights: list[float]) -> float:
        return sum(v * x for v, x in zip(values, weights)) / max(sum(weights), 1e-9)

    def _raise_value(self, view: SeatView, mine, theirs, weights, value: int, banked: int) -> float:
        """Game equity of proposing ``value``: the other side accepts in the deals where accepting
        is worth more to it than refusing (then ``banked`` points are ours)."""
        me, them = view.my_score, view.their_score
        refused = game_equity(me + banked, them)
        out = []
        for p, o in zip(mine, theirs):
            accepts = stake_equity(o, them, me, value) >= game_equity(them, me + banked)
            out.append(stake_equity(p, me, them, value) if accepts else refused)
        return self._mean(out, weights)

    def chance(self, view: SeatView) -> float:
        w = self.world(view)
        deals = w.deals(self.SAMPLES)
        mine, _, weights = self._assess(view, w, deals)
        return self._mean(mine, weights)

    def _answer(self, view, moves):
        w = self.world(view)
        deals = w.deals(self.SAMPLES)
        mine, theirs, weights = self._assess(view, w, deals)
        me, them = view.my_score, view.their_score
        proposed = view.pending[1]
        options = {Move("refuse"): game_equity(me, them + view.value),
                   Move("accept"): self._mean([stake_equity(p, me, them, proposed) for p in mine], weights)}
        if Move("raise") in moves:
            options[Move("raise")] = self._raise_value(view, mine, theirs, weights, proposed + 1, proposed)
        best = max(options.values())
        for m in (Move("accept"), Move("raise"), Move("refuse")):
            if m in options and options[m] >= best - 1e-12:
                return m
        return Move("accept")

    def _turn(self, view, moves):
        up, down = flips(moves, view)
        if view.mode == "fria":
            return self.rng.choice([m for _, m in up] or [m for _, m in down])
        w = self.world(view)
        deals = w.deals(self.SAMPLES)
        if Move("raise") in moves:
            mine, theirs, weights = self._assess(view, w, deals)
            hold = self._mean([stake_equity(p, view.my_score, view.their_score, view.value) for p in mine], weights)
            go = self._raise_value(view, mine, theirs, weights, view.value + 1, view.value)
            if go > hold + self.MARGIN:
                return Move("raise")
        sig = signal_move(view, moves)
        if sig is not None:
            self._signalled = True
            return sig
        if not up:
            return min(down, key=lambda vm: vm[0])[1]
        cands: list[tuple[float, int, Move]] = []
        for v, m in sorted(up, key=lambda vm: vm[0]):
            cands.append((w.chance_after(deals, v), 1, m))
        if down:
            low = min(down, key=lambda vm: vm[0])
            cands.append((w.chance_after(deals, 0), 2, low[1]))   # face down hides the card: preferred on a tie
        best = max(c[0] for c in cands)
        near = [c for c in cands if c[0] >= best - 1e-9]
        return max(near, key=lambda c: (c[1], -cands.index(c)))[2]


PLAYERS: dict[str, type[Npc]] = {"random": Npc, "easy": Easy, "normal": Normal, "hard": Hard}

