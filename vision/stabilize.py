"""When to trust what the camera sees: still table, no hand, agreed over several frames.

The low-resolution stream is cheap to look at every frame: motion is any
change between two consecutive small grey frames (the mean, or a patch the size
of a fingertip), and a hand or an arm is anything unlike the printed mat where
no card can lie (between and around the zones), or anything new across the
mat's edge, where an arm reaching in must pass. A run is the frames since the
last one that moved, each without a hand and like the one before. Its first
frame is read at once, while the next is awaited (the frame rate, not the
reader, sets the pace); that read is taken once the run is ``still_frames``
long, and a snapshot is emitted when ``vote_frames`` reads of the run agree.
A hand anywhere in between ends the run and drops its reads.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

import cv2
import numpy as np

from vision.calibrate import Calibration
from vision.mat import MARKER_PAD, MatLayout, standard_mat
from vision.reading.result import FrameRead
from vision.render_mat import render_mat
from vision.types import FloatImage, Image
from vision.vote import Confidences, Guesses, Snapshot, suggest, vote

HAND_PX_PER_MM = 0.5
# An arm reaching in crosses the mat's edge. Measured on 360 simulated arms over 120
# tables (sleeves of every colour, some as dark as the table): the table up to 10 mm
# outside the edge changed by more than 25 grey levels, or the mat's 1-5 mm inside it
# by more than 40, over more than these many pixels of the 0.5 px/mm view, on all
# 360; on none of 119 tables between two cards laid.
EDGE_MM = 10.0
EDGE_OUT_LEVEL, EDGE_OUT_PX = 25.0, 15
EDGE_IN_LEVEL, EDGE_IN_PX = 40.0, 30
EDGE_SETTLE_FRAMES = 30  # 3 s at 10 frames a second


class _Looks(NamedTuple):
    size: tuple[int, int]  # of the top view: the mat and EDGE_MM around it
    free: np.ndarray  # the free area's pixels
    ref: FloatImage  # the printed mat's colour there
    ref_median: FloatImage
    band: np.ndarray  # the pixels of the bands along the mat's edge
    inner: np.ndarray  # of those, which lie inside the mat


@dataclass
class Stabilizer:
    layout: MatLayout = field(default_factory=standard_mat)
    still_frames: int = 3
    vote_frames: int = 3
    motion_threshold: float = 2.5  # mean grey level change between low-res frames
    change_level: float = 30.0  # grey levels: far above sensor noise between two frames
    change_share: float = 0.001  # of the low-res frame changed that much: about a fingertip
    hand_fraction: float = 0.01  # of the card-free mat area
    frame_width: int = 2304  # of the main stream the calibration was made on
    _prev: FloatImage | None = None
    _run: int = 0  # frames in the run: hand-free, each like the one before
    _voted: bool = False  # this run's reads were voted: no need to read it again
    _reads: list[dict[str, list[str]]] = field(default_factory=list)
    _confidences: list[Confidences] = field(default_factory=list)
    _guesses: list[Guesses] = field(default_factory=list)
    _frames: list[int] = field(default_factory=list)  # which frame each read was of
    _last: dict[str, list[str]] | None = None
    _ref: FloatImage | None = None
    _free: np.ndarray | None = None
    _where: _Looks | None = None
    # The last frame's bands along the mat's edge and its free area's median colour,
    # and the same of the last still frame without a hand.
    _seen: tuple[FloatImage, FloatImage] | None = None
    _clear: tuple[FloatImage, FloatImage] | None = None
    _edge_only: bool = False  # the last frame's hand was seen at the mat's edge only
    _edge_still: int = 0  # frames in a row so, and still
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

    def _looks(self) -> _Looks:
        """Where a frame's top view is looked at, as flat indices into it: the free
        area (and the printed mat there), and the bands along the mat's edge."""
        if self._where is None:
            ref, free = self._reference()
            s, lay = HAND_PX_PER_MM, self.layout
            w, h = round((lay.width + 2 * EDGE_MM) * s), round((lay.height + 2 * EDGE_MM) * s)
            p = round(EDGE_MM * s)
            padded = np.zeros((h, w), bool)
            padded[p:p + free.shape[0], p:p + free.shape[1]] = free
            y, x = np.mgrid[0:h, 0:w] / s - EDGE_MM
            # Distance inside the mat's edge (negative outside): just inside it no card
            # lies (zones end 8 mm short of it), just outside it is the table.
            inside = np.minimum.reduce([x, lay.width - x, y, lay.height - y])
            inner, outer = (inside >= 1.0) & (inside <= 5.0), inside <= -2.0
            band = np.flatnonzero(inner | outer)
            self._where = _Looks((w, h), np.flatnonzero(padded), ref[free],
                                 np.median(ref[free], axis=0), band, inner.ravel()[band])
        return self._where

    def hand_over_mat(self, low: Image, calib: Calibration) -> bool:
        """Something unlike the mat where no card lies: a hand, an arm, a sleeve."""
        where = self._looks()
        scale = low.shape[1] / self.frame_width
        pad, s = EDGE_MM * HAND_PX_PER_MM, HAND_PX_PER_MM
        to_top = (np.array([[s, 0, pad], [0, s, pad], [0, 0, 1.0]]) @ calib.frame_to_mat
                  @ np.diag([1 / scale, 1 / scale, 1.0]))
        view = cv2.warpPerspective(low, to_top, where.size).reshape(-1, 3)
        free = view[where.free].astype(np.float32)
        # Light and colour cast: compare after matching the free area's median colour
        # (every third pixel's is as good).
        seen = np.maximum(np.median(free[::3], axis=0), 1.0)
        band = view[where.band].astype(np.float32)
        self._seen = (band, seen)
        self._edge_only = False
        covered = np.abs(free * (where.ref_median / seen) - where.ref).max(axis=1) > 60
        if covered.mean() > self.hand_fraction:
            return True
        # An arm reaching in crosses the mat's edge: compare the bands along it with the
        # last still frame without a hand (after matching the light of the two).
        if self._clear is None:
            return False
        self._edge_only = True
        clear, was = self._clear
        change = np.abs(band * (was / seen) - clear).max(axis=1)
        inner = where.inner
        return bool((change[~inner] > EDGE_OUT_LEVEL).sum() > EDGE_OUT_PX
                    or (change[inner] > EDGE_IN_LEVEL).sum() > EDGE_IN_PX)

    def look(self, low: Image, calib: Calibration) -> bool:
        """Judge the next low-res frame (motion, hand): whether its full read would be
        used, to be passed to ``take``."""
        gray = cv2.cvtColor(low, cv2.COLOR_BGR2GRAY).astype(np.float32)
        prev, self._prev = self._prev, gray
        if prev is None or prev.shape != gray.shape:
            self.moving = True
        else:
            diff = np.abs(gray - prev)
            self.moving = (float(diff.mean()) > self.motion_threshold
                           or float((diff > self.change_level).mean()) > self.change_share)
        self.hand = self.hand_over_mat(low, calib)
        # Only the mat's edge unlike the clear table, and nothing moving for a while: no
        # arm holds that still so long, it is something left there (a cup beside the
        # mat, a card pushed to its edge): the table as it is now is the clear one.
        self._edge_still = self._edge_still + 1 if (
            self.hand and self._edge_only and not self.moving) else 0
        if self._edge_still >= EDGE_SETTLE_FRAMES:
            self._clear, self.hand, self._edge_still = self._seen, False, 0
        if self.hand:
            self._run = 0
            self._drop_reads()
            return False
        if self.moving or self._run == 0:  # this frame starts a run
            self._run = 0
            self._voted = False
            self._drop_reads()
        self._run += 1
        if not self.moving or self._clear is None:  # the table as it is when clear
            self._clear = self._seen
        return not self._voted and len(self._reads) < self.vote_frames

    def take(self, read_full: FrameRead | None, frame: int = 0) -> Snapshot | None:
        """The looked-at frame's read (None when not read; ``frame`` names it): a
        snapshot when the run is long enough, its reads agree and differ from the last."""
        if self.hand:
            return None
        if read_full is not None:
            self._reads.append(read_full.zones())
            self._confidences.append(read_full.confidences())
            self._guesses.append(read_full.guesses())
            self._frames.append(frame)
        if self._run < self.still_frames or len(self._reads) < self.vote_frames:
            return None
        # Without the reads' guesses: a still run's frames are nearly one picture, so
        # their agreeing on a guess is little evidence (``vision.vote``, GUESS_AT).
        snap = vote(self._reads, self._confidences)
        # They may still offer a person the card to choose first (never a name).
        suggest(snap, self._reads, self._guesses)
        snap.frames = list(self._frames)
        self._voted = True
        self._drop_reads()
        if snap.zones == self._last:
            return None
        self._last = snap.zones
        return snap

    def feed(self, low: Image, calib: Calibration, read: FrameRead | None = None,
             ) -> Snapshot | None:
        """``look`` and ``take`` at once, for a caller that read the frame whatever
        ``look`` says (its read is dropped where ``look`` would not use it)."""
        wanted = self.look(low, calib)
        return self.take(read if wanted else None)

    @property
    def pending(self) -> bool:
        """Whether reads wait for the next frames to show the table still."""
        return bool(self._reads)

    def _drop_reads(self) -> None:
        self._reads.clear()
        self._confidences.clear()
        self._guesses.clear()
        self._frames.clear()
