"""Enrol a physical deck: one photo per card, named by its token, becomes a profile.

Each photo shows one card upright (index at the top) on any table: wood, cloth,
a pattern, the mat. The card is found by its outline (``vision.enrolment.outline``) and
flattened; a photo that cannot be used is refused with what to change. The colour
of a photo's light is taken from what every card of the deck shares (its paper,
its border: ``balance_deck``), never from the table; on the mat (live
enrolment) the mat's printed fill is known and is the reference.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass
from functools import cache
from itertools import repeat
from pathlib import Path
from typing import Final, Literal

import cv2
import numpy as np

from companion.i18n import _, ngettext
from companion.rules.cards import ALL_CARDS, parse_token
from companion.rules.errors import NotationError
from vision.calibrate import Calibration
from vision.enrolment.balance import balance_deck, table_colour
from vision.enrolment.consensus import MARGIN_MM, astray, deck_sides, square_deck
from vision.enrolment.locate import EDGES
from vision.enrolment.outline import WARP_PX, find_outline, flatten, order_corners
from vision.enrolment.workers import workers
from vision.mat import CARD_H, CARD_W
from vision.profile import DeckProfile, ProfileError, profile_from_cards
from vision.render_mat import FILL, render_mat
from vision.sources.base import FramePair, FrameSource
from vision.types import FloatImage, Image

PHOTO_SUFFIXES: Final = (".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp")
# Mean level difference under which two cut-outs are one card: a card left lying
# differs only by noise (a re-laid one of the same card ~12, two different cards >= 19).
SAME_CARD_DIFF: Final = 15.0


def _exif_orientation(data: bytes) -> int:
    """The EXIF Orientation (1..8) of JPEG bytes; 1 when there is none."""
    if not data.startswith(b"\xff\xd8"):
        return 1
    i = 2
    try:
        while i + 4 <= len(data) and data[i] == 0xFF and data[i + 1] not in (0xD9, 0xDA):
            seg = int.from_bytes(data[i + 2:i + 4], "big")
            if data[i + 1] == 0xE1 and data[i + 4:i + 10] == b"Exif\x00\x00":
                tiff = data[i + 10:i + 2 + seg]
                order: Literal["big", "little"] = "big" if tiff[:2] == b"MM" else "little"
                ifd = int.from_bytes(tiff[4:8], order)
                for k in range(int.from_bytes(tiff[ifd:ifd + 2], order)):
                    e = ifd + 2 + 12 * k
                    if int.from_bytes(tiff[e:e + 2], order) == 0x0112:
                        value = int.from_bytes(tiff[e + 8:e + 10], order)
                        return value if 1 <= value <= 8 else 1
                return 1
            i += 2 + seg
    except IndexError:
        pass
    return 1


def _orient(img: Image, orientation: int) -> Image:
    """The image as it is meant to be seen, from its stored pixels and EXIF orientation."""
    if orientation in (5, 6, 7, 8):  # stored on its side: transposed first
        img = cv2.transpose(img)
        orientation = {5: 1, 6: 2, 7: 3, 8: 4}[orientation]
    if orientation == 2:
        return cv2.flip(img, 1)
    if orientation == 3:
        return cv2.rotate(img, cv2.ROTATE_180)
    if orientation == 4:
        return cv2.flip(img, 0)
    return img


def load_image(path: Path) -> Image:
    """A colour image from disk, turned as its EXIF orientation says (as a phone's
    photo is shown), or a ProfileError naming the file and the problem."""
    if not path.is_file():
        raise ProfileError(_("{path}: no such file").format(path=path))
    data = np.fromfile(str(path), np.uint8)
    # The orientation is applied here, not by the decoder: whether imdecode does
    # it has changed between OpenCV versions.
    flags = cv2.IMREAD_COLOR | cv2.IMREAD_IGNORE_ORIENTATION
    try:
        img = cv2.imdecode(data, flags) if data.size else None
    except cv2.error:  # refused before decoding: it claims more pixels than allowed
        raise ProfileError(_("{path}: image too large (over 100 megapixels)").format(
            path=path)) from None
    if img is None:
        raise ProfileError(_("{path}: not a readable image (corrupt or unsupported "
                             "format)").format(path=path))
    return _orient(img, _exif_orientation(data[:65536].tobytes()))


def find_card(img: Image, card_w: float = CARD_W, card_h: float = CARD_H,
              name: str = "photo", background: Image | None = None,
              margin_mm: float = 0.0) -> Image:
    """The card in a photo, flattened upright (WARP_PX px/mm), with ``margin_mm`` of
    the photo around it (found by its outline only).

    With a known ``background`` (the printed mat, live enrolment) the card is
    what differs from it, white-balanced by the mat's known fill. Otherwise it
    is found by its outline on any table, and left as the photo's light made
    it: ``balance_deck`` balances a deck's photos against each other.
    """
    if background is not None:
        return _find_on_mat(img, card_w, card_h, name, background)
    h, w = img.shape[:2]
    corners, width = find_outline(img, card_w, card_h, name)
    m = 1.0  # px of slack from the frame's edge
    outside = [e for e, bad in zip(EDGES, (corners[:, 1].min() < m, corners[:, 0].max() > w - m,
                                           corners[:, 1].max() > h - m, corners[:, 0].min() < m),
                                   strict=True) if bad]
    if outside:
        raise ProfileError(ngettext(
            "{name}: the card's {edges} edge touches the photo's edge: step back so that "
            "the whole card is in view",
            "{name}: the card's {edges} edges touch the photo's edge: step back so that the "
            "whole card is in view", len(outside)).format(
                name=name, edges=_(" and ").join(_(e) for e in outside)))
    px_mm = float(np.linalg.norm(corners[3] - corners[0])) / card_h
    if px_mm < 2.0:
        raise ProfileError(_("{name}: the card is too small in the photo ({px} px across): "
                             "move closer").format(name=name, px=f"{px_mm * card_w:.0f}"))
    if width / px_mm > 2.0:
        raise ProfileError(_("{name}: the photo is too blurred (the card's edges are {mm} mm "
                             "wide): hold still and focus on the card").format(
                                 name=name, mm=f"{width / px_mm:.1f}"))
    flat = flatten(img, corners, card_w, card_h, margin_mm)
    m = round(margin_mm * WARP_PX)
    card = flat[m:flat.shape[0] - m, m:flat.shape[1] - m]
    # A dark-faced card is no dark photo: its light print still shows. A photo too
    # dark to read has no bright part at all.
    if float(np.percentile(cv2.cvtColor(card, cv2.COLOR_BGR2GRAY), 99.9)) < 60:
        raise ProfileError(_("{name}: the card is too dark to read: more light, "
                             "please").format(name=name))
    return flat


def _find_on_mat(img: Image, card_w: float, card_h: float, name: str,
                 background: Image) -> Image:
    """The card lying on a known background (the mat), white-balanced by its fill."""
    h, w = img.shape[:2]
    edge = np.zeros((h, w), bool)
    edge[:8], edge[-8:], edge[:, :8], edge[:, -8:] = True, True, True, True
    bg = np.median(img[edge], axis=0).astype(np.float32)
    # Match the known background's exposure to the photo on the border, then
    # the mat's printed lines cancel out.
    ref = background.astype(np.float32)
    gain = np.median(img[edge].astype(np.float32) / np.maximum(ref[edge], 1.0), axis=0)
    # Summed over the channels: a dark, muted frame may be close to the background
    # in every channel and still clearly differ in all three together.
    diff = np.abs(img.astype(np.float32) - ref * gain).sum(axis=2)
    mask = (diff > 45).astype(np.uint8) * 255
    k = max(3, round(min(h, w) / 100))
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((k, k), np.uint8))
    # Thin things (printed lines, a misregistered outline) are not the card.
    k = max(3, round(min(h, w) / 50))
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((k, k), np.uint8))
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        raise ProfileError(f"{name}: no card found (is the card in view?)")
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
        corners = order_corners(np.asarray(quad, np.float32))
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
        raise ProfileError(f"{name}: the card lies sideways; lay it upright, index at the top")
    if best[0] > 0.15:
        raise ProfileError(f"{name}: could not find the card's outline cleanly "
                           "(lay it flat inside the zone, the whole card in view)")
    target = np.array(FILL, np.float32)
    gain = target / np.maximum(bg, 1.0)
    gain *= 3.0 / gain.sum()  # only the colour balance, not the exposure
    return np.clip(best[1].astype(np.float32) * gain, 0, 255).astype(np.uint8)


def enroll_from_dir(folder: Path, name: str | None = None, card_w: float = CARD_W,
                    card_h: float = CARD_H, partial: bool = False,
                    keep_outlines: Collection[str] = (), jobs: int = 1) -> DeckProfile:
    """A profile from ``folder``: ``R7.jpg``, ``AL.png``, ... one photo per card.
    ``keep_outlines``: tokens whose outline is taken as found even where the deck's
    layout says it lies off its card (the player has looked: the photo is right).
    ``jobs``: photos looked at at once, each worker its own (``vision.enrolment.workers``)."""
    if not folder.is_dir():
        raise ProfileError(_("{folder}: not a folder").format(folder=folder))
    keep: set[str] = set()
    for token in keep_outlines:
        try:
            keep.add(parse_token(token).token)
        except NotationError:
            raise ProfileError(_("--keep-outline {name}: not a card token").format(
                name=repr(token))) from None
    cards: dict[str, Image] = {}
    tables: dict[str, FloatImage] = {}
    problems: list[str] = []
    shots: dict[str, Path] = {}
    for path in sorted(folder.iterdir()):
        if path.suffix.lower() not in PHOTO_SUFFIXES:
            continue
        try:
            token = parse_token(path.stem).token
        except NotationError:
            problems.append(_("{file}: {name} is not a card token").format(
                file=path.name, name=repr(path.stem)))
            continue
        if token in shots:
            problems.append(_("{file}: a second photo of {token}").format(
                file=path.name, token=token))
            continue
        shots[token] = path
    args = (list(shots.values()), repeat(card_w), repeat(card_h))
    if jobs > 1 and len(shots) > 1:
        with workers(jobs) as pool:
            found = list(pool.map(_enrol_or_why, *args))
    else:
        found = list(map(_enrol_or_why, *args))
    for token, got in zip(shots, found, strict=True):
        if isinstance(got, str):
            problems.append(got)
        else:
            cards[token], tables[token] = got
    if problems:
        raise ProfileError(_("cannot enrol:") + "\n  " + "\n  ".join(problems))
    if not cards:
        raise ProfileError(_("{folder}: no photo of a card in it (JPEG, PNG, ... named by "
                             "token: R7.jpg, AL.png)").format(folder=folder))
    missing = [c.token for c in ALL_CARDS if c.token not in cards]
    if missing and not partial:
        raise ProfileError(ngettext(
            "{folder}: no photo of {n} card: {cards}. A reader that does not know a card "
            "would mistake it for another; photograph them all (or pass --partial to accept "
            "the risk).",
            "{folder}: no photo of {n} cards: {cards}. A reader that does not know a card "
            "would mistake it for another; photograph them all (or pass --partial to accept "
            "the risk).", len(missing)).format(folder=folder, n=len(missing),
                                               cards=", ".join(missing)))
    # Terrain cards are optional: only the medieval edition has them.
    try:
        return profile_from_photos(cards, tables, name or folder.name, card_w, card_h, keep)
    except OutlinesOff as off:
        # A card printed unlike its layout on one side only would be named at every
        # retake: the player, having looked, may keep its photo.
        raise ProfileError(_("cannot enrol:") + "\n  " + "\n  ".join(off.problems) + "\n"
                           + _("(if a photo named here does show its whole card, cut along "
                               "its edges, pass --keep-outline TOKEN to take it as it is)")
                           ) from off


def enrol_photo(path: Path, card_w: float = CARD_W, card_h: float = CARD_H,
                ) -> tuple[Image, FloatImage]:
    """One photo's card, found and flattened, and the colour of the table around it
    (``ProfileError``, saying what to change, where the photo cannot be used)."""
    photo = load_image(path)
    return find_card(photo, card_w, card_h, path.name, margin_mm=MARGIN_MM), table_colour(photo)


def _enrol_or_why(path: Path, card_w: float, card_h: float) -> tuple[Image, FloatImage] | str:
    """``enrol_photo``, or what is wrong with the photo: every photo's problem is told."""
    try:
        return enrol_photo(path, card_w, card_h)
    except ProfileError as exc:
        return str(exc)


class OutlinesOff(ProfileError):
    """Cards whose photos were cut out off their card (``consensus.astray``): each
    must be shot again. ``sides``: per token, the side its outline lies off on."""

    def __init__(self, sides: dict[str, str]) -> None:
        self.sides = sides
        self.problems = [
            _("{token}: the card's outline was found off its {edge} edge (the table's "
              "pattern or a line printed on the card taken for the edge): shoot it again, "
              "the whole card in view, on a plainer table if you can"
              ).format(token=t, edge=_(e)) for t, e in sorted(sides.items())]
        super().__init__("\n".join(self.problems))


def profile_from_photos(cards: dict[str, Image], tables: dict[str, FloatImage], name: str,
                        card_w: float = CARD_W, card_h: float = CARD_H,
                        keep: Collection[str] = ()) -> DeckProfile:
    """The profile of the cards ``enrol_photo`` found (by token), with their tables
    (``OutlinesOff`` where some were cut out off their card, but for the tokens the
    player said to ``keep`` as found)."""
    # Each side of each card where the deck's shared layout says it lies.
    sides = deck_sides(cards, WARP_PX, card_w, card_h)
    off = {t: e for t, e in astray(cards, sides, WARP_PX, card_w, card_h).items()
           if t not in keep}
    if off:
        raise OutlinesOff(off)
    cards = square_deck(cards, WARP_PX, card_w, card_h, sides)
    return profile_from_cards(name, balance_deck(cards, tables, WARP_PX), card_w, card_h)


def distinctness(profile: DeckProfile) -> list[tuple[str, str, float]]:
    """Per card, its nearest other card in the profile and how far apart they are,
    hardest first: 1 - the grey bands' normalised correlation, plus the colour
    signatures' distance in Lab units / 50. Below about 0.1 a pair is hard to tell."""
    if len(profile.tokens) < 2:
        return []
    z = profile.gray.reshape(len(profile.tokens), -1).astype(np.float64)
    z = z - z.mean(axis=1, keepdims=True)
    z /= np.maximum(np.linalg.norm(z, axis=1, keepdims=True), 1e-9)
    c = profile.chroma.astype(np.float64)
    score = (1 - z @ z.T) + np.linalg.norm(c[:, None] - c[None], axis=2) / 50.0
    np.fill_diagonal(score, np.inf)
    near = score.argmin(axis=1)
    out = [(t, profile.tokens[int(j)], float(score[i, j]))
           for i, (t, j) in enumerate(zip(profile.tokens, near, strict=True))]
    return sorted(out, key=lambda r: r[2])


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
            raise ProfileError(_("nothing to enrol: the list of cards is empty"))
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
            raise ProfileError(_("no card captured yet: nothing to make a profile of"))
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
        for _frame in range(max_frames):
            pair = source.read()
            if session.feed(pair, calib.update(pair.main)).kind == "captured":
                break
        else:
            raise ProfileError(ngettext(
                "{token}: no card seen in the enrolment zone ({zone}) after {n} frame",
                "{token}: no card seen in the enrolment zone ({zone}) after {n} frames",
                max_frames).format(token=token, zone=ENROL_ZONE, n=max_frames))
    return session.profile()
