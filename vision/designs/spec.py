"""A generated deck design's parameters and how they are drawn from a seed.

Categorical options are dealt from per-split balanced shuffles, so across a
split every option occurs about equally often; everything continuous is drawn
from the design's own seed. Tune and held designs come from disjoint seed
streams (the split's id is the first word of every seed), so neither split
ever changes when the other does.
"""

from __future__ import annotations

import functools
import zlib
from dataclasses import dataclass
from typing import Final, Literal

import cv2
import numpy as np

from vision.deck_art import Face
from vision.designs.glyphs import BGR, SYMBOLS
from vision.types import Image

Split = Literal["tune", "held"]
SPLIT_IDS: Final[dict[str, int]] = {"tune": 0x7E57, "held": 0x4E1D}

# Every categorical option and its values; the tests check each occurs across the designs.
OPTIONS: Final[dict[str, tuple[str, ...]]] = {
    "face": ("bleed", "framed", "dark", "plain"),
    "index_pos": ("corner", "corners", "centre"),
    "font": ("simplex", "plain", "duplex", "complex", "triplex", "complex_small",
             "script_simplex", "script_complex"),
    "italic": ("no", "yes"),
    "index_box": ("none", "circle", "rounded"),
    "mark": ("none", "symbol", "pips"),
    "mark_place": ("beside", "under"),
    "symbol_set": ("per_suit", "one"),
    "top_art": ("none", "illustration", "gradient", "texture", "band"),
    "texture": ("noise", "hatch"),
    "picture_style": ("blobs", "landscape", "strokes", "mosaic"),
    "body": ("picture", "big_numeral", "emblem", "pips", "blank"),
    "frame": ("none", "single", "double"),
    "frame_ink": ("suit", "black"),
    "corners_cut": ("square", "rounded"),
    "size": ("63x88", "57x89", "59x91"),
    "tactic_label": ("name", "icon", "both"),
    "tactic_scheme": ("dark", "neutral"),
    "name_case": ("upper", "title"),
    "edition": ("gmt", "medieval"),
    "unit_name": ("none", "top", "body", "bottom"),
    "bottom_index": ("no", "yes"),
    "numeral_ink": ("suit", "contrast"),
    "red": ("scarlet", "crimson", "brick"),
    "orange": ("orange", "amber", "burnt"),
    "yellow": ("lemon", "gold", "mustard"),
    "green": ("grass", "forest", "teal"),
    "blue": ("royal", "navy", "cyan", "azure"),
    "purple": ("violet", "plum", "magenta"),
}
SUIT_KEYS: Final = ("red", "orange", "yellow", "green", "blue", "purple")
# (L, C, hue°) in CIELAB for each named variant of a troop colour.
_LCH: Final[dict[str, tuple[float, float, float]]] = {
    "scarlet": (50, 78, 38), "crimson": (42, 66, 25), "brick": (45, 52, 42),
    "orange": (65, 75, 60), "amber": (74, 72, 72), "burnt": (57, 62, 55),
    "lemon": (90, 85, 98), "gold": (82, 78, 86), "mustard": (72, 62, 88),
    "grass": (58, 60, 135), "forest": (44, 45, 140), "teal": (55, 40, 175),
    "royal": (42, 62, 288), "navy": (28, 45, 292), "cyan": (58, 40, 245), "azure": (52, 55, 265),
    "violet": (42, 55, 312), "plum": (36, 40, 338), "magenta": (46, 60, 328),
}
SIZES: Final[dict[str, tuple[float, float]]] = {
    "63x88": (63.0, 88.0), "57x89": (57.0, 89.0), "59x91": (59.0, 91.0)}
SUIT_FLOOR: Final = 24.0  # min CIE76 distance between two suits of one deck
INDEX_LIMIT_MM: Final = 14.5  # all of the index above this: a fanned card shows 16 mm


@dataclass(frozen=True)
class DeckDesign:
    """One generated deck look; implements ``vision.deck_art.CardArt``.

    Colours are BGR. ``opts`` holds the categorical choices (see ``OPTIONS``);
    the rest are the continuous parameters they leave open.
    """

    name: str
    seed: int
    opts: tuple[tuple[str, str], ...]
    suits: tuple[BGR, ...]  # red, orange, yellow, green, blue, purple as printed
    symbols: tuple[str, ...]  # the suit symbol of each suit (one shape repeated, or six)
    paper: BGR
    dark: BGR
    ink: BGR  # the dark ink
    tactic_colour: BGR
    terrain_colour: BGR
    cap_mm: float
    weight: float  # stroke thickness / cap height
    title_font: str
    title_cap_mm: float
    pad_mm: float  # from the frame (or edge) to the index
    border_mm: float  # the coloured border of a framed face
    frame_inset_mm: float
    frame_w_mm: float
    corner_radius_mm: float
    art_top_mm: float  # where an illustration starts
    band_mm: float  # the extent of a gradient, or of a plain band
    texture_mm: float  # hatching pitch or noise strength

    def opt(self, key: str) -> str:
        return dict(self.opts)[key]

    @property
    def card_mm(self) -> tuple[float, float]:
        return SIZES[self.opt("size")]

    def render(self, face: Face, px_per_mm: float) -> Image:
        """The face upright, BGR, index at the top, ``round(w*px)`` x ``round(h*px)``."""
        from vision.designs.paint import render_face  # paint needs this module's types
        return render_face(self, face, px_per_mm).copy()  # cached: never hand out the cache


# ---------------------------------------------------------------- colour


def lab(bgr: BGR) -> np.ndarray:
    px = np.asarray([[bgr]], np.float32) / 255.0
    return cv2.cvtColor(px, cv2.COLOR_BGR2Lab)[0, 0].astype(np.float64)


def from_lch(L: float, c: float, h: float) -> BGR:
    """The sRGB colour nearest (L, C, h), chroma reduced until it is printable."""
    for k in np.linspace(1.0, 0.0, 21):
        a, b = c * k * np.cos(np.radians(h)), c * k * np.sin(np.radians(h))
        px = cv2.cvtColor(np.asarray([[[L, a, b]]], np.float32), cv2.COLOR_Lab2BGR)[0, 0]
        if px.min() >= -0.002 and px.max() <= 1.002:
            break
    return tuple(int(v) for v in np.clip(np.round(px * 255), 0, 255))  # type: ignore[return-value]


def with_lightness(bgr: BGR, L: float) -> BGR:
    _, a, b = lab(bgr)
    return from_lch(L, float(np.hypot(a, b)), float(np.degrees(np.arctan2(b, a))))


def legible(c: BGR, bg: BGR, min_dl: float = 38.0) -> BGR:
    """``c`` made light or dark enough to read on ``bg``, keeping its hue."""
    lc, lb = lab(c)[0], lab(bg)[0]
    if abs(lc - lb) >= min_dl:
        return c
    return with_lightness(c, lb - min_dl if lb > 50 else min(lb + min_dl, 97.0))


def contrast_ink(bg: BGR, dark: BGR, light: BGR) -> BGR:
    return dark if lab(bg)[0] > 62 else light


def suit_distance(suits: tuple[BGR, ...]) -> float:
    labs = [lab(c) for c in suits]
    return min(float(np.linalg.norm(labs[i] - labs[j]))
               for i in range(len(labs)) for j in range(i + 1, len(labs)))


def _palette(rng: np.random.Generator, variants: list[str], face: str) -> tuple[BGR, ...]:
    """Six troop colours jittered as printers differ, kept apart from each other.

    On light paper a suit carrying the numeral is held dark enough to read (yellow
    prints as gold or mustard); on a dark face light enough.
    """
    lo, hi = {"bleed": (26, 92), "framed": (26, 74), "plain": (26, 70), "dark": (58, 92)}[face]
    for _ in range(200):
        out = []
        for v in variants:
            L, c, h = _LCH[v]
            L = float(np.clip(L + rng.normal(0, 4), lo, hi))
            out.append(from_lch(L, c * rng.uniform(0.85, 1.12), h + rng.normal(0, 4)))
        if suit_distance(tuple(out)) >= SUIT_FLOOR:
            return tuple(out)
    raise RuntimeError("no distinguishable palette")  # never seen; the floor is modest


# ---------------------------------------------------------------- drawing a design


def _balanced(split_id: int, key: str, count: int, index: int) -> str:
    """The value of option ``key`` for design ``index``: each value dealt about
    equally often within every block of ``count`` designs."""
    values = OPTIONS[key]
    block, i = divmod(index, count)
    rng = np.random.default_rng([split_id, zlib.crc32(key.encode()), block])
    deal = [v for _ in range(-(-count // len(values))) for v in rng.permutation(values)][:count]
    return str(rng.permutation(deal)[i])


def _grey(rng: np.random.Generator, lo: int, hi: int, tint: float = 8.0) -> BGR:
    g = rng.uniform(lo, hi)
    t = rng.normal(0, tint, 3)
    return tuple(int(v) for v in np.clip(g + t, 0, 255))  # type: ignore[return-value]


def sample(name: str, split_id: int, count: int, index: int) -> DeckDesign:
    """Design ``index`` of a split of ``count`` designs."""
    seed = int(np.random.SeedSequence([split_id, index]).generate_state(2, np.uint64)[0])
    rng = np.random.default_rng(seed)
    o = {k: _balanced(split_id, k, count, index) for k in OPTIONS}
    face = o["face"]
    if face == "plain":
        o["numeral_ink"] = "suit"  # plain faces show the suit only by the numeral's colour
    suits = _palette(rng, [o[k] for k in SUIT_KEYS], face)
    shapes = list(SYMBOLS)
    symbols: tuple[str, ...]
    if o["symbol_set"] == "one":
        symbols = (shapes[int(rng.integers(len(shapes)))],) * 6
    else:
        symbols = tuple(str(x) for x in rng.permutation(shapes))
    paper = (int(rng.uniform(236, 252)), int(rng.uniform(244, 254)), 255) \
        if rng.random() < 0.5 else (250, 250, 250)  # cream or white
    dark = _grey(rng, 22, 48, 6.0)
    if o["tactic_scheme"] == "dark":
        tactic = from_lch(rng.uniform(20, 32), rng.uniform(0, 18), rng.uniform(0, 360))
    else:
        tactic = from_lch(rng.uniform(60, 78), rng.uniform(0, 14), rng.uniform(40, 100))
    terrain = from_lch(rng.uniform(35, 55), rng.uniform(18, 32), rng.uniform(60, 120))
    if face == "dark":  # tactics and terrain then light: gold, silver
        tactic = from_lch(rng.uniform(72, 85), rng.uniform(0, 30), rng.uniform(70, 95))
        terrain = with_lightness(terrain, 70)
    border = float(rng.uniform(1.8, 3.0)) if face == "framed" else 0.0
    d = DeckDesign(
        name=name, seed=seed, opts=tuple(o.items()), suits=suits, symbols=symbols,
        paper=paper, dark=dark, ink=_grey(rng, 15, 40, 4.0), tactic_colour=tactic,
        terrain_colour=terrain, cap_mm=6.0, weight=float(rng.uniform(0.07, 0.17)),
        title_font=str(rng.choice(["simplex", "duplex", "complex", "triplex"])),
        title_cap_mm=float(rng.uniform(3.0, 4.2)), pad_mm=float(rng.uniform(1.0, 2.2)),
        border_mm=border, frame_inset_mm=border + float(rng.uniform(0.6, 1.6)),
        frame_w_mm=float(rng.uniform(0.25, 0.7)),
        corner_radius_mm=float(rng.uniform(2.5, 4.0)) if o["corners_cut"] == "rounded" else 0.0,
        art_top_mm=float(rng.uniform(5.0, 11.0)), band_mm=float(rng.uniform(12.0, 17.0)),
        texture_mm=float(rng.uniform(0.8, 1.6)),
    )
    return _fit_cap(d, rng)


def _fit_cap(d: DeckDesign, rng: np.random.Generator) -> DeckDesign:
    """The index's cap height drawn from what fits in the top band (6-14 mm); a
    mark that cannot fit under the numeral goes beside it."""
    from dataclasses import replace

    from vision.designs.paint import index_block, index_top
    w, _ = d.card_mm
    side = 2 if d.opt("index_pos") == "corners" else 1
    for step in range(4):
        caps = []
        for c in np.arange(6.0, 14.01, 0.25):
            bw, bh = index_block(replace(d, cap_mm=float(c)))
            top = index_top(d)
            if top + bh <= INDEX_LIMIT_MM and side * bw + 2 * top <= w - 6 * (side - 1):
                caps.append(float(c))
        if caps:
            return replace(d, cap_mm=float(rng.uniform(caps[0], caps[-1])))
        opts = dict(d.opts)
        if step == 0 and opts["mark_place"] == "under":
            opts["mark_place"] = "beside"
        elif step <= 1:
            d = replace(d, pad_mm=0.8, frame_inset_mm=d.border_mm + 0.6)
        else:
            opts["index_box"] = "none"
        d = replace(d, opts=tuple(opts.items()))
    raise RuntimeError(f"{d.name}: no index fits")


@functools.lru_cache(maxsize=256)
def design_at(split: str, count: int, index: int) -> DeckDesign:
    return sample(f"{split}-{index:02d}", SPLIT_IDS[split], count, index)
