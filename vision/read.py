"""Read every zone of the mat: the fanned cards in order, each with a token and a confidence.

The pipeline for one frame:
1. warp a low-resolution top-down view (1 px/mm) of the mat from the frame;
2. measure the light: the mat's plain fill is known, so a smooth per-channel
   gain field fitted where the mat shows gives the light gradient and the
   colour cast, and dividing by it gives true colours;
3. in each zone (turned so card tops point up) separate cards from the mat,
   find the stack's extent and the top edge of every card in it: the first is
   the stack's top, the last lies one card height above the stack's bottom,
   and covered cards show as horizontal edges in between;
4. cut each card's index band from the full-resolution frame and place it
   exactly: the card's tilt is the one at which the deck's average band (its
   shared layout: frame, corner indices, band edges) matches best, and the
   offset is chosen among that match and the strongest edges by how well
   some card of the profile explains the band;
5. classify: every token is ranked by grey normalised cross-correlation
   over small shifts minus a colour distance (above a noise floor); the
   leaders are then compared pairwise where their templates differ (the
   numeral, the pips, the name) and by colour. The winner's smallest
   pairwise margin is its confidence; a weak match or a small margin makes
   the card ``unknown``, never a guess. A candidate edge whose band looks
   like no index is not a card (it is a line in the art).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.calibrate import Calibration
from vision.mat import MatLayout, Zone, standard_mat
from vision.position import UNKNOWN, build_position
from vision.profile import BLUR, INSET_X, INSET_Y, TPL_PX, DeckProfile, band_px
from vision.render_mat import background_mask, render_mat
from vision.types import FloatImage, Image

LOW_PX: Final = 1.0  # px/mm of the low-resolution top-down view
ZONE_MARGIN: Final = 6.0  # mm around a zone where a crooked card may stick out
FG_THRESHOLD: Final = 38.0  # colour distance from the printed mat that means "not mat"
COLOUR_WEIGHT: Final = 1 / 100.0  # ranking penalty per Lab unit of colour difference
PAIR_COLOUR_SCALE: Final = 60.0  # Lab units worth a whole correlation point between two leaders
TOP_K: Final = 6
COLOUR_FLOOR: Final = 8.0  # Lab units of colour difference that are only noise
LIGHT_SAMPLES: Final = 3000
SLOPES_COARSE: Final = (-0.04, 0.0, 0.04)  # card tilts tried first, then refined
SLOPE_STEP: Final = 0.02
SLOPES_FINE: Final = tuple(round(-0.06 + 0.015 * i, 3) for i in range(9))
GOOD_FIT: Final = 0.9  # below this best correlation the tilt is searched again
SHIFT_PX: Final = 2  # template search range around the chosen placement, each way
REFINE_MM: Final = 3.5  # how far the band may be from where the low-res view put it
MIN_SCORE: Final = 0.85  # below: the band matches nothing in the profile well enough
MAX_RANK_GAP: Final = 0.06  # how far below the best ranked a pairwise winner may start
MIN_MARGIN: Final = 0.12  # below: two tokens are too alike to choose -> unknown
INDEX_LIKE: Final = 0.8  # a weak edge is a card only if its band matches this well
MIN_GAP_MM: Final = 8.0  # closest two fanned card tops can be
PEAK_SEPARATION_MM: Final = 3.0  # candidate edges closer than this are one edge
COVER_SLACK_MM: Final = 3.0  # a crooked covering card hides this much more at one corner
MIN_EDGE: Final = 5.0  # colour step (sum of BGR levels) of a covered card's top edge


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


@dataclass
class FrameRead:
    cards: list[CardRead]
    calibration: Calibration
    foreground: NDArray[np.bool_]  # low-res top-down "not mat" mask
    light: FloatImage  # low-res gain field, BGR

    def zones(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for c in self.cards:
            out.setdefault(c.zone, []).append(c.token)
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
    d = np.abs(np.diff(img, axis=0)).sum(axis=2)
    if spread > 1:
        d = cv2.blur(d, (1, spread))
    k = int(q * (d.shape[1] - 1))
    return np.asarray(np.partition(d, k, axis=1)[:, k], np.float32)


def _distinct(points: set[tuple[int, int]]) -> list[tuple[int, int]]:
    """Drop hypotheses within a pixel of one already kept: the shift search covers them."""
    kept: list[tuple[int, int]] = []
    for p in sorted(points):
        if all(abs(p[0] - k[0]) > SHIFT_PX or abs(p[1] - k[1]) > SHIFT_PX for k in kept):
            kept.append(p)
    return kept


def _poly_terms(u: FloatImage, v: FloatImage) -> FloatImage:
    return np.stack([np.ones_like(u), u, v, u * u, u * v, v * v], axis=-1)


class Reader:
    def __init__(self, profile: DeckProfile, layout: MatLayout | None = None) -> None:
        self.profile = profile
        self.layout = layout or standard_mat()
        lay = self.layout
        self.low_size = (round(lay.width * LOW_PX), round(lay.height * LOW_PX))
        self.ref = render_mat(LOW_PX, lay).astype(np.float32)
        bg = background_mask(LOW_PX, lay)
        ys, xs = np.nonzero(bg)
        # A few thousand evenly spread samples measure a smooth light field well.
        pick = np.linspace(0, len(ys) - 1, min(LIGHT_SAMPLES, len(ys))).astype(int)
        ys, xs = ys[pick], xs[pick]
        self._bg_idx = (ys, xs)
        self._bg_terms = _poly_terms(*self._norm(xs.astype(np.float32), ys.astype(np.float32)))
        self._log_ref = np.log(self.ref[ys, xs] + 8.0)
        gy, gx = np.mgrid[0:self.low_size[1]:8, 0:self.low_size[0]:8].astype(np.float32)
        self._grid_terms = _poly_terms(*self._norm(gx, gy))
        self._templates = profile.gray
        self._tpl_cache: dict[int, tuple[FloatImage, FloatImage]] = {}
        self._tw, self._th = band_px(profile.card_w, profile.band_mm)
        ix, iy = round(INSET_X * TPL_PX), round(INSET_Y * TPL_PX)
        self._mean_tpl = np.ascontiguousarray(
            profile.gray[:, iy:, ix:self._tw - ix].mean(axis=0), np.float32)

    def _norm(self, x: FloatImage, y: FloatImage,
              ) -> tuple[FloatImage, FloatImage]:
        return (x / self.low_size[0] - 0.5).astype(np.float32), (
            y / self.low_size[1] - 0.5).astype(np.float32)

    # -- light -----------------------------------------------------------------------
    def _fit_light(self, low: FloatImage) -> FloatImage:
        """Per-channel quadratic log-gain over the mat, robust to what covers it."""
        obs = np.log(low[self._bg_idx] + 8.0) - self._log_ref
        a = self._bg_terms
        coef = np.zeros((6, 3))
        for ch in range(3):
            y = obs[:, ch]
            keep = np.abs(y - np.median(y)) < 0.35
            for _ in range(3):
                c, *_ = np.linalg.lstsq(a[keep], y[keep], rcond=None)
                r = y - a @ c
                mad = np.median(np.abs(r[keep])) + 1e-3
                keep = np.abs(r) < max(0.05, 3 * mad)
            coef[:, ch] = c
        return coef

    def gain_at(self, coef: FloatImage, x_mm: float, y_mm: float) -> FloatImage:
        u, v = self._norm(np.array([x_mm * LOW_PX], np.float32), np.array([y_mm * LOW_PX], np.float32))
        return np.exp(_poly_terms(u, v) @ coef).astype(np.float32).reshape(3)

    # -- the frame ---------------------------------------------------------------------
    def read(self, frame: Image, calib: Calibration) -> FrameRead:
        if frame.ndim != 3 or frame.shape[2] != 3:
            raise ValueError(f"expected a BGR colour frame, got an array of shape {frame.shape}")
        half = cv2.pyrDown(frame)
        to_low = np.diag([LOW_PX, LOW_PX, 1.0]) @ calib.frame_to_mat @ np.diag([2.0, 2.0, 1.0])
        low = cv2.warpPerspective(half, to_low, self.low_size, flags=cv2.INTER_LINEAR,
                                  borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
        coef = self._fit_light(low)
        gain = np.exp(self._grid_terms @ coef).astype(np.float32)
        gain = cv2.resize(gain, self.low_size, interpolation=cv2.INTER_LINEAR)
        corrected = low / gain
        b, g, r = cv2.split(cv2.absdiff(corrected, self.ref))
        diff = cv2.max(cv2.max(b, g), r)
        fg: Image = (diff > FG_THRESHOLD).astype(np.uint8)
        fg = cv2.morphologyEx(fg, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        fg = cv2.morphologyEx(fg, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
        m2f = calib.mat_to_frame
        cards: list[CardRead] = []
        for zone in self.layout.zones:
            cards += self._read_zone(zone, fg, corrected, frame, m2f, coef)
        return FrameRead(cards, calib, fg.astype(bool), gain)

    # -- one zone ----------------------------------------------------------------------
    def _zone_view(self, zone: Zone, img: NDArray[Any]) -> NDArray[Any]:
        r, m = zone.rect, ZONE_MARGIN
        x0, y0 = round((r.x - m) * LOW_PX), round((r.y - m) * LOW_PX)
        x1, y1 = round((r.x + r.w + m) * LOW_PX), round((r.y + r.h + m) * LOW_PX)
        crop = img[max(y0, 0):y1, max(x0, 0):x1]
        return crop if zone.up == "up" else crop[::-1, ::-1]

    def _to_mat(self, zone: Zone, u: float, v: float) -> tuple[float, float]:
        """Zone-local mm (tops up, origin at the margin's corner) -> mat mm."""
        r, m = zone.rect, ZONE_MARGIN
        if zone.up == "up":
            return r.x - m + u, r.y - m + v
        return r.x + r.w + m - u, r.y + r.h + m - v

    def _read_zone(self, zone: Zone, fg_all: Image, colour_all: FloatImage,
                   frame: Image, m2f: FloatImage,
                   coef: FloatImage) -> list[CardRead]:
        p = self.profile
        fg = self._zone_view(zone, fg_all)
        if zone.kind != "formation":
            # Beyond this zone's far end lies another zone's cards (a formation's
            # first card, the next pile): they are not part of this stack.
            fg = fg.copy()
            fg[round((ZONE_MARGIN + zone.rect.h + 1) * LOW_PX):] = 0
        rows = fg.sum(axis=1)
        ok = np.nonzero(rows >= 0.45 * p.card_w * LOW_PX)[0]
        if len(ok) == 0 or ok[-1] - ok[0] < p.band_mm * 0.8:
            return []
        top, bottom = float(ok[0]), float(ok[-1] + 1)
        cols = fg[int(top):int(bottom)].mean(axis=0)
        ccols = np.nonzero(cols > 0.5)[0]
        if len(ccols) < 10:
            return []
        c0, c1 = ccols[0], ccols[-1]
        inner = slice(int(c0 + 0.15 * (c1 - c0)), int(c1 - 0.15 * (c1 - c0)) + 1)
        colour = self._zone_view(zone, colour_all)
        grad = edge_rows(colour[:, inner])
        grad = np.convolve(grad, [0.25, 0.5, 0.25], mode="same")
        # Tops: the stack's top, the last card one card height above the bottom, and
        # the horizontal edges in between.
        tops: list[tuple[float, bool]] = [(top, True)]
        last = bottom - p.card_h * LOW_PX
        if last > top + MIN_GAP_MM:
            lo, hi = int(max(last - 4, top + MIN_GAP_MM)), int(min(last + 4, len(grad) - 1))
            last = float(lo + np.argmax(grad[lo:hi + 1]) + 1) if hi > lo else last
            between = grad[int(top + MIN_GAP_MM):int(last - MIN_GAP_MM + 1)]
            base = int(top + MIN_GAP_MM)
            peaks = [base + i + 1 for i in range(1, len(between) - 1)
                     if between[i] >= between[i - 1] and between[i] > between[i + 1]
                     and between[i] > MIN_EDGE]
            # Keep the strongest peaks, one per edge; which are cards is decided later.
            chosen: list[int] = []
            for pk in sorted(peaks, key=lambda q: -grad[q - 1]):
                if all(abs(pk - c) >= PEAK_SEPARATION_MM * LOW_PX for c in chosen):
                    chosen.append(pk)
            tops += [(float(c), False) for c in sorted(chosen)]
            tops.append((last, True))
        # From the last card up: each card's visible height ends at the next card
        # actually found, not at a line in the art.
        reads: list[CardRead] = []
        sure: list[bool] = []
        next_top = bottom
        for t, certain in reversed(tops):
            visible = min(p.band_mm, next_top - t - COVER_SLACK_MM)
            band_rows = fg[int(t) + 1:int(t + max(visible, 3))]
            colcov = band_rows.mean(axis=0) if len(band_rows) else cols
            cx = self._card_centre(colcov, p.card_w, (c0 + c1 + 1) / 2)
            rd = self._classify_at(zone, t, cx, visible, frame, m2f, coef)
            if not certain and rd.score < INDEX_LIKE:
                continue  # a line in the art, not a card's edge
            if reads and rd.top_local > next_top - MIN_GAP_MM * LOW_PX:
                continue  # snapped onto the card already found below it
            if certain and rd.score < MIN_SCORE * 0.6 and not self._card_shaped(fg, t, bottom):
                continue
            reads.append(rd)
            sure.append(certain)
            next_top = rd.top_local
        reads.reverse()
        sure.reverse()
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
    def _card_centre(colcov: FloatImage, card_w: float, fallback: float) -> float:
        """Where a card-wide window covers the most card: robust to a neighbour's edge."""
        cw = round(card_w * LOW_PX)
        covered = (colcov > 0.5).astype(np.float32)
        if covered.sum() < 10 or len(covered) <= cw:
            return fallback
        sums = np.convolve(covered, np.ones(cw, np.float32), mode="valid")
        best = np.nonzero(sums >= sums.max() - 0.5)[0]
        return float((best[0] + best[-1]) / 2 + cw / 2)

    @staticmethod
    def _card_shaped(fg: Image, top: float, bottom: float) -> bool:
        block = fg[int(top):int(bottom)]
        return bool(len(block) and (block.mean(axis=0) > 0.8).sum() > 40)

    def _classify_at(self, zone: Zone, t: float, cx: float, visible: float,
                     frame: Image, m2f: FloatImage,
                     coef: FloatImage) -> CardRead:
        p = self.profile
        half = p.card_w / 2
        u0, u1 = cx / LOW_PX - half, cx / LOW_PX + half
        v0 = t / LOW_PX
        m = round(REFINE_MM * TPL_PX)
        w, h = self._tw, self._th
        dst = np.array([[m, m], [m + w, m], [m + w, m + h], [m, m + h]], np.float32)
        gain = None

        def warp(sl: float) -> tuple[FloatImage, list[tuple[float, float]]]:
            nonlocal gain
            dv = sl * p.card_w
            band = [(u0, v0 - dv / 2), (u1, v0 + dv / 2),
                    (u1, v0 + dv / 2 + p.band_mm), (u0, v0 - dv / 2 + p.band_mm)]
            corners = [self._to_mat(zone, u, v) for u, v in band]
            src = cv2.perspectiveTransform(np.array(corners, np.float64).reshape(-1, 1, 2), m2f)
            mtx = cv2.getPerspectiveTransform(src.reshape(4, 2).astype(np.float32), dst)
            crop = cv2.warpPerspective(frame, mtx, (w + 2 * m, h + 2 * m),
                                       flags=cv2.INTER_LINEAR,
                                       borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
            if gain is None:
                gain = self.gain_at(coef, sum(c[0] for c in corners) / 4,
                                    sum(c[1] for c in corners) / 4) * 255.0
            crop /= gain
            return crop, band

        # Where exactly the card lies. Tilt first: the one at which the deck's
        # average index band (its shared layout) matches best. Then the offset:
        # hypotheses from that match and from strong edges (a card's top edge
        # spans the band, its sides are a card width apart); the hypothesis
        # whose band is best explained by some card wins.
        hv = min(h, max(int(visible * TPL_PX), 8))
        ix, iy = round(INSET_X * TPL_PX), round(INSET_Y * TPL_PX)
        mean_tpl = self._mean_tpl[:hv - iy]
        fits: dict[float, tuple[float, FloatImage, list[tuple[float, float]], int, int]] = {}

        def fit(sl: float) -> float:
            if sl not in fits:
                crop, band = warp(sl)
                g = cv2.GaussianBlur(cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY), (0, 0), BLUR)
                res = cv2.matchTemplate(g, mean_tpl, cv2.TM_CCOEFF_NORMED)
                _, val, _, loc = cv2.minMaxLoc(res)
                fits[sl] = (val, crop, band, loc[0] - ix, loc[1] - iy)
            return fits[sl][0]

        # Coarse to fine over the tilts a hand puts a card down with.
        centre = max(SLOPES_COARSE, key=fit)
        centre = max((centre - SLOPE_STEP, centre, centre + SLOPE_STEP), key=fit)
        best_fit = fits[centre]
        _, crop, band, mx, my = best_fit
        hyps = {(mx, my)}
        gy = edge_rows(crop[:, m + w // 8:m + w - w // 8], spread=1)
        gy = np.convolve(gy[:2 * m + 1], [0.25, 0.5, 0.25], mode="same")
        peaks = [i for i in range(len(gy)) if gy[i] >= gy[max(i - 1, 0)]
                 and gy[i] >= gy[min(i + 1, len(gy) - 1)] and gy[i] >= 0.2 * gy.max()]
        for py in sorted(peaks, key=lambda i: -gy[i])[:2]:
            ty = py + 1
            rows = crop[min(ty + 2, len(crop) - 1):max(ty + hv - 2, ty + 3)]
            gx = edge_rows(rows.transpose(1, 0, 2), spread=3)
            pair = np.minimum(gx[:2 * m - 1], gx[w:w + 2 * m - 1])  # both sides must show
            hyps.add((int(np.argmax(pair)) + 1, ty))
        s = SHIFT_PX
        q = m + s + iy + ix  # slack for a match at the crop's very edge
        pad = cv2.copyMakeBorder(crop, q, q + h, q, q + w, cv2.BORDER_REPLICATE)
        best: tuple[float, int, int, FloatImage] | None
        best = None
        for tx, ty in _distinct(hyps):
            aligned = pad[ty - s + q:ty + h + s + q, tx - s + q:tx + w + s + q]
            quick = self.best_score(aligned, visible - (ty - m) / TPL_PX)
            if best is None or quick > best[0]:
                best = (quick, tx, ty, aligned)
        assert best is not None
        quick, tx, ty, aligned = best
        if quick < GOOD_FIT:
            # A doubtful fit (a covered card, its coverer's edge across the band):
            # search the tilt again, judged by how well some card explains the band.
            for sl in SLOPES_FINE:
                crop2, band2 = warp(sl)
                g = cv2.GaussianBlur(cv2.cvtColor(crop2, cv2.COLOR_BGR2GRAY), (0, 0), BLUR)
                res = cv2.matchTemplate(g, mean_tpl, cv2.TM_CCOEFF_NORMED)
                _, _, _, loc = cv2.minMaxLoc(res)
                tx2, ty2 = loc[0] - ix, loc[1] - iy
                pad2 = cv2.copyMakeBorder(crop2, q, q + h, q, q + w, cv2.BORDER_REPLICATE)
                al2 = pad2[ty2 - s + q:ty2 + h + s + q, tx2 - s + q:tx2 + w + s + q]
                quick2 = self.best_score(al2, visible - (ty2 - m) / TPL_PX)
                if quick2 > quick:
                    quick, tx, ty, aligned, band = quick2, tx2, ty2, al2, band2
        token, conf, score, cands = self.classify(aligned, visible - (ty - m) / TPL_PX)
        du, dvv = (tx - m) / TPL_PX, (ty - m) / TPL_PX
        moved = [(u + du, v + dvv) for u, v in band]
        corners = [self._to_mat(zone, u, v) for u, v in moved]
        rd = CardRead(zone.name, 0, token, conf, score, corners, cands)
        rd.top_local = (v0 + dvv) * LOW_PX
        return rd

    def _normalised_templates(self, hv: int) -> tuple[FloatImage, FloatImage]:
        """Templates cut to the visible height: raw, and zero-mean unit-norm rows."""
        if hv not in self._tpl_cache:
            ix, iy, w = round(INSET_X * TPL_PX), round(INSET_Y * TPL_PX), self._tw
            raw = np.ascontiguousarray(
                self._templates[:, iy:hv, ix:w - ix].reshape(len(self._templates), -1))
            tpl = raw - raw.mean(axis=1, keepdims=True)
            tpl /= np.linalg.norm(tpl, axis=1, keepdims=True) + 1e-6
            self._tpl_cache[hv] = (raw, np.ascontiguousarray(tpl.T))
        return self._tpl_cache[hv]

    def classify(self, crop: FloatImage, visible_mm: float,
                 ) -> tuple[str, float, float, list[tuple[str, float]]]:
        """Token, confidence, best score and the top candidates for a band crop.

        ``crop`` is the band with SHIFT_PX pixels of slack on every side, in true
        colours (BGR, 0..1); only its top ``visible_mm`` is trusted.

        A first pass ranks every token by grey correlation minus colour distance.
        Tokens of one colour share most of their band, so the leaders are then
        compared pairwise where their templates differ (the numeral, the pips)
        and by colour; the smallest pairwise margin of the winner is its
        confidence.
        """
        g = self._global(crop, visible_mm)
        raw, tpl, vraw, best_shift, ncc, cpen, score = g
        order = [int(i) for i in np.argsort(-score)[:TOP_K]]
        cands = [(self.profile.tokens[i], float(score[i])) for i in order[:3]]

        def margins_of(a: int) -> dict[int, float]:
            """How much better ``a`` explains the band than each other leader.

            Correlation weighted by how much the two templates differ there (on
            normalised templates, so two photos' exposure is no difference;
            squared, so the numeral outweighs slight blur), plus colour.
            """
            others = [c for c in order if c != a]
            wgt = np.square(tpl[:, [a]].T - tpl[:, others].T)
            v = vraw[best_shift[a]]
            shape = (_wncc_rows(v, np.broadcast_to(raw[a], wgt.shape), wgt)
                     - _wncc_rows(v, raw[others], wgt))
            colour = (cpen[others] - cpen[a]) / PAIR_COLOUR_SCALE
            return dict(zip(others, (shape + colour).tolist(), strict=True))

        winner = order[0]
        for _ in range(TOP_K):
            margins = margins_of(winner)
            loser = min(margins, key=lambda c: margins[c])
            if margins[loser] >= 0:
                break
            winner = loser
        margin = min(margins.values())
        top = float(ncc[winner])
        conf = float(np.clip(margin / (2 * MIN_MARGIN), 0, 1))
        # Never a guess: the winner must explain the band well with its colour
        # too, and the pairwise look may only settle near-ties of the ranking.
        plausible = (float(score[winner]) >= MIN_SCORE
                     and float(score[winner]) >= float(score[order[0]]) - MAX_RANK_GAP)
        if not plausible or margin < MIN_MARGIN:
            return UNKNOWN, conf * 0.5, top, cands
        return self.profile.tokens[winner], 0.5 + conf * 0.5, top, cands

    def _global(self, crop: FloatImage, visible_mm: float, colour: bool = True,
                ) -> tuple[FloatImage, ...]:
        """Every token's grey correlation (best of the small shifts) and colour penalty."""
        from vision.profile import band_features

        s, w = SHIFT_PX, self._tw
        hv = max(int(min(visible_mm, self.profile.band_mm) * TPL_PX), 8)
        ix, iy = round(INSET_X * TPL_PX), round(INSET_Y * TPL_PX)
        gray_c = cv2.GaussianBlur(cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY), (0, 0), BLUR)
        raw, tpl = self._normalised_templates(hv)
        views = []
        for dy in range(-s, s + 1):
            for dx in range(-s, s + 1):
                views.append(gray_c[s + dy + iy:s + dy + hv, s + dx + ix:s + dx + w - ix].ravel())
        vraw = np.asarray(views, np.float32)
        vm = vraw - vraw.mean(axis=1, keepdims=True)
        vm /= np.linalg.norm(vm, axis=1, keepdims=True) + 1e-6
        corr = vm @ tpl
        best_shift = corr.argmax(axis=0)
        ncc = corr.max(axis=0)
        if not colour:
            return raw, tpl, vraw, best_shift, ncc, np.zeros_like(ncc), ncc
        _, sig = band_features(crop[s:s + hv, s:s + w])
        cdist = np.linalg.norm(self.profile.chroma - sig, axis=1)
        # Colour differences below the noise floor (white balance, one photo per
        # card) say nothing: two cards of one suit are the same colour.
        cpen = np.maximum(cdist - COLOUR_FLOOR, 0.0)
        score = ncc - COLOUR_WEIGHT * cpen
        return raw, tpl, vraw, best_shift, ncc, cpen, score

    def best_score(self, crop: FloatImage, visible_mm: float) -> float:
        """How well the best token explains a band: cheap, for choosing where it lies."""
        return float(self._global(crop, visible_mm, colour=False)[6].max())


def _wncc_rows(v: FloatImage, t: FloatImage, w: FloatImage) -> FloatImage:
    """Weighted normalised cross-correlation of ``v`` with each row of ``t`` (weights ``w``)."""
    sw = w.sum(axis=1) + 1e-9
    mv = (w @ v) / sw
    mt = (w * t).sum(axis=1) / sw
    dv = v[None, :] - mv[:, None]
    dt = t - mt[:, None]
    num = (w * dv * dt).sum(axis=1)
    den = np.sqrt((w * dv * dv).sum(axis=1) * (w * dt * dt).sum(axis=1)) + 1e-9
    return np.asarray(num / den, np.float32)
