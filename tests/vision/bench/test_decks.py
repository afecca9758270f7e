"""The cross-design bench counts what was laid and what was read, per deck."""

import json
from collections import defaultdict
from unittest import mock

import numpy as np
import pytest

from companion.cli import main
from vision.bench import decks
from vision.bench.decks import run_design
from vision.bench.scoring import Tally
from vision.calibrate import Calibrator
from vision.designs import design
from vision.enrolment.enroll import OutlinesOff, profile_from_photos
from vision.sharpness import TOO_SOFT_MM, blur_mm
from vision.simulated.synth import room_scene, room_seed


def test_a_design_is_enrolled_from_photos_and_every_laid_card_is_counted():
    art = design("tune", 1)
    ms: list[float] = []
    steps: defaultdict[str, float] = defaultdict(float)
    tally = run_design(art, scenes=1, frames=2, seed=7, ms=ms, steps=steps,
                       photo_size=(1008, 756))
    table, frames = room_scene(room_seed(7, art.name, 0), art, 2)
    laid = sum(len(v) for v in table.zones.values())
    figures = tally.figures()
    assert figures["cards"] == laid > 0
    # Every photo was taken (a refused one is shot again), so the profile holds the deck,
    # and how true it came out is measured against the design's drawing.
    assert figures["cards_enrolled"] == 79 == len(tally.colour_errors)
    assert figures["enrol_outline_off_mm_p90"] < 1.0
    assert 0 < figures["enrol_colour_error_median"] < 8.0
    assert 0 <= figures["single_frame_accuracy"] <= 1 and len(ms) == 1
    # The scene counts among the sharp ones as the product measures its first frame.
    soft = blur_mm(frames[0].image, Calibrator().update(frames[0].image))
    sharp = soft is not None and soft <= TOO_SOFT_MM
    assert (figures["sharp_scenes"], figures["sharp_cards"]) == ((1, laid) if sharp else (0, 0))
    assert figures["single_frame_accuracy_sharp"] == (
        round(tally.right_single / laid, 4) if sharp else 0.0)
    # The cards offered to the player are asked ones, each offer right at most once.
    assert 0 <= figures["offered_right_single_frame"] <= figures["offered_single_frame"] \
        <= figures["unknown_single_frame"]
    # Every card read right in the first frame is in the reliability data as right.
    assert sum(ok for _, ok in tally.named) >= tally.right_single
    # Where the frame's time went: every step of it and the read's rest, adding up to
    # the frame (the bench's own scoring of it is not the read's).
    assert set(steps) == {"calibration", "view", "stacks", "tilts", "placing", "naming",
                          "second looks", "faces", "names", "rest"}
    assert all(t >= 0 for t in steps.values()) and steps["naming"] > 0
    assert sum(steps.values()) == pytest.approx(ms[0])


def test_each_deck_is_read_in_rooms_of_its_own():
    # Decks sharing one list of rooms were measured in as few rooms as scenes each
    # (24 held decks in 3): each deck's rooms are its own, and the same every run (in
    # every process: no per-process string hash), so benches compare like with like.
    rooms = {room_seed(2026, f"held-{k:02d}", i) for k in range(24) for i in range(3)}
    assert len(rooms) == 72
    assert room_seed(2026, "held-00", 0) == 126153834
    assert room_seed(2026, "held-00", 0) != room_seed(2027, "held-00", 0)


def test_a_card_enrolment_says_was_cut_off_is_shot_again():
    # As a player does when told: the named card is photographed again and the deck
    # enrolled whole; the retake counts as a refused photo.
    art = design("tune", 1)
    calls = []

    def once_off(cards, *args, **kwargs):
        calls.append(sorted(cards))
        if len(calls) == 1:
            raise OutlinesOff({"SCOUT": "top"})
        return profile_from_photos(cards, *args, **kwargs)

    rng = np.random.default_rng(3)
    before, refused_before = decks.enrol(art, np.random.default_rng(3), (1008, 756))
    with mock.patch.object(decks, "profile_from_photos", once_off):
        profile, refused = decks.enrol(art, rng, (1008, 756))
    assert len(calls) == 2 and "SCOUT" in calls[1]
    assert profile is not None and before is not None
    assert profile.tokens == before.tokens and len(profile.tokens) == 79
    assert refused == refused_before + 1
    # The SCOUT learnt is the retake, not the photo enrolment named.
    k = profile.tokens.index("SCOUT")
    assert not np.array_equal(profile.tops[k], before.tops[k])


def test_a_card_named_on_every_table_is_kept_as_found():
    # A deck may print one card unlike the rest at a side (tune-142's Y10 alone prints
    # a wide index at its foot): named on every retake, the player keeps its photo as
    # the refusal advises (--keep-outline), and the deck is enrolled whole.
    art = design("tune", 1)
    kept_at = []

    def never_whole(cards, tables, name, w, h, keep=()):
        if "SCOUT" not in keep:
            raise OutlinesOff({"SCOUT": "bottom"})
        kept_at.append(len(cards))
        return profile_from_photos(cards, tables, name, w, h, keep)

    with mock.patch.object(decks, "profile_from_photos", never_whole):
        profile, refused = decks.enrol(art, np.random.default_rng(3), (1008, 756))
    assert profile is not None and "SCOUT" in profile.tokens and len(profile.tokens) == 79
    assert kept_at == [79] and refused >= decks.RETAKES + 1


def test_bench_enrol_times_a_whole_deck_enrolled_on_the_workers(capsys):
    # Each photo refused is shot again first, so the deck enrols whole; the figures
    # are the steps' wall times.
    assert main(["bench", "enrol", "--design", "tune-01", "--jobs", "2",
                 "--photo", "1008x756"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["cards_enrolled"] == got["photos"] == 79 and got["jobs"] == 2
    assert got["enrol_s"] == pytest.approx(got["photos_to_profile_s"] + got["models_s"], abs=0.15)
    assert got["models_s"] > 0 and got["photos_to_profile_s"] > 0
    # And how true the deck came out against the design's drawing: cut to within a
    # fraction of a millimetre, its colours within several Lab (tune-01 at this photo
    # size: 5.7), the worst cards named.
    assert got["outline_off_mm"]["median"] < 0.5 and got["colour_error_lab"]["median"] < 8.0
    assert len(got["colour_worst"]) == 5 and len(got["outline_worst"]) == 5


def test_bench_enrol_keeps_a_card_named_on_every_table(capsys):
    # As ``bench vision`` does: a card the layout names however it is shot is kept as
    # found once every table was tried, and the bench says which.
    from vision.bench import enrolment
    from vision.profile import ProfileError
    from vision.simulated.photos import TABLES

    shot: list[str] = []

    def enrol(folder, name, w, h, partial, keep_outlines, jobs):
        if "R7" not in keep_outlines:
            raise ProfileError("cannot enrol: R7") from OutlinesOff({"R7": "bottom"})
        return mock.Mock(tokens=["R7"] * 79, tops=None)

    def shoot(art, folder, size, table, seed, tokens=None):
        shot.append(table)
        return 0

    with mock.patch.object(enrolment, "enroll_from_dir", enrol), \
            mock.patch.object(enrolment, "shoot", shoot), \
            mock.patch.object(enrolment, "with_model"):
        assert main(["bench", "enrol", "--design", "tune-01", "--table", "wood"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert shot == ["wood"] + [t for t in TABLES if t != "wood"]  # every table tried
    assert got["outlines_kept"] == ["R7"] and got["outlines_retaken"] == len(TABLES) - 1


def test_the_bench_can_start_past_the_designs_measured_before(capsys):
    # Held designs past the first 24 are ones no change was ever judged on: the
    # bench reads exactly the slice asked for, and says so per design.
    read: list[str] = []
    sizes: list[tuple[int, int]] = []

    def counted(art, scenes, frames, seed, frame_size):
        read.append(art.name)
        sizes.append(frame_size)
        return (Tally(cards=10, right_single=9, right_voted=10), [50.0],
                {"placing": 20.0, "naming": 30.0})

    with mock.patch.object(decks, "_design", counted):
        assert main(["bench", "vision", "--designs", "2", "--first-design", "24",
                     "--split", "held", "--scenes", "1", "--frame-size", "4608x2592"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert read == ["held-24", "held-25"] == sorted(got["designs"])
    # Every design photographed at the size asked, and the figures say which.
    assert sizes == [(4608, 2592)] * 2 and got["frame_size"] == [4608, 2592]
    assert got["worst_design_single_frame_accuracy"] == 0.9 and got["voted_accuracy"] == 1.0
    # Each step's mean a frame, over both designs' frames, dearest first.
    assert list(got["frame_ms_by_step"].items()) == [("naming", 30.0), ("placing", 20.0)]
    assert got["frame_ms_mean"] == 50.0


def test_the_bench_photographs_each_table_at_the_frame_size_asked(monkeypatch):
    # A camera's full resolution is one of the bench's questions: each room's frames
    # come at the size given (the deck's enrolment is the other test's to check).
    shapes = []

    def scene(*args, **kwargs):
        table, photos = room_scene(*args, **kwargs)
        shapes.extend(p.image.shape for p in photos)
        return table, photos

    monkeypatch.setattr(decks, "room_scene", scene)
    monkeypatch.setattr(decks, "enrol_seeded", lambda *a: (None, 0))
    tally = run_design(design("tune", 1), scenes=1, frames=2, seed=7, ms=[],
                       steps=defaultdict(float), frame_size=(1152, 648))
    assert shapes == [(648, 1152, 3)] * 2 and tally.cards > 0


def test_a_frame_size_that_is_not_one_is_refused_with_what_was_wrong(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["bench", "vision", "--designs", "1", "--frame-size", "4608by2592"])
    assert stop.value.code == 2
    assert "'4608by2592' is not a frame size in pixels (e.g. 4608x2592)" in capsys.readouterr().err
