"""``battleline-companion bench vision --designs N``: the reader on decks it never saw.

Each generated deck design (``vision.designs``; the ``held`` split is never
looked at while tuning) is enrolled exactly as a player enrols a deck: one
phone photo per card on some table (``vision.simulated.photos``), through
``enroll_from_dir``'s own steps. Then tables laid and lit as widely as rooms vary
(``vision.simulated.synth``'s room) are photographed ``frames`` times each and read,
each card named by the deck's own learnt model (``vision.models.band_model``).
Figures per design, and over all: the worst design's single-frame accuracy,
voted accuracy, every confidently wrong card, the median frame time and the
reliability table (what a confidence means).
"""

from __future__ import annotations

import statistics
import tempfile
import time
import zlib
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Literal

import cv2
import numpy as np

from vision.bench.enrol_truth import deck_truth
from vision.bench.scoring import Tally, offers, outcomes, reliability, score
from vision.calibrate import CalibrationError, Calibrator
from vision.deck_art import ALL_FACES, CardArt
from vision.designs import designs
from vision.enrolment.enroll import OutlinesOff, enrol_photo, profile_from_photos
from vision.models.learnt import with_model
from vision.position import UNKNOWN
from vision.profile import DeckProfile, ProfileError
from vision.read import Reader
from vision.reading.laps import by_step, charge
from vision.sharpness import TOO_SOFT_MM
from vision.simulated.camera_model import FRAME_SIZE
from vision.simulated.photos import TABLES, phone_photo
from vision.simulated.synth import room_scene, room_seed
from vision.types import FloatImage, Image
from vision.vote import Guesses, vote, vote_photos

# A refused card is shot again, on a table not tried yet each time, as the refusal asks
# and as a player must (``enroll --from-dir`` takes no deck with a card missing unless
# told ``--partial``): on every other table if need be.
RETAKES = len(TABLES) - 1
PHOTO_SIZE = (2016, 1512)  # a phone photo at a third of 12 MP: as much of the card
# as enrolment keeps (6 px/mm), in a fraction of the time


def enrol(art: CardArt, rng: np.random.Generator, photo_size: tuple[int, int] = PHOTO_SIZE,
          ) -> tuple[DeckProfile | None, int]:
    """The deck enrolled from one phone photo per card, all on one table (as a
    player shoots a deck: one sitting, one table, one lamp), and how many photos
    enrolment refused. A refused card is shot again on the other tables in turn, as the
    refusal asks, until one is taken: a card refused on every table is never taken,
    and the profile lacks it. A card whose outline the deck's layout says lies off
    (``OutlinesOff``, once the whole deck is shot) is shot again so, up to RETAKES
    times; named still, its photo is kept as found, as the refusal advises a player
    who sees the card whole (``--keep-outline``: a deck may print one card unlike the
    rest at a side)."""
    table = TABLES[int(rng.integers(len(TABLES)))]
    w, h = art.card_mm
    refused = 0
    cards: dict[str, Image] = {}
    tables: dict[str, FloatImage] = {}
    faces = {f.token: f for f in ALL_FACES}
    with tempfile.TemporaryDirectory() as tmp:

        def shoot(token: str) -> None:
            nonlocal refused
            path = Path(tmp) / f"{token}.jpg"
            on, others = table, None
            for _ in range(RETAKES + 1):
                # Some phones store the pixels turned and say so in EXIF.
                turn = (None, 6, 8, 3)[int(rng.integers(4))] if rng.random() < 0.3 else None
                path.write_bytes(phone_photo(art.render(faces[token], 8.0), rng, table=on,
                                             size=photo_size, exif_orientation=turn))
                try:
                    cards[token], tables[token] = enrol_photo(path, w, h)
                    return
                except ProfileError:
                    refused += 1
                    if others is None:  # drawn only when needed: the photos stay the same
                        others = iter([str(t) for t in rng.permutation(TABLES) if t != table])
                    on = next(others, on)

        for face in ALL_FACES:
            shoot(face.token)
        retakes = RETAKES
        kept: set[str] = set()
        while cards:
            order = sorted(cards, key=lambda t: f"{t}.jpg")  # as ``enroll_from_dir`` lists a folder
            try:
                return profile_from_photos({t: cards[t] for t in order},
                                           {t: tables[t] for t in order},
                                           f"{art.name} (enrolled from photos)", w, h,
                                           kept), refused
            except OutlinesOff as off:
                refused += len(off.sides)
                for token in off.sides:
                    if retakes:
                        del cards[token], tables[token]
                        shoot(token)
                    else:
                        kept.add(token)
                retakes = max(retakes - 1, 0)
    return None, refused  # no photo taken at all


def enrol_seeded(art: CardArt, seed: int, photo_size: tuple[int, int] = PHOTO_SIZE,
                 ) -> tuple[DeckProfile | None, int]:
    """``enrol`` as the bench enrols a design for ``seed``: each deck its own sitting
    (table, lamp and photos), drawn from the seed and the design's name."""
    return enrol(art, np.random.default_rng([seed, 1, zlib.crc32(art.name.encode())]),
                 photo_size)


def run_design(art: CardArt, scenes: int, frames: int, seed: int,
               ms: list[float], steps: defaultdict[str, float],
               photo_size: tuple[int, int] = PHOTO_SIZE,
               frame_size: tuple[int, int] = FRAME_SIZE) -> Tally:
    """One design: enrolled, then ``scenes`` tables read ``frames`` times each; each
    scene's first frame's CPU time appended to ``ms``, and per step (calibration and
    the reader's, ``Reader.laps``) added to ``steps``."""
    cv2.setNumThreads(1)
    profile, refused = enrol_seeded(art, seed, photo_size)
    tally = Tally(enrol_refused=refused, enrolled=len(profile.tokens) if profile else 0)
    truth = deck_truth(profile, art) if profile else []
    tally.colour_errors = [c.colour_error for c in truth]
    tally.outline_offs = [c.off for c in truth]
    # A deck that could not be enrolled reads nothing: every card is missed.
    reader = Reader(with_model(profile)) if profile else None
    for i in range(scenes):
        table, photos = room_scene(room_seed(seed, art.name, i), art, frames,
                                   frame_size=frame_size)
        calibrator = Calibrator()
        reads: list[dict[str, list[str]]] = []
        guesses: list[Guesses] = []
        for f, frame in enumerate(photos):
            c0 = time.thread_time()
            if reader is None:
                reads.append({})
                guesses.append({})
                tally.cards += sum(len(v) for v in table.zones.values()) if f == 0 else 0
                continue
            try:
                calib = calibrator.update(frame.image)
            except CalibrationError:
                tally.failed_calibrations += 1
                reads.append({})
                guesses.append({})
                continue
            calibrated, before = time.thread_time(), dict(reader.laps.ms)
            res = reader.read(frame.image, calib)
            done = time.thread_time()  # the read's time, not the bench's scoring after it
            got = res.zones()
            reads.append(got)
            guesses.append(res.guesses())
            tally.named += outcomes(table.zones, ((c.zone, c.token, c.confidence)
                                                  for c in res.cards))
            total, right, wrong, phantom = score(table.zones, got)
            tally.wrong_single += wrong
            if f == 0:
                ms.append((done - c0) * 1000)
                steps["calibration"] += (calibrated - c0) * 1000
                charge(steps, reader.laps, before, (done - calibrated) * 1000)
                tally.cards += total
                tally.right_single += right
                if res.soft_mm is not None and res.soft_mm <= TOO_SOFT_MM:
                    tally.sharp_scenes += 1
                    tally.sharp_cards += total
                    tally.sharp_right += right
                tally.phantom += phantom
                tally.unknown_single += sum(t == UNKNOWN for ts in got.values() for t in ts)
                # What the live path would offer the player for the cards it asks about.
                offered, right_offers = offers(table.zones, got, vote_photos([res]).suggested)
                tally.offered += offered
                tally.offered_right += right_offers
        _, right, wrong, _ = score(table.zones, vote(reads, guesses=guesses).zones)
        tally.right_voted += right
        tally.wrong_voted += wrong
    return tally


def _design(art: CardArt, scenes: int, frames: int, seed: int,
            frame_size: tuple[int, int] = FRAME_SIZE,
            ) -> tuple[Tally, list[float], dict[str, float]]:
    ms: list[float] = []
    steps: defaultdict[str, float] = defaultdict(float)
    return (run_design(art, scenes, frames, seed, ms, steps, frame_size=frame_size), ms,
            steps)


def run(n: int, split: Literal["tune", "held"], scenes: int, frames: int,
        seed: int, jobs: int = 1, first: int = 0,
        frame_size: tuple[int, int] = FRAME_SIZE) -> dict[str, object]:
    """Figures per design and over ``n`` designs of ``split`` from design ``first``,
    ``jobs`` designs at a time (each its own process: frame times are per process),
    each table photographed at ``frame_size`` px."""
    arts = designs(split, n, first)
    args = [(art, scenes, frames, seed, frame_size) for art in arts]
    if jobs > 1:
        with ProcessPoolExecutor(jobs) as pool:
            done = list(pool.map(_design, *zip(*args, strict=True)))
    else:
        done = [_design(*a) for a in args]
    ms = [t for _, times, _ in done for t in times]
    steps: defaultdict[str, float] = defaultdict(float)
    for _, _, per_step in done:
        for step, t in per_step.items():
            steps[step] += t
    per: dict[str, dict[str, object]] = {}
    worst = 1.0
    total = Tally()
    for art, (tally, _, _) in zip(arts, done, strict=True):
        figures = tally.figures()
        per[art.name] = figures
        worst = min(worst, float(figures["single_frame_accuracy"]))  # type: ignore[arg-type]
        total.add(tally)
    overall = total.figures()
    return {
        "worst_design_single_frame_accuracy": round(worst, 4),
        "single_frame_accuracy_sharp": overall["single_frame_accuracy_sharp"],
        "voted_accuracy": overall["voted_accuracy"],
        "confident_wrong": overall["confident_wrong"],
        "frame_ms_median": round(statistics.median(ms), 1) if ms else None,
        # Where it goes: each step's mean over the same frames.
        "frame_ms_mean": round(statistics.fmean(ms), 1) if ms else None,
        "frame_ms_by_step": by_step(steps, len(ms)),
        "all_designs": overall,
        "reliability": reliability(total.named),
        "designs": per,
        "split": split,
        "scenes_per_design": scenes,
        "frames_per_scene": frames,
        "frame_size": list(frame_size),
        "seed": seed,
    }
