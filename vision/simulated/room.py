"""The room around the mat, for ``vision.simulated.synth``'s wide scenes: light, table, laying.

A real table is lit by a warm lamp, a cool LED panel, a window or a mix of
them; it shows glare spots and the soft shadows of people leaning over it, and
the mat lies on whatever cloth or wood the table has. This module draws those
(from a generator) and renders them onto a photograph as image operations; it
knows nothing of cards or cameras, so ``synth`` can use it without a cycle.

Geometry here is in fractions of the frame (x of its width, y of its height)
so a room looks the same in a small test frame and in a full one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final, Literal

import cv2
import numpy as np

from vision.mat import MatLayout, Zone
from vision.types import FloatImage, Image

Gain = tuple[float, float, float]  # B G R multipliers
LightKind = Literal["tungsten", "led", "window", "fluorescent", "mixed"]
LIGHT_KINDS: Final[tuple[LightKind, ...]] = ("tungsten", "led", "window", "fluorescent",
                                             "mixed")
GRID: Final = 8  # smooth light is computed on an 8x coarser grid, then enlarged
MIN_GAP_MM: Final = 12.0  # the tightest fan a player leaves: most of a covered card's band


def light_gain(kind: LightKind, rng: np.random.Generator) -> Gain:
    """A light's colour as the camera's (imperfect) white balance leaves it, BGR.

    Tungsten (about 2700 K) stays strongly red-yellow: auto white balance
    corrects only part of it. Daylight from a window stays bluish.
    """
    lo, hi = {
        "tungsten": ((0.55, 0.82, 1.05), (0.75, 0.95, 1.2)),
        "led": ((0.98, 0.97, 0.82), (1.12, 1.04, 0.97)),  # 5000-6500 K: a little blue
        "window": ((1.04, 0.98, 0.8), (1.18, 1.04, 0.92)),
        "fluorescent": ((0.92, 1.02, 0.88), (1.04, 1.07, 0.97)),  # a green tinge
        "mixed": ((0.55, 0.82, 1.05), (0.75, 0.95, 1.2)),  # its warm side
    }[kind]
    b, g, r = rng.uniform(lo, hi)
    return float(b), float(g), float(r)


@dataclass(frozen=True)
class Glare:
    """A specular highlight: a lamp or window mirrored in the mat or a card's gloss."""

    x: float
    y: float
    radius: float  # fraction of the frame width
    strength: float  # how far toward white its centre goes

    @staticmethod
    def random(rng: np.random.Generator) -> Glare:
        x, y = (float(v) for v in rng.uniform(0.1, 0.9, 2))
        if rng.random() < 0.5:  # a bulb's reflection: small and hot
            return Glare(x, y, float(rng.uniform(0.008, 0.03)), float(rng.uniform(0.6, 0.97)))
        return Glare(x, y, float(rng.uniform(0.05, 0.16)), float(rng.uniform(0.15, 0.5)))


@dataclass(frozen=True)
class Shade:
    """The soft shadow of someone out of view: an arm (a long blot) or a head (a round one)."""

    start: tuple[float, float]
    end: tuple[float, float]
    width: float  # fraction of the frame width
    darkness: float  # light taken away where it is darkest
    softness: float  # blur, fraction of the frame width (far from the table: soft)

    @staticmethod
    def random(rng: np.random.Generator) -> Shade:
        # It comes in over an edge of the frame, as the person stands beside the table.
        edge = int(rng.integers(4))
        along = float(rng.uniform(0.15, 0.85))
        outside = [(along, -0.1), (along, 1.1), (-0.1, along), (1.1, along)][edge]
        inward = [(0, 1), (0, -1), (1, 0), (-1, 0)][edge]
        if rng.random() < 0.5:  # an arm reaching in
            reach = float(rng.uniform(0.3, 0.6))
            turn = float(rng.uniform(-0.25, 0.25))
            end = (outside[0] + reach * inward[0] + turn * inward[1],
                   outside[1] + reach * inward[1] + turn * inward[0])
            width = float(rng.uniform(0.05, 0.09))
        else:  # a head and shoulders leaning in
            reach = float(rng.uniform(0.12, 0.25))
            end = (outside[0] + reach * inward[0], outside[1] + reach * inward[1])
            width = float(rng.uniform(0.12, 0.22))
        return Shade(outside, end, width, float(rng.uniform(0.15, 0.45)),
                     float(rng.uniform(0.02, 0.06)))

    def moved(self, rng: np.random.Generator, by: float = 0.015) -> Shade:
        """The same person a moment later, shifted a little."""
        dx, dy = (float(v) for v in rng.normal(0, by, 2))
        return Shade((self.start[0] + dx, self.start[1] + dy),
                     (self.end[0] + dx, self.end[1] + dy), self.width, self.darkness,
                     self.softness)


def _coarse(fw: int, fh: int) -> tuple[int, int]:
    return max(2, -(-fw // GRID)), max(2, -(-fh // GRID))


def _enlarge(small: FloatImage, fw: int, fh: int) -> FloatImage:
    return np.asarray(cv2.resize(small, (fw, fh), interpolation=cv2.INTER_LINEAR), np.float32)


def shade_map(shades: tuple[Shade, ...], fw: int, fh: int) -> FloatImage:
    """The light left by ``shades``, 1 where none falls, (fh, fw)."""
    cw, ch = _coarse(fw, fh)
    dark: FloatImage = np.zeros((ch, cw), np.float32)
    for s in shades:
        blot: FloatImage = np.zeros((ch, cw), np.float32)
        a = (round(s.start[0] * cw), round(s.start[1] * ch))
        b = (round(s.end[0] * cw), round(s.end[1] * ch))
        thick = max(1, round(s.width * cw))
        cv2.line(blot, a, b, 1.0, thick)
        cv2.circle(blot, b, max(1, thick // 2), 1.0, -1)
        blot = cv2.GaussianBlur(blot, (0, 0), max(0.5, s.softness * cw))
        dark = np.maximum(dark, s.darkness * blot)
    return _enlarge(1.0 - dark, fw, fh)


def cast_map(near: Gain, far: Gain, angle_deg: float, fw: int, fh: int) -> FloatImage:
    """Colour gain that turns from ``near`` to ``far`` across the frame along ``angle_deg``:
    a warm lamp on one side, a cool window or ceiling light on the other. (fh, fw, 3)."""
    cw, ch = _coarse(fw, fh)
    ys, xs = np.mgrid[0:ch, 0:cw].astype(np.float32)
    a = math.radians(angle_deg)
    d = (xs / cw - 0.5) * math.cos(a) + (ys / ch - 0.5) * math.sin(a)
    t = 1.0 / (1.0 + np.exp(-d * 6.0))  # a broad blend: both lights reach mid-table
    gain = np.asarray(near, np.float32) * (1 - t[..., None]) + np.asarray(far, np.float32) * t[
        ..., None]
    return _enlarge(gain.astype(np.float32), fw, fh)


def add_glare(img: FloatImage, x: float, y: float, radius_px: float, strength: float) -> None:
    """Brighten ``img`` toward white in a soft spot, in place."""
    fh, fw = img.shape[:2]
    # The blurred spot is smooth: drawn and blurred at an eighth of the size, then
    # enlarged (the same light, without a blur kernel hundreds of pixels wide).
    q = 8
    spot: FloatImage = np.zeros((fh // q, fw // q), np.float32)
    cv2.circle(spot, (int(x * fw / q), int(y * fh / q)), max(1, int(radius_px / q)), 1.0, -1)
    glare: FloatImage = cv2.resize(cv2.GaussianBlur(spot, (0, 0), radius_px / 2 / q), (fw, fh),
                                   interpolation=cv2.INTER_LINEAR)
    img += (255 - img) * (strength * glare)[:, :, None]


def motion_blur(img: FloatImage, length_px: float, angle_deg: float) -> FloatImage:
    """The camera shaken (or the table knocked) during the exposure: a line smear."""
    n = max(3, math.ceil(length_px) | 1)
    kernel = np.zeros((n, n), np.float32)
    c = n // 2
    a = math.radians(angle_deg)
    dx, dy = math.cos(a) * length_px / 2, math.sin(a) * length_px / 2
    cv2.line(kernel, (round(c - dx), round(c - dy)), (round(c + dx), round(c + dy)), 1.0, 1,
             cv2.LINE_AA)
    kernel /= kernel.sum()
    return np.asarray(cv2.filter2D(img, -1, kernel), np.float32)


def draw_hands(img: FloatImage, n: int, rng: np.random.Generator) -> None:
    """``n`` arms reaching over the table into the photograph, and their shadows, in place."""
    fh, fw = img.shape[:2]
    for _ in range(n):
        skin = np.array([rng.uniform(90, 160), rng.uniform(120, 180), rng.uniform(170, 235)])
        sleeve = rng.uniform(20, 200, 3)
        edge = int(rng.integers(4))
        # The arm enters from an edge and reaches toward a point over the mat.
        tip = np.array([rng.uniform(0.2, 0.8) * fw, rng.uniform(0.2, 0.8) * fh])
        start = {0: (tip[0], -50.0), 1: (tip[0], fh + 50.0),
                 2: (-50.0, tip[1]), 3: (fw + 50.0, tip[1])}[edge]
        base = np.array(start)
        width = rng.uniform(90, 150)
        d = tip - base
        d /= np.linalg.norm(d)
        nrm = np.array([-d[1], d[0]])
        wrist = tip - d * width * 1.2
        arm = np.array([base + nrm * width * 0.6, wrist + nrm * width * 0.45,
                        wrist - nrm * width * 0.45, base - nrm * width * 0.6], np.int32)
        shade = np.zeros(img.shape[:2], np.float32)
        cv2.fillConvexPoly(shade, arm, 1.0)
        cv2.ellipse(shade, tuple(int(v) for v in (tip - d * width * 0.5)),
                    (int(width * 0.75), int(width * 0.5)),
                    math.degrees(math.atan2(d[1], d[0])), 0, 360, 2.0, -1)
        # Shadow of the arm on the table, then the arm itself.
        # The arm's soft shadow, blurred at a quarter of the size (a 15 px blur at full
        # size costs more than the rest of the photograph).
        q = 4
        small = cv2.resize((shade > 0).astype(np.float32), (fw // q, fh // q),
                           interpolation=cv2.INTER_AREA)
        small = cv2.GaussianBlur(np.roll(small, (25 // q, 25 // q), (0, 1)), (0, 0), 15 / q)
        sh = cv2.resize(small, (fw, fh), interpolation=cv2.INTER_LINEAR)
        img *= (1 - 0.35 * sh)[:, :, None]
        arm_mask = shade == 1.0
        hand_mask = shade == 2.0
        img[arm_mask] = sleeve
        img[hand_mask] = skin


def with_hands(image: Image, n: int, rng: np.random.Generator) -> Image:
    """A photograph with ``n`` arms reaching over it: the frames of a card being laid,
    drawn onto the still photograph (rendering the whole scene again costs 3x more)."""
    img: FloatImage = image.astype(np.float32)
    draw_hands(img, n, rng)
    return np.asarray(np.clip(img, 0, 255), np.uint8)


@dataclass(frozen=True)
class Cloth:
    """What the table under the mat looks like, seen where the mat does not cover it."""

    colour: tuple[float, float, float]  # BGR
    pattern: Literal["plain", "check", "grain"]
    period_mm: float
    stripe: tuple[float, float, float]  # a check's second colour

    @staticmethod
    def random(rng: np.random.Generator) -> Cloth:
        palette = [(40, 60, 150), (40, 110, 40), (140, 80, 40), (70, 110, 170), (200, 205, 210),
                   (50, 50, 55), (60, 40, 110), (120, 160, 190)]
        base = np.asarray(palette[int(rng.integers(len(palette)))], np.float64)
        colour = np.clip(base * rng.uniform(0.85, 1.15, 3), 0, 255)
        pattern: Literal["plain", "check", "grain"] = ("plain", "check", "grain")[
            int(rng.choice(3, p=[0.4, 0.3, 0.3]))]
        if pattern == "grain":  # wood: browns, whatever the palette said
            colour = np.asarray([50, 90, 140], np.float64) * rng.uniform(0.7, 1.25)
        stripe = np.clip(colour * 0.4 + 255 * 0.6 * rng.uniform(0.6, 1.0), 0, 255)
        return Cloth(tuple(float(v) for v in colour),  # type: ignore[arg-type]
                     pattern, float(rng.uniform(12, 40)),
                     tuple(float(v) for v in stripe))  # type: ignore[arg-type]

    def at(self, x_mm: FloatImage, y_mm: FloatImage) -> FloatImage:
        """The cloth's colour at table points (mat mm, any shape), (..., 3) float32."""
        base = np.asarray(self.colour, np.float32)
        p = self.period_mm
        if self.pattern == "check":  # gingham: stripes both ways, darker where they cross
            sx = (np.mod(x_mm, p) < p / 2).astype(np.float32)
            sy = (np.mod(y_mm, p) < p / 2).astype(np.float32)
            mix = 0.5 * (sx + sy)
            out = base * (1 - mix[..., None]) + np.asarray(self.stripe, np.float32) * mix[
                ..., None]
        elif self.pattern == "grain":  # wood: wavy lengthwise streaks, boards every 120 mm
            wave = np.sin(y_mm * (2 * math.pi / p) + 2.5 * np.sin(x_mm * 0.011)) * 0.08
            boards = np.where(np.mod(y_mm, 120.0) < 1.5, -0.35, 0.0)
            out = base * (1 + wave + boards)[..., None]
        else:  # plain cloth: a faint unevenness of dye and folds
            fold = 0.05 * np.sin(x_mm * 0.013 + 0.7 * np.sin(y_mm * 0.009))
            out = base * (1 + fold)[..., None]
        return np.asarray(out, np.float32)


@dataclass(frozen=True)
class Habit:
    """How one player lays cards down."""

    fan_mm: float = 22.0  # usual distance from one card's top to the next one's
    crooked_deg: float = 3.0  # the most a card turns off square
    sideways_mm: float = 2.5  # the most a card sits off the zone's centre line


@dataclass(frozen=True)
class Laying:
    """How a table is laid: each player's habit, where first cards go, the cloth.

    ``lay_table`` without one lays the classic benchmark's tables; with one,
    each gap of a fan is drawn on its own around the player's habit.
    """

    north: Habit = Habit()
    south: Habit = Habit()  # also lays the terrain cards at the flags
    first_mm: tuple[float, float] = (0.0, 8.0)  # first card's top from the flag end
    gap_spread: float = 0.15  # each gap is the habit's fan times 1 +- this
    cloth: Cloth | None = None

    @staticmethod
    def random(rng: np.random.Generator) -> Laying:
        """A table as anyone might lay it: tight or loose fans, careful or sloppy."""
        def habit() -> Habit:
            return Habit(float(rng.uniform(14, 30)), float(rng.uniform(1.5, 8.0)),
                         float(rng.uniform(1.0, 5.0)))

        return Laying(habit(), habit(), gap_spread=float(rng.uniform(0.05, 0.2)),
                      cloth=Cloth.random(rng))

    def habit(self, zone: Zone) -> Habit:
        return self.north if zone.side == "north" else self.south


def room_to_edge(zone: Zone, lay: MatLayout, card_h: float) -> float:
    """The largest top offset in ``zone`` that keeps a card on the mat (a loose fan
    bunches up at the mat's edge rather than hang off it: the table is the mat)."""
    r = zone.rect
    reach = lay.height - r.y if zone.up == "up" else r.y + r.h
    return reach - card_h - 5.0  # 5 mm: a crooked card's corner swings out
