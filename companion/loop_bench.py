"""``battleline-companion bench loop``: the live loop's figures on the simulated table.

The simulated camera renders each table change in its own process (like a
real camera, outside the app) and delivers frames no faster than ``--fps``:
first the frame with a player's hand over the table, then still frames. The
app reads them through vision (calibrate, read, stabilise), the tracker and
the rules, and sets the lights (gpiozero mock pins). Latency is from the
delivery of the last frame with a hand over the table to the lights showing
the event. ``peak_rss_mb`` is the app process's peak resident memory (the
renderer's is reported apart). With ``--games N`` whole games are played and
their journals checked against the scripts: the correctness figures of the
simulated games through the real vision path.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

from companion.app import Companion, Options
from companion.journal import Journal, read_journal
from companion.rules.position import Variant
from companion.simtable import Script, Step, script_game
from companion.simulate import Driver, DriveReport
from companion.tracker import Tracker
from companion.ui.terminal import NoView
from companion.vision_path import WorkerFrames, vision_table
from hardware.config import LightsConfig
from hardware.factory import open_lights
from vision.profile import builtin_profile
from vision.sources.base import FramePair


class PacedFrames(WorkerFrames):
    """Frames no faster than a camera gives them; remembers when the last hand frame came."""

    def __init__(self, seed: int, fps: float) -> None:
        super().__init__(seed)
        self.interval = 1.0 / fps
        self._next = 0.0
        self.last_hand_at = 0.0

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
        if hand:
            self.last_hand_at = now
        return pair


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def opening(script: Script, changes: int | None) -> Script:
    """The script up to its ``changes``-th table change (all of it for None)."""
    if changes is None:
        return script
    on_table = [i for i, s in enumerate(script.steps) if s.on_table][:changes]
    return Script(script.seed, script.first, script.steps[: on_table[-1] + 1], script.final)


def time_changes(driver: Driver, companion: Companion, frames: PacedFrames,
                 latencies: list[float]) -> None:
    """Have ``driver`` add the latency of each table change read at once (no
    straightening, no correction) to ``latencies``."""
    helped = [0, 0]  # straightenings and corrections so far

    def timed(index: int, step: Step) -> None:
        now = [driver.report.nudges, driver.report.corrections]
        clean = now == helped  # read at once: no straightening, no correction
        helped[:] = now
        if step.on_table and clean and len(companion.tracker.history) > index:
            latencies.append((companion.event_lights_at - frames.last_hand_at) * 1000)

    driver.on_step = timed


def play(script: Script, fps: float, changes: int | None, journal_dir: Path,
         latencies: list[float]) -> tuple[DriveReport, bool]:
    """Drive one scripted game (or its first ``changes`` table changes) through vision."""
    part = opening(script, changes)
    steps = part.steps
    frames = PacedFrames(script.seed, fps)
    table = vision_table(script.seed, builtin_profile(), frames=frames)
    lights = open_lights(LightsConfig(board="mock"))
    journal = Journal.create(journal_dir, {"mode": "simulated", "first": script.first.value,
                                           "variant": {}, "seed": script.seed})
    companion = Companion(Tracker(Variant(), script.first), journal, lights, NoView(),
                          Options())
    driver = Driver(companion, part, table)
    time_changes(driver, companion, frames, latencies)
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
    ns = ap.parse_args(argv)
    latencies: list[float] = []
    games = ns.games or 1
    totals = {"nudges": 0, "corrections": 0, "wrong_events": 0, "ruling_checks": 0,
              "confident_wrong_rulings": 0, "games_journal_equals_script": 0}
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(games):
            script = script_game(ns.seed + k)
            report, same = play(script, ns.fps, None if ns.games else ns.changes, Path(tmp),
                                latencies)
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
        "latency_ms_median": round(statistics.median(latencies), 1) if latencies else None,
        "latency_ms_p95": round(percentile(latencies, 0.95), 1) if latencies else None,
        "peak_rss_mb": round(own, 1),
        "renderer_peak_rss_mb": round(renderer, 1),
        "timed_changes": len(latencies),
        "fps": ns.fps,
        "games": games if ns.games else 0,
        **({} if not ns.games else totals),
        "seed": ns.seed,
    }
    if not ns.games:
        figures.update({k: totals[k] for k in ("nudges", "corrections", "confident_wrong_rulings")})
    print(json.dumps(figures))
    return 0
