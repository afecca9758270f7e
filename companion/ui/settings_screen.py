"""The settings screen and the on-screen keyboard for a player's name.

Each row shows a setting and its value; a tap moves to the next value. The
language and the edition's names apply at once (``PygameView.act``), as do
auto-claim, hints, colours and the lights board; every change is saved.
"""

from __future__ import annotations

import pygame

from companion import i18n
from companion.i18n import LANGUAGES, N_, _
from companion.rules.position import PLAYERS, Player
from companion.ui import theme
from companion.ui.layout import MIN_TARGET, Layout
from companion.ui.scene import Intent, Scene, Target
from companion.ui.screens import top_bar

SETTINGS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("auto_claim", N_("Auto-claim provable flags"), ("off", "on")),
    ("hints", N_("Show claimable flags"), ("on", "off")),
    ("claim_timing", N_("Claim timing (next game)"), ("standard", "advanced")),
    ("lights", N_("Lights board"), ("auto", "direct", "pico", "mock", "none")),
    ("language", N_("Language"), ("auto", *LANGUAGES)),
    ("edition", N_("Names on the cards"), ("gmt", "medieval")),
)
VALUE_WORDS = {"on": N_("On"), "off": N_("Off"), "standard": N_("Standard"),
               "advanced": N_("Advanced"), "auto": N_("Automatic"), "direct": N_("GPIO pins"),
               "pico": N_("Pico"), "mock": N_("Mock pins"), "none": N_("None"),
               "gmt": N_("GMT edition"), "medieval": N_("Medieval edition")}


def value_words(value: str, key: str = "") -> str:
    """A setting's value as the row's button shows it; a language in its own words, and
    the automatic language with the one it chose (players see which the system gave)."""
    if value in LANGUAGES:
        return LANGUAGES[value]
    if key == "language" and value == "auto":
        return _("Automatic ({language})").format(language=LANGUAGES[i18n.language()])
    return _(VALUE_WORDS.get(value, value))


# The colours a player may choose: the lights show them as well as the screen.
PLAYER_COLOURS: tuple[theme.RGB, ...] = (
    (255, 0, 0), (0, 255, 0), (0, 80, 255), (255, 200, 0), (200, 0, 255), (0, 220, 220),
)


def draw_settings(surface: pygame.Surface, layout: Layout, scene: Scene) -> list[Target]:
    surface.fill(theme.BACKGROUND)
    targets = top_bar(surface, layout, scene, _("Settings"))
    board = layout.board.union(layout.bottom_bar)
    columns = 1 if layout.portrait else 2
    col_w = (board.width - 12 * (columns + 1)) // columns
    rows: list[tuple[str, str, theme.RGB, Intent]] = []  # label, value, fill, intent
    for key, label, choices in SETTINGS:
        value = scene.options.get(key, choices[0])
        nxt = choices[(choices.index(value) + 1) % len(choices)] if value in choices else choices[0]
        fill = theme.ACCENT if value in ("on", "advanced") else theme.PANEL_LIGHT
        rows.append((_(label), value_words(value, key), fill, Intent("option", zone=key, value=nxt)))
    rows.append((_("Camera and calibration"), _("Show"), theme.PANEL_LIGHT,
                 Intent("go", value="camera")))
    for player in PLAYERS:
        rows.append((_("Name, {side}").format(side=_(SIDE_WORDS[player])), scene.names[player],
                     theme.PANEL_LIGHT, Intent("go", value="keyboard", player=player)))
    for player in PLAYERS:
        now = scene.colour(player)
        others = [c for c in PLAYER_COLOURS if c != scene.colour(player.other)]
        nxt_colour = others[(others.index(now) + 1) % len(others)] if now in others else others[0]
        rows.append((_("Colour, {name}").format(name=scene.names[player]), "", now,
                     Intent("colour", player=player, value=",".join(map(str, nxt_colour)))))
    per_column = (len(rows) + columns - 1) // columns
    # As tall as the rows may be, leaving a line for the board in use below them.
    row_h = max(MIN_TARGET + 8, min(layout.px(72), (board.height - 44) // per_column))
    for k, (label, value, fill, intent) in enumerate(rows):
        col, line = k // per_column, k % per_column
        row = pygame.Rect(12 + col * (col_w + 12), board.top + 10 + line * row_h, col_w,
                          row_h - 8)
        pygame.draw.rect(surface, theme.PANEL, row, border_radius=10)
        bw = min(layout.px(150), row.width // 2 - 10)
        theme.draw_text(surface, label, (row.left + 14, row.centery), layout.px(24),
                        anchor="midleft", width=row.width - bw - 36)
        b = pygame.Rect(row.right - bw - 8, row.top + 3, bw, row.height - 6)  # >= MIN_TARGET
        theme.button(surface, b, value, fill=fill, size=layout.px(24))
        targets.append((b, intent))
    board_now = scene.options.get("lights_now", "")
    if board_now:
        theme.draw_text(surface, _("Lights in use: {board}").format(
            board=value_words(board_now)), (16, board.bottom - 12), layout.px(22),
            theme.MUTED, anchor="bottomleft")
    return targets


SIDE_WORDS = {Player.NORTH: N_("north"), Player.SOUTH: N_("south")}
KEY_ROWS = ("QWERTYUIOP", "ASDFGHJKL", "ZXCVBNM")


def draw_keyboard(surface: pygame.Surface, layout: Layout, scene: Scene) -> list[Target]:
    """An on-screen keyboard for a player's name: no real keyboard at the table."""
    surface.fill(theme.BACKGROUND)
    targets = top_bar(surface, layout, scene, _("Player's name"))
    board = layout.board.union(layout.bottom_bar)
    assert scene.editing is not None
    field_rect = pygame.Rect(16, board.top + 12, board.width - 32, layout.px(60))
    pygame.draw.rect(surface, theme.PANEL, field_rect, border_radius=10)
    pygame.draw.rect(surface, scene.colour(scene.editing), field_rect, width=2, border_radius=10)
    theme.draw_text(surface, scene.edit_text + "_", (field_rect.left + 14, field_rect.centery),
                    layout.px(34), anchor="midleft", width=field_rect.width - 28)
    key_w = (board.width - 24) // 10
    room = board.bottom - field_rect.bottom - 40
    if layout.portrait:
        # Tall keys at the foot of the screen, under the thumbs, as on a phone.
        key_h = max(MIN_TARGET + 8, min(layout.px(96), room // 4))
        y = board.bottom - 4 * key_h - 12
        theme.draw_text(surface, _("{side}: type the name, then Done.").format(
            side=_(SIDE_WORDS[scene.editing]).capitalize()),
            (field_rect.left + 4, field_rect.bottom + 14), layout.px(24), theme.MUTED,
            width=field_rect.width)
    else:
        key_h = max(MIN_TARGET + 8, min(layout.px(70), room // 4))
        y = field_rect.bottom + 16
    for r, keys in enumerate(KEY_ROWS):
        x = 12 + r * key_w // 2
        for key in keys:
            rect = pygame.Rect(x, y, key_w - 6, key_h - 6)
            theme.button(surface, rect, key, size=layout.px(28))
            targets.append((rect, Intent("key", value=key)))
            x += key_w
        y += key_h
    specials = [(_("Delete"), Intent("key", value="\b"), theme.PANEL_LIGHT, 2),
                (_("Space"), Intent("key", value=" "), theme.PANEL_LIGHT, 4),
                (_("Done"), Intent("key", value="\n"), theme.ACCENT, 3)]
    x = 12
    for label, intent, fill, width in specials:
        rect = pygame.Rect(x, y, key_w * width - 6, key_h - 6)
        theme.button(surface, rect, label, fill=fill, size=layout.px(26))
        targets.append((rect, intent))
        x += key_w * width + key_w // 3
    return targets


SCREENS = {"settings": draw_settings, "keyboard": draw_keyboard}
