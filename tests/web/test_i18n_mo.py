"""The compiled catalog (issue 64): web/locale/pt.mo is what `make locale` compiles from pt.po (Babel's
write_mo, fuzzy and untranslated entries left out), the run time reads it with the standard library's
gettext and says exactly what pt.po says, and nothing on that path imports Babel."""
from __future__ import annotations

import gettext
import io
import subprocess
import sys
from pathlib import Path

from web.i18n import catalog, message_in, mo_bytes, plural_form, text_in, translations

ROOT = Path(__file__).resolve().parents[2]
MO = ROOT / "web" / "locale" / "pt.mo"


def said_by(data: bytes) -> tuple[dict, str]:
    """A .mo's entries as gettext reads them (its header left out: its dates and the Babel version that
    wrote it say nothing), and its Plural-Forms."""
    mo = gettext.GNUTranslations(io.BytesIO(data))
    return {k: v for k, v in mo._catalog.items() if k != ""}, mo.info().get("plural-forms", "")


def test_the_committed_mo_is_what_make_locale_compiles_from_pt_po():
    shipped, plurals = said_by(MO.read_bytes())
    assert (shipped, plurals) == said_by(mo_bytes("pt")), "web/locale/pt.mo is out of date: make locale"
    assert plurals.replace(" ", "") == "nplurals=2;plural=(n!=1);"
    assert shipped[("{n} point", 0)] == "{n} ponto" and shipped[("{n} point", 1)] == "{n} pontos"


def test_the_run_time_says_what_pt_po_says():
    """Every translated entry of pt.po, through the .mo: a sentence as it is, a plural's form for 0 to
    5 as plural_form picks it; anything else is said in English."""
    pt, mo = catalog("pt"), translations("pt")
    assert len(pt) > 300
    for msgid, found in pt.items():
        if isinstance(found, tuple):
            for n in range(6):
                assert mo.ngettext(msgid, "(plural)", n) == found[plural_form(n)], (msgid, n)
        else:
            assert mo.gettext(msgid) == found, msgid
    assert mo.gettext("A sentence nobody wrote.") == "A sentence nobody wrote."
    assert message_in({"id": "{n} apple", "plural": "{n} apples", "args": {"n": 0}}, "pt") == "0 apples"
    assert message_in({"id": "{n} point", "plural": "{n} points", "args": {"n": 0}}, "pt") == "0 pontos"
    assert message_in({"id": "{n} point", "plural": "{n} points", "args": {"n": 1}}, "pt") == "1 ponto"


def test_a_fuzzy_or_untranslated_entry_is_left_out_of_the_mo(tmp_path, monkeypatch):
    import web.i18n as i18n

    (tmp_path / "pt.po").write_text(
        'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=utf-8\\n"\n"Language: pt_PT\\n"\n'
        '"Plural-Forms: nplurals=2; plural=(n != 1);\\n"\n\n'
        'msgid "Undone: {event}."\nmsgstr "Anulado: {event}."\n\n'
        '#, fuzzy, python-brace-format\nmsgid "Nothing to undo."\nmsgstr "Talvez."\n\n'
        'msgid "Not yet."\nmsgstr ""\n\n'
        'msgid "{n} point"\nmsgid_plural "{n} points"\nmsgstr[0] "{n} ponto"\nmsgstr[1] ""\n\n'
        'msgid "{n} card"\nmsgid_plural "{n} cards"\nmsgstr[0] "{n} carta"\nmsgstr[1] "{n} cartas"\n',
        encoding="utf-8")
    monkeypatch.setattr(i18n, "LOCALE", tmp_path)
    entries, _ = said_by(mo_bytes("pt"))
    assert entries == {"Undone: {event}.": "Anulado: {event}.", ("{n} card", 0): "{n} carta",
                       ("{n} card", 1): "{n} cartas"}


def test_text_in_and_a_missing_language():
    assert text_in("Required", "en") == "Required"
    assert text_in("A label nobody wrote", "pt") == "A label nobody wrote"
    assert text_in("", "pt") == "" and message_in({"id": "", "args": {}}, "pt") == ""     # not the .mo's header
    assert isinstance(translations("en"), gettext.NullTranslations)


def test_the_run_time_does_not_import_babel():
    """`warref referee --lang pt` and the server read the .mo with the standard library: Babel is for
    make locale and the tests only (pyproject's dev extra)."""
    code = ("import sys, web.i18n as i, web.cli\n"
            "from referee.say import say_n\n"
            "assert i.say_in(say_n('{n} point', '{n} points', 2), 'pt') == '2 pontos'\n"
            "assert i.message_in({'card': 'KH'}, 'pt') == 'o rei de copas'\n"
            "i.text_in('Required', 'pt')\n"
            "assert 'babel' not in sys.modules, sorted(m for m in sys.modules if m.startswith('babel'))\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
