"""The language every view and message is shown in (gettext, standard layout).

The catalogs live in ``companion/locale/<lang>/LC_MESSAGES/battleline.po``,
compiled beside themselves to ``battleline.mo`` and shipped in the package.
They are made with Babel (a dev dependency): ``make catalogs`` extracts every
``_``, ``N_``, ``ngettext`` and ``NP_`` string of the companion, the
hardware and vision into ``battleline.pot``, updates each language's .po and compiles
them. At run time only the standard library's gettext reads them.

``_`` and ``ngettext`` translate now; ``N_`` and ``NP_`` only mark a string
(or a singular/plural pair) where it is written, to be translated where it is
shown. Templates use named ``{parameters}`` so a translation may reorder them.
"""

from __future__ import annotations

import argparse
import gettext
import os
import sys
from collections.abc import Iterable
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


class _Formatter(argparse.HelpFormatter):
    def add_usage(self, usage: str | None, actions: Iterable[argparse.Action],
                  groups: Iterable[argparse._MutuallyExclusiveGroup],
                  prefix: str | None = None) -> None:
        super().add_usage(usage, actions, groups, _("usage: ") if prefix is None else prefix)


class ArgumentParser(argparse.ArgumentParser):
    """argparse with its own words (usage, options, help, error) in the language set when
    it is made. The complaints inside an error ("the following arguments are required")
    stay English: argparse asks gettext's process-wide default domain for them, which
    follows the environment, not ``set_language``, and serving them would mean changing
    that global domain or argparse's module names."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(formatter_class=_Formatter, add_help=False, **kwargs)
        self._positionals.title = _("positional arguments")
        self._optionals.title = _("options")
        self.add_argument("-h", "--help", action="help",
                          help=_("show this help message and exit"))

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(2, _("{prog}: error: {message}").format(prog=self.prog, message=message)
                  + "\n")
