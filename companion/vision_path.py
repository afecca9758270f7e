"""Camera frames to stable snapshots, through vision: calibrate, read, stabilise.

``VisionSnapshots`` is the ``SnapshotSource`` of the live companion: each
poll takes one frame, keeps the mat's calibration up to date, reads the
cards only when the stabiliser wants a read (the first frames of a table
without a hand, read while the next frames are awaited), and returns a
snapshot when the voted reading of a table seen still changed. A camera that fails, or a
mat that cannot be seen, is a ``SourceError`` for the companion to show.

``TableFrames`` is the simulated table's camera: it lays the cards of each
step on the mat (vision's synthetic renderer), photographs it once with a
hand over the table and once still, and serves those frames.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import sys
import time
import traceback
from collections.abc import Callable
from multiprocessing.connection import Connection
from pathlib import Path

import cv2
import numpy as np

from companion.i18n import _
from companion.snapshot import Reading, Snapshot, SourceError
from vision.calibrate import Calibration, CalibrationError, Calibrator
from vision.changes import camera_moved, changed_zones, merge
from vision.deck_art import CardArt, Style
from vision.position import UNKNOWN
from vision.profile import DeckProfile, ProfileError, builtin_profile
from vision.read import Reader
from vision.reading.result import FrameRead
from vision.simulated.camera_model import Camera
from vision.simulated.synth import Conditions, Table, lay_table, photograph, with_hands
from vision.sources.base import FramePair, FrameSource, SourceEnded, low_from_main
from vision.sources.base import SourceError as FrameError
from vision.stabilize import Stabilizer

Zones = dict[str, tuple[str, ...]]
RECALIBRATE_EVERY = 10  # frames
FULL_READ_EVERY = 10  # reads: now and then every zone afresh, whatever changed


def load_profile(deck: str) -> DeckProfile:
    """The deck profile the config names: ``builtin`` or a file made by ``enroll``."""
    if deck in ("", "builtin"):
        return builtin_profile()
    try:
        return DeckProfile.load(Path(deck).expanduser())
    except ProfileError as error:
        raise SourceError(str(error)) from None


class VisionSnapshots:
    """Frames in, stable snapshots out (``SnapshotSource``)."""

    def __init__(
        self,
        frames: FrameSource,
        profile: DeckProfile,
        *,
        still_frames: int = 2,
        vote_frames: int = 1,
    ) -> None:
        self.frames = frames
        self.name = f"vision on {frames.name}"
        self.calibrator = Calibrator()
        self.reader = Reader(profile)
        self.stabilizer = Stabilizer(still_frames=still_frames, vote_frames=vote_frames)
        self.frames_read = 0
        self.reads = 0
        self.hand_frame_at = 0.0  # perf_counter when the last frame with a hand came in
        self._since_calibration = 0
        self.zones_read = 0  # zones read so far: most reads redo only what changed
        self.read_ms: list[float] = []  # each read's CPU time (this thread's), ms
        self._last_read: FrameRead | None = None
        self._last_read_low: np.ndarray | None = None
        self._partial_reads = 0
        self._read_at = (0.0, 0.0)  # when the last read started and ended
        self.timing: dict[str, float] = {}  # of the last snapshot's frame (see ``poll``)
        self.snapshot_frames: list[int] = []  # the frames the last snapshot read

    def use_profile(self, profile: DeckProfile) -> None:
        """Read with another deck's profile from now on (every zone read afresh)."""
        self.reader = Reader(profile)
        self._last_read = self._last_read_low = None

    def poll(self) -> Snapshot | None:
        try:
            pair = self.frames.read()
        except FrameError as error:  # a folder read through is told apart by its class
            raise SourceError(str(error), ended=isinstance(error, SourceEnded)) from None
        arrived = time.perf_counter()
        self.frames_read += 1
        stab = self.stabilizer
        stab.frame_width = pair.main.shape[1]
        # The camera and the mat stay put: look at each frame with the last calibration,
        # made afresh for a frame that is read and every few frames in case the camera
        # was bumped (not while a read waits to be taken: this frame may be the one that
        # takes it, and a bump would show as motion anyway).
        self._since_calibration += 1
        fresh = self.calibrator.last is None or (
            self._since_calibration >= RECALIBRATE_EVERY and not stab.pending)
        calib = self._calibrate(pair) if fresh else self.calibrator.last
        assert calib is not None
        # The first frame of a still table is read while the next one is awaited; the
        # stabiliser takes that read once the next frames show the same table, no hand.
        wanted = stab.look(pair.low, calib)
        looked = time.perf_counter()
        read = None
        if wanted:
            calib = calib if fresh else self._calibrate(pair)
            read = self._read(pair, calib)
            self.reads += 1
            self._read_at = (looked, time.perf_counter())
        snap = stab.take(read, self.frames_read)
        done = time.perf_counter()
        if stab.hand:
            self.hand_frame_at = arrived
        if snap is None:
            return None
        # Where the time went, for ``bench loop``: when the frame that made the snapshot
        # arrived, how long looking at it took (motion, hand), when the last read voted
        # (its calibration with it) started and ended, and when the snapshot was made.
        self.timing = {"frame": self.frames_read, "arrived": arrived, "look_s": looked - arrived,
                       "read_started": self._read_at[0], "read_ended": self._read_at[1],
                       "done": done}
        # A card's confidence: the share of the votes its token got, and no more than
        # the reader's own confidence in it (the least of the reads voted): the
        # stabiliser's snapshot keeps both.
        zones: dict[str, tuple[Reading, ...]] = {}
        for zone, tokens in snap.zones.items():
            sure = snap.confidence.get(zone, [])
            offer = snap.suggested.get(zone, [])
            zones[zone] = tuple(Reading(token, sure[k] if k < len(sure) else 0.0,
                                        offer[k] if k < len(offer) else None)
                                for k, token in enumerate(tokens))
        self.snapshot_frames = snap.frames
        return Snapshot(zones)

    def _calibrate(self, pair: FramePair) -> Calibration:
        self._since_calibration = 0
        try:
            return self.calibrator.update(pair.main)
        except CalibrationError as error:
            raise SourceError(str(error)) from None

    def _read(self, pair: FramePair, calib: Calibration) -> FrameRead:
        """Read the zones that changed since the last read (and those it was unsure of);
        every zone after a camera move and now and then."""
        last, layout = self._last_read, self.reader.layout
        zones: set[str] | None = None
        if (last is not None and self._last_read_low is not None
                and self._partial_reads < FULL_READ_EVERY
                and not camera_moved(last.calibration, calib, layout)):
            zones = changed_zones(self._last_read_low, pair.low, calib, layout,
                                  pair.main.shape[1])
            zones |= {c.zone for c in last.cards if c.token == UNKNOWN}
        # The cards of the zones not read lie there still: no band read now is one.
        elsewhere = () if zones is None or last is None else {
            c.token for c in last.cards if c.zone not in zones and c.token != UNKNOWN}
        began = time.thread_time()
        try:
            read = self.reader.read(pair.main, calib, zones, elsewhere)
        except Exception as error:  # a fault in the reader must not end the game
            traceback.print_exc(file=sys.stderr)  # for whoever mends it
            self._last_read = self._last_read_low = None  # the next read reads every zone
            raise SourceError(f"could not read frame {self.frames_read} "
                              f"({type(error).__name__}: {error}); the next is read") from None
        self.read_ms.append((time.thread_time() - began) * 1000)
        if last is not None and zones is not None:
            read = merge(last, read, zones)
            self._partial_reads += 1
            self.zones_read += len(zones)
        else:
            self._partial_reads = 0
            self.zones_read += len(layout.zones)
        self._last_read, self._last_read_low = read, pair.low
        return read

    def close(self) -> None:
        self.frames.close()


class ReopeningFrames:
    """A camera opened on first use and reopened after a failure (``FrameSource``).

    Each failure is raised once, for the companion to show; the next read
    tries to open the camera again, so frames return by themselves when the
    camera does.
    """

    def __init__(self, opener: Callable[[], FrameSource], name: str) -> None:
        self._opener = opener
        self._source: FrameSource | None = None
        self.name = name

    def read(self) -> FramePair:
        try:
            if self._source is None:
                self._source = self._opener()
            return self._source.read()
        except FrameError:
            self.close()
            raise

    def close(self) -> None:
        if self._source is not None:
            source, self._source = self._source, None
            source.close()


class TableFrames:
    """The simulated table's camera (``FrameSource``): a hand frame, then still frames."""

    def __init__(self, seed: int = 0, style: Style | CardArt = "companion",
                 hand_frames: int = 1) -> None:
        self.name = _("simulated table camera (seed {seed})").format(seed=seed)
        self._rng = np.random.default_rng(seed)
        self.style = style  # the deck's look: one of our styles or any art (a generated design)
        self.camera = Camera(tilt_x_deg=3.0, tilt_y_deg=-2.0, yaw_deg=1.0, fill=0.92)
        self.hand_frames = hand_frames
        self.hand_pause = 0
        self.zones: Zones = {}
        self._queue: list[FramePair] = []
        self._still: FramePair | None = None
        self.fail_reads = 0
        self._seed = seed
        self.layout_round = 0  # each nudge lays every card again, a little differently
        # Sensor noise (grey levels) drawn afresh on each still frame served after the
        # first, as a camera's frames differ; 0: the same still photograph again (reads
        # of it agree, so voting over them shows nothing).
        self.still_noise = 0.0
        self._served = 0
        self._noise_rng = np.random.default_rng([seed, 7])

    def _photo(self, table: Table, hands: int) -> FramePair:
        cond = Conditions(gain=(1.02, 1.0, 0.95), noise=2.0, blur=0.5, jpeg=92, hands=hands)
        frame = photograph(table, self.camera, cond, self._rng)
        return FramePair(frame.image, low_from_main(frame.image))

    def render(self, zones: Zones, hand: bool = True,
               layout_round: int | None = None) -> tuple[list[FramePair], FramePair]:
        """The frames of a table laid as ``zones`` says: with a hand over it, then still.

        Cards keep their places from one table to the next (as on a real table)
        until a nudge lays them all again."""
        rnd = self.layout_round if layout_round is None else layout_round
        table = lay_table({z: list(t) for z, t in zones.items()}, self.style, self._rng,
                          zone_seed=self._seed * 10007 + rnd)
        still = self._photo(table, 0)
        hands = [with_hands(still.main, 1, self._rng) for _ in range(self.hand_frames if hand else 0)]
        return [FramePair(img, low_from_main(img)) for img in hands], still

    def show(self, zones: Zones, hand: bool = True) -> None:
        """Lay the table as ``zones`` says; a hand was over it while the cards moved
        (and held still over it for ``hand_pause`` more frames)."""
        self.zones = dict(zones)
        self._served = 0
        self._queue, self._still = self.render(zones, hand)
        self._queue += self._queue[-1:] * self.hand_pause

    def nudge(self) -> None:
        """A player straightens the cards: the same table laid again, a little differently."""
        self.layout_round += 1
        self.show(self.zones)

    def read(self) -> FramePair:
        if self.fail_reads > 0:
            self.fail_reads -= 1
            raise FrameError(_("{camera}: no frame (camera unplugged)").format(camera=self.name))
        if self._queue:
            self._served = 0
            return self._queue.pop(0)
        if self._still is None:
            self.show({}, hand=False)
            assert self._still is not None
        self._served += 1
        if self.still_noise <= 0 or self._served == 1:
            return self._still
        noise = self._noise_rng.standard_normal(self._still.main.shape, np.float32)
        main = np.clip(self._still.main + noise * self.still_noise, 0, 255).astype(np.uint8)
        return FramePair(main, low_from_main(main))

    def close(self) -> None:
        pass


def _render_worker(conn: Connection, seed: int, style: Style | CardArt, hand_frames: int,
                   ) -> None:
    frames = TableFrames(seed, style, hand_frames)
    while True:
        request = conn.recv()
        if request is None:
            return
        conn.send(frames.render(*request))


class WorkerFrames(TableFrames):
    """``TableFrames`` rendered in a separate process, like a camera outside the app:
    the app's own memory and time are then measured without the renderer's."""

    def __init__(self, seed: int = 0, style: Style | CardArt = "companion",
                 hand_frames: int = 1) -> None:
        super().__init__(seed, style, hand_frames)
        # The art goes to the renderer pickled (a generated design is a frozen dataclass).
        ctx = multiprocessing.get_context("spawn")
        self._conn, child = ctx.Pipe()
        self._worker: multiprocessing.process.BaseProcess | None = ctx.Process(
            target=_render_worker, args=(child, seed, style, hand_frames), daemon=True
        )
        self._worker.start()
        self._pending: tuple[Zones, bool, int] | None = None

    def render(self, zones: Zones, hand: bool = True,
               layout_round: int | None = None) -> tuple[list[FramePair], FramePair]:
        rnd = self.layout_round if layout_round is None else layout_round
        if self._worker is None:
            return super().render(zones, hand, rnd)
        try:
            if self._pending is not None:
                asked, self._pending = self._pending, None
                frames: tuple[list[FramePair], FramePair] = self._conn.recv()
                if asked == (zones, hand, rnd):
                    return frames
            self._conn.send((zones, hand, rnd))
            frames = self._conn.recv()
            return frames
        except (EOFError, OSError):
            # The renderer process is gone: render here from now on.
            self._worker = None
            return super().render(zones, hand, rnd)

    def prefetch(self, zones: Zones, hand: bool = True) -> None:
        """Start rendering the next table now, while the app reads this one."""
        if self._pending is None and self._worker is not None:
            self._pending = (dict(zones), hand, self.layout_round)
            self._conn.send(self._pending)

    def close(self) -> None:
        if self._worker is not None and self._worker.is_alive():
            with contextlib.suppress(OSError):
                self._conn.send(None)
            self._worker.join(timeout=10)
            if self._worker.is_alive():
                self._worker.kill()


class VisionTable:
    """The simulated table seen through vision: ``show``/``nudge`` the table, ``poll`` snapshots."""

    def __init__(self, frames: TableFrames, vision: VisionSnapshots) -> None:
        self.frames = frames
        self.vision = vision
        self.name = f"simulated table through {vision.name}"
        # Enough polls for the hand frames, the still frames and the voted reads.
        stab = vision.stabilizer
        self.polls_per_change = (frames.hand_frames + frames.hand_pause + stab.still_frames
                                 + stab.vote_frames + 2)

    def show(self, zones: Zones, hand: bool = True) -> None:
        self.frames.show(zones, hand)

    def nudge(self) -> None:
        self.frames.nudge()

    def prefetch(self, zones: Zones) -> None:
        if isinstance(self.frames, WorkerFrames):
            self.frames.prefetch(zones)

    def fail(self, polls: int) -> None:
        self.frames.fail_reads = polls

    def poll(self) -> Snapshot | None:
        return self.vision.poll()

    def close(self) -> None:
        self.vision.close()


def vision_table(seed: int, profile: DeckProfile | None = None, *, still_frames: int = 2,
                 vote_frames: int = 1, frames: TableFrames | None = None) -> VisionTable:
    cv2.setNumThreads(1)  # the loop is one thread; OpenCV's pool only contends on a Pi
    frames = frames or TableFrames(seed)
    vision = VisionSnapshots(
        frames, profile or builtin_profile(), still_frames=still_frames, vote_frames=vote_frames
    )
    return VisionTable(frames, vision)
