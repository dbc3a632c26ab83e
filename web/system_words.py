"""The system's and the JSON parser's own words inside warref's sentences, in the language asked for where
warref knows them (web/i18n.py's ``OS_WORDS``, by errno, and ``JSON_WORDS``): the command line's messages (a file
that cannot be read, a damaged log) and the server's (a request body or a room message that is not JSON) say them
with say(), so that another language says them too; English exactly as the error says it."""
from __future__ import annotations

import json

from referee.say import say, sentence_of

from .i18n import JSON_WORDS, OS_WORDS


def os_words(err: OSError) -> str:
    """What the system says of an error (its strerror: "Permission denied"), said with say() where it says it in
    the words web/i18n.py's OS_WORDS knows for its errno, so that another language says them; else as it says it."""
    text = err.strerror or str(err)
    return say(text) if OS_WORDS.get(err.errno) == text else text


def json_words(text: str) -> str:
    """The JSON parser's words for what it expected ("Expecting value"), said with say() where web/i18n.py's
    JSON_WORDS knows them; else as it says them."""
    return say(text) if text in JSON_WORDS else text


def system_words(err: BaseException) -> str:
    """What an error of the system or of the JSON parser says, exactly as ``str(err)`` in English, made with say()
    where :func:`os_words` and :func:`json_words` know its words: "Expecting value: line 1 column 1 (char 0)",
    "[Errno 13] Permission denied: 'x'"; anything else as ``str(err)``."""
    text = str(err)
    if isinstance(err, json.JSONDecodeError):
        said = say("{why}: line {line} column {column} (char {char})", why=json_words(err.msg), line=err.lineno,
                   column=err.colno, char=err.pos)
    elif isinstance(err, OSError) and err.errno is not None and err.strerror:
        if err.filename is None:
            said = say("[Errno {errno}] {why}", errno=err.errno, why=os_words(err))
        elif err.filename2 is None:
            said = say("[Errno {errno}] {why}: {file}", errno=err.errno, why=os_words(err), file=repr(err.filename))
        else:
            said = say("[Errno {errno}] {why}: {file} -> {other}", errno=err.errno, why=os_words(err),
                       file=repr(err.filename), other=repr(err.filename2))
    else:
        return text
    return said if said == text else text          # English as the error says it, always


def why(err: BaseException) -> str:
    """What an error says: the system's or the JSON parser's words as :func:`system_words` says them, else its
    sentence as raised (``referee.say.sentence_of``: a say() sentence keeps its message)."""
    if isinstance(err, json.JSONDecodeError) or (isinstance(err, OSError) and err.errno is not None):
        return system_words(err)
    return sentence_of(err)


__all__ = ["json_words", "os_words", "system_words", "why"]
