"""Errors the referee raises. Every message is one plain sentence a player can read."""


class IllegalEvent(Exception):
    """An event the referee refuses. The state is left exactly as it was."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class BadEvent(IllegalEvent):
    """An event that is malformed (missing field, wrong type, unknown type)."""


class UnknownCard(IllegalEvent):
    """A card code that is not in the deck being played."""


class OptionError(ValueError):
    """An unknown rule option or a bad value for one."""


class SetupError(ValueError):
    """A table that cannot be set up (wrong number of players, duplicate names...)."""
