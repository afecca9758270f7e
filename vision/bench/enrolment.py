"""``battleline-companion bench enrol``: how long enrolling a deck takes, step by step.

A deck of one generated design is shot as a player shoots it (one phone photo per
card, 12 MP JPEG, on one table), then enrolled as ``enroll --from-dir`` enrols it:
the cards found in their photos, the deck squared and balanced, its models learnt.
A photo refused, or a card the deck's layout says was cut off, is shot again on
another table first, as the refusal asks.
The issue's budget is three minutes on a Pi 4: run this there to measure it. It also
says how true the deck came out against the design's own drawing (``enrol_truth``):
how far off its place each card was cut, and how far its colours lie from the print.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import tempfile
import time
from collections.abc import Collection, Sequence
from pathlib import Path

import numpy as np

from vision.bench.enrol_truth import deck_truth, summary
from vision.deck_art import ALL_FACES
from vision.designs import DeckDesign, design
from vision.enrolment.enroll import OutlinesOff, enrol_photo, enroll_from_dir
from vision.enrolment.workers import cores
from vision.enrolment.workers import jobs as jobs_for
from vision.models.learnt import with_model
from vision.profile import ProfileError
from vision.simulated.photos import TABLES, phone_photo


def _design(name: str) -> DeckDesign:
    """A generated design by name: ``tune-5``, ``held-12``."""
    split, _, index = name.rpartition("-")
    try:
        return design(split, int(index))  # type: ignore[arg-type]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{name!r}: not a design (tune-N or held-N)") from None


def shoot(art: DeckDesign, folder: Path, size: tuple[int, int], table: str,
          seed: int | Sequence[int], tokens: Collection[str] | None = None) -> int:
    """One photo per card of ``art`` (only ``tokens``, if given) into ``folder``, on
    ``table``; a photo enrolment refuses is shot again on the other tables in turn, as
    a player would. How many were refused."""
    rng = np.random.default_rng(seed)
    refused = 0
    for face in (f for f in ALL_FACES if tokens is None or f.token in tokens):
        path = folder / f"{face.token}.jpg"
        for on in (table, *(t for t in TABLES if t != table)):
            path.write_bytes(phone_photo(art.render(face, 8.0), rng, table=on, size=size))
            try:
                enrol_photo(path, *art.card_mm)
                break
            except ProfileError:
                refused += 1
    return refused


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="battleline-companion bench enrol")
    ap.add_argument("--design", type=_design, default="tune-05",
                    help="a generated design: tune-N or held-N")
    ap.add_argument("--jobs", type=int, default=None, help="workers (default: one per core)")
    ap.add_argument("--photo", default="4032x3024", help="photo size, WIDTHxHEIGHT (12 MP)")
    ap.add_argument("--table", default="wood", help="the table the cards are shot on")
    ap.add_argument("--seed", type=int, default=5)
    ns = ap.parse_args(argv)
    jobs = jobs_for(ns.jobs)
    w, h = (int(v) for v in ns.photo.lower().split("x"))
    card_w, card_h = ns.design.card_mm
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        refused = shoot(ns.design, folder, (w, h), ns.table, ns.seed)
        # A card the deck's layout says was cut off its card is shot again, as the
        # refusal asks, on the next table; named on every table, its photo is kept as
        # found (``--keep-outline``), as ``bench vision`` keeps it. The time is the
        # pass that enrols the deck.
        others = [t for t in TABLES if t != ns.table]
        retaken, kept = 0, set[str]()
        for attempt in range(len(others) + 2):
            t0 = time.perf_counter()
            try:
                profile = enroll_from_dir(folder, ns.design.name, card_w, card_h,
                                          partial=True, keep_outlines=kept, jobs=jobs)
                break
            except ProfileError as exc:  # a photo refused: the figures would not be a deck's
                off = exc.__cause__
                if not isinstance(off, OutlinesOff) or attempt > len(others):
                    print(f"bench enrol: {exc}", file=sys.stderr)
                    return 1
                if attempt == len(others):
                    kept |= set(off.sides)
                    continue
                retaken += len(off.sides)
                refused += shoot(ns.design, folder, (w, h), others[attempt],
                                 (ns.seed, attempt + 1), off.sides)
        t1 = time.perf_counter()
        with_model(profile, jobs=jobs)
        t2 = time.perf_counter()
    print(json.dumps({"design": ns.design.name, "photos": len(ALL_FACES), "photo": ns.photo,
                      "refused_before": refused, "outlines_retaken": retaken,
                      "outlines_kept": sorted(kept),
                      "cards_enrolled": len(profile.tokens), "jobs": jobs, "cores": cores(),
                      "machine": platform.machine(),
                      "photos_to_profile_s": round(t1 - t0, 1),
                      "models_s": round(t2 - t1, 1), "enrol_s": round(t2 - t0, 1),
                      # How true the deck came out: where each card was cut, its colours.
                      **summary(deck_truth(profile, ns.design))}))
    return 0
