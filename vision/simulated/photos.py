"""Rendered phone photos of one card on a table: for tests and the benchmark.

``phone_photo`` shows an upright card anywhere in the frame, tilted up to 20°
and turned up to 10°, on a procedurally drawn table (wood, cloth of any hue,
checks, florals, plain grey/white/black), under a warm-to-cool lamp with a
brightness gradient, blur and noise, as JPEG bytes with an EXIF orientation
tag when asked (the pixels then stored turned as a phone stores them).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

import cv2
import numpy as np

from vision.types import FloatImage, Image

TABLES: Final = ("wood", "cloth", "red cloth", "green cloth", "checks", "florals",
                 "grey", "white", "black")
# How the stored pixels are turned from the displayed image, per EXIF orientation
# (a viewer applies the inverse): 6 means "turn 90° clockwise to display".
_STORE: Final[dict[int, int | None]] = {1: None, 3: cv2.ROTATE_180,
                                        6: cv2.ROTATE_90_COUNTERCLOCKWISE,
                                        8: cv2.ROTATE_90_CLOCKWISE}


def _smooth(w: int, h: int, rng: np.random.Generator, cells: int) -> FloatImage:
    """Smooth noise in -1..1 with about ``cells`` blobs across the longer side."""
    gw, gh = max(2, cells * w // max(w, h)), max(2, cells * h // max(w, h))
    grid = rng.uniform(-1, 1, (gh + 1, gw + 1)).astype(np.float32)
    return cv2.resize(grid, (w, h), interpolation=cv2.INTER_CUBIC)


def _hsv(h: float, s: float, v: float) -> np.ndarray:
    """One BGR colour (0..255 floats) from hue in degrees, saturation and value 0..1."""
    px = np.array([[[h / 2, s * 255, v * 255]]], np.uint8)
    return cv2.cvtColor(px, cv2.COLOR_HSV2BGR)[0, 0].astype(np.float32)


def _rotated_coords(w: int, h: int, angle: float) -> tuple[FloatImage, FloatImage]:
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    c, s = np.cos(angle), np.sin(angle)
    return xx * c + yy * s, -xx * s + yy * c


def table_wood(w: int, h: int, rng: np.random.Generator) -> FloatImage:
    """Planks with wavy grain along them and dark seams between."""
    _, v = _rotated_coords(w, h, rng.uniform(-0.3, 0.3) + (np.pi / 2) * rng.integers(0, 2))
    plank = max(w, h) * rng.uniform(0.12, 0.3)
    period = max(w, h) * rng.uniform(0.004, 0.012)
    warp = _smooth(w, h, rng, 6) * period * 6 + _smooth(w, h, rng, 30) * period * 0.8
    grain = np.sin(2 * np.pi * (v + warp) / period) * 0.5 + 0.5
    shade = 1 + 0.12 * _smooth(w, h, rng, 4)
    tone = 0.55 + 0.45 * grain ** 3 * rng.uniform(0.5, 1.0)
    seam = np.abs(((v + plank / 2) % plank) - plank / 2) > max(1.5, plank * 0.008)
    base = _hsv(rng.uniform(18, 35), rng.uniform(0.45, 0.75), rng.uniform(0.35, 0.8))
    out = base * (shade * (0.65 + 0.35 * tone) * (0.45 + 0.55 * seam))[..., None]
    return np.asarray(out, np.float32)


def table_cloth(w: int, h: int, rng: np.random.Generator, hue: float | None = None) -> FloatImage:
    """A coloured cloth of any hue: a fine weave and soft folds."""
    hue = rng.uniform(0, 360) if hue is None else hue
    base = _hsv(hue, rng.uniform(0.45, 0.9), rng.uniform(0.35, 0.8))
    u, v = _rotated_coords(w, h, rng.uniform(0, np.pi))
    p = rng.uniform(3.0, 7.0)  # thread spacing in pixels
    weave = np.sin(2 * np.pi * u / p) * np.sin(2 * np.pi * v / p)
    folds = 0.1 * _smooth(w, h, rng, 5)
    return np.asarray(base * (1 + 0.1 * weave + folds)[..., None], np.float32)


def table_checks(w: int, h: int, rng: np.random.Generator) -> FloatImage:
    """A check tablecloth: two colours in squares, a third where stripes cross."""
    u, v = _rotated_coords(w, h, rng.uniform(0, np.pi / 2))
    size = min(w, h) * rng.uniform(0.04, 0.12)
    a, b = (u // size) % 2, (v // size) % 2
    c1 = _hsv(rng.uniform(0, 360), rng.uniform(0.4, 0.9), rng.uniform(0.3, 0.7))
    c2 = _hsv(rng.uniform(0, 360), rng.uniform(0.0, 0.3), rng.uniform(0.7, 0.95))
    mix = (a + b)[..., None] / 2
    out = c2 * (1 - mix) + c1 * mix
    out *= 1 + 0.05 * _smooth(w, h, rng, 8)[..., None]
    return np.asarray(out, np.float32)


def table_florals(w: int, h: int, rng: np.random.Generator) -> FloatImage:
    """A floral print: flowers of five petals and leaves on a ground colour."""
    out = np.empty((h, w, 3), np.float32)
    out[:] = _hsv(rng.uniform(0, 360), rng.uniform(0.1, 0.5), rng.uniform(0.5, 0.95))
    colours = [_hsv(rng.uniform(0, 360), rng.uniform(0.5, 1), rng.uniform(0.4, 1))
               for _ in range(3)]
    leaf = _hsv(rng.uniform(80, 150), rng.uniform(0.4, 0.8), rng.uniform(0.3, 0.6))
    r0 = min(w, h) * 0.02
    for _ in range(int(w * h / (r0 * r0 * 40))):
        x, y = float(rng.uniform(0, w)), float(rng.uniform(0, h))
        r = float(r0 * rng.uniform(0.6, 1.6))
        turn = rng.uniform(0, 72)
        for k in range(2):  # two leaves under each flower
            ang = turn + 90 + 180 * k
            cx, cy = x + 1.6 * r * np.cos(np.radians(ang)), y + 1.6 * r * np.sin(np.radians(ang))
            cv2.ellipse(out, (round(cx), round(cy)), (round(r), round(r * 0.45)), ang, 0, 360,
                        leaf.tolist(), -1, cv2.LINE_AA)
        petal = colours[int(rng.integers(0, 3))].tolist()
        for k in range(5):
            ang = turn + 72 * k
            cx, cy = x + 0.7 * r * np.cos(np.radians(ang)), y + 0.7 * r * np.sin(np.radians(ang))
            cv2.ellipse(out, (round(cx), round(cy)), (round(0.7 * r), round(0.4 * r)), ang, 0,
                        360, petal, -1, cv2.LINE_AA)
        cv2.circle(out, (round(x), round(y)), round(0.3 * r), (40, 200, 240), -1, cv2.LINE_AA)
    return out


def table_plain(w: int, h: int, rng: np.random.Generator, level: float) -> FloatImage:
    """A plain surface of a grey ``level`` (0..255), faintly uneven."""
    tint = 1 + rng.uniform(-0.03, 0.03, 3).astype(np.float32)
    out = level * tint * (1 + 0.04 * _smooth(w, h, rng, 6))[..., None]
    return np.asarray(out, np.float32)


def draw_table(kind: str, w: int, h: int, rng: np.random.Generator) -> FloatImage:
    """A table of ``kind`` (one of ``TABLES``) as BGR float 0..255."""
    kinds: dict[str, Callable[[], FloatImage]] = {
        "wood": lambda: table_wood(w, h, rng),
        "cloth": lambda: table_cloth(w, h, rng),
        "red cloth": lambda: table_cloth(w, h, rng, rng.uniform(-8, 8) % 360),
        "green cloth": lambda: table_cloth(w, h, rng, rng.uniform(100, 140)),
        "checks": lambda: table_checks(w, h, rng),
        "florals": lambda: table_florals(w, h, rng),
        "grey": lambda: table_plain(w, h, rng, rng.uniform(90, 170)),
        "white": lambda: table_plain(w, h, rng, rng.uniform(215, 245)),
        "black": lambda: table_plain(w, h, rng, rng.uniform(15, 40)),
    }
    if kind == "pattern":
        kind = ("checks", "florals")[int(rng.integers(0, 2))]
    if kind not in kinds:
        raise ValueError(f"table {kind!r}: expected one of {', '.join(TABLES)} or 'pattern'")
    return kinds[kind]()


def card_quad(card_w: int, card_h: int, frame: tuple[int, int], rng: np.random.Generator,
              tilt_deg: float = 20.0, turn_deg: float = 10.0) -> np.ndarray:
    """Where a card's corners (TL, TR, BR, BL) land in a photo of ``frame`` (w, h):
    the card tilted 75-100% of ``tilt_deg`` about a random axis, turned up to ``turn_deg``,
    anywhere in the frame, as a phone's lens (about 70° across) sees it."""
    w, h = frame
    f = 0.73 * max(w, h)
    axis = rng.uniform(0, 2 * np.pi)
    rvec = np.array([np.cos(axis), np.sin(axis), 0.0]) * np.radians(tilt_deg)
    tilt, _ = cv2.Rodrigues(rvec * rng.uniform(0.75, 1.0))
    turn, _ = cv2.Rodrigues(np.array([0.0, 0.0, np.radians(rng.uniform(-turn_deg, turn_deg))]))
    pts = np.array([[-1, -1, 0], [1, -1, 0], [1, 1, 0], [-1, 1, 0]], np.float64)
    pts *= np.array([card_w / 2, card_h / 2, 0])
    size = rng.uniform(0.45, 0.8) * min(w, h) / card_h  # card height over the short side
    cam = (pts @ turn.T @ tilt.T) * size + np.array([0, 0, f])
    xy = cam[:, :2] * f / cam[:, 2:]
    lo, hi = xy.min(axis=0), xy.max(axis=0)
    margin = 0.03 * min(w, h)
    x = rng.uniform(margin - lo[0], w - margin - hi[0]) if hi[0] - lo[0] < w - 2 * margin else w / 2
    y = rng.uniform(margin - lo[1], h - margin - hi[1]) if hi[1] - lo[1] < h - 2 * margin else h / 2
    return np.asarray(xy + np.array([x, y]), np.float32)


def _rounded_mask(cw: int, ch: int, radius: float) -> Image:
    mask = np.full((ch, cw), 255, np.uint8)
    r = max(1, round(radius))
    for cx, cy in ((r, r), (cw - 1 - r, r), (cw - 1 - r, ch - 1 - r), (r, ch - 1 - r)):
        x0, y0 = (0 if cx == r else cx), (0 if cy == r else cy)
        mask[y0:y0 + r + 1, x0:x0 + r + 1] = 0
        cv2.circle(mask, (cx, cy), r, 255, -1, cv2.LINE_AA)
    return mask


def photo_pixels(card: Image, rng: np.random.Generator, table: str | None = None,
                 size: tuple[int, int] = (4032, 3024),
                 corners: np.ndarray | None = None) -> tuple[Image, np.ndarray]:
    """The displayed photo (BGR) and where the card's corners lie in it."""
    w, h = size
    kind = str(rng.choice(TABLES)) if table is None else table
    photo = draw_table(kind, w, h, rng)
    ch, cw = card.shape[:2]
    quad = card_quad(cw, ch, size, rng) if corners is None else np.asarray(corners, np.float32)
    src = np.array([[0, 0], [cw, 0], [cw, ch], [0, ch]], np.float32)
    m = cv2.getPerspectiveTransform(src, quad)
    warped = cv2.warpPerspective(card, m, (w, h), flags=cv2.INTER_LINEAR).astype(np.float32)
    mask = cv2.warpPerspective(_rounded_mask(cw, ch, 3.0 / 63.0 * cw), m, (w, h),
                               flags=cv2.INTER_LINEAR).astype(np.float32)[..., None] / 255
    # A soft shadow just beside the card, as from a lamp off to one side.
    side = float(np.linalg.norm(quad[1] - quad[0]))
    shift = rng.uniform(-0.015, 0.015, 2) * side
    shadow = cv2.warpAffine(mask, np.array([[1, 0, shift[0]], [0, 1, shift[1]]], np.float32),
                            (w, h))
    shadow = cv2.GaussianBlur(shadow, (0, 0), max(1.0, 0.01 * side))[..., None]
    photo *= 1 - rng.uniform(0.1, 0.35) * shadow
    photo = photo * (1 - mask) + warped * mask
    warmth = rng.uniform(-1, 1)  # a cool daylight lamp to a warm bulb
    cast = np.array([1 - 0.14 * warmth, 1 + rng.uniform(-0.03, 0.03), 1 + 0.14 * warmth],
                    np.float32)
    u, _ = _rotated_coords(w, h, rng.uniform(0, 2 * np.pi))
    light = 1 + rng.uniform(0.1, 0.35) * (u / max(w, h) - 0.5 * (u.max() + u.min()) / max(w, h))
    photo *= cast * rng.uniform(0.8, 1.1) * light[..., None]
    photo = cv2.GaussianBlur(photo, (0, 0), rng.uniform(0.5, 1.4) * max(w, h) / 2000)
    noise: FloatImage = np.empty(photo.shape, np.float32)
    # OpenCV's generator is the process's: seeded from ``rng`` the photo is the same
    # whatever ran before it.
    cv2.setRNGSeed(int(rng.integers(2**31)))
    cv2.randn(noise, (0.0, 0.0, 0.0), (3.0, 3.0, 3.0))  # type: ignore[call-overload]
    return np.clip(photo + noise, 0, 255).astype(np.uint8), quad


def exif_orientation_segment(orientation: int) -> bytes:
    """A JPEG APP1 segment holding an EXIF block with only the Orientation tag."""
    tiff = (b"MM\x00\x2a" + (8).to_bytes(4, "big")  # big-endian; IFD0 right after
            + (1).to_bytes(2, "big")  # one entry: 0x0112 SHORT x1, value left-aligned
            + (0x0112).to_bytes(2, "big") + (3).to_bytes(2, "big") + (1).to_bytes(4, "big")
            + orientation.to_bytes(2, "big") + b"\x00\x00"
            + (0).to_bytes(4, "big"))  # no next IFD
    payload = b"Exif\x00\x00" + tiff
    return b"\xff\xe1" + (2 + len(payload)).to_bytes(2, "big") + payload


def encode_jpeg(img: Image, quality: int = 92, exif_orientation: int | None = None) -> bytes:
    """JPEG bytes of ``img`` as stored; with an EXIF segment (replacing JFIF's) if asked."""
    ok, enc = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise ValueError("JPEG encoding failed")
    data = enc.tobytes()
    if exif_orientation is None:
        return data
    body = data[2:]
    if body[:2] == b"\xff\xe0":  # a phone's JPEG carries EXIF first, no JFIF
        body = body[2 + int.from_bytes(body[2:4], "big"):]
    return data[:2] + exif_orientation_segment(exif_orientation) + body


def phone_photo(card: Image, rng: np.random.Generator, *, table: str | None = None,
                size: tuple[int, int] = (4032, 3024),
                exif_orientation: int | None = None) -> bytes:
    """A phone's JPEG of ``card`` (an upright card image) lying on a ``table``.

    ``size`` is the photo as displayed (width, height); with an ``exif_orientation``
    of 3, 6 or 8 the pixels are stored turned and the tag says how to turn them back.
    """
    if exif_orientation not in (None, *_STORE):
        raise ValueError(f"EXIF orientation {exif_orientation}: expected 1, 3, 6 or 8")
    shown, _ = photo_pixels(card, rng, table, size)
    turn = _STORE[exif_orientation or 1]
    stored = shown if turn is None else cv2.rotate(shown, turn)
    return encode_jpeg(stored, int(rng.integers(85, 96)), exif_orientation)
