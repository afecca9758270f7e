"""``battleline-companion bench loop``: the live loop's figures on the simulated table.

The simulated camera renders each table change in its own process (like a
real camera, outside the app) and delivers frames no faster than ``--fps``:
first the frame with a player's hand over the table, then still frames. The
app reads them through vision (calibrate, read, stabilise), the tracker and
the rules, and sets the lights (gpiozero mock pins). Latency is from the
delivery of the last frame with a hand over the table to the lights showing
the event (wall time), and ``stages_ms_median``/``stages_ms_p95`` say where it
went: ``frames`` waiting for the frames the stabiliser needs (the hand frame
to the one that made the snapshot arriving), ``look`` judging that frame
(motion, hand), ``read`` the voted read with its calibration (made earlier,
while that frame was awaited) and ``read_on_path`` the part of it after the
frame arrived, ``rules`` the tracker, the rules and the journal, ``lights``
setting them. ``false_updates`` counts snapshots made from a frame with a hand
in it: ``--hand-frames N`` lays each card with N different arms over the
table and ``--hand-pause K`` holds the last one still for K more frames.
``peak_rss_mb`` is the app process's peak resident memory (the renderer's is
reported apart). With ``--games N`` whole games are played and their journals
checked against the scripts: the correctness figures of the simulated games
through the real vision path.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from companion.app import Companion, Options
from companion.records.journal import Journal, read_journal
from companion.rules.position import Variant
from companion.sim.simtable import Script, Step, script_game
from companion.sim.simulate import Driver, DriveReport
from companion.snapshot import Snapshot
from companion.tracker import Tracker
from companion.ui.terminal import NoView
from companion.vision_path import VisionTable, WorkerFrames, vision_table
from hardware.config import LightsConfig
from hardware.factory import open_lights
from hardware.lights import FlagLights
from hardware.states import FlagState
from vision.profile import builtin_profile
from vision.sources.base import FramePair

STAGES = ("frames", "look", "read", "read_on_path", "rules", "lights")


class PacedFrames(WorkerFrames):
    """Frames no faster than a camera gives them; remembers when the last hand frame
    came, and which of the frames served showed a hand."""

    def __init__(self, seed: int, fps: float, hand_frames: int = 1, hand_pause: int = 0
                 ) -> None:
        super().__init__(seed, hand_frames=hand_frames)
        self.hand_pause = hand_pause
        self.interval = 1.0 / fps
        self._next = 0.0
        self.last_hand_at = 0.0
        self.served = 0
        self.with_hand: set[int] = set()  # numbers (from 1) of the frames with a hand

    def prefetch(self, zones: dict[str, tuple[str, ...]], hand: bool = True) -> None:
        """No rendering ahead here: the app's time is measured alone."""

    def read(self) -> FramePair:
        hand = bool(self._queue)
        wait = self._next - time.perf_counter()
        if wait > 0:
            time.sleep(wait)
        pair = super().read()
        now = time.perf_counter()
        self._next = now + self.interval
        self.served += 1
        if hand:
            self.last_hand_at = now
            self.with_hand.add(self.served)
            if len(self.with_hand) > 512:  # a long soak: only recent frames are voted
                self.with_hand = {n for n in self.with_hand if n > self.served - 256}
        return pair


class TimedLights:
    """The lights, timing each ``set_all``."""

    def __init__(self, lights: FlagLights) -> None:
        self.lights = lights
        self.set_s = 0.0

    def set_all(self, states: list[FlagState]) -> None:
        start = time.perf_counter()
        self.lights.set_all(states)
        self.set_s = time.perf_counter() - start

    def __getattr__(self, name: str) -> Any:
        return getattr(self.lights, name)


@dataclass
class Timing:
    """Each timed change's latency and its stages (ms), and the false updates."""

    latencies: list[float] = field(default_factory=list)
    stages: dict[str, list[float]] = field(default_factory=lambda: {s: [] for s in STAGES})
    frames_after_hand: list[int] = field(default_factory=list)
    false_updates: int = 0
    snapshots: int = 0

    def figures(self) -> dict[str, object]:
        def each(share: float) -> dict[str, float]:
            return {s: round(percentile(v, share), 1) for s, v in self.stages.items() if v}

        lat = self.latencies
        return {
            "latency_ms_median": round(statistics.median(lat), 1) if lat else None,
            "latency_ms_p95": round(percentile(lat, 0.95), 1) if lat else None,
            "stages_ms_median": each(0.5),
            "stages_ms_p95": each(0.95),
            "frames_after_hand_median": (statistics.median(self.frames_after_hand)
                                         if self.frames_after_hand else None),
            "false_updates": self.false_updates,
            "snapshots": self.snapshots,
        }


class WatchedTable(VisionTable):
    """The vision table, counting the snapshots made from a frame with a hand in it."""

    def __init__(self, table: VisionTable, frames: PacedFrames, timing: Timing) -> None:
        super().__init__(table.frames, table.vision)
        self.paced = frames
        self.timing = timing

    def poll(self) -> Snapshot | None:
        snap = super().poll()
        if snap is not None:
            self.timing.snapshots += 1
            if set(self.vision.snapshot_frames) & self.paced.with_hand:
                self.timing.false_updates += 1
        return snap


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def opening(script: Script, changes: int | None) -> Script:
    """The script up to its ``changes``-th table change (all of it for None)."""
    if changes is None:
        return script
    on_table = [i for i, s in enumerate(script.steps) if s.on_table][:changes]
    return Script(script.seed, script.first, script.steps[: on_table[-1] + 1], script.final)


def time_changes(driver: Driver, companion: Companion, table: WatchedTable,
                 lights: TimedLights) -> None:
    """Have ``driver`` add the latency of each table change read at once (no
    straightening, no correction) and its stages to ``table.timing``."""
    helped = [0, 0]  # straightenings and corrections so far
    frames, vision, timing = table.paced, table.vision, table.timing

    def timed(index: int, step: Step) -> None:
        now = [driver.report.nudges, driver.report.corrections]
        clean = now == helped  # read at once: no straightening, no correction
        helped[:] = now
        if not (step.on_table and clean and len(companion.tracker.history) > index):
            return
        hand, lit = frames.last_hand_at, companion.event_lights_at
        timing.latencies.append((lit - hand) * 1000)
        t = vision.timing
        if not t or t["arrived"] < hand:
            return
        read_on_path = max(0.0, t["read_ended"] - max(t["read_started"], t["arrived"]))
        stage = {"frames": t["arrived"] - hand, "look": t["look_s"],
                 "read": t["read_ended"] - t["read_started"], "read_on_path": read_on_path,
                 "rules": lit - t["done"] - lights.set_s, "lights": lights.set_s}
        for name, seconds in stage.items():
            timing.stages[name].append(seconds * 1000)
        made = int(t["frame"])
        timing.frames_after_hand.append(
            made - max((n for n in frames.with_hand if n <= made), default=0))

    driver.on_step = timed


def watched(seed: int, fps: float, timing: Timing, hand_frames: int = 1,
            hand_pause: int = 0) -> WatchedTable:
    """The simulated table through vision, paced as a camera, watched for ``timing``."""
    frames = PacedFrames(seed, fps, hand_frames, hand_pause)
    return WatchedTable(vision_table(seed, builtin_profile(), frames=frames), frames, timing)


def play(script: Script, ns: argparse.Namespace, changes: int | None, journal_dir: Path,
         timing: Timing) -> tuple[DriveReport, bool]:
    """Drive one scripted game (or its first ``changes`` table changes) through vision."""
    part = opening(script, changes)
    steps = part.steps
    table = watched(script.seed, ns.fps, timing, ns.hand_frames, ns.hand_pause)
    lights = TimedLights(open_lights(LightsConfig(board="mock")))
    journal = Journal.create(journal_dir, {"mode": "simulated", "first": script.first.value,
                                           "variant": {}, "seed": script.seed})
    companion = Companion(Tracker(Variant(), script.first), journal,
                          cast(FlagLights, lights), NoView(), Options())
    driver = Driver(companion, part, table)
    time_changes(driver, companion, table, lights)
    try:
        report = driver.run()
    finally:
        table.close()
        lights.close()
        journal.close()
    record = read_journal(journal.path)
    same = [(e.player, e.action) for e in record.events] == [(s.player, s.action) for s in steps]
    return report, same


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="battleline-companion bench loop")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--games", type=int, default=0,
                    help="play N whole games (seeds seed..seed+N-1) instead of --changes")
    ap.add_argument("--changes", type=int, default=20, help="table changes timed (default 20)")
    ap.add_argument("--fps", type=float, default=10.0, help="the simulated camera's frame rate")
    ap.add_argument("--hand-frames", type=int, default=1,
                    help="frames with a (different) arm over the table as a card is laid")
    ap.add_argument("--hand-pause", type=int, default=0,
                    help="frames the last arm is then held still over the table")
    ns = ap.parse_args(argv)
    timing = Timing()
    games = ns.games or 1
    totals = {"nudges": 0, "corrections": 0, "wrong_events": 0, "ruling_checks": 0,
              "confident_wrong_rulings": 0, "games_journal_equals_script": 0}
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(games):
            script = script_game(ns.seed + k)
            report, same = play(script, ns, None if ns.games else ns.changes, Path(tmp),
                                timing)
            totals["nudges"] += report.nudges
            totals["corrections"] += report.corrections
            totals["wrong_events"] += report.wrong_events
            totals["ruling_checks"] += report.ruling_checks
            totals["confident_wrong_rulings"] += report.ruling_mismatches
            totals["games_journal_equals_script"] += int(same)
            if ns.games:  # a long run: say how each game went as it ends
                print(json.dumps({"game_seed": script.seed, "journal_equals_script": same,
                                  "nudges": report.nudges, "corrections": report.corrections,
                                  "wrong_events": report.wrong_events,
                                  "confident_wrong_rulings": report.ruling_mismatches}),
                      file=sys.stderr, flush=True)
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    renderer = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    figures: dict[str, object] = {
        **timing.figures(),
        "peak_rss_mb": round(own, 1),
        "renderer_peak_rss_mb": round(renderer, 1),
        "timed_changes": len(timing.latencies),
        "fps": ns.fps,
        "hand_frames": ns.hand_frames,
        "hand_pause": ns.hand_pause,
        "games": games if ns.games else 0,
        **({} if not ns.games else totals),
        "seed": ns.seed,
    }
    if not ns.games:
        figures.update({k: totals[k] for k in ("nudges", "corrections", "confident_wrong_rulings")})
    print(json.dumps(figures))
    return 0
