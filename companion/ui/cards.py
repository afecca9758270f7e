"""Cards drawn like the real ones: a troop is its colour with the value in the
corner index (so a fanned stack still shows every card), a tactics card is a
dark card with a gold edge and its short name."""

from __future__ import annotations

from collections.abc import Sequence

import pygame

from companion.rules.cards import Card, Tactic, Troop
from companion.ui import theme
from companion.words import tactic_name

# Short names that fit an index corner; the whole name shows when the card is big.
TACTIC_SHORT: dict[Tactic, str] = {
    Tactic.ALEXANDER: "AL",
    Tactic.DARIUS: "DA",
    Tactic.COMPANION_CAVALRY: "CC",
    Tactic.SHIELD_BEARERS: "SB",
    Tactic.FOG: "FOG",
    Tactic.MUD: "MUD",
    Tactic.SCOUT: "SCT",
    Tactic.REDEPLOY: "RDP",
    Tactic.DESERTER: "DES",
    Tactic.TRAITOR: "TRA",
}
CARD_RATIO = 1.4  # height / width, as a playing card


def card_size(width: int) -> tuple[int, int]:
    return width, int(width * CARD_RATIO)


def draw_card(
    surface: pygame.Surface, card: Card | None, rect: pygame.Rect, *, medieval: bool = False,
    highlight: tuple[int, int, int] | None = None,
) -> None:
    """``card`` None is a card the camera could not read: a grey card with a question mark."""
    radius = max(4, rect.width // 10)
    index = max(16, int(rect.width * 0.42))
    if card is None:
        pygame.draw.rect(surface, (96, 100, 108), rect, border_radius=radius)
        theme.draw_text(surface, "?", (rect.left + max(4, rect.width // 12), rect.top + 2), index)
        theme.draw_text(surface, "?", rect.center, int(rect.width * 0.8), anchor="center")
    elif isinstance(card, Troop):
        face = theme.CARD_COLOURS[card.colour]
        pygame.draw.rect(surface, face, rect, border_radius=radius)
        inner = rect.inflate(-max(4, rect.width // 8), -max(4, rect.width // 8))
        pygame.draw.rect(surface, theme.mix(face, (255, 255, 255), 0.18), inner,
                         width=2, border_radius=radius)
        ink = theme.readable_on(face)
        corner = (rect.left + max(4, rect.width // 12), rect.top + 2)
        r = theme.draw_text(surface, str(card.value), corner, index, ink)
        theme.draw_text(surface, card.colour.letter, (r.right + 1, r.bottom - 5),
                        max(13, index * 3 // 5), ink, anchor="bottomleft")
        if rect.height > rect.width * 1.2:
            theme.draw_text(surface, str(card.value), (rect.centerx, rect.bottom - rect.height // 4),
                            int(rect.width * 0.75), ink, anchor="center")
    else:
        pygame.draw.rect(surface, theme.TACTIC_FACE, rect, border_radius=radius)
        pygame.draw.rect(surface, theme.TACTIC_EDGE, rect, width=max(2, rect.width // 20),
                         border_radius=radius)
        short = TACTIC_SHORT[card]
        theme.draw_text(surface, short, (rect.centerx, rect.top + 3), index, theme.TACTIC_EDGE,
                        anchor="midtop", width=rect.width - 6)
        if rect.height > rect.width * 1.2 and rect.width >= 60:
            name = tactic_name(card, medieval=medieval)
            words = theme.wrap(name, max(12, rect.width // 5), rect.width - 8, break_words=True)
            y = rect.bottom - rect.height // 3
            if len(words) > 3:
                theme.did_not_fit(name)
            for word in words[:3]:
                theme.draw_text(surface, word, (rect.centerx, y), max(12, rect.width // 5),
                                theme.TEXT, anchor="midtop", width=rect.width - 6)
                y += max(12, rect.width // 5)
    if highlight is not None:
        pygame.draw.rect(surface, highlight, rect.inflate(6, 6), width=3, border_radius=radius + 3)


def fan(
    surface: pygame.Surface,
    cards: Sequence[Card | None],
    area: pygame.Rect,
    *,
    vertical: bool,
    card_w: int,
    medieval: bool = False,
    reverse: bool = False,
    marked: Sequence[int] = (),
    mark: tuple[int, int, int] = (255, 255, 255),
) -> list[tuple[pygame.Rect, int]]:
    """Cards in play order along ``area``, overlapping only as much as they must.

    Each card's corner index stays visible. ``reverse`` starts at the far end
    (bottom or right), so the first card lies next to the flag above it.
    Cards whose positions are in ``marked`` get an outline in ``mark``.
    Returns each card's visible (tappable) rect and its position in ``cards``.
    """
    w, h = card_size(card_w)
    if vertical and h > area.height:
        w, h = card_size(max(24, int(area.height / theme_ratio())))
    n = len(cards)
    if n == 0:
        return []
    length = area.height if vertical else area.width
    size = h if vertical else w
    step = size + 4 if n == 1 else min(size + 4, (length - size) // (n - 1))
    rects: list[pygame.Rect] = []
    for i in range(n):
        offset = i * step
        if vertical:
            x = area.centerx - w // 2
            y = area.bottom - h - offset if reverse else area.top + offset
        else:
            y = area.centery - h // 2
            x = area.right - w - offset if reverse else area.left + offset
        rects.append(pygame.Rect(x, y, w, h))
    # Drawn so that each card's top-left index stays uncovered: from the top
    # (or left) down, whichever end the fan starts at.
    order = list(range(n - 1, -1, -1)) if reverse else list(range(n))
    for i in order:
        draw_card(surface, cards[i], rects[i], medieval=medieval,
                  highlight=mark if i in marked else None)
    visible: list[tuple[pygame.Rect, int]] = []
    for k, i in enumerate(order):
        rect = rects[i]
        if k + 1 < n and rect.colliderect(rects[order[k + 1]]):
            rect = _uncovered(rect, rects[order[k + 1]])
        visible.append((rect, i))
    return visible


def theme_ratio() -> float:
    return CARD_RATIO


def _uncovered(rect: pygame.Rect, cover: pygame.Rect) -> pygame.Rect:
    if cover.top > rect.top:
        return pygame.Rect(rect.left, rect.top, rect.width, cover.top - rect.top)
    if cover.bottom < rect.bottom:
        return pygame.Rect(rect.left, cover.bottom, rect.width, rect.bottom - cover.bottom)
    if cover.left > rect.left:
        return pygame.Rect(rect.left, rect.top, cover.left - rect.left, rect.height)
    return pygame.Rect(cover.right, rect.top, rect.right - cover.right, rect.height)
