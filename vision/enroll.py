"""Enrol a physical deck: one photo per card, named by its token, becomes a profile.

Each photo shows one card upright (index at the top) on the mat or on a plain
background. The card is found as the largest region unlike the background,
its four corners give a perspective warp to a flat card, and the background's
colour gives the white balance (plain: assumed neutral; the mat: its printed
colour).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Final

import cv2
import numpy as np

from companion.rules.cards import ALL_CARDS, parse_token
from companion.rules.errors import NotationError
from vision.calibrate import Calibration, detect_markers
from vision.mat import CARD_H, CARD_W
from vision.profile import DeckProfile, ProfileError, profile_from_cards
from vision.render_mat import FILL, render_mat
from vision.sources.base import FramePair, FrameSource
from vision.types import Image

PHOTO_SUFFIXES: Final = (".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp")
WARP_PX: Final = 6.0  # px/mm of the flattened card
# Mean level difference under which two cut-outs are one card: a card left lying
# differs only by noise (a re-laid one of the same card ~12, two different cards >= 19).
SAME_CARD_DIFF: Final = 15.0


def load_image(path: Path) -> Image:
    """A colour image from disk, or a ProfileError naming the file and the problem."""
    if not path.is_file():
        raise ProfileError(f"{path}: no such file")
    data = np.fromfile(str(path), np.uint8)
    img = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if img is None:
        raise ProfileError(f"{path}: not a readable image (corrupt or unsupported format)")
    return img


def _order_corners(pts: np.ndarray) -> np.ndarray:
    """TL, TR, BR, BL of a portrait card photographed upright."""
    pts = pts[np.argsort(pts[:, 1])]
    top, bottom = pts[:2], pts[2:]
    tl, tr = top[np.argsort(top[:, 0])]
    bl, br = bottom[np.argsort(bottom[:, 0])]
    return np.array([tl, tr, br, bl], np.float32)


def find_card(img: Image, card_w: float = CARD_W, card_h: float = CARD_H,
              name: str = "photo", background: Image | None = None) -> Image:
    """The card in a photo, flattened upright and white-balanced against its background.

    ``background``: what the photo shows without the card (the printed mat), if known.
    """
    h, w = img.shape[:2]
    # The background as a plane per channel fitted to the photo's border: light
    # falls off across a table, and a flat colour would mistake that for a card.
    yy, xx = np.mgrid[0:h, 0:w]
    edge = np.zeros((h, w), bool)
    edge[:8], edge[-8:], edge[:, :8], edge[:, -8:] = True, True, True, True
    design = np.column_stack([np.ones(edge.sum()), xx[edge] / w, yy[edge] / h])
    coef, *_ = np.linalg.lstsq(design, img[edge].astype(np.float64), rcond=None)
    plane = (coef[0] + coef[1] * (xx / w)[..., None] + coef[2] * (yy / h)[..., None])
    bg = np.median(img[edge], axis=0).astype(np.float32)
    # Summed over the channels: a dark, muted frame may be close to the background
    # in every channel and still clearly differ in all three together.
    if background is not None:
        # Match the known background's exposure to the photo on the border, then
        # the mat's printed lines cancel out.
        ref = background.astype(np.float32)
        gain = np.median(img[edge].astype(np.float32) / np.maximum(ref[edge], 1.0), axis=0)
        plane = ref * gain
    diff = np.abs(img.astype(np.float32) - plane.astype(np.float32)).sum(axis=2)
    mask = (diff > 45).astype(np.uint8) * 255
    k = max(3, round(min(h, w) / 100))
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((k, k), np.uint8))
    # Thin things (printed lines, a misregistered outline) are not the card.
    k = max(3, round(min(h, w) / 50))
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((k, k), np.uint8))
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        raise ProfileError(f"{name}: no card found (is the background plain and the card in view?)")
    big = max(contours, key=cv2.contourArea)
    if cv2.contourArea(big) < 0.03 * h * w:
        raise ProfileError(f"{name}: no card found (the largest object is too small)")
    hull = cv2.convexHull(big)
    candidates = []
    for eps in (0.01, 0.02, 0.04):
        quad = cv2.approxPolyDP(hull, eps * cv2.arcLength(hull, True), True).reshape(-1, 2)
        if len(quad) == 4:
            candidates.append(quad)
    candidates.append(cv2.boxPoints(cv2.minAreaRect(big)))
    out_w, out_h = round(card_w * WARP_PX), round(card_h * WARP_PX)
    dst = np.array([[0, 0], [out_w, 0], [out_w, out_h], [0, out_h]], np.float32)
    # The outline whose flattened card has the least background along its edges.
    best: tuple[float, Image] | None = None
    for quad in candidates:
        corners = _order_corners(np.asarray(quad, np.float32))
        side_w = np.linalg.norm(corners[1] - corners[0])
        side_h = np.linalg.norm(corners[3] - corners[0])
        if side_w > side_h:  # lying on its side: the photo's top is the card's left or right
            continue
        flat = cv2.warpPerspective(img, cv2.getPerspectiveTransform(corners, dst),
                                   (out_w, out_h), flags=cv2.INTER_LINEAR)
        k = max(2, round(0.6 * WARP_PX))
        ring = np.concatenate([flat[k:2 * k].reshape(-1, 3), flat[-2 * k:-k].reshape(-1, 3),
                               flat[:, k:2 * k].reshape(-1, 3), flat[:, -2 * k:-k].reshape(-1, 3)])
        bg_like = float((np.abs(ring.astype(np.float32) - bg).sum(axis=1) < 30).mean())
        if best is None or bg_like < best[0]:
            best = (bg_like, flat)
    if best is None:
        raise ProfileError(f"{name}: the card lies sideways; photograph it upright, index at the top")
    if best[0] > 0.15:
        raise ProfileError(f"{name}: could not find the card's outline cleanly "
                           "(retake it on a plain background, the whole card in view)")
    flat = best[1]
    # White balance: the mat's fill is known; any other background is taken as neutral.
    on_mat = len(detect_markers(img)) > 0
    target = np.array(FILL, np.float32) if on_mat else np.full(3, bg.mean(), np.float32)
    gain = target / np.maximum(bg, 1.0)
    gain *= 3.0 / gain.sum()  # only the colour balance, not the exposure
    return np.clip(flat.astype(np.float32) * gain, 0, 255).astype(np.uint8)


def enroll_from_dir(folder: Path, name: str | None = None, card_w: float = CARD_W,
                    card_h: float = CARD_H, partial: bool = False) -> DeckProfile:
    """A profile from ``folder``: ``R7.jpg``, ``AL.png``, ... one photo per card."""
    if not folder.is_dir():
        raise ProfileError(f"{folder}: not a folder")
    cards: dict[str, Image] = {}
    problems: list[str] = []
    for path in sorted(folder.iterdir()):
        if path.suffix.lower() not in PHOTO_SUFFIXES:
            continue
        try:
            token = parse_token(path.stem).token
        except NotationError:
            problems.append(f"{path.name}: {path.stem!r} is not a card token")
            continue
        if token in cards:
            problems.append(f"{path.name}: a second photo of {token}")
            continue
        try:
            cards[token] = find_card(load_image(path), card_w, card_h, path.name)
        except ProfileError as exc:
            problems.append(str(exc))
    if problems:
        raise ProfileError("cannot enrol:\n  " + "\n  ".join(problems))
    missing = [c.token for c in ALL_CARDS if c.token not in cards]
    if missing and not partial:
        raise ProfileError(
            f"{folder}: no photo of {len(missing)} card(s): {', '.join(missing)}. "
            "A reader that does not know a card would mistake it for another; "
            "photograph them all (or pass --partial to accept the risk)."
        )
    # Terrain cards are optional: only the medieval edition has them.
    return profile_from_cards(name or folder.name, cards, card_w, card_h)


ENROL_ZONE: Final = "flag5.south"  # where the guided enrolment asks for each card


@cache
def _mat_image() -> Image:
    return render_mat(WARP_PX)


def capture_card(frame: Image, calib_mat_to_frame: np.ndarray, zone_rect: tuple[float, ...],
                 card_w: float = CARD_W, card_h: float = CARD_H) -> Image:
    """The card lying in a mat zone, cut out of a camera frame and flattened."""
    x, y, w, h = zone_rect
    m = 8.0  # mm of mat around the zone, so the card's whole outline is in view
    quad = np.array([[x - m, y - m], [x + w + m, y - m], [x + w + m, y + h + m],
                     [x - m, y + h + m]], np.float64).reshape(-1, 1, 2)
    src = cv2.perspectiveTransform(quad, calib_mat_to_frame).reshape(4, 2).astype(np.float32)
    out_w, out_h = round((w + 2 * m) * WARP_PX), round((h + 2 * m) * WARP_PX)
    dst = np.array([[0, 0], [out_w, 0], [out_w, out_h], [0, out_h]], np.float32)
    top = cv2.warpPerspective(frame, cv2.getPerspectiveTransform(src, dst), (out_w, out_h),
                              flags=cv2.INTER_LINEAR)
    mat = _mat_image()
    x0, y0 = round((x - m) * WARP_PX), round((y - m) * WARP_PX)
    empty = cv2.resize(mat[y0:y0 + out_h, x0:x0 + out_w], (out_w, out_h))
    return find_card(top, card_w, card_h, "the card in the enrolment zone", empty)


@dataclass(frozen=True)
class Step:
    """What one frame did to an enrolment session.

    ``kind``: "no_mat" (the mat's markers not found), "waiting" (no card in the
    zone yet), "moving" (the picture is not still), "take_away" (the last
    captured card still lies there), "failed" (a card is there but cannot be cut
    out: ``problem`` says why), "captured" (``token`` was just taken), "done".
    """

    kind: str
    token: str | None = None
    problem: str = ""


class Enrolment:
    """Guided enrolment driven frame by frame: each token in turn, in the enrolment zone.

    The captured cards stay while the session lives, whatever else happens
    (a skipped card, a step back, a frame that shows no card).
    """

    def __init__(self, tokens: list[str], name: str = "enrolled", still_frames: int = 2,
                 zone: str = ENROL_ZONE) -> None:
        from vision.mat import standard_mat

        if not tokens:
            raise ProfileError("nothing to enrol: the list of cards is empty")
        self.tokens = [parse_token(t).token for t in tokens]
        self.name = name
        self.still_frames = still_frames
        self.zone = zone
        r = standard_mat().zone(zone).rect
        self.zone_rect = (r.x, r.y, r.w, r.h)
        self.index = 0  # the card asked for now; len(tokens): done
        self.cards: dict[str, Image] = {}
        self._still = 0
        self._prev: np.ndarray | None = None
        self._last: np.ndarray | None = None  # the last capture, to see it taken away

    @property
    def current(self) -> str | None:
        return self.tokens[self.index] if self.index < len(self.tokens) else None

    @property
    def done(self) -> bool:
        return self.index >= len(self.tokens)

    def feed(self, pair: FramePair, calibration: Calibration | None) -> Step:
        """One camera frame: the card asked for is captured once the zone holds a
        card (not the one just captured) and the picture has been still."""
        token = self.current
        if token is None:
            return Step("done")
        gray = cv2.cvtColor(pair.low, cv2.COLOR_BGR2GRAY).astype(np.float32)
        moving = self._prev is not None and float(np.abs(gray - self._prev).mean()) > 2.5
        self._prev = gray
        self._still = 0 if moving else self._still + 1
        if calibration is None:
            return Step("no_mat", token)
        if moving:
            return Step("moving", token)
        if self._still < self.still_frames:
            return Step("waiting", token)  # not yet still for long enough
        try:
            card = capture_card(pair.main, calibration.mat_to_frame, self.zone_rect)
        except ProfileError as error:
            self._last = None  # the zone is empty (or unclear): the last card is gone
            if "no card found" in str(error):
                return Step("waiting", token)
            return Step("failed", token, str(error))
        if self._last is not None and _same_card(card, self._last):
            return Step("take_away", token)
        self.cards[token] = card
        self._last = card
        self._prev, self._still = None, 0
        self.index += 1
        return Step("captured", token)

    def skip(self) -> None:
        """On to the next card without this one (a card that is lost, say)."""
        self.index = min(self.index + 1, len(self.tokens))

    def back(self) -> None:
        """The previous card again (captured anew when it lies in the zone)."""
        self.index = max(self.index - 1, 0)
        self._last = None  # the card asked for may be the one lying there

    def profile(self) -> DeckProfile:
        if not self.cards:
            raise ProfileError("no card captured yet: nothing to make a profile of")
        return profile_from_cards(self.name, self.cards)


def _same_card(a: Image, b: Image) -> bool:
    """Two cut-outs of one card lying still (not two different cards)."""
    small = (24, 34)
    x = cv2.resize(a, small, interpolation=cv2.INTER_AREA).astype(np.float32)
    y = cv2.resize(b, small, interpolation=cv2.INTER_AREA).astype(np.float32)
    return float(np.abs(x - y).mean()) < SAME_CARD_DIFF


def live_enroll(source: FrameSource, tokens: list[str], prompt: Callable[[str], None],
                name: str = "live", still_frames: int = 2, max_frames: int = 40) -> DeckProfile:
    """Guided enrolment with the table camera: each card in turn, in one mat zone.

    ``prompt(token)`` tells the player which card to put down (and, for the
    previous one, to take it away); a card is captured once the zone holds a
    card and the picture has been still for ``still_frames`` frames.
    """
    from vision.calibrate import Calibrator

    session = Enrolment(tokens, name, still_frames)
    calib = Calibrator()
    while (token := session.current) is not None:
        prompt(token)
        for _ in range(max_frames):
            pair = source.read()
            if session.feed(pair, calib.update(pair.main)).kind == "captured":
                break
        else:
            raise ProfileError(f"{token}: no card seen in the enrolment zone ({ENROL_ZONE}) "
                               f"after {max_frames} frames")
    return session.profile()
