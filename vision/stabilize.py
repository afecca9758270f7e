"""When to trust what the camera sees: still table, no hand, agreed over several frames.

The low-resolution stream is cheap to look at every frame: motion is the mean
change between two consecutive small grey frames, and a hand or an arm is
anything unlike the printed mat where no card can lie (between and around
the zones). Only once the table has been still and clear for a few frames are
full frames read, and a snapshot is emitted when several reads agree.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

import cv2
import numpy as np

from vision.calibrate import Calibration
from vision.mat import MARKER_PAD, MatLayout, standard_mat
from vision.position import UNKNOWN, build_position, contested
from vision.read import FrameRead
from vision.render_mat import render_mat
from vision.types import FloatImage, Image

HAND_PX_PER_MM = 0.5


@dataclass
class Snapshot:
    zones: dict[str, list[str]]
    agreement: dict[str, list[float]]  # per card: share of the votes its token got
    # Per card: how sure the snapshot is of it, the least of its share of the votes
    # and the reader's own confidence in each read that voted for it.
    confidence: dict[str, list[float]] = field(default_factory=dict)

    def position(self, to_move: str = "south") -> dict[str, object]:
        return build_position(self.zones, to_move)


Confidences = dict[str, list[float]]


def vote(reads: Sequence[dict[str, list[str]]],
         confidences: Sequence[Confidences] | None = None) -> Snapshot:
    """Per zone the most common card count, then per slot the majority token.

    A read that left a slot ``unknown`` abstains; a slot without a strict
    majority of one token among the others is ``unknown``; a token voted for at
    two places stands only at the one the snapshot is clearly surer of (a card
    lies once), at neither when they are close (``contested``).
    ``confidences`` (one per read, like the reads' zones) are the reader's own
    per card; without them each read counts as sure.
    """
    zones: dict[str, list[str]] = {}
    agree: dict[str, list[float]] = {}
    sure: dict[str, list[float]] = {}
    names = sorted({z for r in reads for z in r})
    confs = list(confidences) if confidences is not None else [{} for _ in reads]
    for z in names:
        counts = Counter(len(r.get(z, [])) for r in reads)
        n, _ = counts.most_common(1)[0]
        if n == 0:
            continue
        same = [(r.get(z, []), c.get(z, [])) for r, c in zip(reads, confs, strict=True)
                if len(r.get(z, [])) == n]
        zones[z], agree[z], sure[z] = [], [], []
        for i in range(n):
            c = Counter(s[i] for s, _ in same if s[i] != UNKNOWN)
            tok, k = c.most_common(1)[0] if c else (UNKNOWN, 0)
            share = k / len(reads)
            # An unknown read abstains (the reader never guesses): the token must
            # hold a strict majority of the reads that named one; its share of all
            # the reads is how much the snapshot trusts it.
            ok = tok != UNKNOWN and k * 2 > sum(c.values())
            zones[z].append(tok if ok else UNKNOWN)
            agree[z].append(share if ok else 0.0)
            own = [cs[i] for s, cs in same if s[i] == tok and i < len(cs)]
            sure[z].append(min(share, *own) if ok and own else agree[z][-1])
    # Each card at most once, even when every read had it once: frames that put it
    # at different places vote for both.
    slots = [(z, i) for z, toks in zones.items() for i in range(len(toks))]
    for k in contested([_Slot(zones[z][i], sure[z][i]) for z, i in slots]):
        z, i = slots[k]
        zones[z][i] = UNKNOWN
        agree[z][i] = 0.0
        sure[z][i] = 0.0
    return Snapshot(zones, agree, sure)


class _Slot(NamedTuple):
    token: str
    confidence: float


@dataclass
class Stabilizer:
    layout: MatLayout = field(default_factory=standard_mat)
    still_frames: int = 3
    vote_frames: int = 3
    motion_threshold: float = 2.5  # mean grey level change between low-res frames
    hand_fraction: float = 0.01  # of the card-free mat area
    frame_width: int = 2304  # of the main stream the calibration was made on
    ring_fraction: float = 0.02  # of the table just around the mat
    _prev: Image | None = None
    _still: int = 0
    _reads: list[dict[str, list[str]]] = field(default_factory=list)
    _confidences: list[Confidences] = field(default_factory=list)
    _last: dict[str, list[str]] | None = None
    _ref: FloatImage | None = None
    _free: np.ndarray | None = None
    _clear_bg: FloatImage | None = None
    hand: bool = False
    moving: bool = False

    def _reference(self) -> tuple[FloatImage, np.ndarray]:
        if self._ref is None or self._free is None:
            self._ref = render_mat(HAND_PX_PER_MM, self.layout).astype(np.float32)
            free = np.ones(self._ref.shape[:2], np.uint8)
            s = HAND_PX_PER_MM
            for z in self.layout.zones:
                r = z.rect
                cv2.rectangle(free, (round((r.x - 6) * s), round((r.y - 6) * s)),
                              (round((r.x + r.w + 6) * s), round((r.y + r.h + 6) * s)), 0, -1)
            for mk in self.layout.markers:  # black/white edges never register exactly
                half = mk.size / 2 + MARKER_PAD + 3
                cv2.rectangle(free, (round((mk.cx - half) * s), round((mk.cy - half) * s)),
                              (round((mk.cx + half) * s), round((mk.cy + half) * s)), 0, -1)
            self._free = free.astype(bool)
        return self._ref, self._free

    def hand_over_mat(self, low: Image, calib: Calibration) -> bool:
        """Something unlike the mat where no card lies: a hand, an arm, a sleeve."""
        ref, free = self._reference()
        scale = low.shape[1] / self.frame_width
        to_mat = (np.diag([HAND_PX_PER_MM, HAND_PX_PER_MM, 1.0]) @ calib.frame_to_mat
                  @ np.diag([1 / scale, 1 / scale, 1.0]))
        top = cv2.warpPerspective(low, to_mat, (ref.shape[1], ref.shape[0])).astype(np.float32)
        # Light and colour cast: compare after matching the free area's median colour.
        gain = np.median(ref[free], axis=0) / np.maximum(np.median(top[free], axis=0), 1.0)
        diff = np.abs(top * gain - ref).max(axis=2)
        covered = (diff > 60) & free
        if covered.mean() / max(free.mean(), 1e-6) > self.hand_fraction:
            return True
        # An arm reaching in crosses the mat's edge: compare the table just outside
        # the mat with the last frame that had no hand.
        ring = self._ring(low.shape[:2], calib, scale)
        if self._clear_bg is None or not ring.any():
            return False
        change = np.abs(low.astype(np.float32) - self._clear_bg).max(axis=2)
        return bool(((change > 45) & ring).sum() > self.ring_fraction * ring.sum())

    def _ring(self, shape: tuple[int, ...], calib: Calibration, scale: float) -> np.ndarray:
        lay = self.layout
        corners = np.array([[0, 0], [lay.width, 0], [lay.width, lay.height], [0, lay.height]],
                           np.float64).reshape(-1, 1, 2)
        pix = cv2.perspectiveTransform(corners, calib.mat_to_frame).reshape(-1, 2) * scale
        inside = np.zeros(shape[:2], np.uint8)
        cv2.fillConvexPoly(inside, pix.round().astype(np.int32), 1)
        grown = cv2.dilate(inside, np.ones((21, 21), np.uint8))
        return (grown > 0) & (inside == 0)

    def feed(self, low: Image, calib: Calibration, read_full: FrameRead | None = None,
             ) -> Snapshot | None:
        """One low-res frame; ``read_full`` is the full frame's read when ``wants_read``."""
        gray = cv2.cvtColor(low, cv2.COLOR_BGR2GRAY).astype(np.float32)
        self.moving = (self._prev is not None
                       and float(np.abs(gray - self._prev).mean()) > self.motion_threshold)
        self._prev = gray
        self.hand = self.hand_over_mat(low, calib)
        if self.moving or self.hand:
            self._still = 0
            self._reads.clear()
            self._confidences.clear()
            return None
        self._clear_bg = low.astype(np.float32)
        self._still += 1
        if read_full is not None and self._still > self.still_frames:
            self._reads.append(read_full.zones())
            self._confidences.append(read_full.confidences())
        if len(self._reads) < self.vote_frames:
            return None
        snap = vote(self._reads, self._confidences)
        self._reads.clear()
        self._confidences.clear()
        if snap.zones == self._last:
            return None
        self._last = snap.zones
        return snap

    @property
    def wants_read(self) -> bool:
        """Whether the next frame's full read would be used (saves reading while moving)."""
        return self._still >= self.still_frames and not self.hand
