"""``battleline-companion bench vision``: reading figures, measured in this run.

A deck in the second art style (``classic``, not our own) is photographed
card by card and enrolled with the enrolment code, exactly as a player would
enrol their own deck. Then ``--scenes`` generated tables (fixed seed) are
photographed ``--frames`` times each under changing light and read:
single-frame accuracy is over every card of every first frame, voted accuracy
after voting the frames of a scene. ``confident_wrong`` counts cards given a
token they do not have, in single frames and after voting. Timing is one
2304x1296 frame (marker detection, calibration and reading) with OpenCV and
BLAS held to one thread: ``frame_ms_median`` is the CPU time that thread
spent (what one core does, whatever else the machine runs), and
``frame_wall_ms_median`` the wall-clock time on this machine as it was;
``frame_ms_by_step`` says where the CPU time goes (each step's mean a frame,
adding up to ``frame_ms_mean``).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import cv2
import numpy as np

from vision.bench.scoring import outcomes, reliability, score
from vision.calibrate import CalibrationError, Calibrator
from vision.deck_art import ALL_FACES, Style
from vision.enrolment.enroll import enroll_from_dir
from vision.position import UNKNOWN
from vision.read import Reader
from vision.reading.laps import by_step, charge
from vision.reading.result import FrameRead
from vision.simulated.camera_model import FRAME_SIZE, Camera
from vision.simulated.synth import Conditions, card_photo, lay_table, photograph, random_deal
from vision.vote import Guesses, vote

STYLE: Style = "classic"


def _report_failures(scene: int, frame: int, truth: dict[str, list[str]], res: FrameRead,
                     cond: Conditions) -> None:
    """One line per zone read differently from the truth, on stderr."""
    got = res.zones()
    for zone in sorted(set(truth) | set(got)):
        if truth.get(zone, []) != got.get(zone, []):
            cards = [(c.token, round(c.confidence, 2),
                      [(t, round(v, 2)) for t, v in c.candidates[:2]])
                     for c in res.cards if c.zone == zone]
            print(f"scene {scene} frame {frame} {zone}: truth {truth.get(zone, [])} "
                  f"read {cards} {cond}", file=sys.stderr)


def run(scenes: int, frames: int, seed: int, failures: bool = False) -> dict[str, object]:
    cv2.setNumThreads(1)
    rng = np.random.default_rng(seed)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "classic-deck"
        folder.mkdir()
        for face in ALL_FACES:
            cv2.imwrite(str(folder / f"{face.token}.jpg"), card_photo(face.token, STYLE, rng))
        profile = enroll_from_dir(folder, "classic (enrolled from photos)")
    reader = Reader(profile)
    cards = right1 = rightv = wrong1 = wrongv = phantom = unknown = 0
    failed_calibrations = 0
    ms: list[float] = []
    wall: list[float] = []
    steps: defaultdict[str, float] = defaultdict(float)
    named: list[tuple[float, bool]] = []
    for i in range(scenes):
        srng = np.random.default_rng(seed * 1000 + i)
        table = lay_table(random_deal(srng, float(srng.uniform(0.3, 0.9))), STYLE, srng)
        cam = Camera.random(srng)
        reads: list[dict[str, list[str]]] = []
        guesses: list[Guesses] = []
        for f in range(frames):
            cond = Conditions.random(srng)
            frame = photograph(table, cam, cond, srng)
            t0, c0 = time.perf_counter(), time.thread_time()
            try:
                calib = Calibrator().update(frame.image)
            except CalibrationError:
                failed_calibrations += 1
                reads.append({})
                guesses.append({})
                continue
            calibrated, before = time.thread_time(), dict(reader.laps.ms)
            res = reader.read(frame.image, calib)
            done = time.thread_time()
            if f == 0:
                ms.append((done - c0) * 1000)
                wall.append((time.perf_counter() - t0) * 1000)
                steps["calibration"] += (calibrated - c0) * 1000
                charge(steps, reader.laps, before, (done - calibrated) * 1000)
            got = res.zones()
            reads.append(got)
            guesses.append(res.guesses())
            named += outcomes(table.zones, ((c.zone, c.token, c.confidence) for c in res.cards))
            if failures:
                _report_failures(i, f, table.zones, res, cond)
            if f == 0:
                total, r, w, p = score(table.zones, got)
                cards += total
                right1 += r
                wrong1 += w
                phantom += p
                unknown += sum(t == UNKNOWN for toks in got.values() for t in toks)
            else:
                wrong1 += score(table.zones, got)[2]
        voted = vote(reads, guesses=guesses).zones
        _, r, w, _ = score(table.zones, voted)
        rightv += r
        wrongv += w
    return {
        "single_frame_accuracy": round(right1 / max(cards, 1), 4),
        "voted_accuracy": round(rightv / max(cards, 1), 4),
        "confident_wrong": wrong1 + wrongv,
        "confident_wrong_single_frames": wrong1,
        "confident_wrong_voted": wrongv,
        "frame_ms_median": round(statistics.median(ms), 1) if ms else None,
        "frame_wall_ms_median": round(statistics.median(wall), 1) if wall else None,
        "frame_ms_mean": round(statistics.fmean(ms), 1) if ms else None,
        "frame_ms_by_step": by_step(steps, len(ms)),
        "scenes": scenes,
        "frames_per_scene": frames,
        "cards": cards,
        "unknown_single_frame": unknown,
        "phantom_cards": phantom,
        "failed_calibrations": failed_calibrations,
        "reliability": reliability(named),
        "deck": f"{STYLE} art, profile enrolled from {len(ALL_FACES)} rendered photos",
        "seed": seed,
    }


def frame_size(text: str) -> tuple[int, int]:
    """``--frame-size``: width x height in pixels, e.g. 4608x2592."""
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a frame size in pixels (e.g. 4608x2592)") from None
    if w < 320 or h < 240:
        raise argparse.ArgumentTypeError(f"{text!r}: too small to read a table (at least 320x240)")
    return w, h


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="battleline-companion bench vision")
    ap.add_argument("--scenes", type=int, default=200)
    ap.add_argument("--frames", type=int, default=3, help="photographs per scene, voted")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--failures", action="store_true",
                    help="print every zone read wrong (truth, read, confidences, light) to stderr")
    ap.add_argument("--designs", type=int, default=None, metavar="N",
                    help="read N generated deck designs instead, each enrolled from phone "
                         "photos, on tables laid and lit as widely as rooms vary "
                         "(--scenes is then per design)")
    ap.add_argument("--split", choices=["held", "tune"], default="held",
                    help="which designs: 'held' are never looked at while tuning")
    ap.add_argument("--first-design", type=int, default=0, metavar="K",
                    help="with --designs: start at design K (held designs past those "
                         "measured before are ones no change was ever judged on)")
    ap.add_argument("--jobs", type=int, default=1,
                    help="with --designs: designs read at once, each in its own process")
    ap.add_argument("--frame-size", type=frame_size, default=FRAME_SIZE, metavar="WxH",
                    help="with --designs: the camera's frame in pixels (default: the Pi "
                         "camera's main stream, %(default)s)")
    ns = ap.parse_args(argv)
    if ns.designs is not None:
        from vision.bench.decks import run as run_designs

        print(json.dumps(run_designs(ns.designs, ns.split, ns.scenes, ns.frames, ns.seed,
                                     ns.jobs, ns.first_design, ns.frame_size)))
        return 0
    print(json.dumps(run(ns.scenes, ns.frames, ns.seed, ns.failures)))
    return 0
