"""Drives the companion with a scripted bot game on the simulated table.

For each step of the script the simulated players act as people would: a
card is laid (the table shows it: a hand over it, then still), a claim is a
press of that flag's button, a pass a held button. When the companion shows
an uncertain reading the player straightens the card (the table is shown
again); if it still cannot read it, or it shows attention, the player
corrects the reading on the view with what truly lies there, and if it took
a wrong card for played they undo it. Every one of those is counted, and
after each step the companion's rulings are checked against the rules
engine's on the true position: ``confident_wrong`` counts rulings the
companion would show (table settled) that differ from the truth.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from companion.app import Companion
from companion.journal import Journal, read_journal, variant_json
from companion.rules.actions import Claim, Pass
from companion.rules.claims import Ruling, adjudicate
from companion.rules.position import PLAYERS, Position, Variant
from companion.simtable import Script, Step, Zones, seeded_script
from companion.snapshot import Snapshot
from companion.tracker import Tracker, ZoneName
from companion.ui.terminal import NoView
from hardware.states import ButtonEvent


class SimulatedTable(Protocol):
    name: str
    polls_per_change: int

    def show(self, zones: Zones, hand: bool = True) -> None: ...

    def nudge(self) -> None: ...

    def prefetch(self, zones: Zones) -> None: ...

    def poll(self) -> Snapshot | None: ...

    def close(self) -> None: ...


@dataclass
class DriveReport:
    steps: int = 0
    nudges: int = 0
    corrections: int = 0
    wrong_events: int = 0  # events the companion took that were not the step (then undone)
    ruling_checks: int = 0
    ruling_mismatches: int = 0  # while the companion was settled: a confident wrong ruling
    unsettled_steps: int = 0  # steps after which the companion still asked for help
    latencies_ms: list[float] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def _same(a: Ruling, b: Ruling) -> bool:
    return (a.reason, a.strength, a.counterexample, a.threat) == (
        b.reason, b.strength, b.counterexample, b.threat
    )


def check_rulings(companion: Companion, truth: Position, report: DriveReport) -> None:
    """Every ruling the companion would give now against the engine's on the true position."""
    if not companion.tracker.settled or companion.camera_problem is not None:
        return
    mine, real = adjudicate(companion.tracker.position), adjudicate(truth)
    for a, b in zip(mine.flags, real.flags, strict=True):
        for player in PLAYERS:
            report.ruling_checks += 1
            if not _same(a.ruling(player), b.ruling(player)):
                report.ruling_mismatches += 1
                report.problems.append(
                    f"flag {a.index + 1} {player}: companion {a.ruling(player).reason.value}, "
                    f"truth {b.ruling(player).reason.value}"
                )


class Driver:
    def __init__(
        self,
        companion: Companion,
        script: Script,
        table: SimulatedTable,
        *,
        think_s: float = 0.0,
        max_nudges: int = 2,
        sleep: Callable[[float], None] = time.sleep,
        on_step: Callable[[int, Step], None] | None = None,
    ) -> None:
        self.companion = companion
        self.script = script
        self.table = table
        self.think_s = think_s
        self.max_nudges = max_nudges
        self.sleep = sleep
        self.on_step = on_step
        self.report = DriveReport()

    @property
    def done(self) -> int:
        return len(self.companion.tracker.history)

    def check_resume(self) -> int:
        """How far the journal got; raises ValueError if it is not this script's game."""
        events = self.companion.tracker.events
        if len(events) > len(self.script.steps):
            raise ValueError("the journal has more events than this seed's game")
        for k, (event, step) in enumerate(zip(events, self.script.steps, strict=False)):
            if (event.player, event.action) != (step.player, step.action):
                raise ValueError(
                    f"event {k + 1} of the journal ({event.describe()}) is not this seed's "
                    f"game ({step.describe()})"
                )
        return len(events)

    def run(self) -> DriveReport:
        start = self.check_resume()
        on_table = [s for s in self.script.steps[:start] if s.on_table]
        # The table as it was left: shown still, so the companion sees no change.
        self.table.show(on_table[-1].zones if on_table else {}, hand=False)
        self._settle(expect_event=False)
        for index in range(start, len(self.script.steps)):
            if self.companion.over:
                break
            step = self.script.steps[index]
            if self.think_s > 0:
                self.sleep(self.think_s)
            self._do(index, step)
            self.report.steps += 1
            # Against the truth as far as the companion got (auto-claim may be ahead).
            done = min(self.done, len(self.script.steps))
            if done:
                check_rulings(self.companion, self.script.steps[done - 1].position, self.report)
            if self.on_step is not None:
                self.on_step(index, step)
        return self.report

    # ----------------------------------------------------------------- one step
    def _do(self, index: int, step: Step) -> None:
        companion = self.companion
        if self.done > index:  # auto-claim already took it
            self._verify(step, index)
            return
        if isinstance(step.action, Claim):
            companion.lights.events.put(ButtonEvent(step.player.value, step.action.flag + 1))
            companion.pump_buttons()
        elif isinstance(step.action, Pass):
            companion.lights.events.put(ButtonEvent(step.player.value, None, held=True))
            companion.pump_buttons()
        else:
            self.table.show(step.zones)
            upcoming = [s for s in self.script.steps[index + 1:] if s.on_table]
            if upcoming:
                self.table.prefetch(upcoming[0].zones)
            self._settle(expect_event=True, step=step)
        self._verify(step, index)

    def _poll_until_quiet(self, before: int) -> None:
        for _ in range(self.table.polls_per_change):
            self.companion.pump(self.table)
            if self.done > before or self.companion.tracker.issues:
                return

    def _settle(self, *, expect_event: bool, step: Step | None = None) -> None:
        before = self.done
        self._poll_until_quiet(before)
        nudges = 0
        while expect_event and self.done == before and nudges < self.max_nudges:
            nudges += 1
            self.report.nudges += 1
            self.table.nudge()
            self._poll_until_quiet(before)
        if expect_event and step is not None and self.done == before:
            self._correct(step)
        if expect_event and step is not None and self.done > before:
            event = self.companion.tracker.events[before]
            if (event.player, event.action) != (step.player, step.action):
                # A wrong card taken as played (a confident misreading): the companion's
                # rulings stood on a wrong table until the player noticed, undid it and
                # corrected the reading; they count against it.
                self.report.wrong_events += 1
                check_rulings(self.companion, step.position, self.report)
                self.report.problems.append(f"took {event.describe()} for {step.describe()}")
                while self.done > before:
                    self.companion.undo()
                self._correct(step)

    def _correct(self, step: Step) -> None:
        """Correct, on the view, every zone whose reading differs from what lies there."""
        snap = self.companion.tracker.last_snapshot
        if snap is None:
            return
        zones = set(step.zones) | {z for z in snap.zones if ZoneName.parse(z)}
        for zone in sorted(zones):
            truth = list(step.zones.get(zone, ()))
            read = [r.token for r in snap.readings(zone)]
            unsure = any(not r.certain(self.companion.tracker.threshold) for r in snap.readings(zone))
            standing = self.companion.tracker.corrections.get(zone)
            if (read != truth or unsure) and (standing is None or standing[0] != tuple(truth)):
                self.report.corrections += 1
                self.companion.correct(zone, truth)

    def _verify(self, step: Step, index: int) -> None:
        events = self.companion.tracker.events
        if len(events) <= index:
            self.report.unsettled_steps += 1
            self.report.problems.append(
                f"{step.describe()} was not recorded: {'; '.join(self.companion.messages())}"
            )
            return
        got = events[index]
        if (got.player, got.action) != (step.player, step.action):
            self.report.problems.append(f"recorded {got.describe()} for {step.describe()}")


@dataclass
class VisionGame:
    """One scripted game played through the real vision path, and what it cost."""

    script: Script
    companion: Companion
    report: DriveReport
    journal: Path
    seconds: float
    cpu_seconds: float  # the app's and the renderer's, so a busy machine does not count
    frames: int  # frames vision took in
    reads: int  # frames the reader read

    def figures(self) -> dict[str, object]:
        record = read_journal(self.journal)
        steps = self.script.steps
        return {
            "seed": self.script.seed,
            "seconds": round(self.seconds, 1),
            "cpu_seconds": round(self.cpu_seconds, 1),
            "table_changes": sum(s.on_table for s in steps),
            "frames": self.frames,
            "reads": self.reads,
            "nudges": self.report.nudges,
            "corrections": self.report.corrections,
            "wrong_events": self.report.wrong_events,
            "confident_wrong_rulings": self.report.ruling_mismatches,
            "ruling_checks": self.report.ruling_checks,
            "journal_equals_script": [(e.player, e.action) for e in record.events]
            == [(s.player, s.action) for s in steps],
        }


def play_through_vision(script: Script, journal_dir: Path, variant: Variant | None = None
                        ) -> VisionGame:
    """Play ``script`` on the simulated table through rendered frames and vision.

    Frames are rendered in a second process (``WorkerFrames``), the next table
    while this one is read, and only when the table changes.
    """
    from companion.vision_path import WorkerFrames, vision_table  # OpenCV only when used
    from hardware.config import LightsConfig
    from hardware.factory import open_lights

    variant = variant or Variant()
    table = vision_table(script.seed, frames=WorkerFrames(script.seed))
    lights = open_lights(LightsConfig(board="mock"))
    journal = Journal.create(journal_dir, {"mode": "simulated", "first": script.first.value,
                                           "variant": variant_json(variant),
                                           "seed": script.seed})
    companion = Companion(Tracker(variant, script.first), journal, lights, NoView())
    start, cpu = time.perf_counter(), _cpu()
    try:
        report = Driver(companion, script, table).run()
    finally:
        table.close()  # joins the renderer: its CPU time is counted from here
        lights.close()
        journal.close()
    return VisionGame(script, companion, report, journal.path, time.perf_counter() - start,
                      _cpu() - cpu, table.vision.frames_read, table.vision.reads)


def _cpu() -> float:
    """CPU seconds of this process and its finished children (the renderer)."""
    import resource

    own, children = (resource.getrusage(who) for who in
                     (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def main(argv: list[str] | None = None) -> int:
    """``python -m companion.simulate --seeds 0-19``: the vision games' figures, one JSON
    line per game, then the totals."""
    import argparse
    import json
    import tempfile

    ap = argparse.ArgumentParser(prog="python -m companion.simulate",
                                 description="Seeded games through the real vision path.")
    ap.add_argument("--seeds", default="0-19", help="a range a-b or a list a,b,c (default 0-19)")
    ns = ap.parse_args(argv)
    if "-" in ns.seeds:
        low, high = (int(x) for x in ns.seeds.split("-"))
        seeds = list(range(low, high + 1))
    else:
        seeds = [int(x) for x in ns.seeds.split(",")]
    rows = []
    with tempfile.TemporaryDirectory() as directory:
        for seed in seeds:
            game = play_through_vision(seeded_script(seed), Path(directory) / str(seed))
            rows.append(game.figures())
            print(json.dumps(rows[-1]), flush=True)
    seconds = [float(str(r["seconds"])) for r in rows]
    cpu = [float(str(r["cpu_seconds"])) for r in rows]
    print(json.dumps({
        "games": len(rows),
        "seconds_per_game_mean": round(sum(seconds) / len(rows), 1),
        "seconds_per_game_max": max(seconds),
        "cpu_seconds_per_game_mean": round(sum(cpu) / len(rows), 1),
        "journal_equals_script": sum(bool(r["journal_equals_script"]) for r in rows),
        "confident_wrong_rulings": sum(int(str(r["confident_wrong_rulings"])) for r in rows),
        "wrong_events": sum(int(str(r["wrong_events"])) for r in rows),
    }))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
