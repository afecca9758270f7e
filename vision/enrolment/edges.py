"""Where a card's edge lies in a photo: each side of an outline moved onto the
outermost straight, strong colour step near it (a frame printed inside a card may
step more than its edge), and how sharply a segment steps across.
"""

from __future__ import annotations

from typing import Final

import cv2
import numpy as np

from vision.types import FloatImage, Image

EDGE_SHARE: Final = 0.15  # of the strongest line at or beyond the outline a card's edge makes
LINE_SHARE: Final = 30  # percentile of the steps along a line that is its strength: a
# card's edge is straight and whole, the grain, checks or flowers of a table are not
OUTSIDE_PX: Final = 3  # px inside the outline located that count as at it
NOISE_TIMES: Final = 4.0  # times a side's median line: weaker is the table's grain
TRACK_PX: Final = 2  # how far each profile's step may lie from the side's line
GROWN_CONTRAST: Final = 15.0  # colour step (BGR levels summed) of an edge found further out


def side_contrast(img: Image | FloatImage, a: np.ndarray, b: np.ndarray, d: float,
                   ) -> FloatImage:
    """Colour difference across the segment a-b at 24 points: inside minus outside
    (``d`` pixels either side; clockwise corners put the outside on the left)."""
    t = np.linspace(0.1, 0.9, 24, dtype=np.float32)[:, None]
    p = a + (b - a) * t
    n = np.array([(b - a)[1], -(b - a)[0]], np.float32) / max(float(np.linalg.norm(b - a)), 1e-6)
    pts = np.concatenate([p - d * n, p + d * n]).astype(np.float32)
    vals = cv2.remap(img, pts[:, :1], pts[:, 1:], cv2.INTER_LINEAR,
                     borderMode=cv2.BORDER_REPLICATE)[:, 0].astype(np.float32)
    return np.abs(vals[:24] - vals[24:]).sum(axis=1)


def _edge_track(grad: FloatImage) -> FloatImage | None:
    """Where the card's edge crosses each profile (rows of ``grad``: the colour
    step between neighbouring samples across a side, outward ascending): on the
    outermost straight line that steps strongly along nearly the whole side. A
    frame printed inside a card may step more than its edge (dark ink on white
    paper against a mid-grey table); a table's pattern steps strongly only here
    and there."""
    m, width = grad.shape
    u = np.linspace(-0.5, 0.5, m)[:, None]
    cols = np.arange(width)[None, :]
    # Every drift at once (px the line drifts over the side), each line's strength
    # the LINE_SHARE percentile of its steps; the first strongest drift is kept.
    drifts = np.arange(-(width // 2), width // 2 + 1)
    idx = np.rint(cols[None] + drifts[:, None, None] * u[None]).astype(int)
    g = np.where((idx >= 0) & (idx < width),
                 grad[np.arange(m)[None, :, None], np.clip(idx, 0, width - 1)], 0.0)
    lines = np.percentile(g, LINE_SHARE, axis=1)
    best = np.argmax(lines, axis=0)
    top = lines[best, np.arange(width)]
    strength = np.where(top > 0, top, 0.0)
    drift = np.where(top > 0, drifts[best], 0).astype(np.float64)
    if strength.max() <= 0:
        return None
    # Judged against the lines at or beyond the outline located: a frame printed
    # further in may step far more than the card's edge.
    ref = strength[max(0, width // 2 - OUTSIDE_PX):].max()
    # The table's grain makes lines too, weaker than the card's edge: a side's
    # median line beyond the outline located is what a grain makes (a hatched
    # border inside the card would raise it above a plain table's edge).
    grain = float(np.median(strength[width // 2:]))
    floor = min(max(EDGE_SHARE * ref, NOISE_TIMES * grain),
                float(strength.max()))
    peaks = [o for o in range(width)
             if strength[o] >= floor
             and strength[o] >= strength[max(o - 1, 0)]
             and strength[o] >= strength[min(o + 1, width - 1)]]
    o = max(peaks)
    track: FloatImage = (o + drift[o] * u[:, 0]).astype(np.float32)
    return track


def refine(img: Image, quad: np.ndarray, reach: float) -> tuple[np.ndarray, float]:
    """Corners located within ``reach`` px of ``quad`` at full resolution: each side
    a line fitted to where the colour changes most across it; and the edges'
    median width in px (how blurred the photo is)."""
    lines, widths = [], []
    r = max(3, round(reach))
    offs = np.arange(-r, r + 1, dtype=np.float32)
    for k in range(4):
        a, b = quad[k], quad[(k + 1) % 4]
        length = float(np.linalg.norm(b - a))
        tang = (b - a) / length
        n = np.array([tang[1], -tang[0]], np.float32)  # outward
        t = np.linspace(0.1, 0.9, 48, dtype=np.float32)
        base = a + (b - a) * t[:, None]
        # Five profiles a pixel or two apart along the side, averaged against noise.
        along = np.linspace(-2, 2, 5, dtype=np.float32)
        pts = (base[:, None, None] + along[None, :, None, None] * tang
               + offs[None, None, :, None] * n)
        mx, my = pts[..., 0].reshape(-1, len(offs)), pts[..., 1].reshape(-1, len(offs))
        prof = cv2.remap(img, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        prof = prof.astype(np.float32).reshape(len(t), len(along), len(offs), -1).mean(axis=1)
        grad = np.abs(np.diff(prof, axis=1)).sum(axis=2)
        track = _edge_track(grad)
        if track is None:
            lines.append((a, tang))
            continue
        # Each profile's own step nearest the line (a corner's rounding, a nick).
        cols = np.arange(grad.shape[1])[None, :]
        near = np.abs(cols - track[:, None]) <= TRACK_PX
        peak = np.argmax(np.where(near, grad, -1.0), axis=1)
        on_line = grad[np.arange(len(t)), peak]
        strong = on_line > 0.5 * float(np.median(on_line))
        pos = peak + 0.5 - r  # diff sits between samples
        i = np.clip(peak, 1, grad.shape[1] - 2)
        rows = np.arange(len(t))
        g0, g1, g2 = grad[rows, i - 1], grad[rows, i], grad[rows, i + 1]
        den = g0 - 2 * g1 + g2
        pos = pos + np.where(np.abs(den) > 1e-6, 0.5 * (g0 - g2) / np.where(
            np.abs(den) > 1e-6, den, 1.0), 0.0)
        edge_pts = base + pos[:, None] * n
        keep = strong & (np.abs(pos) < r - 1)
        if keep.sum() < 8:
            lines.append((a, tang))
            continue
        vx, vy, x0, y0 = cv2.fitLine(edge_pts[keep].astype(np.float32), cv2.DIST_HUBER, 0, 0.01,
                                     0.01).ravel()
        lines.append((np.array([x0, y0], np.float32), np.array([vx, vy], np.float32)))
        half = grad >= 0.5 * grad.max(axis=1, keepdims=True)
        widths.extend(half[keep].sum(axis=1).tolist())
    corners = []
    for k in range(4):
        (p, u), (q, v) = lines[k - 1], lines[k]
        m = np.array([u, -v]).T
        if abs(np.linalg.det(m)) < 1e-6:
            corners.append(quad[k])
            continue
        s = np.linalg.solve(m, q - p)
        corners.append(p + s[0] * u)
    width = float(np.median(widths)) if widths else 0.0
    return np.array(corners, np.float32), width
