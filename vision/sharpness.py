"""How soft a frame is, measured on the mat's markers.

A card's index is a few millimetres high; in a soft frame (the lens out of
focus, the camera shaken) two numerals of one suit blur into the same blob and
a read that looks sure may not be. Each marker's black square meets its white
quiet zone in a printed step, the same on every mat and under every deck, so how
far that step spreads in the frame says how soft the frame is, in mat
millimetres: the scale at which the index is drawn.
"""

from __future__ import annotations

import math
import warnings
from typing import Final

import cv2
import numpy as np

from vision.calibrate import Calibration
from vision.mat import MatLayout, standard_mat
from vision.types import GREY_BGR, FloatImage, Image

REACH_MM: Final = 3.5  # profile this far each side of the square's edge (its border bit
# is 5 mm of black, its quiet zone 5 mm of white)
STEP_MM: Final = 0.1  # along the profile
ALONG: Final = (0.2, 0.35, 0.5, 0.65, 0.8)  # where on each side (of its length)
TOO_SOFT_MM: Final = 1.0  # softer than this, a player is told to focus or steady the camera
MIN_STEP: Final = 25.0  # grey levels: a step fainter than this (glare, a shadow) says nothing


def _profiles(frame: Image, m2f: FloatImage, layout: MatLayout, ids: list[int],
              ) -> FloatImage:
    """(markers, sides, ALONG, samples) grey profiles across each marker's edges,
    inside to outside, sampled from the frame at mat-mm steps (all in one remap)."""
    t = np.arange(-REACH_MM, REACH_MM + STEP_MM / 2, STEP_MM)
    markers = [layout.marker(i) for i in ids]
    # Axes: marker, side, place along it, step out; all points in one go.
    cx = np.array([m.cx for m in markers])[:, None, None, None]
    cy = np.array([m.cy for m in markers])[:, None, None, None]
    h = np.array([m.size / 2 for m in markers])[:, None, None, None]
    nx = np.array([0.0, 1.0, 0.0, -1.0])[None, :, None, None]  # each side's outward normal
    ny = np.array([-1.0, 0.0, 1.0, 0.0])[None, :, None, None]
    along = (2 * np.array(ALONG)[None, None, :, None] - 1) * h
    # The side's point, then out along its normal.
    pts = np.stack(np.broadcast_arrays(cx + nx * h + ny * along + nx * t,
                                       cy + ny * h - nx * along + ny * t), axis=-1)
    at = cv2.perspectiveTransform(pts.reshape(1, -1, 2), m2f)[0].astype(np.float32)
    # Only the profiles' points are sampled (not the whole frame turned grey first).
    got = cv2.remap(frame, at[:, 0].reshape(1, -1), at[:, 1].reshape(1, -1),
                    cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    grey = cv2.transform(got.astype(np.float32), GREY_BGR[None])
    return np.asarray(grey.reshape(len(ids), 4, len(ALONG), len(t)), np.float32)


def spread_mm(profiles: FloatImage) -> FloatImage:
    """Per profile (last axis, STEP_MM apart, dark to light), the blur of its step
    as a Gaussian's sigma in mm (NaN where the step is too faint to tell).

    A step of height C blurred by a Gaussian of sigma s rises at most by
    C / (s * sqrt(2 pi)) per mm: sigma from the step's height and steepest rise."""
    k = max(1, round(0.5 / STEP_MM))  # a millimetre's half at each end gives the levels
    dark = profiles[..., :k].mean(axis=-1)
    light = profiles[..., -k:].mean(axis=-1)
    c = light - dark
    smooth = cv2.GaussianBlur(profiles.reshape(-1, profiles.shape[-1]), (0, 0),
                              sigmaX=max(0.5, 0.15 / STEP_MM), sigmaY=1e-3)
    rise = (np.diff(smooth, axis=-1).max(axis=-1) / STEP_MM).reshape(c.shape)
    out = c / (np.sqrt(2 * math.pi) * np.maximum(rise, 1e-6))
    return np.where(c >= MIN_STEP, out, np.nan).astype(np.float32)


def blur_mm(frame: Image, calib: Calibration, layout: MatLayout | None = None,
            ) -> float | None:
    """How soft ``frame`` is at the mat (a Gaussian's sigma in mm): per marker seen, the
    softest of its four sides (a shake blurs across its path only), the median over
    the markers. ``None`` where no marker shows a clear step. Past about 1.5 mm it reads
    low (the 5 mm of black and of white either side of the edge blur into each other);
    a frame that soft shows no index whole anyway."""
    if not calib.seen:
        return None
    spread = spread_mm(_profiles(frame, calib.mat_to_frame, layout or standard_mat(),
                                 calib.seen))
    told = np.isfinite(spread).sum(axis=-1) > len(ALONG) // 2  # sides most points tell
    # One call for every side (per marker it cost more than the profiles); a side
    # no point tells is NaN, and not told anyway.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        medians = np.nanmedian(spread, axis=-1)
    sides = np.where(told, medians, -np.inf).max(axis=-1)
    per_marker = sides[np.isfinite(sides)].astype(np.float64)
    return float(np.median(per_marker)) if per_marker.size else None
