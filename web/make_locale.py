"""``make locale``: web/locale/*.po brought up to date with what the sources, the pages and the
command line's help say, then compiled into the run time's .mo files and the pages' JSON catalogs
(docs/translating.md). It sits above web.i18n and web.cli: the command line's placeholders come from
its parsers, which say their words through web.i18n.

    python -m web.make_locale
"""
from __future__ import annotations

from web.cli import placeholders
from web.i18n import LANGUAGES, ROOT, template, update, write_json, write_mo_file


def full_template():
    """The catalog template ``make locale`` merges into each .po: web.i18n's, the placeholders included."""
    return template(placeholders())


def main() -> None:
    found = placeholders()
    for lang in LANGUAGES:
        if lang != "en":
            left = update(lang, found)
            print(f"web/locale/{lang}.po: up to date with the sources; {len(left)} to translate"
                  + "".join(f"\n  {m!r}" for m in left[:20]))
            print(f"{write_mo_file(lang).relative_to(ROOT)}: compiled from web/locale/{lang}.po")
            print(f"{write_json(lang).relative_to(ROOT)}: written from web/locale/{lang}.po")


if __name__ == "__main__":
    main()
