"""How well a deck's learnt model names cards cut exactly where they lie.

``bench vision --designs`` measures the whole reader: finding each card, placing
its band, naming it, and the trust. This measures the naming alone: each card of
a room scene is cut from the frame at its true place (off by up to half a
millimetre and a degree, as placement leaves it), its light taken off by the
mat as the reader takes it, and named by the deck's model (enrolled from its own
phone photos, as the bench enrols it). Top-1 is given by how soft the frame is
(``vision.sharpness``): what the model could read if placement were perfect.
Tuning designs only; the held ones measure the result.

    python -m vision.bench.band_check --designs 0,4,11 [--scenes 10]
"""

from __future__ import annotations

import argparse
import json
import math
from typing import Final

import cv2
import numpy as np

from vision.bench import decks
from vision.calibrate import Calibrator
from vision.designs import DeckDesign, design
from vision.models.band_model import SEARCH_PX, BandModel, as_trained
from vision.profile import TPL_PX
from vision.reading.light import MatLight
from vision.reading.zones import LOW_PX, top_down
from vision.render_mat import render_mat
from vision.sharpness import blur_mm
from vision.simulated.camera_model import distort
from vision.simulated.synth import Frame, PlacedCard, room_scene, room_seed
from vision.types import FloatImage

SEED: Final = 4242  # rooms apart from the bench's (2026) and the trust fit's (1187)
JITTER: Final = (0.5, 0.5, 1.0)  # mm across, mm down, degrees: as placement leaves a band
BINS: Final = ((0.0, 0.5), (0.5, 0.8), (0.8, 1.0), (1.0, math.inf))  # blur, mm


def cut(frame: Frame, corners: tuple[tuple[float, float], ...], size_mm: tuple[float, float],
        margin_px: int, jitter: tuple[float, float, float]) -> FloatImage:
    """A card's top ``size_mm`` (width, height) upright at TPL_PX from ``frame``, with
    ``margin_px`` more on every side: its corners (mat mm) moved by ``jitter``, through
    the camera's homography and its lens's bending (``vision.simulated.camera_model``)."""
    tl, tr, _, bl = (np.asarray(p, np.float64) for p in corners)
    ax, ay = (tr - tl) / np.linalg.norm(tr - tl), (bl - tl) / np.linalg.norm(bl - tl)
    dx, dy, turn = jitter
    c, s = math.cos(math.radians(turn)), math.sin(math.radians(turn))
    ax, ay = c * ax + s * ay, -s * ax + c * ay
    w, h = (round(v * TPL_PX) + 2 * margin_px for v in size_mm)
    u, v = np.meshgrid((np.arange(w) - margin_px + 0.5) / TPL_PX,
                       (np.arange(h) - margin_px + 0.5) / TPL_PX)
    mat = (tl + dx * ax + dy * ay) + u[..., None] * ax + v[..., None] * ay
    pts = cv2.perspectiveTransform(mat.reshape(-1, 1, 2), frame.mat_to_frame).reshape(h, w, 2)
    at = (distort(pts, frame.k1) - 0.5).astype(np.float32)
    return cv2.remap(frame.image, at[..., 0], at[..., 1], cv2.INTER_LINEAR,
                     borderMode=cv2.BORDER_REPLICATE).astype(np.float32)


def scene_bands(art: DeckDesign, seed: int, band_mm: float,
                ) -> tuple[list[tuple[str, float, FloatImage]], float | None]:
    """Every card of one room scene (``synth.room_scene``'s first frame): its token, how
    much of it shows (mm) and its band as the model takes it; and how soft the frame is."""
    table, (frame, *_) = room_scene(seed, art, 1)
    lay = table.layout
    size = (round(lay.width * LOW_PX), round(lay.height * LOW_PX))
    light_model = MatLight(lay, size, render_mat(LOW_PX, lay).astype(np.float32))
    calib = Calibrator().update(frame.image)
    light = light_model.fit(top_down(frame.image, calib, size))
    jr = np.random.default_rng([seed, 7])
    zones: dict[str, list[PlacedCard]] = {}
    for card in table.cards:
        zones.setdefault(card.zone, []).append(card)
    out = []
    for cards in zones.values():
        cards.sort(key=lambda c: c.order)
        for i, card in enumerate(cards):
            shows = math.inf if i + 1 == len(cards) else float(np.linalg.norm(
                np.subtract(cards[i + 1].corners[0], card.corners[0])))
            dx, dy, turn = (float(jr.uniform(-j, j)) for j in JITTER)
            band = cut(frame, card.corners, (art.card_mm[0], band_mm), SEARCH_PX,
                       (dx, dy, turn))
            mid = np.mean(np.asarray(card.corners[:2]), axis=0)[None]
            out.append((card.token, shows, band * light_model.inverse_gains(light, mid)[0]))
    return out, blur_mm(frame.image, calib, lay)


def check(index: int, scenes: int, seed: int = SEED) -> dict[str, object]:
    """One tuning design: its model's top-1 on exactly cut bands, by blur."""
    art = design("tune", index)
    profile, _ = decks.enrol_seeded(art, seed)
    if profile is None:
        return {"design": art.name, "enrolled": 0}
    model = BandModel.train(profile)
    right: list[tuple[float, bool]] = []
    for i in range(scenes):
        bands, soft = scene_bands(art, room_seed(seed, art.name, i), profile.band_mm)
        known = [(t, s, b) for t, s, b in bands if t in model.tokens]
        by_height: dict[float, list[tuple[str, FloatImage]]] = {}
        for token, shows, band in known:
            by_height.setdefault(model.height_for(min(shows, profile.band_mm)), []).append(
                (token, band))
        for h, group in by_height.items():
            # As soft as the model learnt its cards, as the reader weighs them.
            shown, _ = as_trained(np.stack([b for _, b in group]),
                                  math.nan if soft is None else soft)
            look = model.look(shown, h)
            right += [(math.inf if soft is None else soft, model.tokens[k] == t)
                      for (t, _), k in zip(group, look.best.tolist(), strict=True)]
    figures: dict[str, object] = {"design": art.name, "bands": len(right),
                                  "top1": round(float(np.mean([r for _, r in right])), 4)}
    for lo, hi in BINS:
        got = [r for s, r in right if lo <= s < hi]
        figures[f"blur_{lo:g}_{hi:g}"] = [round(float(np.mean(got)), 4) if got else None, len(got)]
    return figures


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--designs", default="0,1,2,3,4,5,6,7",
                    help="tuning design numbers, comma-separated")
    ap.add_argument("--scenes", type=int, default=10, help="room scenes per design")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    for index in (int(v) for v in args.designs.split(",")):
        print(json.dumps(check(index, args.scenes)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
