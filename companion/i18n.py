"""The language every view and message is shown in (gettext, standard layout).

The catalogs live in ``companion/locale/<lang>/LC_MESSAGES/battleline.po``,
compiled beside themselves to ``battleline.mo`` and shipped in the package.
They are made with Babel (a dev dependency): ``make catalogs`` extracts every
``_``, ``N_``, ``ngettext`` and ``NP_`` string of the companion, the
hardware and vision (and argparse's own words, from the standard library's argparse.py)
into ``battleline.pot``, updates each language's .po and compiles them. At run time only
the standard library's gettext reads them.

``_`` and ``ngettext`` translate now; ``N_`` and ``NP_`` only mark a string
(or a singular/plural pair) where it is written, to be translated where it is
shown. Templates use named ``{parameters}`` so a translation may reorder them.
The rules library, which imports none of this, marks its errors' templates with its
own ``N_`` (``companion/rules/errors.py``); ``companion.messages.describe`` shows them.
"""

from __future__ import annotations

import argparse
import gettext
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Final, NamedTuple, NoReturn

DOMAIN: Final = "battleline"
LOCALE_DIR: Final = Path(__file__).parent / "locale"
# Each language in its own words, as the settings offer it.
LANGUAGES: Final[dict[str, str]] = {
    "en": "English", "hu": "Magyar", "cs": "Čeština", "es": "Español", "nl": "Nederlands",
    "ru": "Русский",
}
EDITIONS: Final = ("gmt", "medieval")

_translation: gettext.NullTranslations = gettext.NullTranslations()
_language = "en"


class Plural(NamedTuple):
    """A singular and a plural template, chosen by a count where shown."""

    singular: str
    plural: str


def system_language(environ: os._Environ[str] | dict[str, str] | None = None) -> str:
    """The first of the system's languages (gettext's own order of variables) that has a
    catalog, else English: ``LANGUAGE=hu:en`` or ``LANG=cs_CZ.UTF-8``."""
    env = os.environ if environ is None else environ
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(name, "")
        if not value:
            continue
        for item in value.split(":"):
            code = item.split(".")[0].split("@")[0].split("_")[0].lower()
            if code in LANGUAGES:
                return code
        if name != "LANGUAGE":
            break  # the first locale variable set decides, as gettext does
    return "en"


def resolve(language: str) -> str:
    """A setting's language (``auto``: the system's) as a catalog's code."""
    if language == "auto":
        return system_language()
    if language not in LANGUAGES:
        raise ValueError(f"language must be auto or one of {', '.join(LANGUAGES)}, "
                         f"not {language!r}")
    return language


def set_language(language: str = "en") -> str:
    """Show everything in ``language`` (``auto``: the system's); returns the code used.
    A language without a compiled catalog shows the English source strings."""
    global _translation, _language
    _language = resolve(language)
    _translation = gettext.translation(DOMAIN, LOCALE_DIR, [_language], fallback=True)
    return _language


def language() -> str:
    return _language


def translation() -> gettext.NullTranslations:
    return _translation


def _(message: str) -> str:
    return _translation.gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    return _translation.ngettext(singular, plural, n)


def N_(message: str) -> str:
    """Marks a string for the catalog where it is defined; ``_`` translates it where shown."""
    return message


def NP_(singular: str, plural: str) -> Plural:
    """Marks a singular/plural pair for the catalog; ``ngettext`` picks the form where shown."""
    return Plural(singular, plural)


class ArgumentParser(argparse.ArgumentParser):
    """argparse speaking the language set when it runs: its own words (usage, options,
    help, and complaints such as "the following arguments are required") come from our
    catalog, which holds argparse's msgids (``make catalogs`` extracts them from the
    standard library with Babel). argparse looks its words up through the module globals
    ``_`` and ``ngettext`` it imported from gettext (the process-wide default domain,
    whose language follows the environment, not ``set_language``); while this parser
    parses, formats help or reports an error, those two names are ours (3.11 to 3.13
    look them up at call time). Other parsers in the process are left as they are."""

    def __init__(self, **kwargs: Any) -> None:
        with _argparse_speaks_ours():  # names the help's headings and -h as it is made
            super().__init__(**kwargs)

    def parse_args(self, args: Any = None, namespace: Any = None) -> Any:
        with _argparse_speaks_ours():  # says "unrecognized arguments" itself
            return super().parse_args(args, namespace)

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        with _argparse_speaks_ours():
            return super().parse_known_args(args, namespace)

    def format_usage(self) -> str:
        with _argparse_speaks_ours():
            return super().format_usage()

    def format_help(self) -> str:
        with _argparse_speaks_ours():
            return super().format_help()

    def error(self, message: str) -> NoReturn:
        with _argparse_speaks_ours():
            super().error(message)


@contextmanager
def _argparse_speaks_ours() -> Iterator[None]:
    saved = argparse.__dict__.get("_"), argparse.__dict__.get("ngettext")
    argparse._ = _  # type: ignore[attr-defined]
    argparse.ngettext = ngettext  # type: ignore[attr-defined]
    try:
        yield
    finally:
        argparse._, argparse.ngettext = saved  # type: ignore[attr-defined]
