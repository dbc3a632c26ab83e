"""Typed, validated rule options. Each option has a default and a sentence for players."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping

from .errors import OptionError
from .say import say, to_translate

OFF_WORDS = ("off", "none", "no", "0")


@dataclass(frozen=True)
class Option:
    name: str
    default: Any
    help: str                       # one sentence for the rule sheet
    choices: tuple[str, ...] = ()   # for a choice option
    kind: str = "choice"            # choice | int | bool
    minimum: int = 1                # for int options
    can_be_off: bool = False        # an int option that may be turned off (None)
    choice_help: Mapping[str, str] | None = None
    label: str = ""                 # what a player reads: a few words, no key names (a test checks every one)
    choice_labels: Mapping[str, str] | None = None   # what a player reads for each choice

    def parse(self, raw: Any) -> Any:
        if self.kind == "choice":
            value = str(raw).strip().lower()
            if value not in self.choices:
                raise OptionError(say("Rule option {name} must be one of {choices} (got {raw}).", name=self.name,
                                      choices=", ".join(self.choices), raw=repr(raw)))
            return value
        if self.kind == "bool":
            value = str(raw).strip().lower()
            if value in ("on", "yes", "true", "1"):
                return True
            if value in ("off", "no", "false", "0"):
                return False
            raise OptionError(say("Rule option {name} must be on or off (got {raw}).", name=self.name, raw=repr(raw)))
        if self.kind == "int":
            if raw is None or (self.can_be_off and str(raw).strip().lower() in OFF_WORDS):
                if self.can_be_off:
                    return None
            try:
                if isinstance(raw, bool):
                    raise ValueError
                value = int(str(raw).strip())
            except ValueError:
                raise OptionError(say("Rule option {name} must be a whole number or off (got {raw}).", name=self.name,
                                      raw=repr(raw)) if self.can_be_off else
                                  say("Rule option {name} must be a whole number (got {raw}).", name=self.name,
                                      raw=repr(raw))) from None
            if value < self.minimum:
                raise OptionError(say("Rule option {name} must be at least {minimum} (got {value}).", name=self.name,
                                      minimum=self.minimum, value=value))
            return value
        raise AssertionError(f"unknown option kind {self.kind}")

    def shown(self, value: Any) -> str:
        """A value as a player reads it: a choice's label, on, off or the number."""
        if value is None or value is False:
            return to_translate("off")
        if value is True:
            return to_translate("on")
        return (self.choice_labels or {}).get(value, str(value))

    def parts(self, value: Any) -> dict[str, Any]:
        """The option in force in its parts, each a sentence marked for the translators: its label, the
        value's label, what that choice means (None for none) and what the option is for."""
        choice = self.choice_help.get(value) if self.choice_help and value in self.choice_help else None
        return {"label": self.label or self.name, "value": self.shown(value), "choice": choice, "help": self.help}

    def describe(self, value: Any, words: Callable[[str], str] = str) -> str:
        """The option in force, for a player: its label, the value's label and what it means;
        ``words`` says each of them in the reader's language (English as it is)."""
        p = self.parts(value)
        extra = f" ({words(p['choice'])})" if p["choice"] is not None else ""
        return f"{words(p['label'])}: {words(p['value'])}{extra}. {words(p['help'])}"

    def setting(self, value: Any) -> str:
        """The option in force as typed on the command line (``--option KEY=VALUE``)."""
        return f"{self.name}={'off' if value is None or value is False else 'on' if value is True else value}"


def timed_tie_option(help: str = to_translate("What happens when players tie for the most cards at the end of a "
                                              "timed game."),
                     sudden_death: str = to_translate("the tied players play one more battle")) -> Option:
    """``timed_tie``: whether players tied at the end of a timed or capped game share the win."""
    return Option("timed_tie", "shared", help, choices=("shared", "sudden_death"),
                  choice_help={"shared": to_translate("the tied players share the win"), "sudden_death": sudden_death},
                  label=to_translate("A tie when time is up"),
                  choice_labels={"shared": to_translate("Shared win"), "sudden_death": to_translate("Sudden death")})


def max_battles_option(help: str = to_translate("End the game after this many battles (a war belongs to the battle "
                                                "that started it) and score it like a timed game."),
                       label: str = to_translate("End after this many battles")) -> Option:
    """``max_battles``: a cap on the battles (off by default)."""
    return Option("max_battles", None, help, kind="int", can_be_off=True, label=label)


def resolve_options(spec: Iterable[Option], given: Mapping[str, Any] | None, game_name: str) -> dict[str, Any]:
    """Defaults overridden by ``given``; unknown names and bad values raise OptionError."""
    spec = {o.name: o for o in spec}
    values = {name: o.default for name, o in spec.items()}
    for name, raw in (given or {}).items():
        key = str(name).strip().lower()
        if key not in spec:
            raise OptionError(say("{game} has no rule option {name}; its options are {known}.", game=say(game_name),
                                  name=repr(name), known=", ".join(spec)) if spec else
                              say("{game} has no rule option {name}; its options are none.", game=say(game_name),
                                  name=repr(name)))
        values[key] = spec[key].parse(raw)
    return values


def parse_option_args(pairs: Iterable[str]) -> dict[str, str]:
    """``["timed_count=herd_only", ...]`` from the command line into a dict."""
    out: dict[str, str] = {}
    for pair in pairs:
        if "=" not in pair:
            raise OptionError(say("Write rule options as KEY=VALUE (got {pair}).", pair=repr(pair)))
        key, value = pair.split("=", 1)
        out[key.strip()] = value.strip()
    return out
