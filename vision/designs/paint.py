"""Painting a generated design's faces: background, top-band art, body, index.

Everything is laid out in millimetres; ``render_face`` draws at print
resolution (>= 8 px/mm) and scales down with INTER_AREA, as ``render_card``.
"""

from __future__ import annotations

import functools
import zlib
from typing import TYPE_CHECKING

import cv2
import numpy as np

from companion.rules.cards import UNIT_NAMES, Tactic, TacticKind, Troop, card_name
from vision.deck_art import Face
from vision.designs.glyphs import (
    BGR,
    ICONS,
    SYMBOLS,
    disc,
    draw_prog,
    fill,
    fit_cap,
    pip_grid,
    rounded_rect,
    stroke,
    text,
    text_w_mm,
)
from vision.designs.spec import contrast_ink, legible, with_lightness
from vision.types import Image

if TYPE_CHECKING:
    from vision.designs.spec import DeckDesign


# ---------------------------------------------------------------- index geometry (mm)


def index_top(d: DeckDesign) -> float:
    """Distance from the card's top (and side) edge to the index."""
    inner = d.border_mm
    if d.opt("frame") != "none":
        inner = d.frame_inset_mm + d.frame_w_mm + (0.8 if d.opt("frame") == "double" else 0.0)
    return inner + d.pad_mm


def _numeral_box(d: DeckDesign) -> tuple[float, float]:
    c = d.cap_mm
    box = d.opt("index_box")
    if box == "circle":  # "10" is squeezed to fit; single digits keep the full cap
        return 1.35 * c, 1.35 * c
    w10 = text_w_mm("10", d.opt("font"), d.opt("italic") == "yes", c, d.weight)
    return (w10 + 0.45 * c, 1.3 * c) if box == "rounded" else (w10, c)


def _pip_d(d: DeckDesign) -> float:
    return max(1.1, 0.16 * d.cap_mm)


def _mark(d: DeckDesign) -> tuple[float, float, int]:
    """Width, height and pip columns of the mark beside or under the numeral."""
    if d.opt("mark") == "symbol":
        m = max(3.0, 0.62 * d.cap_mm)
        return m, m, 0
    if d.opt("mark") == "pips":
        p = _pip_d(d)
        if d.opt("mark_place") == "beside":
            return p * 2.4, p * 6.6, 2
        cols = 10 if d.opt("index_pos") == "centre" else 5
        return p * (1.4 * (cols - 1) + 1), p * (1.4 * (10 // cols - 1) + 1), cols
    return 0.0, 0.0, 0


def _gap(d: DeckDesign) -> float:
    return max(0.8, 0.12 * d.cap_mm)


def index_block(d: DeckDesign) -> tuple[float, float]:
    """(width, height) of a troop's index (numeral, box and mark) in mm."""
    nw, nh = _numeral_box(d)
    mw, mh, _ = _mark(d)
    if mw == 0:
        return nw, nh
    if d.opt("mark_place") == "under":
        return max(nw, mw), nh + _gap(d) + mh
    sides = 2 if d.opt("index_pos") == "centre" and d.opt("mark") == "symbol" else 1
    return nw + sides * (_gap(d) + mw), max(nh, mh)


def _index_xs(d: DeckDesign, bw: float) -> list[float]:
    """Left edges of the index blocks (one, or two mirrored across the top)."""
    w, _ = d.card_mm
    t = index_top(d)
    pos = d.opt("index_pos")
    if pos == "centre":
        return [(w - bw) / 2]
    return [t, w - t - bw] if pos == "corners" else [t]


# ---------------------------------------------------------------- colours of a face


def accent(d: DeckDesign, face: Face) -> BGR:
    if isinstance(face, Troop):
        return d.suits[face.colour.index]
    return d.tactic_colour if isinstance(face, Tactic) else d.terrain_colour


def _shade(c: BGR, dl: float) -> BGR:
    from vision.designs.spec import lab
    L = float(lab(c)[0])
    return with_lightness(c, L + dl if L + dl <= 95 and (dl > 0 or L + dl >= 12) else L - dl)


def _light(d: DeckDesign) -> BGR:
    return d.paper


# ---------------------------------------------------------------- textures and pictures


@functools.lru_cache(maxsize=8)
def _mottle(seed: int, h: int, w: int, s: float) -> np.ndarray:
    """Parchment mottling: noise at about 2 mm, read-only."""
    rng = np.random.default_rng([seed, 7])
    lo = rng.normal(0, 1, (max(2, round(h / s / 2)), max(2, round(w / s / 2)))).astype(np.float32)
    out = cv2.resize(lo, (w, h), interpolation=cv2.INTER_CUBIC)
    out.flags.writeable = False
    return out


def _texture(img: Image, s: float, d: DeckDesign, bg: BGR) -> None:
    h, w = img.shape[:2]
    if d.opt("texture") == "noise":
        m = _mottle(d.seed, h, w, s) * (5.0 * d.texture_mm)
        img[:] = np.clip(img.astype(np.float32) + m[..., None], 0, 255).astype(np.uint8)
        return
    tone = _shade(bg, -7.0)
    pitch = d.texture_mm * 1.3
    W, H = d.card_mm
    k = -H
    while k < W:
        stroke(img, s, [(k, 0.0), (k + H, H)], tone, 0.14)
        k += pitch


def _mix(a: BGR, b: BGR, t: float) -> BGR:
    return tuple(round(x * (1 - t) + y * t) for x, y in zip(a, b, strict=True))  # type: ignore[return-value]


def _picture(img: Image, s: float, d: DeckDesign, face: Face, box: tuple[float, float, float, float],
             tint: BGR) -> None:
    """A seeded picture in the card's colour family, drawn into ``box`` (mm)."""
    x0, y0, x1, y1 = box
    rng = np.random.default_rng([d.seed, zlib.crc32(face.token.encode())])
    style = d.opt("picture_style")

    def col(spread: float = 40.0) -> BGR:  # the tint, lighter or darker, hue nudged a little
        c = np.array(tint) * rng.uniform(0.55, 1.25) + rng.normal(0, spread / 4, 3)
        return tuple(int(v) for v in np.clip(c, 0, 255))  # type: ignore[return-value]

    def pt() -> tuple[float, float]:
        return float(rng.uniform(x0, x1)), float(rng.uniform(y0, y1))

    sub = np.zeros((round((y1 - y0) * s), round((x1 - x0) * s), 3), np.uint8)
    sub[:] = _mix(tint, d.paper, 0.55)
    loc = img[round(y0 * s):round(y0 * s) + sub.shape[0], round(x0 * s):round(x0 * s) + sub.shape[1]]
    off = np.array([x0, y0])

    def p(xy: tuple[float, float]) -> tuple[float, float]:
        return xy[0] - off[0], xy[1] - off[1]

    if style == "landscape":
        sky = np.linspace(0.0, 1.0, sub.shape[0])[:, None, None]
        sub[:] = (np.array(_mix(tint, (235, 215, 180), 0.7)) * (1 - sky)
                  + np.array(d.paper) * sky).astype(np.uint8)
        disc(sub, s, *p(pt()), float(rng.uniform(3, 6)), col(30))
        for k in range(3):
            base = y0 + (y1 - y0) * (0.45 + 0.18 * k)
            ridge = [(x0 + (x1 - x0) * i / 8, base - float(rng.uniform(0, 12))) for i in range(9)]
            fill(sub, s, [p(q) for q in [*ridge, (x1, y1), (x0, y1)]], _shade(col(25), -8 * k))
        for _ in range(int(rng.integers(3, 7))):
            x, y = pt()
            stroke(sub, s, [p((x, y)), p((x + float(rng.normal(0, 2)), y - float(rng.uniform(6, 14))))],
                   d.ink, 0.6)
    elif style == "strokes":
        for _ in range(int(rng.integers(10, 20))):
            a, b = pt(), pt()
            stroke(sub, s, [p(a), p(b)], col(), float(rng.uniform(0.6, 3.0)))
    elif style == "mosaic":
        for _ in range(int(rng.integers(8, 16))):
            fill(sub, s, [p(pt()) for _ in range(3)], col(40))
    else:
        for _ in range(int(rng.integers(8, 15))):
            disc(sub, s, *p(pt()), float(rng.uniform(2.5, 9.0)), col())
    loc[:] = sub[:loc.shape[0], :loc.shape[1]]
    stroke(img, s, rounded_rect(x0, y0, x1, y1, 0.0), _shade(tint, -25), 0.35, closed=True)


# ---------------------------------------------------------------- the index


def _name_lines(name: str, d: DeckDesign, max_w: float, max_h: float) -> tuple[list[str], float]:
    """One or two lines and the cap height that fits them in max_w x max_h."""
    f, w8 = d.title_font, 0.14
    cap = min(d.title_cap_mm, max_h / 1.45)
    words = name.split()
    if fit_cap(name, f, False, cap, w8, max_w) >= cap or len(words) == 1:
        return [name], min(fit_cap(name, f, False, cap, w8, max_w), max_h)
    cap = min(d.title_cap_mm, max_h / 2.5)
    cut = min(range(1, len(words)), key=lambda k: abs(len(" ".join(words[:k])) - len(" ".join(words[k:]))))
    lines = [" ".join(words[:cut]), " ".join(words[cut:])]
    return lines, min(fit_cap(ln, f, False, cap, w8, max_w) for ln in lines)


def _draw_index(img: Image, s: float, d: DeckDesign, face: Face, under: BGR, acc: BGR,
                art_behind: bool) -> None:
    """The top band's content: numeral (and mark) or a tactic's icon and name."""
    W, _ = d.card_mm
    t = index_top(d)
    dark_ink, light_ink = d.ink, _light(d)
    bleedish = under == acc
    if art_behind:  # a cartouche keeps the index readable over a picture
        under = d.paper
    if isinstance(face, Troop):
        bw, bh = index_block(d)
        for x in _index_xs(d, bw):
            if art_behind:
                fill(img, s, rounded_rect(x - 1.2, t - 1.0, x + bw + 1.2, t + bh + 1.0, 1.5), under)
            _troop_index(img, s, d, face, x, t, under, acc, bleedish and not art_behind)
        return
    # Tactics and terrain: an icon at the index position, a name, or both.
    label = d.opt("tactic_label") if isinstance(face, Tactic) else \
        ("both" if d.opt("tactic_label") != "name" else "name")
    ink = contrast_ink(under, dark_ink, light_ink) if bleedish else legible(acc, under, 40)
    name = card_name(face, medieval=d.opt("edition") == "medieval")
    name = name.upper() if d.opt("name_case") == "upper" else name
    ic = min(_numeral_box(d)[1], INDEX_ICON_MAX)
    xs = _index_xs(d, ic) if label != "both" or d.opt("index_pos") != "centre" else [t]
    lo, hi = t, W - t
    if label in ("icon", "both"):
        for x in xs:
            if art_behind:
                fill(img, s, rounded_rect(x - 1.0, t - 1.0, x + ic + 1.0, t + ic + 1.0, 1.5), under)
            draw_prog(img, s, ICONS[face.token], x + ic / 2, t + ic / 2, ic, ink, max(0.5, ic * 0.09))
        if label == "both":
            lo = max(x for x in xs if x < W / 2) + ic + 1.5
            hi = min([x - 1.5 for x in xs if x > W / 2] + [W - t])
    if label in ("name", "both"):
        lines, cap = _name_lines(name, d, hi - lo, 14.2 - t)
        if art_behind:
            tw = max(text_w_mm(ln, d.title_font, False, cap, 0.14) for ln in lines)
            fill(img, s, rounded_rect((lo + hi - tw) / 2 - 1.2, t - 1.0, (lo + hi + tw) / 2 + 1.2,
                                      t + cap * (1.45 * len(lines) - 0.45) + 1.0, 1.5), under)
        for i, ln in enumerate(lines):
            text(img, s, ln, (lo + hi) / 2, t + i * cap * 1.45, cap, ink, d.title_font, False, 0.14)


INDEX_ICON_MAX = 11.0


def _troop_index(img: Image, s: float, d: DeckDesign, face: Troop, x: float, y: float,
                 under: BGR, acc: BGR, bleedish: bool) -> None:
    font, it, c = d.opt("font"), d.opt("italic") == "yes", d.cap_mm
    nw, nh = _numeral_box(d)
    mw, mh, cols = _mark(d)
    box = d.opt("index_box")
    if bleedish or (d.opt("numeral_ink") == "contrast" and d.opt("face") != "dark"):
        ink = contrast_ink(under, d.ink, _light(d))
        mark_ink = ink
    else:
        ink = legible(acc, under, 32)
        mark_ink = ink
    place = d.opt("mark_place")
    nx = x + (mw + _gap(d) if place == "beside" and d.opt("index_pos") == "centre"
              and d.opt("mark") == "symbol" else 0.0)
    if place == "under":
        nx = x + (max(nw, mw) - nw) / 2
    if box != "none":
        fill_c = d.paper if bleedish else legible(acc, under, 25)
        num_ink = legible(acc, fill_c, 40) if bleedish else contrast_ink(fill_c, d.ink, _light(d))
        if box == "circle":
            disc(img, s, nx + nw / 2, y + nh / 2, nw / 2, fill_c)
        else:
            fill(img, s, rounded_rect(nx, y, nx + nw, y + nh, 0.3 * c), fill_c)
        ink, cap = num_ink, c
        max_w = nw * (0.8 if box == "circle" else 0.88)
    else:
        cap, max_w = c, nw + 0.01
    v = str(face.value)
    cap = fit_cap(v, font, it, cap, d.weight, max_w)
    text(img, s, v, nx + nw / 2, y + nh / 2, cap, ink, font, it, d.weight, "cm")
    if d.opt("mark") == "none":
        return
    if place == "under":
        mx, my = x + (max(nw, mw) - mw) / 2, y + nh + _gap(d)
        spots = [(mx, my)]
    else:
        my = y + (max(nh, mh) - mh) / 2
        spots = [(nx + nw + _gap(d), my)]
        if d.opt("index_pos") == "centre" and d.opt("mark") == "symbol":
            spots.append((x, my))
    for mx, my in spots:
        if d.opt("mark") == "symbol":
            prog = SYMBOLS[d.symbols[face.colour.index]]
            draw_prog(img, s, prog, mx + mw / 2, my + mh / 2, mh, mark_ink, 0.4)
        else:
            pip_grid(img, s, face.value, mx, my, cols, _pip_d(d), mark_ink)


# ---------------------------------------------------------------- the whole face


def _gradient(img: Image, s: float, top: BGR, bg: BGR, extent: float) -> None:
    n = min(img.shape[0], round(extent * s))
    t = np.linspace(0.0, 1.0, n)[:, None, None]
    img[:n] = (np.array(top) * (1 - t) + np.array(bg) * t).astype(np.uint8)


def _body(img: Image, s: float, d: DeckDesign, face: Face, acc: BGR, bg: BGR, inner: float) -> None:
    W, H = d.card_mm
    body = d.opt("body")
    ink = legible(acc, bg, 40) if bg != acc else contrast_ink(bg, d.ink, _light(d))
    cy = 18.0 + (H - 32.0) / 2
    if isinstance(face, Troop):
        if d.opt("top_art") == "illustration":
            body = "picture"  # the picture is the body; nothing printed over it
        if body == "picture" and d.opt("top_art") != "illustration":
            _picture(img, s, d, face, (inner + 2, 19.0, W - inner - 2, H - inner - 11), acc)
        elif body == "big_numeral":
            text(img, s, str(face.value), W / 2, cy, 26.0, ink, d.opt("font"),
                 d.opt("italic") == "yes", d.weight, "cm")
        elif body == "emblem":
            draw_prog(img, s, SYMBOLS[d.symbols[face.colour.index]], W / 2, cy, 26.0, ink, 1.0)
        elif body == "pips":
            n, sz = face.value, 6.0
            cols = 1 if n <= 3 else 2 if n <= 8 else 3
            rows = -(-n // cols)
            gx, gy = (W - 2 * inner - 16) / cols, min(9.0, (H - 40) / rows)
            for i in range(n):
                r, c = divmod(i, cols)
                draw_prog(img, s, SYMBOLS[d.symbols[face.colour.index]],
                          W / 2 + (c - (cols - 1) / 2) * gx, cy + (r - (rows - 1) / 2) * gy, sz,
                          ink, 0.4)
        where = d.opt("unit_name")
        if where in ("body", "bottom", "top"):
            y = {"body": H * 0.8, "bottom": H - inner - 5.5, "top": H * 0.8}[where]
            under = bg if body != "picture" or where == "bottom" else d.paper
            if body == "picture" and where != "bottom":  # under the picture, on the face
                y = H - inner - (5.0 if d.opt("top_art") == "illustration" else 7.5)
                under = bg
            u = UNIT_NAMES[face.value]
            cap = fit_cap(u, d.title_font, True, 2.4, 0.1, W - 2 * inner - 6)
            text(img, s, u, W / 2, y, cap, legible(d.ink, under, 40) if under != acc
                 else contrast_ink(under, d.ink, _light(d)), d.title_font, True, 0.1, "cm")
        return
    if d.opt("top_art") == "illustration" or body == "picture":
        if d.opt("top_art") != "illustration":
            _picture(img, s, d, face, (inner + 2, 19.0, W - inner - 2, H * 0.5), acc)
        cy = H * 0.5 + 10.0  # the icon and name under the picture
    if body != "blank" or d.opt("tactic_label") == "icon":
        draw_prog(img, s, ICONS[face.token], W / 2, cy - 4, 12.0 if cy > H * 0.5 else 20.0,
                  ink, 1.2)
    name = card_name(face, medieval=d.opt("edition") == "medieval")
    cap = fit_cap(name, d.title_font, False, 3.6, 0.12, W - 2 * inner - 6)
    small = cy > H * 0.5
    text(img, s, name, W / 2, cy + (8 if small else 12), cap, ink, d.title_font, False, 0.12, "cm")
    kind = f"{face.kind.value} tactic" if isinstance(face, Tactic) else "battlefield"
    if isinstance(face, Tactic) and face.kind is TacticKind.MORALE and face.is_leader:
        kind = "leader"
    text(img, s, kind, W / 2, cy + (13 if small else 18), 2.2, ink, d.title_font, True, 0.1, "cm")


def _draw(d: DeckDesign, face: Face, s: float) -> Image:
    W, H = d.card_mm
    h, w = round(H * s), round(W * s)
    acc = accent(d, face)
    style = d.opt("face")
    bg = acc if style == "bleed" else d.dark if style == "dark" else d.paper
    img = np.empty((h, w, 3), np.uint8)
    img[:] = bg
    if style == "framed":
        img[:] = acc
        b = d.border_mm
        fill(img, s, rounded_rect(b, b, W - b, H - b, max(0.8, d.corner_radius_mm - b + 1.0)), bg)
    inner = index_top(d) - d.pad_mm
    art = d.opt("top_art")
    under = bg
    if art == "texture":
        _texture(img, s, d, bg)
    elif art == "gradient":
        top = _shade(acc, 22) if style == "bleed" else with_lightness(acc, 30) if style == "dark" \
            else acc
        _gradient(img, s, top, bg, d.band_mm * 2.2)
        under = _mix(top, bg, (index_top(d) + 4) / (d.band_mm * 2.2))
        if style == "framed":  # the border stays the suit's colour
            b = round(d.border_mm * s)
            img[:, :b] = img[:, w - b:] = img[:b] = acc
    elif art == "band":
        band_c = _shade(acc, -16) if style == "bleed" else acc
        bot = max(index_top(d) + index_block(d)[1] + 1.5, d.band_mm)
        fill(img, s, rounded_rect(d.border_mm, d.border_mm, W - d.border_mm, min(bot, 17.5),
                                  max(0.0, d.corner_radius_mm - d.border_mm)), band_c)
        under = band_c
    elif art == "illustration":
        bottom = H - inner - 10 if isinstance(face, Troop) else H * 0.5
        _picture(img, s, d, face, (inner + 1.5, d.art_top_mm, W - inner - 1.5, bottom), acc)
    _body(img, s, d, face, acc, bg, inner)
    if d.opt("frame") != "none":
        line = d.ink if d.opt("frame_ink") == "black" else d.paper if style == "bleed" else acc
        for k in range(2 if d.opt("frame") == "double" else 1):
            e = d.frame_inset_mm + k * 0.8
            stroke(img, s, rounded_rect(e, e, W - e, H - e, max(0.5, d.corner_radius_mm - e)),
                   line, d.frame_w_mm, closed=True)
    under_acc = acc if (style == "bleed" and art != "band") or (art == "band" and under == acc) \
        else under
    _draw_index(img, s, d, face, under_acc, acc, art == "illustration")
    if d.opt("bottom_index") == "yes":  # the same index turned round at the bottom
        flipped = np.ascontiguousarray(img[::-1, ::-1])
        _draw_index(flipped, s, d, face, under_acc, acc, art == "illustration")
        img = np.ascontiguousarray(flipped[::-1, ::-1])
    if d.corner_radius_mm > 0:
        _fill_corners(img, s, d.corner_radius_mm)
    return img


def _fill_corners(img: Image, s: float, r_mm: float) -> None:
    """What a die-cut card loses at its corners, filled with the edge's own colour."""
    h, w = img.shape[:2]
    r = round(r_mm * s)
    yy, xx = np.mgrid[0:r, 0:r]
    out = (r - 0.5 - xx) ** 2 + (r - 0.5 - yy) ** 2 > r * r
    for fy, fx in ((False, False), (False, True), (True, False), (True, True)):
        ys = slice(h - r, h) if fy else slice(0, r)
        xs = slice(w - r, w) if fx else slice(0, r)
        m = out[::-1 if fy else 1, ::-1 if fx else 1]
        edge = img[h - 1 if fy else 0, w - r - 1 if fx else r]
        img[ys, xs][m] = edge


@functools.lru_cache(maxsize=512)
def render_face(d: DeckDesign, face: Face, px_per_mm: float) -> Image:
    draw_px = max(px_per_mm, 8.0)
    img = _draw(d, face, draw_px)
    W, H = d.card_mm
    size = (round(W * px_per_mm), round(H * px_per_mm))
    if (img.shape[1], img.shape[0]) != size:
        img = cv2.resize(img, size, interpolation=cv2.INTER_AREA)
    img.flags.writeable = False
    return img

