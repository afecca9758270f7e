"""Where things go on an 800×480 landscape or a 720×1280 portrait screen.

Landscape puts the nine flags in columns (north above, south below), portrait
in rows (north left, south right); every screen asks the layout for rects.
"""

from __future__ import annotations

from dataclasses import dataclass

import pygame

MIN_TARGET = 48  # px: the smallest thing a finger is asked to hit


@dataclass(frozen=True)
class FlagSlot:
    north: pygame.Rect  # north's cards
    north_label: pygame.Rect  # north's formation name
    token: pygame.Rect  # the flag itself: number, status, environment
    south_label: pygame.Rect
    south: pygame.Rect
    whole: pygame.Rect  # the tap target


@dataclass(frozen=True)
class Layout:
    width: int
    height: int

    @property
    def portrait(self) -> bool:
        return self.height > self.width

    @property
    def scale(self) -> float:
        """Text and card scale: 1.0 on the 800×480 screen."""
        return 1.35 if self.portrait else 1.0

    def px(self, value: float) -> int:
        return int(value * self.scale)

    @property
    def top_bar(self) -> pygame.Rect:
        return pygame.Rect(0, 0, self.width, 88 if self.portrait else 56)

    @property
    def bottom_bar(self) -> pygame.Rect:
        h = 120 if self.portrait else 64
        return pygame.Rect(0, self.height - h, self.width, h)

    @property
    def board(self) -> pygame.Rect:
        top = self.top_bar.bottom
        return pygame.Rect(0, top, self.width, self.bottom_bar.top - top)

    @property
    def card_w(self) -> int:
        return 60 if self.portrait else 54

    def flag_slot(self, index: int) -> FlagSlot:
        board = self.board
        if self.portrait:
            row_h = board.height // 9
            row = pygame.Rect(board.left, board.top + index * row_h, board.width, row_h)
            token_w, label_w = 104, 104
            side_w = (row.width - token_w) // 2
            token = pygame.Rect(row.left + side_w, row.top + 3, token_w, row.height - 6)
            inner = row.inflate(0, -4)
            north = pygame.Rect(row.left + 6, inner.top, side_w - label_w - 10, inner.height)
            north_label = pygame.Rect(north.right + 2, inner.top, label_w - 2, inner.height)
            south_label = pygame.Rect(token.right + 4, inner.top, label_w - 2, inner.height)
            south = pygame.Rect(south_label.right + 2, inner.top, north.width, inner.height)
            return FlagSlot(north, north_label, token, south_label, south, row)
        col_w = board.width // 9
        col = pygame.Rect(board.left + index * col_w + (board.width - 9 * col_w) // 2,
                          board.top, col_w, board.height)
        token_h, label_h = 50, 32
        side_h = (col.height - token_h - 2 * label_h) // 2
        north = pygame.Rect(col.left + 2, col.top + 4, col.width - 4, side_h - 6)
        north_label = pygame.Rect(col.left + 2, north.bottom + 2, col.width - 4, label_h)
        token = pygame.Rect(col.left + 4, north_label.bottom, col.width - 8, token_h)
        south_label = pygame.Rect(col.left + 2, token.bottom, col.width - 4, label_h)
        south = pygame.Rect(col.left + 2, south_label.bottom + 2, col.width - 4, side_h - 6)
        return FlagSlot(north, north_label, token, south_label, south, col)

    def dialog(self, height_share: float = 0.8, portrait_share: float = 0.6) -> pygame.Rect:
        w = self.width - (40 if self.portrait else 80)
        h = int(self.height * (portrait_share if self.portrait else height_share))
        rect = pygame.Rect(0, 0, w, h)
        rect.center = (self.width // 2, self.height // 2)
        return rect
