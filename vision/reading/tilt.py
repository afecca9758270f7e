"""A card's top edge in a small warp of its band: its tilt and the strongest lines.

A card's top edge, and the frame and rules printed parallel to it, are straight
colour steps across the whole width; the tops of a numeral, pips and a letter
line up only here and there. So the tilt is that of the straight line strong in
nearly every column strip, between the tilts tried where a parabola through the
line strengths peaks. The runner-up tilt is kept for a doubtful read: a line printed
on the mat may pass for a single card's top edge, and a covered card laid crooked
against the card it lies on shows that card's art lines just above its own edge.
"""

from __future__ import annotations

from typing import Final, NamedTuple

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.profile import TPL_PX
from vision.reading.placement import REFINE_MM
from vision.types import FloatImage, Image

TILT_STEP: Final = 0.01
# The card slopes tried: a hand lays a card up to 8 degrees off square (0.14).
TILTS: Final = tuple(round(-0.15 + TILT_STEP * i, 3) for i in range(31))
STRIPS: Final = 8  # column strips a card's top edge is followed in (``lower_half_less_least``)
TILT_APART: Final = 0.03  # a runner-up tilt differs from the best by this at least
# Strongest straight lines tried as the card's top edge: three, for a soft edge
# between two colours of one lightness (an orange card on a grey mat) steps less
# than the two sharp rules some designs print just under it.
LINES: Final = 3
# A runner-up tilt whose line peaks of its own at least this strong against the
# winner's is a second edge (a covered card's own, under another card's art line).
SECOND_EDGE: Final = 0.5

_APART: Final = np.abs(np.subtract.outer(TILTS, TILTS)) >= TILT_APART  # tilt pairs far apart


class Edge(NamedTuple):
    """A band's top edge as its crop shows it."""

    slope: float
    lines: list[int]  # the strongest lines at that slope: rows, each the boundary below
    runner_up: float  # the slope tried next for a doubtful read
    second: bool  # the runner-up is an edge of its own (``SECOND_EDGE``)


class TopEdges:
    """Finds the top edge in bands ``tw`` px wide (template px) warped at tilt 0 with
    REFINE_MM of slack."""

    def __init__(self, tw: int) -> None:
        self.tw = tw
        self._lines: dict[
            int, tuple[NDArray[np.intp], NDArray[np.intp], FloatImage, FloatImage]] = {}

    def strip_cols(self) -> tuple[int, int]:
        """The columns of a band's crop its top edge is followed in: its inner four
        fifths, a whole number of strips wide."""
        m, w = round(REFINE_MM * TPL_PX), self.tw
        x0, x1 = m + round(0.1 * w), m + w - round(0.1 * w)
        return x0, x1 - (x1 - x0) % STRIPS

    def _tilt_lines(self, rows: int,
                    ) -> tuple[NDArray[np.intp], NDArray[np.intp], FloatImage, FloatImage]:
        """For every tilt, strip and row: where that straight line crosses the strip
        (the rows above and below it and their weights)."""
        if rows not in self._lines:
            m, w = round(REFINE_MM * TPL_PX), self.tw
            x0, x1 = self.strip_cols()
            xs = (np.arange(STRIPS) + 0.5) * ((x1 - x0) // STRIPS) + x0 - (m + w / 2)
            pos = (np.arange(rows, dtype=np.float32)[None, None, :]
                   + np.array(TILTS, np.float32)[:, None, None] * xs[None, :, None])
            lo = np.clip(np.floor(pos).astype(np.intp), 0, rows - 2)
            fr = np.clip(pos - lo, 0.0, 1.0).astype(np.float32)
            # Flat indices into a (strips, rows) profile.
            lo += (np.arange(STRIPS) * rows)[None, :, None]
            self._lines[rows] = (lo, lo + 1, 1 - fr, fr)
        return self._lines[rows]

    def find(self, crops: Image) -> list[Edge]:
        """Per band crop (stacked, tilt 0, ``strip_cols`` only): its top edge.

        The vertical colour steps of column strips are summed along every straight
        line of the tilts a hand puts a card down with, counting for each line its
        weaker strips (the lower half, less the weakest, which glare or a shadow may
        have hidden): a line strong in nearly every strip gives the tilt.
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
        line = lower_half_less_least([vals[:, :, i] for i in range(STRIPS)])
        best = line.max(axis=2)
        ks = best.argmax(axis=1)
        at = line[np.arange(n), ks]
        peak = _peaks(at)
        strongest = np.argsort(np.where(peak, -at, np.inf), axis=1, kind="stable")[:, :LINES]
        # The runner-up: the best line at a tilt clearly apart from the winner's, where
        # the line strengths peak again (next to the winner they only fall away from it).
        apart = np.where(_APART[ks], best, -1.0)
        peaks = np.where(_peaks(best), apart, -1.0)
        top = peaks.max(axis=1)
        others = np.where(top > 0, peaks.argmax(axis=1), apart.argmax(axis=1))
        second = (top > 0) & (top >= SECOND_EDGE * best.max(axis=1))
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
            out.append(Edge(slope, lines, float(TILTS[others[i]]), bool(second[i])))
        return out


def _peaks(x: FloatImage) -> NDArray[np.bool_]:
    """Where each row of ``x`` is at least both its neighbours (an end, its one)."""
    before = np.concatenate([x[:, :1], x[:, :-1]], axis=1)
    after = np.concatenate([x[:, 1:], x[:, -1:]], axis=1)
    return np.asarray((x >= before) & (x >= after))


def _sort4(x: list[FloatImage]) -> None:
    """Four arrays sorted elementwise in place (a five-comparator network)."""
    for i, j in ((0, 1), (2, 3), (0, 2), (1, 3), (1, 2)):
        x[i], x[j] = np.minimum(x[i], x[j]), np.maximum(x[i], x[j])


def lower_half_less_least(strips: list[FloatImage]) -> FloatImage:
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
