"""Errors the vision package reports with a sentence a person can act on."""


class VisionError(Exception):
    """Base class: the message says what went wrong and what to do."""


class ModelMissing(VisionError):
    """A model file the pipeline needs is not there."""


class BadImage(VisionError):
    """An image file that cannot be read (missing, empty, corrupt or not an image)."""
