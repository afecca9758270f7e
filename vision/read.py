"""Read every zone of the mat: the fanned cards in order, each with a token and a confidence.

The pipeline for one frame:
1. warp a low-resolution top-down view (1 px/mm) of the mat from the frame;
2. measure the light: the mat's plain fill is known, so a smooth per-channel
   gain field fitted where the mat shows gives the light gradient and the
   colour cast, and dividing by it gives true colours; where the mat is
   lighter than that field in every channel, as added white makes it, it
   shows how much glare lies there;
3. in each zone (turned so card tops point up) separate cards from the mat,
   find the stack's extent and the top edge of every card in it: the first is
   the stack's top, the last lies one card height above the stack's bottom,
   and covered cards show as horizontal edges in between (of two edges closer
   than two cards' tops can be, at most one is a card's: the upper one is read
   first, and where it is a card the lower one is a line in its art);
4. place each card's index band exactly, from the full-resolution frame: one
   small warp (tilt 0) shows the card's top edge; the tilt is that of the
   straight line strong across nearly the whole width (the top edge and the
   frame printed parallel to it), found by summing column strips' colour
   steps along every line of the tilts a hand puts a card down with (and
   between two tilts tried, where a parabola through the line strengths
   peaks). A second warp turns the band upright at template scale. Where it
   lies: where the deck's average band (its shared layout) fits, or on one of
   the strongest lines, across where that layout fits or where both side
   edges show; the placement some card explains best (a quick look on every
   other pixel) wins, and the search moves on while the best fit lies at the
   edge of the pixels searched. A card named from an index found beyond the
   warped band, or read unknown there yet ranked like an index, is read again
   with the band warped around it. A band read unknown or doubtful, yet
   ranked like an index, is read again at the runner-up tilt (a line printed
   on the mat may have passed for the card's edge); the tilt some card fits
   better stands. A stack's first or
   last band is looked for further along when it fits badly (the outline was
   off), and a gap wider than any fan is searched for the card hidden in it;
5. classify: every token is ranked by grey normalised cross-correlation on
   every other pixel each way (one matrix product of zero-mean unit-norm
   templates and the band at every shift of a pixel), then by that
   correlation minus a colour distance above a noise floor (glare pales
   a colour toward grey, so a token's chroma may be scaled down to the
   band's; a troop's colour is its suit's median, as one photo's white
   balance says nothing between two cards of a suit); the leaders are then
   compared pairwise where their templates differ (the numeral, the pips,
   the name) and by colour, each where it fits best (a rival that looks
   better where it fits leaves no margin). The winner's smallest pairwise
   margin is its confidence, lowered when the band is unlike the winner where the winner
   differs from the other leaders (a card the profile lacks is nearer to one
   of its suit than to the rest, yet unlike it just there). A weak match
   (unless the grey is all but exact and no colour is nearer), a small margin
   or that unlikeness makes the card ``unknown``, never a guess, and so does a
   winner the ranking put behind another unless the band is clearly like it
   where it differs. A good match whose leaders are too alike gets a second
   look, band and templates with their contrast stretched locally: a pale
   numeral (yellow on yellow, or under glare) then counts as much as black
   print. A candidate edge whose band looks like no index is not a card (it
   is a line in the art), nor is a band of the stack's outline that no token
   ranks even weakly for (glare or a shadow on the mat passed for card there).

Every zone's reading is a generator that asks for the bands it reads next (one
card's, or every place a stack's band may lie): where it looks next depends on
what it found below. The bands all zones ask for at once are read together,
each step one call for all of them (or for all of one visible height), which
is most of what keeps a frame quick. So a zone asks ahead, with its last card,
for every top whose ask cannot wait on what lies below it (the band shows
whole whatever is found there); a read asked ahead is used only where the top
is then asked just so, and the reads are the same as one at a time.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Collection, Generator
from dataclasses import dataclass, field
from typing import Any, Final, NamedTuple

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.rules.cards import Troop, parse_token
from companion.rules.errors import NotationError
from vision.band_model import SEARCH_PX, BandModel
from vision.calibrate import Calibration
from vision.mat import MatLayout, Zone, standard_mat
from vision.position import UNKNOWN, build_position, unique_tokens
from vision.profile import (
    BLUR,
    INSET_X,
    INSET_Y,
    TPL_PX,
    DeckProfile,
    ProfileError,
    band_px,
    sample_signatures,
)
from vision.render_mat import background_mask, render_mat
from vision.types import FloatImage, Image

LOW_PX: Final = 1.0  # px/mm of the low-resolution top-down view
ZONE_MARGIN: Final = 6.0  # mm around a zone where a crooked card may stick out
FG_THRESHOLD: Final = 38.0  # colour distance from the printed mat that means "not mat"
COLOUR_WEIGHT: Final = 1 / 100.0  # ranking penalty per Lab unit of colour difference
PAIR_COLOUR_SCALE: Final = 60.0  # Lab units worth a whole correlation point between two leaders
TOP_K: Final = 4
COLOUR_FLOOR: Final = 8.0  # Lab units of colour difference that are only noise
GLARE_PALEST: Final = 0.35  # least share of a card's chroma glare may leave
GLARE_LEAST: Final = 0.15  # share of white light over a band below which it is left on
GLARE_MOST: Final = 0.8  # share of white light over a band taken off at most
LIGHT_SAMPLES: Final = 1500
GLARE_MAT_MM: Final = 50.0  # the mat around a band whose glare is taken for the band's
GLARE_MAT_SAMPLES: Final = 8  # mat samples that takes
TILT_STEP: Final = 0.01
TILTS: Final = tuple(round(-0.07 + TILT_STEP * i, 3) for i in range(15))  # card slopes tried
STRIPS: Final = 8  # column strips a card's top edge is followed in (``_top_edges`` takes eight)
SURE: Final = 0.75  # a read less confident than this is tried at the runner-up tilt too
TILT_WORTH: Final = 0.6  # unless no token ranks this high for it: no tilt makes it a card
TILT_APART: Final = 0.03  # a runner-up tilt differs from the best by this at least
LINES: Final = 2  # strongest straight lines tried as the card's top edge
SHIFT_PX: Final = 1  # template search range around the chosen placement, each way
RECENTRE: Final = 3  # searches around the placement, each centred on the last one's best
REFINE_MM: Final = 5.0  # how far the band may be from where the low-res view put it
MIN_SCORE: Final = 0.85  # below: the band matches nothing in the profile well enough
MAX_RANK_GAP: Final = 0.06  # how far below the best ranked a pairwise winner may start
INDEX_FIT: Final = 0.72  # below: the band is unlike the winner where its index differs
INDEX_GOOD: Final = 0.88  # from here on that likeness leaves the confidence whole
MIN_MARGIN: Final = 0.12  # below: two tokens are too alike to choose -> unknown
SHAPE_SURE: Final = 0.95  # grey correlation that lets a card's colour be off by more
SHAPE_SURE_SCORE: Final = 0.75  # than the noise floor, down to this score
LOCAL_SIGMA: Final = 3.0  # px: the neighbourhood a second look stretches the contrast over
LOCAL_FLOOR: Final = 0.02  # grey level spread (0..1) below which a neighbourhood is flat
LOCAL_MARGIN: Final = 0.4  # MIN_MARGIN of the second look
LOCAL_FIT: Final = 0.82  # INDEX_FIT of the second look (a yellow 8 the profile lacks
# looks like its yellow 5 up to about 0.8 there)
INDEX_LIKE: Final = 0.8  # a weak edge is a card only if its band matches this well
NO_INDEX: Final = 0.4  # a band no token ranks this high for is no card (a real card
# read unknown under glare still ranks about 0.45 or more)
RETRY_MM: Final = (8.0, -8.0, 16.0)  # further places a stack's first or last band may lie
FILL_GAP_MM: Final = 30.0  # more than any two fanned cards' tops lie apart
MIN_GAP_MM: Final = 12.0  # closest two fanned card tops can be: the band (16 mm) shows,
# less what a crooked card hides at one corner
PEAK_SEPARATION_MM: Final = 3.0  # candidate edges closer than this are one edge
COVER_SLACK_MM: Final = 3.0  # a crooked covering card hides this much more at one corner
AHEAD_SLACK_MM: Final = 3.0  # room a band asked ahead has to show whole (``_read_zone``)
MIN_EDGE: Final = 5.0  # colour step (sum of BGR levels) of a covered card's top edge
MODEL_SURE: Final = 0.5  # a learnt model's confidence (``BandModel.judge``) that names a card


_GREY: Final = np.array([[0.114, 0.587, 0.299]], np.float32)  # BGR -> grey, as OpenCV weighs
_APART: Final = np.abs(np.subtract.outer(TILTS, TILTS)) >= TILT_APART  # tilt pairs far apart


@dataclass
class CardRead:
    zone: str
    order: int
    token: str  # a card token, or "unknown"
    confidence: float
    score: float
    corners: list[tuple[float, float]]  # the read band's corners, mat mm
    candidates: list[tuple[str, float]] = field(default_factory=list)
    top_local: float = 0.0  # where the card's top edge was found, zone-local low-res px

    def to_json(self) -> dict[str, Any]:
        return {"zone": self.zone, "order": self.order, "token": self.token,
                "confidence": round(self.confidence, 3)}


@dataclass(frozen=True)
class _Ask:
    """A band a zone's reading asks to be read: where the zone view shows a card's
    top edge (row ``t``, centre ``cx``, zone-local low-res px), how much of the
    band shows, and whether the edge is certainly a card's."""

    zone: Zone
    t: float
    cx: float
    visible: float
    certain: bool


@dataclass(frozen=True)
class _Band:
    """An asked-for band in frame terms: its top-left corner upright (zone-local mm),
    zone-local mm -> frame px, its visible height in template px and the light's
    inverse gain over it (per channel, for 8-bit levels)."""

    ask: _Ask
    u0: float
    v0: float
    to_frame: FloatImage
    hv: int
    gain: FloatImage
    glare: float = 0.0  # the glare the mat around it shows (``_mat_glare``)


class _Light(NamedTuple):
    """The light over the mat: its smooth log-gain (terms x BGR), and at each mat
    sample the white glare the mat shows there beyond it (``glare``: its share of the
    way to white, as every channel says at least)."""

    coef: FloatImage
    glare: FloatImage


class _Placed(NamedTuple):
    """A band warped upright at ``slope`` (as the frame shows it, with the scale per
    channel to its true colours, and in blurred true grey) and where in it the index
    lies (``tx``, ``ty``), with every token's correlation (``corr``, one column each)
    with the band's views over small shifts (``views``, one per row, on every other
    pixel each way)."""

    slope: float
    crop: NDArray[Any]
    scale: FloatImage
    gray: FloatImage
    tx: int
    ty: int
    views: FloatImage
    corr: FloatImage


_Asking = Generator[list[_Ask], list[CardRead | None], list[CardRead]]


def _advance(gen: _Asking, sent: list[CardRead | None] | None, name: str,
             asked: dict[str, list[_Ask]], done: dict[str, list[CardRead]]) -> None:
    """Run a zone's reading on to its next asks, or to its end."""
    try:
        asked[name] = gen.send(sent)  # type: ignore[arg-type]  # None starts it
    except StopIteration as end:
        done[name] = end.value


@dataclass
class FrameRead:
    cards: list[CardRead]
    calibration: Calibration
    foreground: NDArray[np.bool_]  # low-res top-down "not mat" mask
    light: FloatImage  # the light's gain field (BGR) on a grid of 8 low-res pixels

    def __post_init__(self) -> None:
        # Each card exists once: a token read at two places (a look-alike misread as
        # it) stands at one at most, however the read was made (a whole frame, or
        # some zones re-read into the last read).
        self.cards = unique_tokens(self.cards)

    def zones(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for c in self.cards:
            out.setdefault(c.zone, []).append(c.token)
        return out

    def confidences(self) -> dict[str, list[float]]:
        """Per zone, each card's confidence, first played first (like ``zones``)."""
        out: dict[str, list[float]] = {}
        for c in self.cards:
            out.setdefault(c.zone, []).append(c.confidence)
        return out

    def position(self, to_move: str = "south") -> dict[str, Any]:
        return build_position(self.zones(), to_move)

    def to_json(self, to_move: str = "south") -> dict[str, Any]:
        return {
            "format": "battleline-read/1",
            "position": self.position(to_move),
            "cards": [c.to_json() for c in self.cards],
            "unknown": sum(c.token == UNKNOWN for c in self.cards),
            "calibration": {"missing_markers": self.calibration.missing,
                            "fresh": self.calibration.fresh},
        }


def edge_rows(img: FloatImage, q: float = 0.2, spread: int = 5) -> FloatImage:
    """Per row boundary, how strongly the colour changes across most of the width.

    A low percentile over the columns, not the mean: a card's edge changes every
    column, a line of text or pips only some of them. Each column's change is
    spread over ``spread`` rows first, so a slightly crooked edge still counts.
    """
    # Channels summed by OpenCV: numpy's sum over a 3-channel axis is ten times slower.
    d = cv2.transform(cv2.absdiff(img[1:], img[:-1]), np.ones((1, 3), np.float32))
    if spread > 1:
        d = cv2.blur(d, (1, spread))
    k = int(q * (d.shape[1] - 1))
    return np.asarray(np.partition(d, k, axis=1)[:, k], np.float32)


def _sums(mask: Image, axis: int) -> NDArray[np.int32]:
    """A 0/1 mask's sums along ``axis`` (1: per row), by OpenCV: numpy's are several
    times slower on masks this small."""
    return np.asarray(cv2.reduce(mask, axis, cv2.REDUCE_SUM, dtype=cv2.CV_32S).ravel())


def _mostly(mask: Image) -> NDArray[np.bool_]:
    """Per column of a 0/1 mask, whether more than half of it is set."""
    return 2 * _sums(mask, 0) > mask.shape[0]


def _colour_distance(chroma: FloatImage, sig: FloatImage) -> FloatImage:
    """Per band, each token's colour signature's (``chroma[band]``) distance from the
    band's (``sig[band]``), glare allowed for.

    Glare is white light added over the card: it pales every colour toward grey
    by one factor, keeping its hue. So each token's chroma may be scaled down
    (not up) to the band's before the distance is taken.
    """
    k = np.clip((chroma @ sig[:, :, None])[:, :, 0]
                / (np.einsum("bij,bij->bi", chroma, chroma) + 1e-3), GLARE_PALEST, 1.0)
    d = chroma * k[:, :, None] - sig[:, None]
    return np.sqrt(np.einsum("bij,bij->bi", d, d))


def _suit_chroma(tokens: list[str], chroma: FloatImage) -> FloatImage:
    """Each troop's colour signature as the median of its colour's enrolled troops.

    Cards of one colour are printed alike: their signatures differ only by each
    enrolment photo's white balance, which would otherwise count as a colour
    difference between two cards of one suit (and put a card's own suit off).
    """
    suits: dict[object, list[int]] = {}
    for i, token in enumerate(tokens):
        try:
            card = parse_token(token)
        except NotationError:
            continue  # a deck's own extra card: its photo alone says its colour
        if isinstance(card, Troop):
            suits.setdefault(card.colour, []).append(i)
    out = chroma.astype(np.float32, copy=True)
    for idx in suits.values():
        out[idx] = np.median(chroma[idx], axis=0)
    return out


def _distinct(points: set[tuple[int, int]]) -> list[tuple[int, int]]:
    """Drop placements within the shift search of one already kept: it covers them."""
    kept: list[tuple[int, int]] = []
    for p in sorted(points):
        if all(abs(p[0] - k[0]) > SHIFT_PX or abs(p[1] - k[1]) > SHIFT_PX for k in kept):
            kept.append(p)
    return kept


def _poly_terms(u: FloatImage, v: FloatImage) -> FloatImage:
    return np.stack([np.ones_like(u), u, v, u * u, u * v, v * v], axis=-1)


class Reader:
    def __init__(self, profile: DeckProfile, layout: MatLayout | None = None,
                 model: BandModel | None = None) -> None:
        if len(profile.tokens) < 2:
            # Choosing a card means preferring it to another one.
            raise ProfileError(f"deck profile {profile.name!r}: holds {len(profile.tokens)} "
                               "card(s); enrol at least two")
        self.profile = profile
        self.model = model  # names the cards where given; else the templates do
        self.layout = layout or standard_mat()
        lay = self.layout
        self.low_size = (round(lay.width * LOW_PX), round(lay.height * LOW_PX))
        self._ref8 = render_mat(LOW_PX, lay)
        self.ref = self._ref8.astype(np.float32)
        bg = background_mask(LOW_PX, lay)
        ys, xs = np.nonzero(bg)
        # A few thousand evenly spread samples measure a smooth light field well.
        pick = np.linspace(0, len(ys) - 1, min(LIGHT_SAMPLES, len(ys))).astype(int)
        ys, xs = ys[pick], xs[pick]
        self._bg_at = ys * self.low_size[0] + xs  # pixel numbers, row-major
        self._bg_xy = np.stack([xs, ys], axis=1).astype(np.float64) / LOW_PX  # mat mm
        # Per zone, the samples within reach of its bands' glare measure (a card may
        # stick out by ZONE_MARGIN).
        reach = GLARE_MAT_MM + ZONE_MARGIN
        x, y = self._bg_xy.T
        self._zone_samples: dict[str, tuple[NDArray[np.intp], FloatImage, FloatImage]] = {}
        for z in self.layout.zones:
            idx = np.nonzero((x > z.rect.x - reach) & (x < z.rect.x + z.rect.w + reach)
                             & (y > z.rect.y - reach) & (y < z.rect.y + z.rect.h + reach))[0]
            self._zone_samples[z.name] = (idx, x[idx].copy(), y[idx].copy())
        terms = _poly_terms(*self._norm(xs.astype(np.float32), ys.astype(np.float32)))
        self._bg_terms = terms.astype(np.float64)  # samples x terms
        self._bg_terms_t = np.ascontiguousarray(self._bg_terms.T)
        # Every product of two terms per sample: one matrix product with the samples
        # each channel keeps then gives all three channels' normal equations.
        self._bg_products = (self._bg_terms[:, :, None] * self._bg_terms[:, None, :]).reshape(
            len(ys), 36)
        self._log_ref = np.ascontiguousarray(np.log(self.ref[ys, xs] + 8.0).T)  # BGR x samples
        gy, gx = np.mgrid[0:self.low_size[1]:8, 0:self.low_size[0]:8].astype(np.float32)
        self._grid_terms = _poly_terms(*self._norm(gx, gy))
        self._templates = profile.gray
        self._chroma = _suit_chroma(profile.tokens, profile.chroma)
        self._tpl_cache: dict[tuple[int, int], tuple[FloatImage, FloatImage]] = {}
        self._rows_cache: dict[tuple[int, int], FloatImage] = {}
        self._dark_cache: dict[int, FloatImage] = {}
        self._local_cache: dict[int, tuple[FloatImage, FloatImage]] = {}
        self._line_cache: dict[
            int, tuple[NDArray[np.intp], NDArray[np.intp], FloatImage, FloatImage]] = {}
        self._tw, self._th = band_px(profile.card_w, profile.band_mm)
        ix, iy = round(INSET_X * TPL_PX), round(INSET_Y * TPL_PX)
        # The deck's average band (its shared layout), at half resolution.
        mt = np.ascontiguousarray(profile.gray[:, iy:, ix:self._tw - ix].mean(axis=0),
                                  np.float32)
        self._mean_half = cv2.resize(mt, (mt.shape[1] // 2, mt.shape[0] // 2),
                                     interpolation=cv2.INTER_AREA)

    def _norm(self, x: FloatImage, y: FloatImage,
              ) -> tuple[FloatImage, FloatImage]:
        return (x / self.low_size[0] - 0.5).astype(np.float32), (
            y / self.low_size[1] - 0.5).astype(np.float32)

    # -- light -----------------------------------------------------------------------
    def _fit_light(self, low: FloatImage) -> _Light:
        """Per-channel quadratic log-gain over the mat, robust to what covers it."""
        # Channel-major (BGR x samples): every step runs along contiguous rows.
        obs = (np.log(low.reshape(-1, 3)[self._bg_at].T.astype(np.float32) + 8.0)
               - self._log_ref).astype(np.float64)
        keep = np.abs(obs - np.median(obs, axis=1, keepdims=True)) < 0.35
        channels = np.arange(3)
        for _ in range(3):
            kept = keep.astype(np.float64)
            ata = (kept @ self._bg_products).reshape(3, 6, 6) + 1e-6 * np.eye(6)
            coef = np.linalg.solve(ata, ((kept * obs) @ self._bg_terms)[..., None])[..., 0]
            r = np.abs(obs - coef @ self._bg_terms_t)
            # Each channel's median residual over its kept samples (the others sort last).
            ranked = np.sort(np.where(keep, r, np.inf), axis=1)
            n = keep.sum(axis=1)
            mad = (ranked[channels, (n - 1) // 2] + ranked[channels, n // 2]) / 2 + 1e-3
            keep = r < np.maximum(0.05, 3 * mad)[:, None]
        fit = coef @ self._bg_terms_t
        # Added white lifts the mat's level m to m + s (255 - m): each sample's s.
        m = np.exp(self._log_ref + fit) - 8.0
        s = (m + 8.0) * np.expm1(obs - fit) / np.maximum(255.0 - m, 1.0)
        return _Light(np.asarray(coef.T), s.min(axis=0))

    # -- the frame ---------------------------------------------------------------------
    def read(self, frame: Image, calib: Calibration,
             zones: Collection[str] | None = None) -> FrameRead:
        """Every zone's cards, or only those of the named ``zones``."""
        if frame.ndim != 3 or frame.shape[2] != 3:
            raise ValueError(f"expected a BGR colour frame, got an array of shape {frame.shape}")
        # Half size by 2x2 means (as much detail as 1 px/mm needs; calibrating on this
        # frame made it already), then top-down.
        half = calib.half_frame(frame)
        to_low = (np.diag([LOW_PX, LOW_PX, 1.0]) @ calib.frame_to_mat
                  @ np.diag([frame.shape[1] / half.shape[1], frame.shape[0] / half.shape[0], 1.0]))
        # Warped as four channels: OpenCV's bilinear warp has a vector path for four
        # channels, none for three (same values, less than half the time).
        low = cv2.cvtColor(cv2.warpPerspective(
            cv2.cvtColor(half, cv2.COLOR_BGR2BGRA), to_low, self.low_size,
            flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE), cv2.COLOR_BGRA2BGR)
        light = self._fit_light(low)
        gain = cv2.exp(self._grid_terms @ light.coef).astype(np.float32)  # numpy's: twice the time
        # True colours: the view times the gain's inverse, made in that inverse's place
        # (a big array fewer: a fresh one may cost more in page faults than the product).
        corrected = cv2.resize(1.0 / gain, self.low_size, interpolation=cv2.INTER_LINEAR)
        np.multiply(corrected, low, out=corrected)
        diff = cv2.convertScaleAbs(corrected)
        cv2.absdiff(diff, self._ref8, dst=diff)
        # Not mat: any channel further from the printed mat than FG_THRESHOLD. Such a
        # channel set to 255 alone leaves a grey above 0 (half inRange's time).
        cv2.threshold(diff, FG_THRESHOLD, 255, cv2.THRESH_BINARY, dst=diff)
        fg: Image = cv2.cvtColor(diff, cv2.COLOR_BGR2GRAY)
        cv2.threshold(fg, 0, 1, cv2.THRESH_BINARY, dst=fg)
        fg = cv2.morphologyEx(fg, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        fg = cv2.morphologyEx(fg, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
        m2f = calib.mat_to_frame
        # Every zone's reading runs side by side: each asks for one band at a time
        # (where it looks next depends on what it found), and the bands all zones
        # ask for at once are read together, one call per step for all of them.
        readers = {zone.name: self._read_zone(zone, fg, corrected)
                   for zone in self.layout.zones if zones is None or zone.name in zones}
        done: dict[str, list[CardRead]] = {}
        asked: dict[str, list[_Ask]] = {}
        for name, gen in readers.items():
            _advance(gen, None, name, asked, done)
        while asked:
            names = list(asked)
            batches = [asked.pop(n) for n in names]
            got = self._classify_many([a for b in batches for a in b], frame, m2f, light)
            k = 0
            for name, b in zip(names, batches, strict=True):
                _advance(readers[name], got[k:k + len(b)], name, asked, done)
                k += len(b)
        cards = [rd for name in readers for rd in done[name]]
        return FrameRead(cards, calib, fg.astype(bool), gain)

    # -- one zone ----------------------------------------------------------------------
    def _zone_view(self, zone: Zone, img: NDArray[Any]) -> NDArray[Any]:
        """The zone (and ZONE_MARGIN around it) of a low-res view, card tops up."""
        return self._turned(zone, self._zone_crop(zone, img))

    @staticmethod
    def _turned(zone: Zone, crop: NDArray[Any]) -> NDArray[Any]:
        """A zone cut out of a low-res view (``_zone_crop``), turned card tops up."""
        # Turned by OpenCV: numpy's reversed view makes every later step many times slower.
        return crop if zone.up == "up" else cv2.flip(crop, -1)

    @staticmethod
    def _zone_crop(zone: Zone, img: NDArray[Any]) -> NDArray[Any]:
        r, m = zone.rect, ZONE_MARGIN
        x0, y0 = round((r.x - m) * LOW_PX), round((r.y - m) * LOW_PX)
        x1, y1 = round((r.x + r.w + m) * LOW_PX), round((r.y + r.h + m) * LOW_PX)
        return img[max(y0, 0):y1, max(x0, 0):x1]

    def _to_mat(self, zone: Zone, u: float, v: float) -> tuple[float, float]:
        """Zone-local mm (tops up, origin at the margin's corner) -> mat mm."""
        r, m = zone.rect, ZONE_MARGIN
        if zone.up == "up":
            return r.x - m + u, r.y - m + v
        return r.x + r.w + m - u, r.y + r.h + m - v

    def _read_zone(self, zone: Zone, fg_all: Image, colour_all: FloatImage) -> _Asking:
        """A zone's cards, first played first: asks (yields) for the bands it reads, a
        list at a time."""
        p = self.profile
        crop = self._zone_crop(zone, fg_all)
        # A stack shows at least two rows nearly half a card wide (below): with fewer
        # pixels set in the whole view, as most zones have, there is none to look for.
        if cv2.countNonZero(crop) < 2 * 0.45 * p.card_w * LOW_PX:
            return []
        fg = self._turned(zone, crop)
        if zone.kind != "formation":
            # Beyond this zone's far end lies another zone's cards (a formation's
            # first card, the next pile): they are not part of this stack.
            fg = fg.copy()
            fg[round((ZONE_MARGIN + zone.rect.h + 1) * LOW_PX):] = 0
        rows = _sums(fg, 1)
        ok = np.nonzero(rows >= 0.45 * p.card_w * LOW_PX)[0]
        if len(ok) == 0 or ok[-1] - ok[0] < p.band_mm * 0.8:
            return []
        top, bottom = float(ok[0]), float(ok[-1] + 1)
        cols = _mostly(fg[int(top):int(bottom)])
        ccols = np.nonzero(cols)[0]
        if len(ccols) < 10:
            return []
        c0, c1 = ccols[0], ccols[-1]
        inner = slice(int(c0 + 0.15 * (c1 - c0)), int(c1 - 0.15 * (c1 - c0)) + 1)
        # Tops: the stack's top, the last card one card height above the bottom, and
        # the horizontal edges in between.
        tops: list[tuple[float, bool]] = [(top, True)]
        last = bottom - p.card_h * LOW_PX
        grad: FloatImage = np.zeros(0, np.float32)
        if last > top + MIN_GAP_MM:
            grad = edge_rows(self._zone_view(zone, colour_all)[:, inner])
            grad = np.convolve(grad, [0.25, 0.5, 0.25], mode="same")
            lo, hi = int(max(last - 4, top + MIN_GAP_MM)), int(min(last + 4, len(grad) - 1))
            last = float(lo + np.argmax(grad[lo:hi + 1]) + 1) if hi > lo else last
            between = grad[int(top + MIN_GAP_MM):int(last - MIN_GAP_MM + 1)]
            base = int(top + MIN_GAP_MM)
            mid = between[1:-1]
            peaks = (base + 2 + np.nonzero((mid >= between[:-2]) & (mid > between[2:])
                                           & (mid > MIN_EDGE))[0]).tolist()
            # Keep the strongest peaks, one per edge; which are cards is decided later.
            chosen: list[int] = []
            strength = grad.tolist()
            for pk in sorted(peaks, key=lambda q: -strength[q - 1]):
                if all(abs(pk - c) >= PEAK_SEPARATION_MM * LOW_PX for c in chosen):
                    chosen.append(pk)
            tops += [(float(c), False) for c in sorted(chosen)]
            tops.append((last, True))
        # From the last card up: each card's visible height ends at the next card
        # actually found, not at a line in the art.
        reads: list[CardRead] = []
        sure: list[bool] = []

        def shown(t: float, below: float) -> tuple[float, int, int]:
            """All that the ask of the top at ``t`` (the next card found below it at
            ``below``) depends on: the top, where the rows its centre is taken over end,
            and its visible height in template px."""
            visible = min(p.band_mm, below - t - COVER_SLACK_MM)
            return t, int(t + max(visible, 3)), min(self._th, max(int(visible * TPL_PX), 8))

        def ask_at(t: float, certain: bool, below: float) -> _Ask:
            """The ask of the top at ``t``, the next card found below it at ``below``."""
            _, end, _ = shown(t, below)
            band_rows = fg[int(t) + 1:end]
            covered = _mostly(band_rows) if len(band_rows) else cols
            return _Ask(zone, t, self._card_centre(covered, p.card_w, (c0 + c1 + 1) / 2),
                        min(p.band_mm, below - t - COVER_SLACK_MM), certain)

        # Two tops closer than two cards' can be are at most one card's: the upper
        # one is looked at first, and where it is a card the lower one is a line in
        # its band's art (the classic deck prints one some 8 mm under a card's top).
        # Where it is not, the lower one is looked at as any other top.
        up = tops[::-1]
        paired = [not c and j + 1 < len(up) and not up[j + 1][1]
                  and t - up[j + 1][0] < MIN_GAP_MM * LOW_PX for j, (t, c) in enumerate(up)]
        # Asked ahead, in the first round with the last card: every top whose ask
        # already follows, as it does while each top below it that is not certain is
        # a line in the art (as most are) and each that is lies where the outline
        # shows it: its band shows whole with AHEAD_SLACK_MM to spare, and (for a top
        # that is not certain) no top below it but the one it is paired with lies
        # close enough to hide it. A read asked ahead stands when its top's ask turns
        # out the same (a band's read does not depend on what else is read with it);
        # most do, and a zone of three cards then takes one round or two, not four.
        ahead: dict[tuple[float, int, int], _Ask] = {}
        below = bottom
        for j, (t, certain) in enumerate(up):
            if below == bottom or (
                    below - t - COVER_SLACK_MM >= p.band_mm + AHEAD_SLACK_MM
                    and (certain or not any(
                        not c and t < u < t + (MIN_GAP_MM + AHEAD_SLACK_MM) * LOW_PX
                        and not (k + 1 == j and paired[k]) for k, (u, c) in enumerate(up)))):
                ahead[shown(t, below)] = ask_at(t, certain, below)
            if certain:
                below = t
        early = dict(zip(ahead, (yield list(ahead.values())), strict=True))
        asked = {k: (a.cx, early[k]) for k, a in ahead.items()}

        def read_at(t: float, certain: bool, below: float) -> Generator[
                list[_Ask], list[CardRead | None], CardRead | None]:
            """The card whose top edge is at ``t``, the next card found below it at
            ``below``; ``None`` where there is none."""
            now = shown(t, below)
            if now not in asked:
                one = ask_at(t, certain, below)
                asked[now] = (one.cx, (yield [one])[0])
            cx, rd = asked[now]
            if rd is None:
                return None  # a line in the art, not a card's edge
            if certain and rd.score < MIN_SCORE:
                # The stack's outline was off (glare or a shadow on the mat next to
                # it looks like card): look for the band a little further along.
                # All asked at once (one round, not up to three), taken in turn.
                steps = [step for step in RETRY_MM
                         if 0 <= t + step <= below - MIN_GAP_MM * LOW_PX]
                further = (yield [_Ask(zone, t + step * LOW_PX, cx,
                                       min(p.band_mm, below - t - step - COVER_SLACK_MM),
                                       certain) for step in steps]) if steps else []
                for other in further:
                    if other is not None and other.score > rd.score:
                        rd = other
                    if rd.score >= MIN_SCORE:
                        break
            if reads and rd.top_local > below - MIN_GAP_MM * LOW_PX:
                return None  # snapped onto the card already found below it
            if certain and rd.score < MIN_SCORE * 0.6 and not self._card_shaped(fg, t, bottom):
                return None
            if rd.token == UNKNOWN and rd.candidates and rd.candidates[0][1] < NO_INDEX:
                return None  # like no card's index at all: glare or a shadow, not a card
            return rd

        next_top = bottom
        j = 0
        while j < len(up):
            t, certain = up[j]
            j += 1
            if reads and not certain and t > next_top - MIN_GAP_MM * LOW_PX:
                continue  # within the band of the card found below: a line in it
            found = None
            if paired[j - 1]:
                found = yield from read_at(up[j][0], False, next_top)
                if found is not None:
                    j += 1  # this top lies in the band of the card just above it
            if found is None:
                found = yield from read_at(t, certain, next_top)
            if found is not None:
                reads.append(found)
                sure.append(certain)
                next_top = found.top_local
        reads.reverse()
        sure.reverse()
        # A gap wider than any fan between two cards found hides a card whose top
        # edge drowned in the art around it: look where the edge is strongest there.
        k = 1
        while k < len(reads):
            a, b = reads[k - 1].top_local, reads[k].top_local
            if b - a > FILL_GAP_MM * LOW_PX:
                lo, hi = int(a + MIN_GAP_MM * LOW_PX), int(b - MIN_GAP_MM * LOW_PX)
                t = float(lo + np.argmax(grad[lo:hi + 1]) + 1)
                visible = min(p.band_mm, b - t - COVER_SLACK_MM)
                rd = (yield [_Ask(zone, t, (c0 + c1 + 1) / 2, visible, False)])[0]
                if rd is not None and a + MIN_GAP_MM < rd.top_local < b - MIN_GAP_MM:
                    reads.insert(k, rd)
                    sure.insert(k, False)
            k += 1
        # Two reads snapped onto one card: keep the one found from the stack's shape,
        # else the better explained.
        k = 1
        while k < len(reads):
            if reads[k].top_local - reads[k - 1].top_local < MIN_GAP_MM * LOW_PX:
                drop = k if (sure[k - 1], reads[k - 1].score) >= (sure[k], reads[k].score) else k - 1
                del reads[drop], sure[drop]
            else:
                k += 1
        for k, rd in enumerate(reads):
            rd.order = k
        return reads

    @staticmethod
    def _card_centre(covered: NDArray[np.bool_], card_w: float, fallback: float) -> float:
        """Where a card-wide window covers the most ``covered`` columns: robust to a
        neighbour's edge."""
        cw = round(card_w * LOW_PX)
        if np.count_nonzero(covered) < 10 or len(covered) <= cw:
            return fallback
        # Every window's count of covered columns, as differences of a running count.
        run = np.concatenate([[0], np.cumsum(covered, dtype=np.int32)])
        sums = run[cw:] - run[:-cw]
        first, last = int(np.argmax(sums)), len(sums) - 1 - int(np.argmax(sums[::-1]))
        return (first + last) / 2 + cw / 2

    @staticmethod
    def _card_shaped(fg: Image, top: float, bottom: float) -> bool:
        block = fg[int(top):int(bottom)]
        return bool(len(block) and (block.mean(axis=0) > 0.8).sum() > 40)

    def _zone_matrix(self, zone: Zone) -> FloatImage:
        """Zone-local mm (tops up, origin at the margin's corner) -> mat mm, as a matrix."""
        r, m = zone.rect, ZONE_MARGIN
        if zone.up == "up":
            return np.array([[1, 0, r.x - m], [0, 1, r.y - m], [0, 0, 1]], np.float64)
        return np.array([[-1, 0, r.x + r.w + m], [0, -1, r.y + r.h + m], [0, 0, 1]], np.float64)

    def _band_matrix(self, u0: float, v0: float, slope: float) -> FloatImage:
        """Crop pixel -> zone-local mm for the band whose top-left is (u0, v0) mm when
        upright, turned about its top edge's middle to ``slope`` (a card laid crooked
        is turned, its sides as crooked as its top), with REFINE_MM of slack."""
        m, t, w = round(REFINE_MM * TPL_PX), TPL_PX, self.profile.card_w
        # Python floats: numpy's scalars would make this small sum a hot spot.
        c, s = 1 / math.hypot(1.0, slope), slope / math.hypot(1.0, slope)
        # Crop (m, m) is the turned band's top-left corner.
        x0, y0 = u0 + w / 2 - c * w / 2, v0 - s * w / 2
        return np.array([[c / t, -s / t, x0 - (c - s) * m / t],
                         [s / t, c / t, y0 - (s + c) * m / t],
                         [0, 0, 1]])

    def _warp_band(self, to_frame: FloatImage, u0: float, v0: float, slope: float,
                   frame: Image, rows: int | None = None,
                   cols: tuple[int, int] | None = None) -> Image:
        """The band whose top-left is zone-local (u0, v0) mm when upright, turned to
        ``slope``, upright at template scale with REFINE_MM of slack around it (its
        first ``rows`` rows; only columns ``cols`` from, to)."""
        m = round(REFINE_MM * TPL_PX)
        x0, x1 = cols or (0, self._tw + 2 * m)
        matrix = to_frame @ self._band_matrix(u0, v0, slope)
        if x0:
            matrix = matrix @ np.array([[1.0, 0.0, x0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
        return cv2.warpPerspective(frame, matrix, (x1 - x0, rows or self._th + 2 * m),
                                   flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                   borderMode=cv2.BORDER_REPLICATE)

    def _strip_cols(self) -> tuple[int, int]:
        """The columns of a band's crop its top edge is followed in: its inner four
        fifths, a whole number of strips wide."""
        m, w = round(REFINE_MM * TPL_PX), self._tw
        x0, x1 = m + round(0.1 * w), m + w - round(0.1 * w)
        return x0, x1 - (x1 - x0) % STRIPS

    def _tilt_lines(self, rows: int,
                    ) -> tuple[NDArray[np.intp], NDArray[np.intp], FloatImage, FloatImage]:
        """For every tilt, strip and row: where that straight line crosses the strip
        (the rows above and below it and their weights)."""
        if rows not in self._line_cache:
            m, w = round(REFINE_MM * TPL_PX), self._tw
            x0, x1 = self._strip_cols()
            xs = (np.arange(STRIPS) + 0.5) * ((x1 - x0) // STRIPS) + x0 - (m + w / 2)
            pos = (np.arange(rows, dtype=np.float32)[None, None, :]
                   + np.array(TILTS, np.float32)[:, None, None] * xs[None, :, None])
            lo = np.clip(np.floor(pos).astype(np.intp), 0, rows - 2)
            fr = np.clip(pos - lo, 0.0, 1.0).astype(np.float32)
            # Flat indices into a (strips, rows) profile.
            lo += (np.arange(STRIPS) * rows)[None, :, None]
            self._line_cache[rows] = (lo, lo + 1, 1 - fr, fr)
        return self._line_cache[rows]

    def _top_edges(self, crops: Image) -> list[tuple[float, list[int], float]]:
        """Per band crop (stacked, tilt 0, ``_strip_cols`` only): the slope of the card's
        top edge, the rows of the strongest lines at that slope (each the boundary below
        that row), and the runner-up slope.

        A card's top edge, and the frame and rules printed parallel to it, are
        straight colour steps across the whole width; the tops of a numeral, pips
        and a letter line up only here and there. The vertical colour steps of
        column strips are summed along every straight line of the tilts a hand
        puts a card down with, counting for each line its weaker strips (the
        lower half, less the weakest, which glare or a shadow may have hidden):
        a line strong in nearly every strip gives the tilt.
        """
        n, rows = len(crops), crops.shape[1] - 1
        # Every crop's rows one under the other: one colour step per row boundary for
        # all of them (those between two crops are dropped), each strip's summed.
        flat = crops.reshape(n * (rows + 1), -1)
        steps = cv2.absdiff(flat[1:], flat[:-1])
        prof = np.empty((n * (rows + 1), STRIPS), np.float32)
        prof[:-1] = steps.reshape(len(steps), STRIPS, -1).sum(axis=2, dtype=np.float32)
        prof = prof.reshape(n, rows + 1, STRIPS)[:, :rows].transpose(0, 2, 1).reshape(n, -1)
        lo, hi, wlo, whi = self._tilt_lines(rows)
        vals = prof[:, lo] * wlo + prof[:, hi] * whi  # (bands, tilts, strips, rows)
        line = _lower_half_less_least([vals[:, :, i] for i in range(STRIPS)])
        best = line.max(axis=2)
        ks = best.argmax(axis=1)
        at = line[np.arange(n), ks]
        up = np.concatenate([at[:, :1], at[:, :-1]], axis=1)
        down = np.concatenate([at[:, 1:], at[:, -1:]], axis=1)
        peak = (at >= up) & (at >= down)
        strongest = np.argsort(np.where(peak, -at, np.inf), axis=1, kind="stable")[:, :LINES]
        # The runner-up: the best line at a tilt clearly apart from the winner's.
        others = np.where(_APART[ks], best, -1.0).argmax(axis=1)
        out = []
        for i, k in enumerate(ks.tolist()):
            # Between the tilts tried: the peak of a parabola through the best and its
            # two neighbours (a tenth of a degree off turns the numeral's far end a pixel).
            slope = float(TILTS[k])
            if 0 < k < len(TILTS) - 1:
                a, b, c = best[i, k - 1:k + 2].tolist()
                if a - 2 * b + c < 0:
                    slope += min(max(0.5 * (a - c) / (a - 2 * b + c), -0.5), 0.5) * TILT_STEP
            lines = [r for r in strongest[i].tolist() if peak[i, r]]
            out.append((slope, lines, float(TILTS[others[i]])))
        return out

    def _classify_many(self, asks: list[_Ask], frame: Image, m2f: FloatImage,
                       light: _Light) -> list[CardRead | None]:
        """The card each ask's band shows (``None``: a line in the art, not a card)."""
        m, h = round(REFINE_MM * TPL_PX), self._th
        bands = self._bands(asks, m2f, light)
        # The tilt from each card's own top edge (and the lines parallel to it).
        cols = self._strip_cols()
        edges = self._top_edges(np.stack([
            self._warp_band(b.to_frame, b.u0, b.v0, 0.0, frame, m + h // 2, cols)
            for b in bands]))
        return self._read_many(bands, edges, frame)

    def _inside(self, pl: _Placed, hv: int) -> bool:
        """Whether the index's views at every shift searched lie within the warped band."""
        ix, iy = round(INSET_X * TPL_PX), round(INSET_Y * TPL_PX)
        hh, ww = self._view_shape(hv)
        return (pl.tx + ix - SHIFT_PX >= 0 and pl.ty + iy - SHIFT_PX >= 0
                and pl.tx + ix + ww + SHIFT_PX <= pl.gray.shape[1]
                and pl.ty + iy + hh + SHIFT_PX <= pl.gray.shape[0])

    def _moved(self, band: _Band, pl: _Placed) -> _Band:
        """The band warped with its index where ``pl`` found it, at its slope."""
        w = self.profile.card_w
        c, s = 1 / np.hypot(1.0, pl.slope), pl.slope / np.hypot(1.0, pl.slope)
        # Where the index's top-left corner lies, zone-local mm: the turned band's
        # corner, from which ``_band_matrix`` finds the upright corner back.
        x0, y0, _ = self._band_matrix(band.u0, band.v0, pl.slope) @ np.array(
            [pl.tx, pl.ty, 1.0])
        return _Band(band.ask, float(x0 - w / 2 + c * w / 2), float(y0 + s * w / 2),
                     band.to_frame, band.hv, band.gain, band.glare)

    def _bands(self, asks: list[_Ask], m2f: FloatImage, light: _Light) -> list[_Band]:
        """The asks in frame terms: each band's corner, its matrix, height and light."""
        if not asks:
            return []
        p = self.profile
        corners = [(a.cx / LOW_PX - p.card_w / 2, a.t / LOW_PX) for a in asks]
        mids = np.array([self._to_mat(a.zone, u0 + p.card_w / 2, v0 + p.band_mm / 2)
                         for a, (u0, v0) in zip(asks, corners, strict=True)], np.float64)
        # The light's gain (``_fit_light``'s terms) at every band's middle, in one product.
        u = mids[:, 0] * LOW_PX / self.low_size[0] - 0.5
        v = mids[:, 1] * LOW_PX / self.low_size[1] - 0.5
        gains = np.exp(np.stack([np.ones_like(u), u, v, u * u, u * v, v * v], axis=1)
                       @ light.coef).astype(np.float32)
        inverse = (1.0 / (gains * 255.0)).astype(np.float32)
        to_frame = {z.name: m2f @ self._zone_matrix(z) for z in {a.zone.name: a.zone
                                                                  for a in asks}.values()}
        glare = self._mat_glare(light, [a.zone for a in asks], mids)
        return [_Band(a, u0, v0, to_frame[a.zone.name],
                      min(self._th, max(int(a.visible * TPL_PX), 8)), g, s)
                for a, (u0, v0), g, s in zip(asks, corners, inverse, glare, strict=True)]

    def _mat_glare(self, light: _Light, zones: list[Zone], mids: FloatImage) -> list[float]:
        """How much white glare (its share of the way to white) the mat around each
        band (its middle, mat mm) shows: the mat samples there are lighter than the
        smooth light in every channel, as added white makes them (0 without enough
        samples)."""
        out = []
        for zone, (mx, my) in zip(zones, mids.tolist(), strict=True):
            # Only the samples that can be near a band of this zone are measured.
            idx, x, y = self._zone_samples[zone.name]
            near = light.glare[idx[(x - mx) ** 2 + (y - my) ** 2 < GLARE_MAT_MM ** 2]]
            n = len(near)
            if n < GLARE_MAT_SAMPLES:
                out.append(0.0)
                continue
            part = np.partition(near, [(n - 1) // 2, n // 2])  # the median, sorting less
            out.append(min(max(float(part[(n - 1) // 2] + part[n // 2]) / 2, 0.0), GLARE_MOST))
        return out

    def _read_many(self, bands: list[_Band], edges: list[tuple[float, list[int], float]],
                   frame: Image) -> list[CardRead | None]:
        """Place and read each band whose top edge's tilt, strongest lines and
        runner-up tilt are ``edges``.

        ``None`` for an edge that was not certainly a card's and whose band looks
        like no index (a line in the art).
        """
        placed = self._place_many(bands, [(e[0], e[1]) for e in edges], frame)
        reads = self._cards(bands, placed)
        # A card named from an index found beyond the warped band (the stack's centre
        # was misjudged: a neighbour's edge passed for its side) was read partly from
        # padding, and so was a band read unknown there that some token ranks as an
        # index (a line in the art passed for its top edge, the index half off the
        # band): the band is warped again around where it was found, and where some
        # card fits better stands.
        bands = list(bands)
        m = round(REFINE_MM * TPL_PX)
        off = [i for i, rd in enumerate(reads)
               if rd is not None and not self._inside(placed[i], bands[i].hv)
               and (rd.token != UNKNOWN or rd.candidates[0][1] >= NO_INDEX)]
        moved = [self._moved(bands[i], placed[i]) for i in off]
        again = self._place_many(moved, [
            (placed[i].slope, [r - (placed[i].ty - m) for r in edges[i][1]]) for i in off], frame)
        fits = [(i, b, pl) for i, b, pl in zip(off, moved, again, strict=True)
                if float(pl.corr.max()) > float(placed[i].corr.max())]
        for (i, b, pl), rd in zip(fits, self._cards([b for _, b, _ in fits],
                                                    [pl for _, _, pl in fits]), strict=True):
            bands[i], placed[i], reads[i] = b, pl, rd
        # A doubtful read: a printed line of the mat or a covering card's edge may have
        # passed for this card's edge. The runner-up tilt is tried; the tilt at which
        # some card fits the band better stands, with what it reads (a read is never
        # shopped for: a worse fit that names a card is a guess). Not for a band that
        # looked like no index (a line in the art), nor for one no token ranks even
        # TILT_WORTH for: on the 30 cached bench frames neither ever became a card at
        # the runner-up tilt, and they were five of every six tried.
        doubt = [i for i, rd in enumerate(reads)
                 if rd is not None and (rd.token == UNKNOWN or rd.confidence < SURE)
                 and rd.candidates and rd.candidates[0][1] >= TILT_WORTH]
        tilted = self._place_many([bands[i] for i in doubt],
                                  [(edges[i][2], edges[i][1]) for i in doubt], frame)
        better = [(i, pl) for i, pl in zip(doubt, tilted, strict=True)
                  if float(pl.corr.max()) > float(placed[i].corr.max())]
        for (i, _), rd in zip(better, self._cards([bands[i] for i, _ in better],
                                                  [pl for _, pl in better]), strict=True):
            reads[i] = rd
        return reads

    def _cards(self, bands: list[_Band], placed: list[_Placed]) -> list[CardRead | None]:
        """The card each placed band shows, or ``None`` for an edge that was not
        certainly a card's and whose band looks like no index."""
        p = self.profile
        keep = [i for i, (b, pl) in enumerate(zip(bands, placed, strict=True))
                if b.ask.certain or float(pl.corr.max()) >= INDEX_LIKE]
        named = self._decide_many([placed[i] for i in keep], [bands[i].hv for i in keep],
                                  [bands[i].gain * 255.0 for i in keep],
                                  [bands[i].glare for i in keep])
        out: list[CardRead | None] = [None] * len(bands)
        for i, (token, conf, score, cands) in zip(keep, named, strict=True):
            band, pl = bands[i], placed[i]
            tx, ty = float(pl.tx), float(pl.ty)
            # The band's corners and its top edge's middle, crop px -> zone-local mm.
            bw, bh = p.card_w * TPL_PX, p.band_mm * TPL_PX
            (a, b, c), (d, e, f), _ = self._band_matrix(band.u0, band.v0, pl.slope).tolist()
            zone = band.ask.zone
            corners = [self._to_mat(zone, a * x + b * y + c, d * x + e * y + f)
                       for x, y in ((tx, ty), (tx + bw, ty), (tx + bw, ty + bh), (tx, ty + bh))]
            rd = CardRead(zone.name, 0, token, conf, score, corners, cands)
            rd.top_local = (d * (tx + bw / 2) + e * ty + f) * LOW_PX
            out[i] = rd
        return out

    def _warped(self, band: _Band, slope: float, frame: Image,
                ) -> tuple[Image, FloatImage, FloatImage]:
        """The band warped upright at ``slope``: as the frame shows it, in blurred true
        grey, and that grey at half size (where the deck's layout is looked for)."""
        crop = self._warp_band(band.to_frame, band.u0, band.v0, slope, frame)
        # Grey of the true colours in one weighted sum (the light's gain folded into
        # the weights): the colours themselves are only sampled, later.
        gray = cv2.GaussianBlur(cv2.transform(crop.astype(np.float32), band.gain * _GREY),
                                (0, 0), BLUR)
        half = cv2.resize(gray, (gray.shape[1] // 2, gray.shape[0] // 2),
                          interpolation=cv2.INTER_AREA)
        return crop, gray, half

    def _layout_fits(self, halves: list[FloatImage], hv: int) -> list[tuple[int, int]]:
        """Where the deck's shared layout (frame, corner indices) fits each band of
        visible height ``hv`` best (its index's top-left corner, crop px).

        Found at half resolution (the shift search and recentring place it to the
        pixel), in one match over all the bands stacked: a band's own rows of the
        result are those of its own match.
        """
        ix, iy = round(INSET_X * TPL_PX), round(INSET_Y * TPL_PX)
        tpl = self._mean_half[:(hv - iy) // 2]
        hh, ny = halves[0].shape[0], halves[0].shape[0] - len(tpl) + 1
        res = cv2.matchTemplate(halves[0] if len(halves) == 1 else np.concatenate(halves),
                                tpl, cv2.TM_CCOEFF_NORMED)
        out = []
        for j in range(len(halves)):
            ly, lx = divmod(int(res[j * hh:j * hh + ny].argmax()), res.shape[1])
            out.append((2 * lx - ix, 2 * ly - iy))
        return out

    def _sides(self, grays: FloatImage, hv: int) -> list[int]:
        """Per band (grey, stacked) of visible height ``hv``: where both side edges of a
        card-wide band show best (its left edge's column)."""
        m, w = round(REFINE_MM * TPL_PX), self._tw
        band_rows = grays[:, m + 2:m + hv - 2]
        k = band_rows.shape[1] // 5
        # The steps across each column, at most 2m columns off either side's place.
        left, right = (np.partition(np.abs(np.diff(band_rows[:, :, c:c + 2 * m], axis=2)),
                                    k, axis=1)[:, k] for c in (0, w))
        return (np.minimum(left, right).argmax(axis=1) + 1).tolist()  # both must show

    @staticmethod
    def _hypotheses(layout: tuple[int, int], rows: list[int], sx: int,
                    ) -> list[tuple[int, int]]:
        """The placements of a band's index worth a look: where the deck's layout fits;
        or one of the strongest straight lines (``rows``) is the card's top edge, and
        across where that layout fits or where both side edges of a card-wide band
        show (``sx``)."""
        tx, ty = layout
        hyps = {(tx, ty)}
        for r in rows:
            hyps |= {(tx, r + 1), (sx, r + 1)}
        return _distinct(hyps)

    def _looks(self, grays: FloatImage, which: list[int], places: list[tuple[int, int]],
               hv: int) -> FloatImage:
        """The views (on every other pixel each way) of the bands ``grays[which]`` with
        their index placed at ``places``, one per row; beyond a band's edge its edge
        pixels repeat (as ``_views`` pads)."""
        _, hgt, wid = grays.shape
        ix, iy = round(INSET_X * TPL_PX), round(INSET_Y * TPL_PX)
        xy = np.array(places, np.intp).reshape(-1, 2)
        rows = np.clip(xy[:, 1:] + iy + np.arange(0, hv - iy, 2), 0, hgt - 1)
        cols = np.clip(xy[:, :1] + ix + np.arange(0, self._tw - 2 * ix, 2), 0, wid - 1)
        flat = (np.array(which, np.intp)[:, None] * hgt + rows) * wid
        return np.take(grays, flat[:, :, None] + cols[:, None, :]).reshape(len(xy), -1)

    def _place_many(self, bands: list[_Band], edges: list[tuple[float, list[int]]],
                    frame: Image) -> list[_Placed]:
        """Each band warped upright at its slope and where in it the index lies (the
        placement some card explains best), with the tokens that may be the card and
        their correlations with the band over small shifts there.

        Bands of one visible height are compared with the templates together.
        """
        warped = [self._warped(b, slope, frame) for b, (slope, _) in zip(bands, edges,
                                                                           strict=True)]
        groups: dict[int, list[int]] = {}
        for i, b in enumerate(bands):
            groups.setdefault(b.hv, []).append(i)
        at: list[tuple[int, int]] = [(0, 0)] * len(bands)
        views: list[FloatImage] = [np.zeros(0, np.float32)] * len(bands)
        corrs: list[FloatImage] = [np.zeros(0, np.float32)] * len(bands)
        for hv, idx in groups.items():
            grays = np.stack([warped[i][1] for i in idx])
            hyps = [self._hypotheses(fit, edges[i][1], sx) for i, fit, sx in zip(
                idx, self._layout_fits([warped[i][2] for i in idx], hv),
                self._sides(grays, hv), strict=True)]
            tpl = self._normalised_templates(hv, 2)[1]
            # Which placement some card explains best.
            many = [j for j, h in enumerate(hyps) if len(h) > 1]
            for i, h in zip(idx, hyps, strict=True):
                at[i] = h[0]
            if many:
                looks = _ncc_rows(self._looks(grays, [j for j in many for _ in hyps[j]],
                                              [xy for j in many for xy in hyps[j]], hv),
                                  tpl).max(axis=1)
                k = 0
                for j in many:
                    n = len(hyps[j])
                    at[idx[j]] = hyps[j][int(np.argmax(looks[k:k + n]))]
                    k += n
            # Every token there over small shifts.
            seen = [self._views(warped[i][1], *at[i], hv, SHIFT_PX, 2) for i in idx]
            corr = _ncc_rows(np.concatenate(seen), tpl)
            for i, v, c in zip(idx, seen, np.split(corr, len(idx)), strict=True):
                views[i], corrs[i] = v, c
        # While the best fit lies beyond the shifts searched (the placement was off by
        # more: a line of the art taken for the edge) the search moves on, for all such
        # bands at once; not for a covered band, whose window would take in the
        # covering card's edge.
        moving = [i for i, b in enumerate(bands) if b.hv == self._th]
        for _ in range(RECENTRE - 1):
            moved = []
            for i in moving:
                dx, dy = _beyond(corrs[i][:, int(np.argmax(corrs[i])) % corrs[i].shape[1]])
                if dx or dy:
                    at[i] = (at[i][0] + dx, at[i][1] + dy)
                    moved.append(i)
            if not moved:
                break
            seen = [self._views(warped[i][1], *at[i], self._th, SHIFT_PX, 2) for i in moved]
            corr = _ncc_rows(np.concatenate(seen), self._normalised_templates(self._th, 2)[1])
            for i, v, c in zip(moved, seen, np.split(corr, len(moved)), strict=True):
                views[i], corrs[i] = v, c
            moving = moved
        return [_Placed(slope, crop, b.gain, gray, *at[i], views[i], corrs[i])
                for i, ((slope, _), (crop, gray, _), b) in enumerate(zip(edges, warped, bands,
                                                                         strict=True))]

    def _normalised_templates(self, hv: int, step: int = 1) -> tuple[FloatImage, FloatImage]:
        """Templates cut to the visible height (every ``step``-th pixel each way): raw,
        and zero-mean unit-norm columns."""
        if (hv, step) not in self._tpl_cache:
            ix, iy, w = round(INSET_X * TPL_PX), round(INSET_Y * TPL_PX), self._tw
            raw = np.ascontiguousarray(self._templates[:, iy:hv:step, ix:w - ix:step].reshape(
                len(self._templates), -1))
            tpl = raw - raw.mean(axis=1, keepdims=True)
            tpl /= np.linalg.norm(tpl, axis=1, keepdims=True) + 1e-6
            self._tpl_cache[hv, step] = (raw, np.ascontiguousarray(tpl.T))
        return self._tpl_cache[hv, step]

    def _template_rows(self, hv: int, step: int = 1) -> FloatImage:
        """The zero-mean unit-norm templates one per row, for picking a few of them."""
        if (hv, step) not in self._rows_cache:
            self._rows_cache[hv, step] = np.ascontiguousarray(
                self._normalised_templates(hv, step)[1].T)
        return self._rows_cache[hv, step]

    def _views(self, gray: FloatImage, tx: int, ty: int, hv: int, s: int,
               step: int = 1) -> FloatImage:
        """The band's inner part at every shift within ``s`` px of (tx, ty), one per row
        (every ``step``-th pixel each way)."""
        ix, iy, w = round(INSET_X * TPL_PX), round(INSET_Y * TPL_PX), self._tw
        hh, ww = hv - iy, w - 2 * ix
        y0, x0 = ty + iy - s, tx + ix - s
        pad = max(0, -y0, -x0, y0 + hh + 2 * s - gray.shape[0], x0 + ww + 2 * s - gray.shape[1])
        if pad:
            gray = cv2.copyMakeBorder(gray, pad, pad, pad, pad, cv2.BORDER_REPLICATE)
            y0, x0 = y0 + pad, x0 + pad
        return _windows(gray[y0:, x0:], 2 * s + 1, 2 * s + 1, hh, ww, step)

    def classify(self, crop: FloatImage, visible_mm: float,
                 ) -> tuple[str, float, float, list[tuple[str, float]]]:
        """Token, confidence, best score and the top candidates for a band crop.

        ``crop`` is the band with SHIFT_PX pixels of slack on every side, in true
        colours (BGR, 0..1); only its top ``visible_mm`` is trusted. Every token
        is compared.
        """
        gray = cv2.GaussianBlur(cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY), (0, 0), BLUR)
        hv = min(self._th, max(int(min(visible_mm, self.profile.band_mm) * TPL_PX), 8))
        views = self._views(gray, SHIFT_PX, SHIFT_PX, hv, SHIFT_PX, 2)
        corr = _ncc_rows(views, self._normalised_templates(hv, 2)[1])
        return self._decide_many([_Placed(0.0, crop, np.ones(3, np.float32), gray, SHIFT_PX,
                                          SHIFT_PX, views, corr)],
                                 [hv], [None])[0]

    def _dark(self, hv: int) -> FloatImage:
        """Per token, the level of its darkest print (its 2nd percentile) at height ``hv``."""
        if hv not in self._dark_cache:
            raw, _ = self._normalised_templates(hv)
            k = raw.shape[1] // 50
            self._dark_cache[hv] = np.partition(raw, k, axis=1)[:, k].copy()
        return self._dark_cache[hv]

    def _unveil(self, bands: FloatImage, views: FloatImage, hv: int, like: NDArray[np.intp],
                veils: FloatImage, least: FloatImage) -> FloatImage:
        """The bands' colours (stacked) with the glare over each taken off.

        Glare is white light added at the camera, before the colour cast and the
        light are divided out: there it is ``s * veil`` per channel (``veil`` =
        one over the light's gain), a tinted veil that would turn blue toward
        green under a magenta cast. How much (``s``) shows in a band's darkest
        print (in ``views``), lifted above that of the card it looks most like,
        and at least as much as the mat around the band shows (``least``).
        """
        k = views.shape[1] // 50
        seen = np.partition(views, k, axis=1)[:, k].astype(np.float64)
        dark = self._dark(hv)[like].astype(np.float64)
        lift = (veils @ np.array([0.114, 0.587, 0.299], np.float32)).astype(np.float64)
        share = np.clip((seen - dark) / np.maximum(lift - dark, 1e-3), 0.0, GLARE_MOST)
        # A card whose darkest print is pale (an orange 1 has no black) lifts little.
        share = np.maximum(share, least)
        share[share < GLARE_LEAST] = 0.0
        if not share.any():
            return bands
        # Only the veil's tint is taken off: its grey part pales every colour alike,
        # which the colour distance allows for, and a veil guessed where there is
        # none then shifts no hue.
        tint = share.astype(np.float32)[:, None] * (veils - veils.mean(axis=1, keepdims=True))
        return np.asarray(bands - tint[:, None, None, :], np.float32)

    def _local_templates(self, hv: int) -> tuple[FloatImage, FloatImage]:
        """The templates with their contrast stretched locally, one per row: as they
        are, and zero-mean unit-norm."""
        if hv not in self._local_cache:
            raw, _ = self._normalised_templates(hv)
            shape = self._view_shape(hv)
            loc = np.stack([_local_contrast(t.reshape(shape)).ravel() for t in raw])
            self._local_cache[hv] = (loc, _unit_rows(loc))
        return self._local_cache[hv]

    def _view_shape(self, hv: int) -> tuple[int, int]:
        """(rows, columns) of a band's inner part at visible height ``hv``."""
        ix, iy = round(INSET_X * TPL_PX), round(INSET_Y * TPL_PX)
        return hv - iy, self._tw - 2 * ix

    def _decide_many(self, placed: list[_Placed], hvs: list[int],
                     veils: list[FloatImage | None], glares: list[float] | None = None,
                     ) -> list[tuple[str, float, float, list[tuple[str, float]]]]:
        """Name each placed band (visible ``hvs`` high), or ``unknown``; bands of one
        visible height are judged together. ``veils``: one over the light's gain
        over each band, to take glare off its colours (``None``: leave them);
        ``glares``: the glare the mat around each band shows, the least taken off."""
        w = self._tw
        ix, iy = round(INSET_X * TPL_PX), round(INSET_Y * TPL_PX)
        cut = []
        groups: dict[tuple[int, tuple[int, ...], bool], list[int]] = {}
        for i, (pl, hv) in enumerate(zip(placed, hvs, strict=True)):
            y0, x0 = max(pl.ty, 0), max(pl.tx, 0)
            band = pl.crop[y0:y0 + hv, x0:x0 + w]
            # Its colour's samples: every fourth pixel each way, inside its edges (some
            # 200, for two means: the colour noise floor is far above what more would add).
            cut.append(band[iy::4, ix:band.shape[1] - ix:4])  # in true colours below
            groups.setdefault((hv, cut[-1].shape, veils[i] is None), []).append(i)
        out: list[tuple[str, float, float, list[tuple[str, float]]]] = [
            (UNKNOWN, 0.0, 0.0, [])] * len(placed)
        for (hv, _, bare), idx in groups.items():
            veil = None if bare else np.stack([veils[i] for i in idx])  # type: ignore[misc]
            least = np.array([glares[i] if glares else 0.0 for i in idx])
            samples = (np.stack([cut[i] for i in idx])
                       * np.stack([placed[i].scale for i in idx])[:, None, None, :])
            got = self._decide_group(hv, [placed[i] for i in idx],
                                     samples.astype(np.float32, copy=False), veil, least)
            for i, d in zip(idx, got, strict=True):
                out[i] = d
        if self.model is not None:
            out = self._learnt(placed, hvs, out)
        return out

    def _learnt(self, placed: list[_Placed], hvs: list[int],
                decided: list[tuple[str, float, float, list[tuple[str, float]]]],
                ) -> list[tuple[str, float, float, list[tuple[str, float]]]]:
        """The deck's own model names each placed band (``vision.band_model``); the
        templates' ranking stays as the candidates (whether a band looks like an
        index at all)."""
        assert self.model is not None
        s = SEARCH_PX
        rows, w = self._th + 2 * s, self._tw + 2 * s
        out = list(decided)
        groups: dict[float, list[int]] = {}
        for i, hv in enumerate(hvs):
            groups.setdefault(self.model.height_for(hv / TPL_PX), []).append(i)
        for h, idx in groups.items():
            bands = []
            for i in idx:
                pl = placed[i]
                # The band and SEARCH_PX around it; what lies beyond the crop repeats.
                y0, x0 = pl.ty - s, pl.tx - s
                pad = max(0, -y0, -x0, y0 + rows - pl.crop.shape[0],
                          x0 + w - pl.crop.shape[1])
                crop = pl.crop if not pad else cv2.copyMakeBorder(
                    pl.crop, pad, pad, pad, pad, cv2.BORDER_REPLICATE)
                band: FloatImage = crop[y0 + pad:y0 + pad + rows,
                                        x0 + pad:x0 + pad + w] * pl.scale
                bands.append(band)
            best, sure = self.model.judge(np.stack(bands), h)
            for i, b, c in zip(idx, best.tolist(), sure.tolist(), strict=True):
                _, _, score, cands = out[i]
                token = self.model.tokens[b] if c >= MODEL_SURE else UNKNOWN
                out[i] = (token, float(c), score, cands)
        return out

    def _decide_group(self, hv: int, placed: list[_Placed], samples: FloatImage,
                      veils: FloatImage | None, least: FloatImage,
                      ) -> list[tuple[str, float, float, list[tuple[str, float]]]]:
        """Name bands of one visible height ``hv`` (``samples``: of each one's colours;
        ``veils`` and ``least`` as ``_unveil`` takes them).

        Each band's ``corr`` holds every token's correlations with its views over
        small shifts. A first pass ranks the tokens by their best correlation minus
        colour distance. Tokens of one colour share most of their band, so the
        leaders are then compared pairwise where their templates differ (the
        numeral, the pips) and by colour; the smallest pairwise margin of the
        winner is its confidence. A band that matches a card well but whose
        leaders that leaves too alike gets a second look, with the contrast of
        band and templates stretched locally (on every pixel).
        """
        tokens = self.profile.tokens
        raw = self._normalised_templates(hv, 2)[0]
        rows = self._template_rows(hv, 2)
        views = np.stack([pl.views for pl in placed])
        corr = np.stack([pl.corr for pl in placed])
        best_shift = corr.argmax(axis=1)
        ncc = corr.max(axis=1)
        bi = np.arange(len(placed))[:, None]  # (fancy indexing: take_along_axis is slower)
        if veils is not None:
            samples = self._unveil(samples, views[:, views.shape[1] // 2], hv,
                                 ncc.argmax(axis=1), veils, least)
        cdist = _colour_distance(np.broadcast_to(self._chroma, (len(placed), *self._chroma.shape)),
                                 sample_signatures(samples))
        # Colour differences below the noise floor (white balance, one photo per
        # card) say nothing: two cards of one suit are the same colour.
        cpen = np.maximum(cdist - COLOUR_FLOOR, 0.0)
        score = ncc - COLOUR_WEIGHT * cpen
        # The leaders, best ranked first. A deck enrolled in part may hold no more
        # cards than the leaders counted.
        if score.shape[1] > TOP_K:
            top = np.argpartition(-score, TOP_K, axis=1)[:, :TOP_K]
        else:
            top = np.broadcast_to(np.arange(score.shape[1]), score.shape)
        order = top[bi, np.argsort(-score[bi, top], axis=1)]
        shift = best_shift[bi, order]
        cpen_order = cpen[bi, order]
        winners, margins, owns = _pairwise(views, shift, raw[order], rows[order],
                                           cpen_order)
        out = []
        for i, (win, margin, own) in enumerate(zip(winners.tolist(), margins.tolist(),
                                                   owns.tolist(), strict=True)):
            sc, nc, cp = score[i], ncc[i], cpen[i]
            first, winner = int(order[i, 0]), int(order[i, win])
            cands = [(tokens[j], float(sc[j])) for j in order[i, :3]]
            conf = min(1.0, max(0.0, margin / (2 * MIN_MARGIN)),
                       max(0.0, (own - INDEX_FIT) / (INDEX_GOOD - INDEX_FIT)))
            # Never a guess: the winner must explain the band well with its colour
            # too, and the pairwise look may only settle near-ties of the ranking. Its
            # colour may be further off (the light misjudged) only when the grey is
            # all but exact and no card's colour is nearer. A winner the ranking put
            # behind another must be clearly like itself where it differs: a covered
            # band whose numeral lies a little off the template's can favour another
            # numeral pairwise (a P5 read P1, ranked third, only 0.8 like it there).
            well = float(sc[winner]) >= MIN_SCORE or (
                float(nc[winner]) >= SHAPE_SURE and float(sc[winner]) >= SHAPE_SURE_SCORE
                and float(cp[winner]) <= float(cp.min()))
            plausible = (well and own >= INDEX_FIT
                         and float(sc[winner]) >= float(sc[first]) - MAX_RANK_GAP
                         and (win == 0 or own >= INDEX_GOOD))
            if plausible and margin >= MIN_MARGIN:
                out.append((tokens[winner], 0.5 + conf * 0.5, float(nc[winner]), cands))
                continue
            if float(sc[first]) >= MIN_SCORE:
                # A pale numeral (a yellow one, or any under glare) differs from its
                # neighbours' by little grey next to the black print of the name: the
                # leaders again, every neighbourhood's contrast stretched to one.
                pl, shape = placed[i], self._view_shape(hv)
                full = self._views(pl.gray, pl.tx, pl.ty, hv, SHIFT_PX)
                stretched = np.zeros_like(full[None])
                for k in set(shift[i].tolist()):
                    stretched[0, k] = _local_contrast(full[k].reshape(shape)).ravel()
                loc, loc_rows = self._local_templates(hv)
                one = order[i:i + 1]
                w2, m2, o2 = (float(x[0]) for x in _pairwise(
                    stretched, shift[i:i + 1], loc[one], loc_rows[one],
                    cpen_order[i:i + 1]))
                second = int(order[i, int(w2)])
                # Only the margin may fail in grey: what else the first look asks of a
                # winner, the second look's winner must meet too.
                if (float(sc[second]) >= MIN_SCORE and m2 >= LOCAL_MARGIN
                        and float(sc[second]) >= float(sc[first]) - MAX_RANK_GAP
                        and o2 >= LOCAL_FIT
                        and float(_own(views[i:i + 1, shift[i, int(w2)]], raw[one],
                                       rows[one], np.array([int(w2)]))[0]) >= INDEX_FIT):
                    conf2 = min(1.0, max(0.0, m2 / (2 * LOCAL_MARGIN)),
                                max(0.0, (o2 - LOCAL_FIT) / (INDEX_GOOD - LOCAL_FIT)))
                    out.append((tokens[second], 0.5 + conf2 * 0.5,
                                float(nc[second]), cands))
                    continue
            out.append((UNKNOWN, conf * 0.5, float(nc[winner]), cands))
        return out


def _sort4(x: list[FloatImage]) -> None:
    """Four arrays sorted elementwise in place (a five-comparator network)."""
    for i, j in ((0, 1), (2, 3), (0, 2), (1, 3), (1, 2)):
        x[i], x[j] = np.minimum(x[i], x[j]), np.maximum(x[i], x[j])


def _lower_half_less_least(strips: list[FloatImage]) -> FloatImage:
    """Elementwise over eight arrays: the second, third and fourth smallest, summed in
    that order (as sorting them would give, in a third of the time of numpy's sort
    along an axis of eight). Each half sorted, the four smallest of all are the
    smaller of each pair taken from opposite ends of the two halves."""
    a, b = strips[:4], strips[4:]
    _sort4(a)
    _sort4(b)
    low = [np.minimum(a[i], b[3 - i]) for i in range(4)]
    _sort4(low)
    line = low[1] + low[2]
    line += low[3]
    return line


@functools.cache
def _rivals(k: int) -> NDArray[np.intp]:
    """For each of ``k`` leaders, the others (in rank order), one row each (shared: not
    to be written to)."""
    return np.array([[c for c in range(k) if c != a] for a in range(k)], np.intp).reshape(k, -1)


def _pairwise(views: FloatImage, shift: NDArray[np.intp], raw: FloatImage, rows: FloatImage,
              cpen: FloatImage) -> tuple[NDArray[np.intp], FloatImage, FloatImage]:
    """Per band, the leader that explains it best pairwise, its smallest margin, and
    how like it the band is where it differs from the other leaders.

    ``views[b, s]``: band ``b`` at shift ``s``; per band and leader (best ranked
    first): ``shift`` where it fits best, ``raw`` its template and ``rows`` the
    same zero-mean unit-norm, ``cpen`` its colour penalty.
    """
    n, k = shift.shape
    ar = np.arange(n)
    seen = views[ar[:, None], shift]  # each leader's view where it fits best
    others = _rivals(k)

    def margins_of(idx: NDArray[np.intp], a: NDArray[np.intp], vs: NDArray[np.intp],
                   ) -> FloatImage:
        """How much better leader ``a`` explains band ``idx`` than each of ``vs``.

        Correlation weighted by how much the two templates differ there (on
        normalised templates, so two photos' exposure is no difference; squared,
        so the numeral outweighs slight blur), plus colour.
        """
        wgt = np.square(rows[idx, a][:, None] - rows[idx[:, None], vs])
        shape = _wncc_pair(seen[idx, a], raw[idx, a], raw[idx[:, None], vs], wgt)
        return shape + (cpen[idx[:, None], vs] - cpen[idx, a][:, None]) / PAIR_COLOUR_SCALE

    winner = np.zeros(n, np.intp)
    rivals = others[winner]
    margins = np.zeros(rivals.shape, np.float32)
    open_ = ar
    for _ in range(TOP_K):
        vs = others[winner[open_]]
        m = margins_of(open_, winner[open_], vs)
        rivals[open_], margins[open_] = vs, m
        worst = m.argmin(axis=1)
        lost = m[np.arange(len(open_)), worst] < 0
        winner[open_[lost]] = vs[lost, worst[lost]]
        open_ = open_[lost]
        if not len(open_):
            break
    # Where a rival fits best the band may look more like the rival: each is then
    # surest where it fits, and the band is no more one than the other (a covered
    # band showing only the tops of two numerals).
    bi, ri = np.nonzero(shift[ar[:, None], rivals] != shift[ar, winner][:, None])
    if len(bi):
        back = margins_of(bi, rivals[bi, ri], winner[bi][:, None])[:, 0]
        margins[bi, ri] = np.minimum(margins[bi, ri], -back)
    return winner, margins.min(axis=1), _own(seen[ar, winner], raw, rows, winner)


def _own(view: FloatImage, raw: FloatImage, rows: FloatImage, a: NDArray[np.intp],
         ) -> FloatImage:
    """Per band, how like its leader ``a`` it is (``view``) where ``a`` differs from
    the other leaders (``raw``, ``rows``: the leaders' templates per band).

    Where the winner differs from the others (its numeral, its name) the band
    must look like the winner itself, not merely more like it than like them:
    a card the profile lacks (or a band half out of place) is closer to one of
    its suit than to the rest, yet unlike it just there.
    """
    ar = np.arange(len(a))
    rest = (rows.sum(axis=1) - rows[ar, a]) / (rows.shape[1] - 1)  # the others' mean
    return _wncc(view, raw[ar, a], np.square(rows[ar, a] - rest))


def _local_contrast(img: FloatImage) -> FloatImage:
    """Each pixel's difference from its neighbourhood's mean over the neighbourhood's
    spread: a pale numeral then weighs as much as black print."""
    d = img - cv2.GaussianBlur(img, (0, 0), LOCAL_SIGMA)
    return np.asarray(d / (np.sqrt(cv2.GaussianBlur(d * d, (0, 0), LOCAL_SIGMA)) + LOCAL_FLOOR),
                      np.float32)


def _beyond(fit: FloatImage) -> tuple[int, int]:
    """Which way (x, y) the best of a 3x3 grid of fits (y-major) lies beyond it.

    Along each axis through the best, a parabola through the three fits peaks
    within half a pixel of the middle one's neighbour, or further out.
    """
    g = fit.reshape(3, 3)
    by, bx = divmod(int(np.argmax(g)), 3)
    out = []
    for a, b, c in ((g[by, 0], g[by, 1], g[by, 2]), (g[0, bx], g[1, bx], g[2, bx])):
        a, b, c = float(a), float(b), float(c)
        curve = a - 2 * b + c
        if b >= max(a, c):
            out.append(0)
        elif curve >= 0:  # no peak in between: uphill all the way out
            out.append(1 if c > a else -1)
        else:
            top = 0.5 * (a - c) / curve
            out.append(0 if abs(top) <= 1.5 else (1 if top > 0 else -1))
    return out[0], out[1]


def _windows(img: FloatImage, ny: int, nx: int, hh: int, ww: int, step: int = 1,
             ) -> FloatImage:
    """The ``hh`` x ``ww`` windows of ``img`` at the ``ny`` x ``nx`` top-left corners
    nearest its own, one per row, y-major (every ``step``-th pixel each way)."""
    rs, cs = img.strides
    win = np.lib.stride_tricks.as_strided(
        img, (ny, nx, (hh + step - 1) // step, (ww + step - 1) // step),
        (rs, cs, rs * step, cs * step), writeable=False)
    return np.ascontiguousarray(win).reshape(ny * nx, -1)


def _ncc_rows(v: FloatImage, t: FloatImage) -> FloatImage:
    """Each row of ``v`` correlated with each zero-mean unit-norm column of ``t``.

    ``t`` being zero-mean, the rows need no mean taken off for the product, only
    for their norm.
    """
    # Row sums by OpenCV: numpy's pairwise summation is several times slower here.
    s = cv2.reduce(v, 1, cv2.REDUCE_SUM)[:, 0]
    ss = cv2.reduce(cv2.multiply(v, v), 1, cv2.REDUCE_SUM)[:, 0]
    norm = np.sqrt(np.maximum(ss - s * s / v.shape[1], 1e-12))
    return np.asarray((v @ t) / norm[:, None], np.float32)


def _unit_rows(v: FloatImage) -> FloatImage:
    """Each row less its mean, scaled to unit length (a new array)."""
    v = v - v.mean(axis=1, keepdims=True)
    v /= np.sqrt(np.einsum("ij,ij->i", v, v))[:, None] + 1e-6
    return v


def _wncc(v: FloatImage, t: FloatImage, w: FloatImage) -> FloatImage:
    """Per row, the weighted normalised cross-correlation of ``v`` with ``t`` (weights ``w``)."""
    sw = w.sum(axis=1) + 1e-9
    dt = t - (np.einsum("ij,ij->i", w, t) / sw)[:, None]
    wt = w * dt
    var_t = np.einsum("ij,ij->i", wt, dt)
    wv = np.einsum("ij,ij->i", v, w)
    cross = np.einsum("ij,ij->i", v, wt)  # sum w (v - mv)(t - mt): dt sums to zero under w
    var_v = np.maximum(np.einsum("ij,ij->i", v * v, w) - wv * wv / sw, 1e-12)
    return np.asarray(cross / np.sqrt(var_v * var_t + 1e-12), np.float32)


def _wncc_pair(v: FloatImage, ta: FloatImage, to: FloatImage, w: FloatImage) -> FloatImage:
    """Per band (row of ``v``) and rival: the weighted NCC of the band with ``ta`` minus
    that with the rival's template ``to``, weighted by that pair's ``w``.

    Weighted sums expanded (sum w(v-mv)(t-mt) = sum wvt - sum wv sum wt / sum w) so
    each term is one product, and all of a kind in one call (a call costs more than
    its arithmetic here).
    """
    n, px = v.shape
    terms = np.empty((n, 6, px), np.float32)
    terms[:, 0], terms[:, 1], terms[:, 3] = 1.0, v, ta
    np.multiply(v, v, out=terms[:, 2])
    np.multiply(ta, ta, out=terms[:, 4])
    np.multiply(v, ta, out=terms[:, 5])
    sw, wv, wvv, wa, waa, wva = np.einsum("btx,brx->tbr", terms, w)
    sw += 1e-9
    wt = w * to
    wo, wvo = np.einsum("brx,btx->tbr", wt, terms[:, :2])
    woo = np.einsum("brx,brx->br", wt, to)
    var_v = np.maximum(wvv - wv * wv / sw, 1e-12)
    own = (wva - wv * wa / sw) / np.sqrt(var_v * np.maximum(waa - wa * wa / sw, 1e-12))
    other = (wvo - wv * wo / sw) / np.sqrt(var_v * np.maximum(woo - wo * wo / sw, 1e-12))
    return np.asarray(own - other, np.float32)
