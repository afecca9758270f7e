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

A game is played with our printed deck by default, or with one of the
generated deck designs (``--design held-03``): the table is then drawn with
that design's art and the companion reads it with that deck enrolled from
phone photos as a player would (``vision.bench.decks.enrol_seeded``), its learnt
model trained in, once per run.
"""

from __future__ import annotations

import statistics
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Final, Protocol

from companion.app import Companion
from companion.records.journal import Journal, read_journal, variant_json
from companion.rules.actions import Claim, Pass
from companion.rules.claims import Ruling, adjudicate
from companion.rules.position import PLAYERS, Position, Variant
from companion.sim.simtable import Script, Step, Zones, seeded_script
from companion.snapshot import UNKNOWN, Snapshot
from companion.tracker import DEFAULT_THRESHOLD, Tracker, ZoneName
from companion.ui.terminal import NoView
from hardware.states import ButtonEvent

if TYPE_CHECKING:
    from vision.deck_art import CardArt, Style
    from vision.profile import DeckProfile


class SimulatedTable(Protocol):
    name: str
    polls_per_change: int

    def show(self, zones: Zones, hand: bool = True) -> None: ...

    def nudge(self) -> None: ...

    def prefetch(self, zones: Zones) -> None: ...

    def poll(self) -> Snapshot | None: ...

    def close(self) -> None: ...


# The reader's confidence in bands (lower bounds): the tracker asks below its threshold
# (``min_confidence``), a learnt model names a card only from ``NAME_AT`` (0.995).
CONFIDENCE_BANDS: Final = {"<0.5": 0.0, "0.5-0.75": 0.5, "0.75-0.95": 0.75,
                           "0.95-0.99": 0.95, ">=0.99": 0.99}


@dataclass
class DriveReport:
    steps: int = 0
    nudges: int = 0
    corrections: int = 0
    wrong_events: int = 0  # events the companion took that were not the step (then undone)
    ruling_checks: int = 0
    ruling_mismatches: int = 0  # while the companion was settled: a confident wrong ruling
    unsettled_steps: int = 0  # steps after which the companion still asked for help
    problems: list[str] = field(default_factory=list)
    # Every card of each new snapshot of a laid table against what lies there, by the
    # reader's confidence (whatever the tracker's threshold): [named, wrong] per band.
    reliability: dict[str, list[int]] = field(
        default_factory=lambda: {band: [0, 0] for band in CONFIDENCE_BANDS})
    cards_unknown: int = 0  # cards of those snapshots the reader did not name
    # Of those, the ones the camera guessed (the picker's offer, confirmed with one tap),
    # and the guesses right: a card the zone holds and no reading there names.
    cards_guessed: int = 0
    guesses_right: int = 0
    misreads: list[str] = field(default_factory=list)  # the cards of those named wrong

    def tally(self, snap: Snapshot, zones: Zones) -> None:
        """Count each card named right while its zone holds that card (the surer reads
        first), as ``bench vision`` scores: a card missed under another shifts the
        rest, and the card on top is still read right."""
        for zone in set(zones) | set(snap.zones):
            truth = zones.get(zone, ())
            left = Counter(truth)
            readings = snap.readings(zone)
            self.cards_unknown += sum(r.token == UNKNOWN for r in readings)
            unnamed = Counter(truth) - Counter(r.token for r in readings)
            for r in readings:
                if r.token == UNKNOWN and r.guess is not None:
                    self.cards_guessed += 1
                    if unnamed[r.guess] > 0:
                        unnamed[r.guess] -= 1
                        self.guesses_right += 1
            for k, reading in sorted(enumerate(readings), key=lambda kr: -kr[1].confidence):
                if reading.token == UNKNOWN:
                    continue
                band = next(b for b, low in reversed(CONFIDENCE_BANDS.items())
                            if reading.confidence >= low)
                self.reliability[band][0] += 1
                if left[reading.token] > 0:
                    left[reading.token] -= 1
                    continue
                self.reliability[band][1] += 1
                lies = ", ".join(truth) or "nothing"
                self.misreads.append(f"{zone} card {k + 1}: read {reading.token} "
                                     f"({reading.confidence:.3f}); the zone holds {lies}")


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
        self._tallied: Snapshot | None = None

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

    def _poll_until_quiet(self, before: int, step: Step | None = None) -> None:
        for _ in range(self.table.polls_per_change):
            self.companion.pump(self.table)
            if self.done > before or self.companion.tracker.issues:
                break
        snap = self.companion.tracker.last_snapshot
        if step is not None and snap is not None and snap is not self._tallied:
            self._tallied = snap
            self.report.tally(snap, step.zones)

    def _settle(self, *, expect_event: bool, step: Step | None = None) -> None:
        before = self.done
        self._poll_until_quiet(before, step)
        nudges = 0
        while expect_event and self.done == before and nudges < self.max_nudges:
            nudges += 1
            self.report.nudges += 1
            self.table.nudge()
            self._poll_until_quiet(before, step)
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
    deck: str = "builtin"
    card_mm: tuple[float, float] = (0.0, 0.0)  # the cards the table was drawn with
    profile: str = ""  # the name of the profile the reader read with
    # Each read's CPU time, ms: the live path reads only the zones that changed (and
    # those it was unsure of), the whole table after a camera move and now and then.
    read_ms: tuple[float, ...] = ()

    def figures(self) -> dict[str, object]:
        record = read_journal(self.journal)
        steps = self.script.steps
        return {
            "design": self.deck,
            "seed": self.script.seed,
            "seconds": round(self.seconds, 1),
            "cpu_seconds": round(self.cpu_seconds, 1),
            "table_changes": sum(s.on_table for s in steps),
            "frames": self.frames,
            "reads": self.reads,
            "read_ms_median": round(statistics.median(self.read_ms), 1) if self.read_ms else None,
            "nudges": self.report.nudges,
            "corrections": self.report.corrections,
            "wrong_events": self.report.wrong_events,
            "confident_wrong_rulings": self.report.ruling_mismatches,
            "ruling_checks": self.report.ruling_checks,
            "unsettled_steps": self.report.unsettled_steps,
            "cards_unknown": self.report.cards_unknown,
            "cards_guessed": self.report.cards_guessed,
            "guesses_right": self.report.guesses_right,
            "reliability": self.report.reliability,
            "journal_equals_script": [(e.player, e.action) for e in record.events]
            == [(s.player, s.action) for s in steps],
            "problems": self.report.problems[:10],
            "misreads": self.report.misreads[:10],
        }


@dataclass(frozen=True)
class Deck:
    """The deck a simulated game is played with: its art on the table, its profile
    in the companion (and what enrolling it cost)."""

    name: str
    art: Style | CardArt
    profile: DeckProfile
    enrol_refused: int = 0  # photos enrolment refused (each shot again on another table)
    enrol_seconds: float = 0.0

    def figures(self) -> dict[str, object]:
        return {"design": self.name, "enrolled": len(self.profile.tokens),
                "enrol_refused": self.enrol_refused,
                "enrol_seconds": round(self.enrol_seconds, 1),
                "learnt_model": self.profile.model is not None}


def builtin_deck() -> Deck:
    """Our printed deck, read from its art (no photos)."""
    from vision.profile import builtin_profile

    return Deck("builtin", "companion", builtin_profile())


def design_deck(name: str, seed: int = 0, keep: Path | None = None) -> Deck:
    """A generated design (``held-03``, ``tune-07``) enrolled from phone photos as a
    player enrols a deck, seeded as the bench seeds it, with the learnt model
    enrolment trains into the profile. With ``keep`` (a folder) the profile is saved
    there and taken from there next time (enrolment takes minutes)."""
    from vision.bench.decks import enrol_seeded
    from vision.designs import design
    from vision.models.learnt import with_model
    from vision.profile import DeckProfile

    split, _, index = name.partition("-")
    if split not in ("held", "tune") or not index.isdigit():
        raise ValueError(f"no design {name!r}: held-NN or tune-NN")
    art = design("held" if split == "held" else "tune", int(index))
    saved = keep / f"{art.name}-enrol-seed{seed}.npz" if keep is not None else None
    if saved is not None and saved.exists():
        return Deck(art.name, art, DeckProfile.load(saved))
    import cv2

    cv2.setNumThreads(1)  # as the bench enrols (and as the live loop reads)
    start = time.perf_counter()
    profile, refused = enrol_seeded(art, seed)
    if profile is None:
        raise ValueError(f"{art.name}: enrolment took no photo")
    deck = Deck(art.name, art, with_model(profile), refused, time.perf_counter() - start)
    if saved is not None:
        saved.parent.mkdir(parents=True, exist_ok=True)
        deck.profile.save(saved)
    return deck


def play_through_vision(script: Script, journal_dir: Path, variant: Variant | None = None,
                        deck: Deck | None = None, *, vote_frames: int = 1,
                        min_confidence: float = DEFAULT_THRESHOLD,
                        still_noise: float = 0.0) -> VisionGame:
    """Play ``script`` on the simulated table through rendered frames and vision,
    with ``deck`` (our printed deck by default) on the table and in the companion;
    ``still_noise``: fresh sensor noise on each still frame after the first (see
    ``TableFrames``), for voting over frames that differ.

    Frames are rendered in a second process (``WorkerFrames``), the next table
    while this one is read, and only when the table changes.
    """
    from companion.vision_path import WorkerFrames, vision_table  # OpenCV only when used
    from hardware.config import LightsConfig
    from hardware.factory import open_lights
    from vision.deck_art import as_art

    variant = variant or Variant()
    deck = deck or builtin_deck()
    frames = WorkerFrames(script.seed, deck.art)
    frames.still_noise = still_noise
    table = vision_table(script.seed, deck.profile, vote_frames=vote_frames, frames=frames)
    lights = open_lights(LightsConfig(board="mock"))
    journal = Journal.create(journal_dir, {"mode": "simulated", "first": script.first.value,
                                           "variant": variant_json(variant),
                                           "seed": script.seed, "deck": deck.name})
    companion = Companion(Tracker(variant, script.first, min_confidence), journal, lights,
                          NoView())
    start, cpu = time.perf_counter(), _cpu()
    try:
        report = Driver(companion, script, table).run()
    finally:
        table.close()  # joins the renderer: its CPU time is counted from here
        lights.close()
        journal.close()
    return VisionGame(script, companion, report, journal.path, time.perf_counter() - start,
                      _cpu() - cpu, table.vision.frames_read, table.vision.reads, deck.name,
                      as_art(table.frames.style).card_mm, table.vision.reader.profile.name,
                      tuple(table.vision.read_ms))


def _cpu() -> float:
    """CPU seconds of this process and its finished children (the renderer)."""
    import resource

    own, children = (resource.getrusage(who) for who in
                     (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def totals(rows: list[dict[str, object]]) -> dict[str, object]:
    """The figures of several games (``VisionGame.figures``) summed up."""
    def total(key: str) -> int:
        return sum(int(str(r[key])) for r in rows)

    seconds = [float(str(r["seconds"])) for r in rows]
    cpu = [float(str(r["cpu_seconds"])) for r in rows]
    n = len(rows)
    reads = [float(str(r["read_ms_median"])) for r in rows if r.get("read_ms_median") is not None]
    return {
        "games": n,
        "seconds_per_game_mean": round(sum(seconds) / n, 1),
        "seconds_per_game_max": max(seconds),
        "cpu_seconds_per_game_mean": round(sum(cpu) / n, 1),
        "journal_equals_script": sum(bool(r["journal_equals_script"]) for r in rows),
        "confident_wrong_rulings": total("confident_wrong_rulings"),
        "ruling_checks": total("ruling_checks"),
        "wrong_events": total("wrong_events"),
        "corrections": total("corrections"),
        "corrections_per_game": round(total("corrections") / n, 1),
        "nudges": total("nudges"),
        "nudges_per_game": round(total("nudges") / n, 1),
        "table_changes": total("table_changes"),
        "unsettled_steps": total("unsettled_steps"),
        "cards_unknown": total("cards_unknown"),
        "cards_guessed": total("cards_guessed"),
        "guesses_right": total("guesses_right"),
        # the middle game's median read (each game's reads are mostly of one or two zones)
        "read_ms_median": round(statistics.median(reads), 1) if reads else None,
        # [named, wrong] per confidence band, over the games
        "reliability": {band: [sum(r["reliability"][band][i]  # type: ignore[index]
                                   for r in rows) for i in (0, 1)]
                        for band in CONFIDENCE_BANDS},
    }


def _seeds(text: str) -> list[int]:
    if "-" in text:
        low, high = (int(x) for x in text.split("-"))
        return list(range(low, high + 1))
    return [int(x) for x in text.split(",")]


def main(argv: list[str] | None = None) -> int:
    """``python -m companion.sim.simulate --seeds 0-19``: the vision games' figures, one JSON
    line per game, then the totals (per design, then over all, with ``--design``)."""
    import argparse
    import json
    import tempfile

    from companion.config import Config

    defaults = Config()
    ap = argparse.ArgumentParser(prog="python -m companion.sim.simulate",
                                 description="Seeded games through the real vision path.")
    ap.add_argument("--seeds", default="0-19", help="a range a-b or a list a,b,c (default 0-19)")
    ap.add_argument("--design", default="",
                    help="generated deck designs to play with, e.g. held-03 or tune-00,held-02 "
                         "(enrolled from phone photos once each); default our printed deck")
    ap.add_argument("--designs", type=int, default=0,
                    help="play with the first N held designs (instead of --design)")
    ap.add_argument("--enrol-seed", type=int, default=0,
                    help="seeds the enrolment photos (default 0)")
    ap.add_argument("--keep-profiles", type=Path, default=None, metavar="FOLDER",
                    help="save each enrolled deck there, and use it next time")
    ap.add_argument("--vote-frames", type=int, default=defaults.vote_frames,
                    help=f"reads voted into one snapshot (default {defaults.vote_frames})")
    ap.add_argument("--min-confidence", type=float, default=defaults.min_confidence,
                    help=f"readings below are uncertain (default {defaults.min_confidence})")
    ap.add_argument("--still-noise", type=float, default=0.0,
                    help="sensor noise (grey levels) drawn afresh on each still frame after "
                         "the first (default 0: the same photograph again)")
    ns = ap.parse_args(argv)
    seeds = _seeds(ns.seeds)
    names = ([f"held-{i:02d}" for i in range(ns.designs)] if ns.designs
             else [n for n in ns.design.split(",") if n])
    every: list[dict[str, object]] = []
    per: dict[str, dict[str, object]] = {}
    with tempfile.TemporaryDirectory() as directory:
        for name in names or ["builtin"]:
            deck = (builtin_deck() if name == "builtin"
                    else design_deck(name, ns.enrol_seed, ns.keep_profiles))
            if name != "builtin":
                print(json.dumps(deck.figures()), flush=True)
            rows = []
            for seed in seeds:
                game = play_through_vision(seeded_script(seed),
                                           Path(directory) / f"{deck.name}-{seed}", deck=deck,
                                           vote_frames=ns.vote_frames,
                                           min_confidence=ns.min_confidence,
                                           still_noise=ns.still_noise)
                rows.append(game.figures())
                print(json.dumps(rows[-1]), flush=True)
            per[deck.name] = {"design": deck.name, **totals(rows)}
            if len(names) > 1:
                print(json.dumps(per[deck.name]), flush=True)
            every += rows
    summary = totals(every)
    summary.update(vote_frames=ns.vote_frames, min_confidence=ns.min_confidence,
                   still_noise=ns.still_noise)
    if len(per) > 1:
        summary["designs"] = len(per)
        summary["designs_with_confident_wrong"] = sum(
            int(str(t["confident_wrong_rulings"])) > 0 for t in per.values())
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
