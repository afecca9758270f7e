"""Refit the trust in a deck's learnt model (``vision.reading.trust``) on the tuning designs.

Each tuning design is enrolled from rendered phone photos as ``bench vision``
enrols it, its room scenes (each design its own rooms) are read with every band
named, and each read's evidence is kept with whether the card was right. A
logistic regression over those reads gives the weights; its reliability is
measured on each design left out of the fit in turn, and the lowest trust at
which those held no wrong card is the suggested ``NAME_AT``. ``--check N`` also
reads the next N tuning designs, which the fit never sees, and prints its
reliability on them. Never run on the held designs: they measure the result.

``--audit`` fits nothing: it prints the landed trust's reliability on the reads
(its ``WEIGHTS``, ``BIAS`` and ``NAME_AT`` as they stand) and names each design
with a wrong read at or above the bar. The reader changes between refits, so
the bar can stop holding on the very designs it was fitted on; with
``--first-design`` the reads are of other tuning designs (tune-200 onwards are
never fitted) and the audit says how the bar holds on decks it never saw.

``--model-seeds 0,1,2`` reads the same rooms again with each deck's band model
trained at each seed: which reads lie near the bar moves with the training's
draws, so the weights are fitted on the first seed's reads and the bar is where
no read left out is wrong at any seed.

    python -m vision.bench.trust_fit --designs 8 --scenes 10 --check 12 [--model-seeds 0,1,2] [--rows reads.json] [--jobs 2]
    python -m vision.bench.trust_fit --first-design 200 --designs 24 --scenes 6 --audit [--rows reads.json]

``--frame-size 4608x2592`` photographs the rooms at another size than the camera's
main stream (the reads record it).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any
from unittest import mock

import numpy as np
from numpy.typing import NDArray
from sklearn.linear_model import LogisticRegression

from vision.bench import decks
from vision.bench.classic import frame_size
from vision.calibrate import Calibrator
from vision.designs import design
from vision.models.band_model import BandModel
from vision.read import Reader
from vision.reading import classify, result
from vision.reading.trust import NAME_AT, evidence, of_evidence, outside
from vision.simulated.camera_model import FRAME_SIZE
from vision.simulated.synth import room_scene, room_seed
from vision.types import FloatImage

LEVELS = (0.9, 0.95, 0.97, 0.98, 0.99, 0.995, 0.998, 0.999)
_CODE = 1e-7  # each recorded read's confidence is 0.999 less its number times this
MATCH_MM = 6.0  # a read whose top corners lie this near a card's (mean, mat mm) is of it
# Rooms drawn from another seed than ``bench vision``'s (2026): the trust is measured
# in rooms it was not fitted in, as on decks it was not.
SEED = 1187


def collect(index: int, scenes: int, seed: int = SEED, model_seed: int = 0,
            photo_size: tuple[int, int] = decks.PHOTO_SIZE,
            frame_size: tuple[int, int] = FRAME_SIZE) -> list[dict[str, Any]]:
    """One tuning design's reads, its band model trained at ``model_seed``:
    evidence, right or not (its enrolment photos ``photo_size`` px, its tables
    photographed at ``frame_size`` px)."""
    art = design("tune", index)
    profile, _ = decks.enrol(art, np.random.default_rng([seed, 1, index]), photo_size)
    if profile is None:
        return []
    # The band model alone: the faces' bar (``trust.face_speaks``) is not fitted here.
    reader = Reader(profile, model=BandModel.train(profile, model_seed))
    log: list[FloatImage] = []

    def record(*args: Any) -> FloatImage:
        # Every band named, its confidence the number of its evidence row.
        rows = evidence(*args)
        log.extend(rows)
        return 0.999 - _CODE * np.arange(len(log) - len(rows), len(log))

    out = []
    # Every read kept, a token read twice too: live, the second asks only where the
    # two trusts differ little, and a misread that takes a card's token must be seen.
    with mock.patch.object(classify, "trust", record), mock.patch.object(classify, "NAME_AT", 0.0), \
            mock.patch.object(result, "unique_tokens", list):
        for i in range(scenes):
            table, frames = room_scene(room_seed(seed, art.name, i), art, 1,
                                       frame_size=frame_size)
            log.clear()
            res = reader.read(frames[0].image, Calibrator().update(frames[0].image))
            for card in table.cards:
                near = [(float(np.linalg.norm(np.subtract(c.corners[:2], card.corners[:2]),
                                              axis=1).mean()), c)
                        for c in res.cards if c.zone == card.zone and c.corners]
                if not near:
                    continue
                dist, got = min(near, key=lambda x: x[0])
                k = round((0.999 - got.confidence) / _CODE)
                if dist > MATCH_MM or not 0 <= k < len(log):
                    continue
                out.append({"design": art.name, "scene": i, "model_seed": model_seed,
                            "frame_size": list(frame_size),
                            "evidence": log[k].tolist(), "right": got.token == card.token})
    return out


def seed_list(text: str) -> list[int]:
    """``--model-seeds``: whole numbers, comma-separated."""
    try:
        return [int(v) for v in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not seeds separated by commas (e.g. 0,1,2)") from None


def model_seed(row: dict[str, Any]) -> int:
    """The seed a read's band model was trained at (reads kept before there were
    several: 0)."""
    return int(row.get("model_seed", 0))


class TooFewReads(ValueError):
    """The reads a fit would learn from are all right, or all wrong."""


def _fitted(x: FloatImage, y: NDArray[np.bool_], without: str | None) -> LogisticRegression:
    if len(set(y.tolist())) < 2:
        what = f"without {without}" if without else "to fit"
        raise TooFewReads(f"the reads {what} are all {'right' if y.all() else 'wrong'}: "
                          "read more rooms or designs (--scenes, --designs)")
    return LogisticRegression(C=1.0, max_iter=2000).fit(x, y)


def fit(rows: list[dict[str, Any]]) -> tuple[LogisticRegression, FloatImage]:
    """The model fitted on the first model seed's reads, and each read's trust (at
    every seed) fitted without its design (none for a read ``outside``: it asks, and is
    left out of the fit)."""
    x = np.array([r["evidence"] for r in rows])
    y = np.array([r["right"] for r in rows])
    group = np.array([r["design"] for r in rows])
    inside = ~outside(x)
    first = np.array([model_seed(r) for r in rows]) == model_seed(rows[0])
    held = np.zeros(len(rows))
    for d in sorted(set(group)):
        out = group == d
        keep = ~out & inside & first
        held[out & inside] = _fitted(x[keep], y[keep], d).predict_proba(x[out & inside])[:, 1]
    return _fitted(x[inside & first], y[inside & first], None), held


def _report(what: str, trusted: FloatImage, right: NDArray[np.bool_]) -> None:
    """Per trust level, how many reads it names and how many of those were wrong."""
    print(json.dumps({"reads": what, "count": len(right),
                      "right_if_all_named": round(float(right.mean()), 4)}))
    for level in LEVELS:
        at = trusted >= level
        print(json.dumps({"trust_at_least": level, "named": int(at.sum()),
                          "wrong": int((at & ~right).sum())}))


def audit(rows: list[dict[str, Any]]) -> int:
    """The landed trust's reliability on ``rows`` and the designs it names a card wrong
    in from ``NAME_AT``: 0 if none, 1 if some."""
    x = np.array([r["evidence"] for r in rows])
    right = np.array([r["right"] for r in rows])
    trusted = of_evidence(x)
    _report(f"the landed trust (bar {NAME_AT})", trusted, right)
    wrong = Counter(r["design"] for r, t in zip(rows, trusted, strict=True)
                    if t >= NAME_AT and not r["right"])
    print(json.dumps({"wrong_at_the_bar": dict(sorted(wrong.items()))}))
    return 1 if wrong else 0


def design_number(row: dict[str, Any]) -> int:
    """The tuning design a read is of, by number (``tune-07``: 7)."""
    return int(row["design"].rsplit("-", 1)[1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--first-design", type=int, default=0,
                    help="the first tuning design read (the fit's designs follow it)")
    ap.add_argument("--designs", type=int, default=8,
                    help="tuning designs fitted: N from the first")
    ap.add_argument("--audit", action="store_true",
                    help="fit nothing: the landed trust's reliability on the reads, and "
                         "the designs it names a card wrong in (exit 1 if any)")
    ap.add_argument("--scenes", type=int, default=10, help="room scenes read per design")
    ap.add_argument("--check", type=int, default=0,
                    help="the next N tuning designs: read, never fitted, the fit checked on them")
    ap.add_argument("--check-scenes", type=int, default=6, help="room scenes per checked design")
    ap.add_argument("--rows", type=Path, help="reads kept here (read again if it exists)")
    ap.add_argument("--jobs", type=int, default=1, help="designs read at a time, each its own process")
    ap.add_argument("--model-seeds", type=seed_list, default=[0],
                    help="the band models' training seeds, comma-separated: the rooms are "
                         "read once per seed, the first fitted, the bar kept at every one")
    ap.add_argument("--frame-size", type=frame_size, default=FRAME_SIZE,
                    help="the rooms photographed at this size, e.g. 4608x2592 (default "
                         "{}x{}: the camera's main stream)".format(*FRAME_SIZE))
    args = ap.parse_args(argv)
    seeds = args.model_seeds
    if args.rows and args.rows.exists():
        rows = json.loads(args.rows.read_text())
    else:
        first, end = args.first_design, args.first_design + args.designs
        size = (decks.PHOTO_SIZE, args.frame_size)
        todo = [(i, args.scenes, SEED, m, *size) for m in seeds for i in range(first, end)]
        todo += [(i, args.check_scenes, SEED, m, *size) for m in seeds
                 for i in range(end, end + args.check)]
        with ProcessPoolExecutor(args.jobs) as pool:
            rows = [r for got in pool.map(collect, *zip(*todo, strict=True)) for r in got]
        if args.rows:
            args.rows.write_text(json.dumps(rows))
    if args.audit:
        return audit(rows)
    end = args.first_design + args.designs
    fitted = [r for r in rows if args.first_design <= design_number(r) < end]
    checked = [r for r in rows if design_number(r) >= end]
    try:
        model, held = fit(fitted)
    except TooFewReads as e:
        print(f"trust_fit: {e}", file=sys.stderr)
        return 2
    right = np.array([r["right"] for r in fitted])
    at = np.array([model_seed(r) for r in fitted])
    for m in sorted(set(at.tolist())):
        _report(f"held out by design, band models trained at seed {m}", held[at == m],
                right[at == m])
    if checked:
        x = np.array([r["evidence"] for r in checked])
        trusted = np.where(outside(x), 0.0, model.predict_proba(x)[:, 1])
        _report("designs never fitted", trusted, np.array([r["right"] for r in checked]))
    safe = [lv for lv in LEVELS if not ((held >= lv) & ~right).any()]
    print(f"WEIGHTS = np.array({np.round(model.coef_[0], 4).tolist()})")
    print(f"BIAS = {round(float(model.intercept_[0]), 4)}")
    print(f"NAME_AT = {safe[0] if safe else None}  # lowest level with no wrong read held out")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
