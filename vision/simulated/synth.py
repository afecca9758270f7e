"""Synthetic table scenes with ground truth, for tests, the benchmark and the demo.

A scene is built in two steps. ``lay_table`` puts cards on the mat as players
do (fanned toward their player, a little crooked, with drop shadows) and draws
it top-down. ``photograph`` then looks at that table through a camera (pose,
perspective and lens distortion: ``vision.simulated.camera_model``) in some light:
gradient and colour cast, glare, shadows, hands and arms, blur, sensor noise
and JPEG. Photographing one table several times gives the frames a still
table yields, for voting.

``room_scene`` widens all of it (``vision.simulated.room``): any deck's art, each
player's own way of laying cards, a tablecloth, lamps, windows and mixed
light, shadows of people out of view. The classic draws stay as they were:
the benchmark compares runs of the same seeds.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Hashable
from dataclasses import dataclass, field
from dataclasses import replace as _replace
from functools import cache, lru_cache
from typing import cast

import cv2
import numpy as np

from companion.rules.cards import TACTICS, TROOPS, Tactic, Terrain
from vision.deck_art import CardArt, Style, as_art
from vision.enrolment.outline import proportion
from vision.mat import MatLayout, Zone, standard_mat
from vision.render_mat import render_mat
from vision.simulated.camera_model import FRAME_SIZE, Camera, camera_homography, frame_maps
from vision.simulated.room import (  # the wide room's light, table and laying
    LIGHT_KINDS,
    MIN_GAP_MM,
    Cloth,
    Gain,
    Glare,
    Laying,
    LightKind,
    Shade,
    add_glare,
    cast_map,
    draw_hands,
    light_gain,
    motion_blur,
    room_to_edge,
    shade_map,
)
from vision.simulated.room import with_hands as with_hands  # where it was first
from vision.types import FloatImage, Image

TABLE_PX_PER_MM = 3.0


@dataclass(frozen=True)
class PlacedCard:
    token: str
    zone: str
    order: int  # 0 = first played (nearest the flag line)
    corners: tuple[tuple[float, float], ...]  # card TL, TR, BR, BL in mat mm


@dataclass
class Table:
    """A table top-down with the truth: every zone's tokens, first played first."""

    image: Image
    px_per_mm: float
    zones: dict[str, list[str]]
    cards: list[PlacedCard]
    layout: MatLayout
    cloth: Cloth | None = None  # the table around the mat; None: a plain dark surface


@dataclass
class Frame:
    image: Image
    mat_to_frame: FloatImage  # homography, mat mm -> frame pixels (before distortion)
    hand: bool
    covered_markers: list[int] = field(default_factory=list)
    k1: float = 0.0  # the lens's bending after the homography (``distort``)


def random_deal(rng: np.random.Generator, fullness: float = 0.6,
                terrain: bool = False) -> dict[str, list[str]]:
    """A plausible table: every card at most once, formations of 0..3 (4 under Mud)."""
    troops = [t.token for t in TROOPS]
    morale = [t.token for t in TACTICS if t.is_morale]
    guile = [t.token for t in TACTICS if t.is_guile]
    rng.shuffle(troops)
    rng.shuffle(morale)
    rng.shuffle(guile)
    formation_pool = troops + morale
    order = rng.permutation(len(formation_pool))
    pool = [formation_pool[i] for i in order]
    zones: dict[str, list[str]] = {}
    env = [Tactic.FOG.token, Tactic.MUD.token]
    rng.shuffle(env)
    battlefields = [t.token for t in Terrain]
    laid: set[str] = set()
    for flag in range(1, 10):
        mud_here = False
        for side in ("north", "south"):
            if env and rng.random() < 0.08:
                token = env.pop()
                zones[f"flag{flag}.{side}.env"] = [token]
                mud_here = mud_here or token == "MUD"
        for side in ("north", "south"):
            cap = 4 if mud_here else 3
            n = int(rng.binomial(cap, fullness))
            zones[f"flag{flag}.{side}"] = [pool.pop() for _ in range(n)]
        if terrain and rng.random() < 0.5:
            # Each battlefield once: the card drawn, or the next one not yet laid (one
            # draw either way, so a table without a repeat is laid as it always was).
            k = int(rng.integers(len(battlefields)))
            token = next(t for t in battlefields[k:] + battlefields[:k] if t not in laid)
            laid.add(token)
            zones[f"flag{flag}"] = [token]
    for side in ("north", "south"):
        zones[f"{side}.guile"] = [guile.pop() for _ in range(int(rng.integers(0, 2)))]
        zones[f"{side}.discard"] = [pool.pop() for _ in range(int(rng.integers(0, 3)))]
    return {k: v for k, v in zones.items() if v}


def _card_image(token: str, art: CardArt, px_per_mm: float) -> Image:
    """A card's face, drawn once: the simulated table lays the same cards all game."""
    # Arts are frozen dataclasses, keys for the cache; the protocol cannot say so.
    return _cached_card(token, cast(Hashable, art), px_per_mm)


@lru_cache(maxsize=512)
def _cached_card(token: str, art: Hashable, px_per_mm: float) -> Image:
    from companion.rules.cards import parse_token

    face = parse_token(token)
    card = np.array(cast(CardArt, art).render(face, px_per_mm))  # a copy: the art may keep its own
    card.setflags(write=False)  # shared between tables
    return card


@lru_cache(maxsize=32)
def _card_mask(w: int, h: int, radius_px: float) -> Image:
    """Where a card of w x h px is: its corners cut round (anti-aliased) if it has any."""
    if radius_px <= 0:
        return np.full((h, w), 255, np.uint8)
    r = min(radius_px, w / 2, h / 2)
    xs, ys = np.arange(w, dtype=np.float32) + 0.5, np.arange(h, dtype=np.float32) + 0.5
    # Distance from the inner rectangle whose corners are the arcs' centres.
    dx = xs - np.clip(xs, r, w - r)
    dy = ys - np.clip(ys, r, h - r)
    d = np.sqrt(dx[None, :] ** 2 + dy[:, None] ** 2)
    mask = np.asarray(np.clip(r + 0.5 - d, 0, 1) * 255, np.uint8)
    mask.setflags(write=False)
    return mask


def _card_corners(zone: Zone, top_offset: float, dx: float, angle_deg: float,
                  w: float, h: float) -> list[tuple[float, float]]:
    """A card whose top edge lies ``top_offset`` mm from the zone's flag end."""
    r = zone.rect
    sign = 1.0 if zone.up == "up" else -1.0
    top_mid = (r.cx + dx, r.y + top_offset if sign > 0 else r.y + r.h - top_offset)
    a = math.radians(angle_deg)
    # Unit vectors of the card: "down" the card and "right" across it, in mat mm.
    down = (sign * -math.sin(a), sign * math.cos(a))
    right = (sign * math.cos(a), sign * math.sin(a))
    tl = (top_mid[0] - right[0] * w / 2, top_mid[1] - right[1] * w / 2)
    tr = (top_mid[0] + right[0] * w / 2, top_mid[1] + right[1] * w / 2)
    br = (tr[0] + down[0] * h, tr[1] + down[1] * h)
    bl = (tl[0] + down[0] * h, tl[1] + down[1] * h)
    return [tl, tr, br, bl]


def _paste(canvas: Image, card: Image, corners_px: FloatImage,
           mask_src: Image | None = None) -> None:
    h, w = card.shape[:2]
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    x0, y0 = np.floor(corners_px.min(axis=0)).astype(int) - 6
    x1, y1 = np.ceil(corners_px.max(axis=0)).astype(int) + 6
    x0, y0 = max(x0, 0), max(y0, 0)
    x1, y1 = min(x1, canvas.shape[1]), min(y1, canvas.shape[0])
    if x1 <= x0 or y1 <= y0:
        return
    m = cv2.getAffineTransform(src[:3], (corners_px[:3] - [x0, y0]).astype(np.float32))
    size = (int(x1 - x0), int(y1 - y0))
    roi = canvas[y0:y1, x0:x1].astype(np.float32)
    if mask_src is None:
        mask_src = np.full((h, w), 255, np.uint8)
    mask = cv2.warpAffine(mask_src, m, size, flags=cv2.INTER_LINEAR)
    # Drop shadow: the card stands a hair above what it covers.
    shadow = cv2.GaussianBlur(np.roll(mask, (3, 2), (0, 1)), (0, 0), 2.5).astype(np.float32)
    roi *= 1.0 - 0.35 * shadow[:, :, None] / 255.0
    warped = cv2.warpAffine(card, m, size, flags=cv2.INTER_AREA).astype(np.float32)
    alpha = mask.astype(np.float32)[:, :, None] / 255.0
    canvas[y0:y1, x0:x1] = np.clip(roi * (1 - alpha) + warped * alpha, 0, 255).astype(np.uint8)


def lay_table(zones: dict[str, list[str]], style: Style | CardArt, rng: np.random.Generator,
              px_per_mm: float = TABLE_PX_PER_MM, layout: MatLayout | None = None,
              fan: tuple[float, float] = (18.0, 26.0), crooked_deg: float = 3.0,
              flip_p: float = 0.0, zone_seed: int | None = None,
              laying: Laying | None = None) -> Table:
    """The cards of ``zones`` laid on the mat, drawn top-down.

    Cards are the art's size (``card_mm``) and, if it has ``corner_radius_mm``,
    rounded. ``fan`` and ``crooked_deg`` apply without a ``laying``, which
    replaces them. With ``zone_seed`` each zone draws its cards' places from its
    own generator (seeded by it and the zone's name), so cards already down stay
    where they are when a card is added after them or another zone changes.
    """
    lay = layout or standard_mat()
    img = _mat_image(px_per_mm, lay).copy()
    art = as_art(style)
    w, h = art.card_mm
    radius = float(getattr(art, "corner_radius_mm", 0.0) or 0.0)
    mask = _card_mask(round(w * px_per_mm), round(h * px_per_mm), radius * px_per_mm) \
        if radius > 0 else None
    placed: list[PlacedCard] = []
    for zone in lay.zones:
        tokens = zones.get(zone.name, [])
        if zone_seed is not None:
            rng = np.random.default_rng([zone_seed, zlib.crc32(zone.name.encode())])
        habit = laying.habit(zone) if laying is not None else None
        spread = laying.gap_spread if laying is not None else 0.0
        # The classic draws, in their order, when there is no laying (the bench's seeds).
        offset = 1.0 + rng.uniform(0, 3) if laying is None else rng.uniform(*laying.first_mm)
        prev = -math.inf
        for k, token in enumerate(tokens):
            if habit is None:
                angle, dx = rng.uniform(-crooked_deg, crooked_deg), rng.uniform(-2.5, 2.5)
            else:
                angle = rng.uniform(-habit.crooked_deg, habit.crooked_deg)
                dx = rng.uniform(-habit.sideways_mm, habit.sideways_mm)
                # Squeezed at the mat's edge, but never hiding the card before's top.
                offset = max(min(offset, room_to_edge(zone, lay, h)), prev + MIN_GAP_MM)
                prev = offset
            corners = _card_corners(zone, offset, dx, angle, w, h)
            card = _card_image(token, art, px_per_mm)
            if rng.random() < flip_p:
                card = card[::-1, ::-1]
            _paste(img, card, np.array(corners, np.float32) * px_per_mm, mask)
            placed.append(PlacedCard(token, zone.name, k, tuple(corners)))
            if habit is None:
                offset += rng.uniform(*fan)
            else:
                offset += habit.fan_mm * (1 + rng.uniform(-spread, spread))
    return Table(img, px_per_mm, {k: list(v) for k, v in zones.items()}, placed, lay,
                 laying.cloth if laying is not None else None)


@cache
def _mat_image(px_per_mm: float, layout: MatLayout) -> Image:
    return render_mat(px_per_mm, layout)


@dataclass(frozen=True)
class Conditions:
    """Light and sensor: everything that changes between two photographs."""

    gain: tuple[float, float, float] = (1.0, 1.0, 1.0)  # colour cast, B G R
    gradient: tuple[float, float] = (0.0, 0.0)  # brightness slope across x and y
    vignette: float = 0.0
    glare: tuple[float, float, float, float] | None = None  # x, y (0..1), radius px, strength
    shadow: tuple[float, float, float] | None = None  # x, y (0..1), darkness
    blur: float = 0.0
    noise: float = 0.0
    jpeg: int = 95
    hands: int = 0
    # The wide room's light (``Conditions.room``); the defaults change nothing.
    exposure: float = 1.0
    cast_far: Gain | None = None  # mixed light: the gain on the far side of the frame
    cast_angle_deg: float = 0.0  # from the ``gain`` side toward the ``cast_far`` side
    glares: tuple[Glare, ...] = ()
    shades: tuple[Shade, ...] = ()
    motion: tuple[float, float] = (0.0, 0.0)  # smear length px, direction degrees

    @staticmethod
    def random(rng: np.random.Generator, hands_p: float = 0.0) -> Conditions:
        cast = rng.uniform(0.8, 1.15, 3)
        return Conditions(
            gain=(float(cast[0]), float(cast[1]), float(cast[2])),
            gradient=(float(rng.uniform(-0.3, 0.3)), float(rng.uniform(-0.3, 0.3))),
            vignette=float(rng.uniform(0, 0.3)),
            glare=(float(rng.uniform(0, 1)), float(rng.uniform(0, 1)),
                   float(rng.uniform(60, 220)), float(rng.uniform(0.2, 0.7)))
            if rng.random() < 0.5 else None,
            shadow=(float(rng.uniform(0, 1)), float(rng.uniform(0, 1)),
                    float(rng.uniform(0.2, 0.45))) if rng.random() < 0.4 else None,
            blur=float(rng.uniform(0, 1.3)),
            noise=float(rng.uniform(1, 5)),
            jpeg=int(rng.integers(70, 96)),
            hands=int(rng.random() < hands_p) * int(rng.integers(1, 3)),
        )

    @staticmethod
    def room(rng: np.random.Generator, hands_p: float = 0.0,
             kind: LightKind | None = None) -> Conditions:
        """A room's light, drawn wide: a warm lamp, cool LEDs, a window, fluorescent
        tubes or a warm lamp against a cool light; glare, shadows of people, a dark or
        bright exposure, focus and shake, a noisy sensor, hard JPEG. Blur and shake are
        in pixels of the full ``FRAME_SIZE``; ``for_frame`` scales them. ``kind``: that
        light rather than a drawn one."""
        drawn = LIGHT_KINDS[int(rng.integers(len(LIGHT_KINDS)))]
        kind = drawn if kind is None else kind
        gain = light_gain(kind, rng)
        cast_far: Gain | None = None
        slope = 0.25
        if kind == "mixed":
            cast_far = light_gain("led" if rng.random() < 0.5 else "window", rng)
        elif kind == "window":
            slope = 0.8  # the window's side is much brighter
        elif kind == "tungsten":
            slope = 0.5  # one lamp, near the table
        a = rng.uniform(0, 2 * math.pi)
        g = rng.uniform(0.3, 1.0) * slope
        exposure = float(rng.uniform(0.6, 1.2))
        return Conditions(
            gain=gain,
            gradient=(float(g * math.cos(a)), float(g * math.sin(a))),
            vignette=float(rng.uniform(0, 0.35)),
            blur=float(rng.uniform(0, 2.0)),
            # A dim frame is amplified: its noise with it.
            noise=float(rng.uniform(1.5, 5.0) / min(1.0, exposure) ** 1.5),
            jpeg=int(rng.integers(60, 96)),
            hands=int(rng.random() < hands_p) * int(rng.integers(1, 3)),
            exposure=exposure,
            cast_far=cast_far,
            cast_angle_deg=float(rng.uniform(0, 360)),
            glares=tuple(Glare.random(rng) for _ in range(1 + int(rng.random() < 0.4))),
            shades=tuple(Shade.random(rng) for _ in range(int(rng.choice(3, p=[0.4, 0.4, 0.2])))),
            motion=(float(rng.uniform(1, 7)), float(rng.uniform(0, 180)))
            if rng.random() < 0.2 else (0.0, 0.0),
        )

    def next_frame(self, rng: np.random.Generator, hands_p: float = 0.0) -> Conditions:
        """The same room a moment later: the light barely changes (auto exposure and
        white balance hunt a little, people shift), focus, shake, noise and JPEG do."""
        b, g, r = (float(v) for v in np.asarray(self.gain) * rng.normal(1.0, 0.012, 3))
        return _replace(
            self,
            gain=(b, g, r),
            exposure=float(self.exposure * rng.uniform(0.97, 1.03)),
            glares=tuple(Glare(gl.x + float(rng.normal(0, 0.003)),
                               gl.y + float(rng.normal(0, 0.003)), gl.radius,
                               float(gl.strength * rng.uniform(0.9, 1.05)))
                         for gl in self.glares),
            shades=tuple(s.moved(rng) for s in self.shades),
            blur=float(max(0.0, self.blur + rng.normal(0, 0.25))),
            motion=(float(rng.uniform(1, 7)), float(rng.uniform(0, 180)))
            if rng.random() < 0.15 else (0.0, 0.0),
            jpeg=int(np.clip(self.jpeg + rng.integers(-5, 6), 60, 95)),
            hands=int(rng.random() < hands_p) * int(rng.integers(1, 3)),
        )

    def for_frame(self, frame_size: tuple[int, int]) -> Conditions:
        """Pixel-sized blur for a frame of ``frame_size`` rather than the full one."""
        s = frame_size[0] / FRAME_SIZE[0]
        return _replace(self, blur=self.blur * s, motion=(self.motion[0] * s, self.motion[1]))


def _light(fw: int, fh: int, c: Conditions, rng: np.random.Generator) -> FloatImage:
    ys, xs = np.mgrid[0:fh:8, 0:fw:8].astype(np.float32)
    u, v = xs / fw - 0.5, ys / fh - 0.5
    light = 1 + c.gradient[0] * u + c.gradient[1] * v - c.vignette * (u * u + v * v) * 2
    if c.shadow is not None:
        sx, sy, dark = c.shadow
        ang = rng.uniform(0, math.pi)
        d = (u - (sx - 0.5)) * math.cos(ang) + (v - (sy - 0.5)) * math.sin(ang)
        light *= 1 - dark / (1 + np.exp(-d * 25))
    light = cv2.resize(light.astype(np.float32), (fw, fh), interpolation=cv2.INTER_LINEAR)
    return np.asarray(light, np.float32)


def photograph(table: Table, cam: Camera, cond: Conditions, rng: np.random.Generator,
               frame_size: tuple[int, int] = FRAME_SIZE) -> Frame:
    fw, fh = frame_size
    h = camera_homography(cam, table.layout, frame_size)
    mx, my = frame_maps(cam, table.layout, table.px_per_mm, frame_size)
    img: FloatImage = cv2.remap(table.image, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                    borderValue=(60, 60, 70)).astype(np.float32)
    if table.cloth is not None:
        th, tw = table.image.shape[:2]
        off = (mx < 0) | (my < 0) | (mx > tw - 1) | (my > th - 1)
        img[off] = table.cloth.at(mx[off] / table.px_per_mm, my[off] / table.px_per_mm)
    if cond.hands:
        draw_hands(img, cond.hands, rng)
    light = _light(fw, fh, cond, rng)
    if cond.shades:
        light *= shade_map(cond.shades, fw, fh)
    if cond.exposure != 1.0:
        light *= cond.exposure
    if cond.cast_far is None:
        img *= light[:, :, None] * np.array(cond.gain, np.float32)
    else:
        img *= light[:, :, None] * cast_map(cond.gain, cond.cast_far, cond.cast_angle_deg, fw, fh)
    if cond.glare is not None:
        add_glare(img, *cond.glare)
    for gl in cond.glares:
        add_glare(img, gl.x, gl.y, gl.radius * fw, gl.strength)
    if cond.blur > 0.3:
        img = cv2.GaussianBlur(img, (0, 0), cond.blur)
    if cond.motion[0] > 0.5:
        img = motion_blur(img, *cond.motion)
    if cond.noise > 0:
        noise: FloatImage = np.empty(img.shape, np.float32)
        # OpenCV's generator is the process's: seeded from ``rng``'s state (not drawn
        # from it, so the scene's other draws stay as they are), the photograph is
        # the same whatever ran before it.
        cv2.setRNGSeed(zlib.crc32(repr(rng.bit_generator.state).encode()) % 2**31)
        cv2.randn(noise, (0.0, 0.0, 0.0), (cond.noise,) * 3)  # type: ignore[call-overload]
        img += noise
    out: Image = np.clip(img, 0, 255).astype(np.uint8)
    ok, enc = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, cond.jpeg])
    decoded = cv2.imdecode(enc, cv2.IMREAD_COLOR) if ok else None
    if decoded is not None:
        out = decoded
    return Frame(out, h, cond.hands > 0, k1=cam.k1)


def scene(seed: int, style: Style | CardArt = "companion", fullness: float = 0.6,
          hands_p: float = 0.0) -> tuple[Table, Frame]:
    """One random table and one photograph of it, from a seed."""
    rng = np.random.default_rng(seed)
    table = lay_table(random_deal(rng, fullness), style, rng)
    return table, photograph(table, Camera.random(rng), Conditions.random(rng, hands_p), rng)


def room_seed(seed: int, deck: str, i: int) -> int:
    """The seed of the ``i``-th room a run seeded ``seed`` reads ``deck`` in: every deck
    its own rooms. (One list of rooms for all decks read 24 held decks in the same
    three rooms: three cameras and lamps stood for every room a player has.)"""
    return int(np.random.SeedSequence([seed, zlib.crc32(deck.encode()), i])
               .generate_state(1)[0])


def room_scene(seed: int, art: Style | CardArt, frames: int = 3,
               fullness: float | None = None, frame_size: tuple[int, int] = FRAME_SIZE,
               hands_p: float = 0.0) -> tuple[Table, list[Frame]]:
    """A table laid the wide way on some cloth, a camera placed anyhow (the mat in
    view), and ``frames`` photographs of it under one room's light, each a moment
    after the one before. ``fullness`` None: drawn, 0.3 to 0.9."""
    rng = np.random.default_rng(seed)
    full = float(rng.uniform(0.3, 0.9)) if fullness is None else fullness
    table = lay_table(random_deal(rng, full, terrain=rng.random() < 0.3), art, rng,
                      laying=Laying.random(rng))
    cam = Camera.room(rng)
    cond = Conditions.room(rng, hands_p)
    shots: list[Frame] = []
    for _ in range(frames):
        shots.append(photograph(table, cam, cond.for_frame(frame_size), rng, frame_size))
        cond = cond.next_frame(rng, hands_p)
    return table, shots


def card_photo(token: str, style: Style | CardArt, rng: np.random.Generator,
               size: tuple[int, int] = (900, 1200)) -> Image:
    """A phone photo of one card, upright, on a plain grey table: for enrolment."""
    w, h = size
    card = _card_image(token, as_art(style), 8.0)
    ch, cw = card.shape[:2]
    scale = rng.uniform(0.55, 0.75) * h / ch
    cx, cy = w / 2 + rng.uniform(-40, 40), h / 2 + rng.uniform(-40, 40)
    jitter = rng.uniform(-0.04, 0.04, (4, 2)) * np.array([cw, ch]) * scale
    square = np.array([[cx - cw * scale / 2, cy - ch * scale / 2],
                       [cx + cw * scale / 2, cy - ch * scale / 2],
                       [cx + cw * scale / 2, cy + ch * scale / 2],
                       [cx - cw * scale / 2, cy + ch * scale / 2]])
    dst = square + jitter
    # The corners' jitter stands for the phone's tilt, which foreshortens a rigid card
    # by at most 6 % at 20°: jitter that would stretch it more is scaled down.
    while abs(proportion(dst) / (cw / ch) - 1.0) > 0.06:
        jitter *= 0.5
        dst = square + jitter
    src = np.array([[0, 0], [cw, 0], [cw, ch], [0, ch]], np.float32)
    m = cv2.getPerspectiveTransform(src, dst.astype(np.float32))
    grey = float(rng.uniform(90, 170))
    photo: FloatImage = np.full((h, w, 3), grey, np.float32)
    warped = cv2.warpPerspective(card, m, (w, h), flags=cv2.INTER_AREA).astype(np.float32)
    mask = cv2.warpPerspective(np.full((ch, cw), 1.0, np.float32), m, (w, h))[:, :, None]
    photo = photo * (1 - mask) + warped * mask
    cast = rng.uniform(0.85, 1.12, 3).astype(np.float32)
    ys = np.linspace(-0.5, 0.5, h, dtype=np.float32)[:, None, None]
    photo *= cast * (1 + rng.uniform(-0.2, 0.2) * ys)
    photo = cv2.GaussianBlur(photo, (0, 0), float(rng.uniform(0.5, 1.2)))
    noise: FloatImage = np.empty(photo.shape, np.float32)
    cv2.randn(noise, (0.0, 0.0, 0.0), (3.0, 3.0, 3.0))  # type: ignore[call-overload]
    out: Image = np.clip(photo + noise, 0, 255).astype(np.uint8)
    return out
