"""The translation catalogs: complete, current, placeholders intact, compiled and shipped.

The strings are extracted afresh with Babel, as ``make catalogs`` does, and
every language's .po must hold exactly those (none missing, none stale), each
translated, each translation with the same ``{placeholders}`` as its source;
the shipped .mo must be the .po compiled.
"""

from __future__ import annotations

import argparse
import copy
import io
import shutil
import string
import sys
import tomllib
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog, Message
from babel.messages.frontend import CommandLineInterface
from babel.messages.mofile import read_mo, write_mo
from babel.messages.pofile import read_po

from companion import i18n

ROOT = Path(i18n.__file__).parents[1]


# argparse's words are extracted from this Python's argparse.py, as 'make catalogs' does
# (copied to build/python3.N/); a catalog made on another Python is checked without them.
PYTHON = "python{}.{}".format(*sys.version_info[:2])


def _argparse_only(message: Message) -> bool:
    return bool(message.locations) and all(
        "/argparse.py" in path for path, _line in message.locations)


@pytest.fixture(scope="module")
def extracted(tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    tmp = tmp_path_factory.mktemp("pot")
    (tmp / PYTHON).mkdir()
    shutil.copy(argparse.__file__, tmp / PYTHON / "argparse.py")
    pot = tmp / "battleline.pot"
    CommandLineInterface().run([
        "pybabel", "-q", "extract", "-F", str(ROOT / "pyproject.toml"), "-o", str(pot),
        str(ROOT / "companion"), str(ROOT / "hardware"), str(ROOT / "vision"),
        str(tmp / PYTHON)])
    with pot.open("rb") as f:
        return read_po(f)


def _without_argparse(catalog: Catalog) -> Catalog:
    for message in [m for m in catalog if m.id and _argparse_only(m)]:
        catalog.delete(message.id)
    return catalog


def _read(language: str, extracted: Catalog) -> tuple[Catalog, Catalog]:
    """A language's catalog and the strings it must hold; a catalog made on another Python
    (its argparse.py under another build/python3.N) is checked without argparse's."""
    with _po(language).open("rb") as f:
        catalog = read_po(f)
    made_on = {path.split("/")[-2] for m in catalog if _argparse_only(m)
               for path, _line in m.locations}
    if made_on and made_on != {PYTHON}:
        return _without_argparse(catalog), _without_argparse(copy.deepcopy(extracted))
    return catalog, extracted


def _po(language: str) -> Path:
    return i18n.LOCALE_DIR / language / "LC_MESSAGES" / f"{i18n.DOMAIN}.po"


def _fields(text: str) -> set[str]:
    return {name for _lit, name, _spec, _conv in string.Formatter().parse(text)
            if name is not None}


def _key(message_id: str | tuple[str, ...]) -> str:
    return message_id if isinstance(message_id, str) else message_id[0]


def problems(catalog: Catalog, source: Catalog) -> list[str]:
    """What is wrong with ``catalog`` against the strings the code marks (``source``).
    English is the source language: an empty English string shows the source itself."""
    wanted = {_key(m.id) for m in source if m.id}
    have = {_key(m.id): m for m in catalog if m.id}
    out = [f"missing: {k!r}" for k in sorted(wanted - set(have))]
    out += [f"stale: {k!r}" for k in sorted(set(have) - wanted)]
    for key, message in have.items():
        if key not in wanted:
            continue
        forms = [message.string] if isinstance(message.string, str) else list(message.string)
        if message.fuzzy or not all(forms):
            if message.fuzzy or str(catalog.locale) != "en" or any(forms):
                out.append(f"untranslated: {key!r}")
            continue
        ids = [message.id] if isinstance(message.id, str) else list(message.id)
        expected = _fields(ids[-1])  # a plural's count stands in its plural template
        for form in forms:
            if _fields(form) != expected:
                out.append(f"placeholders {sorted(_fields(form))} instead of "
                           f"{sorted(expected)}: {key!r} -> {form!r}")
        if isinstance(message.string, tuple) and len(forms) != catalog.num_plurals:
            out.append(f"{len(forms)} plural forms, not {catalog.num_plurals}: {key!r}")
    return out


@pytest.mark.parametrize("language", list(i18n.LANGUAGES))
def test_each_catalog_holds_every_string_translated_with_its_placeholders(
        language: str, extracted: Catalog) -> None:
    catalog, wanted = _read(language, extracted)
    assert catalog.locale is not None and str(catalog.locale) == language
    found = problems(catalog, wanted)
    assert not found, f"{_po(language).name} ({language}), run 'make catalogs':\n" + \
        "\n".join(found[:40])


def _compiled(catalog: Catalog) -> dict[object, object]:
    """What gettext reads from a .mo: each message and the headers, bar the Babel version."""
    out: dict[object, object] = {
        m.id if isinstance(m.id, str) else tuple(m.id):
        m.string if isinstance(m.string, str) else tuple(m.string)
        for m in catalog if m.id and m.string}
    out["headers"] = [h for h in catalog.mime_headers if h[0] != "Generated-By"]
    return out


@pytest.mark.parametrize("language", list(i18n.LANGUAGES))
def test_the_shipped_mo_is_the_po_compiled(language: str) -> None:
    with _po(language).open("rb") as f:
        catalog = read_po(f)
    compiled = io.BytesIO()
    write_mo(compiled, catalog)
    compiled.seek(0)
    with _po(language).with_suffix(".mo").open("rb") as f:
        shipped = read_mo(f)
    # Compared by content: write_mo stamps the running Babel's version in the header.
    assert _compiled(shipped) == _compiled(read_mo(compiled)), \
        f"{language}: run 'make catalogs' to compile the .po"


def test_the_check_finds_a_missing_a_stale_and_a_broken_string(extracted: Catalog) -> None:
    with _po("nl").open("rb") as f:
        catalog = read_po(f)
    assert not problems(catalog, extracted)
    catalog.delete("Refused")
    catalog.add("An old string", "Een oude zin")
    catalog["Flag {n}"].string = "Vlag"  # a placeholder dropped
    catalog["Claimed by {name}"].string = "Geclaimd door {name} om {time}"  # one added
    catalog["{n} card to go"].string = ("nog {n} kaart", "")  # a plural form missing
    found = problems(catalog, extracted)
    assert "missing: 'Refused'" in found and "stale: 'An old string'" in found
    assert any("'Flag {n}'" in p and "placeholders" in p for p in found)
    assert any("'Claimed by {name}'" in p and "placeholders" in p for p in found)
    assert "untranslated: '{n} card to go'" in found


def test_the_package_ships_every_catalog() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    globs = project["tool"]["setuptools"]["package-data"]["companion"]
    shipped = {p.relative_to(i18n.LOCALE_DIR.parent).as_posix()
               for pattern in globs for p in i18n.LOCALE_DIR.parent.glob(pattern)}
    for language in i18n.LANGUAGES:
        for suffix in (".po", ".mo"):
            assert f"locale/{language}/LC_MESSAGES/battleline{suffix}" in shipped
