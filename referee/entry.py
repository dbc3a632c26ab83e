"""What a game lets the table enter by hand, and what each seat may enter now.

The dashboard draws its entry panel from ``panel(game, options, players)``: the card keypad (from
the deck the table plays with: its numbers, their suits or colours, its special cards) and one
action per event type the game takes (from its state's ``CHECKS``), with the fields each needs
(from the event's own fields: a card, a count, an opponent, a choice...). A new game needs no new
page: the panel is derived from its events and deck, and ``ENTRY_HINTS`` (or an ``entry_hints``
attribute on the Game) only add words and choices the rules module cannot say by itself.

``now(state, panel)`` says, for every seat and action, whether the referee would take it now and,
if not, the referee's own sentence why (each candidate event is checked with ``State.verify``,
which never changes the state), and which cards cannot be turned up now.
"""
from __future__ import annotations

import itertools
import json
from typing import Any, Mapping, Sequence

from .deck import Deck
from .events import EVENT_TYPES, _fields, parse_event
from .game import Game, State
from .say import to_translate

# the order actions are listed in; event types not named here come after them, alphabetically
ORDER = ("flip", "down", "action", "choose", "bet", "go_to_war", "surrender", "cut", "abstain", "call",
         "roll", "raise", "accept", "refuse", "recount")
NOT_ENTERED = {"flips", "time_up", "undo"}   # the camera's pair of cards, the clock, the Undo button
MAX_COMBOS = 64       # candidate events checked per seat and action (enumerable fields)
MAX_COUNT = 30        # face-down counts tried

# the panel's words are marked for the translators: the dashboard shows them in its own language
LABELS = {"flip": to_translate("Turn up"), "down": to_translate("Face down"),
          "choose": to_translate("Choose who to fight"), "bet": to_translate("Bet"),
          "surrender": to_translate("Surrender"), "go_to_war": to_translate("Go to war"),
          "raise": to_translate("Ofensiva!"), "accept": to_translate("Accept"), "refuse": to_translate("Refuse"),
          "call": to_translate("Troca"), "roll": to_translate("Roll the die"), "abstain": to_translate("Abstain"),
          "cut": to_translate("Cut"), "recount": to_translate("Recount")}
SAYS = {"flip": to_translate("turns up"), "down": to_translate("lays face down"), "choose": to_translate("chooses"),
        "bet": to_translate("bets"), "surrender": to_translate("surrenders"), "go_to_war": to_translate("goes to war"),
        "raise": to_translate("raises"), "accept": to_translate("accepts"), "refuse": to_translate("refuses"),
        "call": to_translate("shows a run"), "roll": to_translate("rolls"), "abstain": to_translate("abstains"),
        "cut": to_translate("cuts"), "recount": to_translate("recounts")}
HELP = {"down": to_translate("the cards laid face down in a war"),
        "recount": to_translate("how many cards the player really has"),
        "choose": to_translate("the player who flipped the WAR card picks an opponent")}
MORE = {"recount"}    # rarely needed: listed after the others, under "More"
OPTIONAL = {"recount": ["count"]}   # optional fields the page asks for anyway

# fields of the event types, by JSON key: how the page asks for them
FIELDS: dict[str, dict[str, Any]] = {
    "card": {"kind": "card", "label": to_translate("Card")},
    "count": {"kind": "count", "label": to_translate("How many")},
    "target": {"kind": "seat", "label": to_translate("From whom?")},
    "from": {"kind": "choice", "label": to_translate("From where?"),
             "choices": [{"value": "hand", "label": to_translate("hand")},
                         {"value": "herd", "label": to_translate("herd")}]},
    "opponent": {"kind": "seat", "label": to_translate("Who to fight?")},
    "choice": {"kind": "choice", "label": to_translate("Deal from"),
               "choices": [{"value": "up", "label": to_translate("Up: from the bottom")},
                           {"value": "down", "label": to_translate("Down: from the top")}]},
    "parity": {"kind": "choice", "label": to_translate("Call"),
               "choices": [{"value": "even", "label": to_translate("Even (par)")},
                           {"value": "odd", "label": to_translate("Odd (ímpar)")}]},
    "die": {"kind": "choice", "label": to_translate("The die shows"),
            "choices": [{"value": d, "label": str(d)} for d in range(1, 7)]},
    "cards": {"kind": "run", "label": to_translate("The run of three")},
}

# the marks a card code may end in (suits, colours), recognised from the cards' names
SUITS = {"spades": ("♠", "#111827"), "hearts": ("♥", "#b91c1c"), "diamonds": ("♦", "#b91c1c"),
         "clubs": ("♣", "#111827")}
COLOURS = {"red": "#dc2626", "orange": "#ea580c", "yellow": "#eab308", "green": "#16a34a", "blue": "#2563eb",
           "purple": "#9333ea", "black": "#111827", "white": "#f8fafc", "pink": "#db2777"}

ENTRY_HINTS: dict[str, dict[str, Any]] = {
    "classic": {},
    "woolly": {
        # Steal says whom it robs and where from; Reveal needs nothing more
        "action_fields": {"STEAL": ["target", "from"]},
        "labels": {"flip": to_translate("Flip")},
    },
    "namikopy": {"labels": {"flip": to_translate("Flip")}},
    "casino": {
        "unit": to_translate("chips"),
        "extra_seats": [to_translate("Dealer")],        # the house's seat: it is dealt cards and burns
        "extra_actions": ["flip", "down"],
        "players_skip": ["down"],                       # only the dealer burns
        "labels": {"flip": to_translate("Dealt"), "down": to_translate("Burn")},
        "optional_fields": {"bet": ["tie"]},
        "numbers": {"amount": {"label": to_translate("Bet"), "min": "min_bet", "max": "max_bet", "default": "min_bet",
                               "steps": [1, 5, 10, 25]},
                    "tie": {"label": to_translate("Tie bet (pays 10 to 1)"), "min": 0, "max": "max_bet",
                            "default": 0,
                            "steps": [1, 5], "when": "tie_bet"}},
    },
    "guerra": {
        "unit": to_translate("in hand"),
        "labels": {"flip": to_translate("Play"), "raise": to_translate("Ofensiva!")},
        "specials": [{"code": "BACK", "label": to_translate("Face down"),
                      "sub": to_translate("encoberta, worth 0")}],
        "key_labels": {"A": ("1", to_translate("ace")), "J": ("11", to_translate("jack")),
                       "Q": ("12", to_translate("queen"))},
        "help": {"raise": to_translate("propose to raise the confronto by 1 (answering one: raise again)"),
                 "call": to_translate("troca por sequência: show a run of three and call even or odd"),
                 "abstain": to_translate("the first to receive cards swaps the hand, unseen"),
                 "cut": to_translate("the cutter chooses up or down")},
    },
}


def hints_for(game: Game) -> dict[str, Any]:
    return getattr(game, "entry_hints", None) or ENTRY_HINTS.get(game.id, {})


def deck_of(state: State, game: Game) -> Deck:
    """The deck this table plays with (Namikopy's and Guerra's depend on the options and players;
    Casino War's is the shoe)."""
    return getattr(state, "deck", None) or getattr(state, "shoe", None) or game.deck


# ----------------------------------------------------------------------------------- the panel
def keypad(deck: Deck, hints: Mapping[str, Any]) -> dict[str, Any]:
    """The card keys: numbers (the ``also`` groups, or the cards without one), the marks that
    complete a number into one exact card (suits, colours: optional), and the special cards."""
    groups: dict[str, list] = {}
    keys: list[dict[str, Any]] = []
    specials: list[dict[str, Any]] = []
    for c in deck.cards:
        if c.kind == "action":
            continue
        if c.also:
            if c.also not in groups:
                groups[c.also] = []
                keys.append({"code": c.also, "value": c.value})
            groups[c.also].append(c)
        elif c.kind == "number":
            keys.append({"code": c.code, "value": c.value})
        else:
            specials.append({"code": c.code, "label": c.name, "kind": c.kind})
    labels = hints.get("key_labels", {})
    for k in keys:
        label, sub = labels.get(k["code"], (k["code"], None))
        k["label"] = label
        if sub:
            k["sub"] = sub
    keys.sort(key=lambda k: (k["value"] is None, k["value"] or 0))
    marks: list[dict[str, Any]] = []
    seen: set[str] = set()
    for also, members in groups.items():
        for c in members:
            mark = c.code[len(also):] if c.code.startswith(also) else ""
            if not mark or mark in seen:
                continue
            seen.add(mark)
            marks.append(_mark(mark, c.name, also))
    specials += [dict(s) for s in hints.get("specials", [])]
    kind = "suit" if marks and all(m.get("symbol") for m in marks) else \
        "colour" if marks and all(m.get("colour") for m in marks) else "mark"
    return {"keys": [{k: v for k, v in key.items() if k != "value"} for key in keys],
            "marks": marks, "mark_kind": kind, "specials": specials, "hint": deck.hint,
            "codes": sorted(c.code for c in deck.cards if c.kind != "action")}


def _mark(mark: str, name: str, number: str) -> dict[str, Any]:
    """A suit or colour letter, named from a card's name ('red 1', '2 of clubs')."""
    words = [w for w in name.lower().replace(" of ", " ").split() if w != number.lower()]
    word = next((w for w in words if w in SUITS or w in COLOURS), words[0] if words else mark)
    out: dict[str, Any] = {"code": mark, "name": word}
    if word in SUITS:
        out["symbol"], out["ink"] = SUITS[word]
    elif word in COLOURS:
        out["colour"] = COLOURS[word]
    return out


def _runs(deck: Deck) -> list[dict[str, Any]]:
    """Every run of three values in a row, as the codes of their numbers ('A 2 3')."""
    by_value: dict[int, str] = {}
    for c in deck.cards:
        if c.kind == "number" and c.value is not None:
            by_value.setdefault(c.value, c.also or c.code)
    out = []
    for v in sorted(by_value):
        if v + 1 in by_value and v + 2 in by_value:
            out.append({"value": f"{by_value[v]} {by_value[v + 1]} {by_value[v + 2]}",
                        "label": f"{v}-{v + 1}-{v + 2}"})
    return out


def _option_value(spec: Any, options: Mapping[str, Any]) -> Any:
    return options.get(spec) if isinstance(spec, str) else spec


def _fields_for(cls: type, hints: Mapping[str, Any], options: Mapping[str, Any], deck: Deck,
                extra: Sequence[str] = ()) -> list[dict[str, Any]]:
    """The fields the page asks for: the event's required ones (the seat aside) and the optional
    ones the hints name."""
    kind = cls.TYPE
    wanted = set(extra) | set(OPTIONAL.get(kind, ())) | set(hints.get("optional_fields", {}).get(kind, ()))
    numbers = hints.get("numbers", {})
    out = []
    for name, key, required, annotation in _fields(cls):
        if key == "seat" or not (required or key in wanted):
            continue
        spec = numbers.get(key)
        if spec is not None:
            if spec.get("when") and not options.get(spec["when"]):
                continue
            field = {"name": key, "kind": "number", "label": spec.get("label", key),
                     "min": _option_value(spec.get("min", 0), options),
                     "max": _option_value(spec.get("max"), options),
                     "default": _option_value(spec.get("default", 0), options),
                     "steps": list(spec.get("steps", [1])), "optional": not required}
        elif kind == "recount" and key == "count":
            field = {"name": key, "kind": "number", "label": to_translate("Cards they really have"), "min": 0,
                     "default": "count", "steps": [1, 5], "optional": False}
        elif key in FIELDS:
            field = {"name": key, **FIELDS[key]}
            if field["kind"] == "run":
                field["choices"] = _runs(deck)
        elif annotation.startswith("int"):
            field = {"name": key, "kind": "number", "label": key.replace("_", " "), "min": 0, "default": 0,
                     "steps": [1], "optional": not required}
        else:
            field = {"name": key, "kind": "text", "label": key.replace("_", " "), "optional": not required}
        out.append(field)
    return out


def panel(game: Game, options: Mapping[str, Any] | None = None,
          players: Sequence[str] | None = None, state: State | None = None) -> dict[str, Any]:
    """The entry panel of a game under these options: its card keypad and its actions."""
    options = dict(options) if options is not None else game.resolve_options(None)
    if state is None:
        names = list(players) if players else \
            [f"Player {i + 1}" for i in range(max(game.min_players, min(2, game.max_players)))]
        state = game._new_state(names, options)
    hints = hints_for(game)
    deck = deck_of(state, game)
    labels = {**LABELS, **hints.get("labels", {})}
    helps = {**HELP, **hints.get("help", {})}
    types = sorted({cls.TYPE for cls in getattr(state, "CHECKS", {})} - NOT_ENTERED,
                   key=lambda t: (ORDER.index(t) if t in ORDER else len(ORDER), t))
    extra_seats = list(hints.get("extra_seats", []))
    actions: list[dict[str, Any]] = []
    for t in types:
        cls = EVENT_TYPES[t]
        who = "both" if t in hints.get("extra_actions", ()) else "players"
        if t in hints.get("players_skip", ()):
            who = "extra"
        if t == "action":     # one action per action card of the deck (Steal, Reveal)
            for c in deck.cards:
                if c.kind != "action":
                    continue
                fields = [{"name": "card", "kind": "fixed", "value": c.code}] + [
                    f for f in _fields_for(cls, hints, options, deck, hints.get("action_fields", {}).get(c.code, ()))
                    if f["name"] != "card"]
                actions.append({"id": c.code.lower(), "type": t, "label": c.name, "says": f"plays {c.name}",
                                "fields": fields, "who": who})
            continue
        action = {"id": t, "type": t, "label": labels.get(t, t.replace("_", " ").capitalize()),
                  "says": SAYS.get(t, t.replace("_", " ")), "fields": _fields_for(cls, hints, options, deck),
                  "who": who}
        if t in helps:
            action["help"] = helps[t]
        if t in MORE:
            action["more"] = True
        actions.append(action)
    return {"game": game.id, "deck": deck.id, "unit": hints.get("unit", "cards"),
            "extra_seats": extra_seats, "middle": hasattr(state, "middle"),
            "cards": keypad(deck, hints), "actions": actions}


# ----------------------------------------------------------------------------------- now
def _check(state: State, event: dict[str, Any]) -> str | None:
    """None if the referee would take the event now, else its sentence why not."""
    try:
        state.verify(parse_event(event))
    except Exception as err:    # IllegalEvent (and BadEvent); anything else is a refusal too
        return getattr(err, "message", None) or str(err) or "Not now."
    return None


def _candidates(field: Mapping[str, Any], seat: str, seats: Sequence[str], state: State,
                deck_codes: Sequence[str]) -> list[Any]:
    kind = field["kind"]
    if kind == "fixed":
        return [field["value"]]
    if kind == "seat":
        return [s for s in seats if s != seat]
    if kind in ("choice", "run"):
        return [c["value"] for c in field.get("choices", [])]
    if kind == "count":
        return list(range(1, MAX_COUNT + 1))
    if kind == "card":
        return list(deck_codes)
    if kind == "number":
        default = field.get("default", 0)
        if default == "count":
            default = state.counts().get(seat, 0)
        return [None if field.get("optional") and not default else default]
    return [None if field.get("optional") else ""]


def now(state: State, entry: Mapping[str, Any], players: Sequence[str],
        waiting: Sequence[str] = ()) -> dict[str, Any]:
    """For every seat (whose turn it is first): each action the referee would take now (None) or
    why not; for actions with choices, every choice tried and why not (None: taken), keyed by the
    JSON list of the action's field values; and the cards that can't be turned up now (by the first
    seat that may turn one up), with why."""
    extra = list(entry.get("extra_seats", []))
    seats = list(players) + extra
    lower = {s.lower(): s for s in seats}
    turn = [lower[w.lower()] for w in waiting if isinstance(w, str) and w.lower() in lower]
    order = turn + [s for s in seats if s not in turn]
    cards = entry["cards"]
    probe_codes = [k["code"] for k in cards["keys"]] + [s["code"] for s in cards["specials"]]
    can: dict[str, dict[str, str | None]] = {}
    combos: dict[str, dict[str, dict[str, str | None]]] = {}
    flipper = None
    for seat in seats:
        mine: dict[str, str | None] = {}
        for a in entry["actions"]:
            who = a.get("who", "players")
            if (seat in extra and who == "players") or (seat not in extra and who == "extra"):
                continue
            ok, why, tried = _probe(state, a, seat, list(players), probe_codes)
            mine[a["id"]] = None if ok else why
            if ok and len(tried) > 1 and any(f["kind"] not in ("card", "number", "fixed", "text") for f in a["fields"]):
                combos.setdefault(seat, {})[a["id"]] = tried
            if ok and a["type"] == "flip" and flipper is None:
                flipper = seat
        can[seat] = mine
    barred: dict[str, str] = {}
    if flipper is not None:
        for code in probe_codes + [c for c in cards["codes"] if c not in probe_codes]:
            why = _check(state, {"type": "flip", "seat": flipper, "card": code})
            if why is not None:
                barred[code] = why
    return {"order": order, "turn": turn, "can": can, "combos": combos, "cards": barred}


def _probe(state: State, action: Mapping[str, Any], seat: str, players: list[str],
           deck_codes: Sequence[str]) -> tuple[bool, str | None, dict[str, str | None]]:
    """Whether some candidate event of this action is taken now; the first refusal's sentence;
    and, for actions with choices, every choice tried (a JSON list of the fields' values) and why not."""
    fields = action["fields"]
    pools = [_candidates(f, seat, players, state, deck_codes) for f in fields]
    tried: dict[str, str | None] = {}
    first_why = None
    ok = False
    enumerable = all(f["kind"] not in ("card",) for f in fields)
    for n, values in enumerate(itertools.product(*pools)):
        if n >= MAX_COMBOS:
            break
        event: dict[str, Any] = {"type": action["type"], "seat": seat}
        for f, v in zip(fields, values):
            if v is not None:
                event[f["name"]] = v
        why = _check(state, event)
        if why is None:
            ok = True
        elif first_why is None:
            first_why = why
        if fields and enumerable:
            tried[json.dumps(list(values))] = why
        if why is not None and any(f["kind"] == "count" for f in fields):
            break          # counts are tried upwards: past the largest one the referee takes
        if not enumerable and ok:
            break          # a card field: one card it takes is enough
    return ok, first_why, tried
