"""The bundled font draws every character of every catalog: no tofu boxes on a bare Pi."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pygame
import pygame.freetype
from babel.messages.pofile import read_po

from companion import i18n
from companion.ui import theme

ROOT = Path(i18n.__file__).parents[1]


def _missing(font: pygame.freetype.Font, text: str) -> set[str]:
    chars = sorted(set(text) - {"\n"})
    return {c for c, metrics in zip(chars, font.get_metrics("".join(chars)), strict=True)
            if metrics is None}


def test_every_translated_string_has_every_glyph_in_the_bundled_font() -> None:
    pygame.freetype.init()
    font = pygame.freetype.Font(str(theme.FONT), 20)
    assert _missing(font, "\ue000") == {"\ue000"}  # a character the font lacks is seen
    missing: dict[str, set[str]] = {}
    for language in i18n.LANGUAGES:
        po = i18n.LOCALE_DIR / language / "LC_MESSAGES" / f"{i18n.DOMAIN}.po"
        with po.open("rb") as f:
            catalog = read_po(f)
        text = "".join(m.string if isinstance(m.string, str) else "".join(m.string)
                       for m in catalog if m.id)
        text += "".join(m.id if isinstance(m.id, str) else "".join(m.id) for m in catalog)
        found = _missing(font, text + "".join(i18n.LANGUAGES.values()))
        if found:
            missing[language] = found
    assert not missing


def test_the_screens_draw_with_the_bundled_font_and_ship_it_with_its_licence() -> None:
    pygame.font.init()
    word = "Őrtorony Линия"
    bundled = pygame.font.Font(theme.FONT, round(24 * theme.FONT_SCALE))
    assert theme.font(24).size(word) == bundled.size(word) != pygame.font.Font(None, 24).size(word)
    assert theme.FONT.is_file() and (theme.FONT.parent / "LICENSE").is_file()
    assert "Bitstream Vera" in (theme.FONT.parent / "LICENSE").read_text()
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    globs = project["tool"]["setuptools"]["package-data"]["companion"]
    shipped = {p for pattern in globs for p in (ROOT / "companion").glob(pattern)}
    assert theme.FONT in shipped and theme.FONT.parent / "LICENSE" in shipped
