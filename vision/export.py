"""Print files: the mat full size and tiled onto paper, and the deck as a PDF.

Tiles overlap by a margin the printer cannot print anyway; each carries
crop marks and a crosshair at the shared corners so the sheets line up, and a
label saying where it goes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

import cv2
import numpy as np

from vision.deck_art import ALL_FACES, Style, render_card
from vision.mat import CARD_H, CARD_W, MatLayout, standard_mat
from vision.pdf import write_pdf
from vision.render_mat import render_mat
from vision.types import Image

PAPERS: Final[dict[str, tuple[float, float]]] = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}
PRINT_MARGIN: Final = 10.0  # mm every printer leaves white


def _px(dpi: float) -> float:
    return dpi / 25.4


def tile_mat(mat: Image, dpi: float, paper: str, layout: MatLayout
             ) -> list[tuple[Image, float, float, str]]:
    """Landscape sheets covering the mat; each sheet's printable area is one tile."""
    pw, ph = PAPERS[paper]
    pw, ph = max(pw, ph), min(pw, ph)  # landscape
    tw, th = pw - 2 * PRINT_MARGIN, ph - 2 * PRINT_MARGIN
    cols = int(np.ceil(layout.width / tw))
    rows = int(np.ceil(layout.height / th))
    s = _px(dpi)
    sheets = []
    for r in range(rows):
        for c in range(cols):
            page = np.full((round(ph * s), round(pw * s), 3), 255, np.uint8)
            x0, y0 = c * tw, r * th
            src = mat[round(y0 * s):round(min(y0 + th, layout.height) * s),
                      round(x0 * s):round(min(x0 + tw, layout.width) * s)]
            oy, ox = round(PRINT_MARGIN * s), round(PRINT_MARGIN * s)
            page[oy:oy + src.shape[0], ox:ox + src.shape[1]] = src
            # Crop marks at the tile's corners: cut here, butt the next sheet here.
            tick = round(6 * s)
            for cx in (ox, ox + round(tw * s)):
                for cy in (oy, oy + round(th * s)):
                    cv2.line(page, (cx - tick, cy), (cx + tick, cy), (0, 0, 0), max(1, round(s / 4)))
                    cv2.line(page, (cx, cy - tick), (cx, cy + tick), (0, 0, 0), max(1, round(s / 4)))
            label = f"row {r + 1}/{rows}  column {c + 1}/{cols}  (mat {layout.width:.0f}x{layout.height:.0f} mm)"
            cv2.putText(page, label, (ox, round(oy - 2 * s)), cv2.FONT_HERSHEY_SIMPLEX,
                        max(0.3, s / 8), (0, 0, 0), max(1, round(s / 6)), cv2.LINE_AA)
            sheets.append((page, pw, ph, f"r{r + 1}c{c + 1}"))
    return sheets


def export_mat(out_dir: Path, dpi: float = 300, papers: tuple[str, ...] = ("a4", "letter"),
               layout: MatLayout | None = None) -> list[Path]:
    lay = layout or standard_mat()
    out_dir.mkdir(parents=True, exist_ok=True)
    mat = render_mat(_px(dpi), lay)
    written = [out_dir / "mat.png", out_dir / "mat.pdf"]
    cv2.imwrite(str(written[0]), mat)
    write_pdf(written[1], [(mat, lay.width, lay.height)])
    for paper in papers:
        sheets = tile_mat(mat, dpi, paper, lay)
        path = out_dir / f"mat-tiles-{paper}.pdf"
        write_pdf(path, [(img, w, h) for img, w, h, _ in sheets])
        written.append(path)
    return written


def export_deck(path: Path, style: Style = "companion", dpi: float = 300,
                paper: str = "a4") -> int:
    """All 79 faces, nine to a sheet with cut lines; returns the page count."""
    pw, ph = PAPERS[paper]
    s = _px(dpi)
    per_row, per_col = 3, 3
    gx = (pw - per_row * CARD_W) / 2
    gy = (ph - per_col * CARD_H) / 2
    pages = []
    for start in range(0, len(ALL_FACES), per_row * per_col):
        page = np.full((round(ph * s), round(pw * s), 3), 255, np.uint8)
        for i, face in enumerate(ALL_FACES[start:start + per_row * per_col]):
            r, c = divmod(i, per_row)
            card = render_card(face, style, s)
            x, y = round((gx + c * CARD_W) * s), round((gy + r * CARD_H) * s)
            hh, ww = card.shape[:2]
            page[y:y + hh, x:x + ww] = card[:page.shape[0] - y, :page.shape[1] - x]
        pages.append((page, pw, ph))
    write_pdf(path, pages)
    return len(pages)
