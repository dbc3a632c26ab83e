"""A small, fast model of the rest of a Guerra confronto and of the game score, for the NPCs.

- :func:`rollout` plays a confronto to its end from any position with every hand known (a sampled
  world), each seat following a greedy rule: lead the highest card; take the rodada with the lowest
  card that beats the other side's best; when the partner already holds the rodada, or it can't be
  won, throw the lowest card (a tie instead when a tie wins the confronto).
- :func:`game_equity` is the chance to win the game from a score, when each confronto is an even
  coin worth 1 point and the side at 5 takes the better of accepting and refusing Fim de Guerra.
  It turns "the chance to win this confronto" into "is this Ofensiva worth it" in game terms.

Values are card numbers; a face-down card is 0. Seats are indices into the playing order, whose
side is ``index % 2``. Pure and deterministic.
"""
from __future__ import annotations

from functools import lru_cache

from ..games.guerra import confronto_decided

TARGET = 6
FIM = 5


decided = confronto_decided      # the referee's own tie rules


def greedy(seat: int, hand: list[int], plays: list[tuple[int, int]], results: list[int | None]) -> int:
    """The index (in ``hand``, sorted low to high) of the card the greedy rule plays."""
    if not plays:
        return len(hand) - 1
    side = seat % 2
    mine = theirs = -1
    for s, v in plays:
        if s % 2 == side:
            if v > mine:
                mine = v
        elif v > theirs:
            theirs = v
    if mine > theirs:
        return 0
    for i, v in enumerate(hand):
        if v > theirs:
            return i
    if results and results[0] == side:          # a tie in the 2nd or 3rd rodada wins it for us
        for i, v in enumerate(hand):
            if v == theirs:
                return i
    return 0


def end_rodada(plays: list[tuple[int, int]]) -> tuple[int | None, int | None]:
    """(winning side or None, the seat that played the winning card)."""
    best = [(-1, -1), (-1, -1)]
    for s, v in plays:
        side = s % 2
        if v > best[side][0]:
            best[side] = (v, s)
    if best[0][0] == best[1][0]:
        return None, None
    w = 0 if best[0][0] > best[1][0] else 1
    return w, best[w][1]


def rollout(hands: list[list[int]], rodada: int, leader: int, plays: list[tuple[int, int]],
            results: list[int | None]) -> int | None:
    """Play the confronto out greedily: the winning side, or None for three ties. ``hands`` (each
    sorted low to high) are changed; ``plays``: this rodada so far, in order from ``leader``."""
    n = len(hands)
    plays = list(plays)
    results = list(results)
    while True:
        while len(plays) < n:
            s = (leader + len(plays)) % n
            h = hands[s]
            plays.append((s, h.pop(greedy(s, h, plays, results))))
        w, seat = end_rodada(plays)
        results.append(w)
        done, side = decided(results)
        if done:
            return side
        if w is not None:
            leader = seat
        rodada += 1
        plays = []


@lru_cache(maxsize=None)
def game_equity(mine: int, theirs: int) -> float:
    """The chance to win the game from ``mine`` to ``theirs`` points (see the module's note)."""
    if mine >= TARGET:
        return 1.0
    if theirs >= TARGET:
        return 0.0
    if mine == FIM and theirs == FIM:
        return 0.5                                           # Guerra Fria: blind luck
    if mine == FIM:
        accept = 0.5 + 0.5 * game_equity(FIM, theirs + 2)
        return max(accept, game_equity(FIM, theirs + 1))
    if theirs == FIM:
        return 1.0 - game_equity(theirs, mine)
    return 0.5 * game_equity(mine + 1, theirs) + 0.5 * game_equity(mine, theirs + 1)


def stake_equity(p: float, mine: int, theirs: int, value: int) -> float:
    """Game equity of playing the confronto out for ``value`` with chance ``p`` to win it."""
    return p * game_equity(mine + value, theirs) + (1 - p) * game_equity(mine, theirs + value)
