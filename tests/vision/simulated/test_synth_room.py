"""The wide "room" of scenes: any deck's art, uneven laying, a lamp's light.

And the classic scenes exactly as they were: the benchmark's figures compare
runs of the same seeds, so widening the room must not move a single draw.
"""

from __future__ import annotations

import hashlib
import itertools
import math
from dataclasses import dataclass
from dataclasses import replace as _replace

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.calibrate import Calibrator
from vision.deck_art import Face
from vision.mat import standard_mat
from vision.render_mat import FILL
from vision.simulated.camera_model import Camera, mat_in_view
from vision.simulated.room import MIN_GAP_MM, Habit, Laying
from vision.simulated.synth import (
    Conditions,
    Frame,
    PlacedCard,
    Table,
    lay_table,
    photograph,
    random_deal,
    room_scene,
    scene,
)
from vision.types import Image

SMALL = (576, 324)  # a quarter of the Pi's frame: enough to measure light on


def _digest(image: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(image).tobytes()).hexdigest()[:16]


# Pinned before the room was added (same OpenCV build: JPEG and resampling are its own).
PINNED_SCENES = {
    (5, "classic"): ("1a1dc979cd621f4b", "b4a779cc1ba41d70"),
    (17, "companion"): ("f447bcedecb98097", "ab089ce784c9f92d"),
}


def test_classic_scenes_are_bit_identical_to_before_the_room():
    for (seed, style), (table_hash, frame_hash) in PINNED_SCENES.items():
        table, frame = scene(seed, style)  # type: ignore[arg-type]
        assert (_digest(table.image), _digest(frame.image)) == (table_hash, frame_hash)


def test_the_benchmarks_draws_are_as_before():
    # As bench.run draws a scene and its frames (small frames: the draws are the point).
    srng = np.random.default_rng(2026 * 1000 + 3)
    table = lay_table(random_deal(srng, float(srng.uniform(0.3, 0.9))), "classic", srng)
    cam = Camera.random(srng)
    frames = [photograph(table, cam, Conditions.random(srng), srng, frame_size=(576, 324))
              for _ in range(3)]
    assert _digest(table.image) == "f24332b2ca714553"
    assert [_digest(f.image) for f in frames] == [
        "122bce2a95622502", "6422f4f94f665f62", "b2c1d36ac635b4db"]
    zoned = lay_table({"flag3.south": ["R7", "B2", "G5"], "north.discard": ["Y1"]},
                      "companion", np.random.default_rng(0), zone_seed=7, flip_p=0.3)
    assert _digest(zoned.image) == "4bd6041e83324314"


def test_a_dealt_table_lays_every_card_once_battlefields_too():
    # The reader asks about a card it sees twice (a card lies once): a table that
    # lays one twice would count the reader's right answer as a miss.
    terrain_tables = 0
    for seed in range(400):
        rng = np.random.default_rng(seed)
        zones = random_deal(rng, float(rng.uniform(0.3, 0.9)), terrain=True)
        tokens = [t for cards in zones.values() for t in cards]
        assert len(tokens) == len(set(tokens)), (seed, zones)
        terrain_tables += sum(name.count(".") == 0 for name in zones) >= 5
    assert terrain_tables > 50  # tables with five battlefields or more were dealt


@dataclass(frozen=True)
class PlainArt:
    """A deck of another size whose every face is one flat colour: easy to find."""

    card_mm: tuple[float, float] = (57.0, 89.0)
    corner_radius_mm: float = 0.0
    name: str = "plain"
    colour: tuple[int, int, int] = (200, 40, 220)  # BGR magenta: nowhere on the mat

    def render(self, face: Face, px_per_mm: float) -> Image:
        w, h = self.card_mm
        return np.full((round(h * px_per_mm), round(w * px_per_mm), 3), self.colour, np.uint8)


def _card_pixels(image: Image, colour: tuple[int, int, int]) -> NDArray[np.bool_]:
    return np.all(np.abs(image.astype(int) - colour) < 12, axis=2)


def _angle(card: PlacedCard) -> float:
    """A laid card's turn off square, degrees, whichever way its zone faces."""
    (x0, y0), (x1, y1) = card.corners[0], card.corners[1]
    return (math.degrees(math.atan2(y1 - y0, x1 - x0)) + 90) % 180 - 90


def test_a_card_is_laid_at_its_arts_size_centred_in_its_zone():
    art = PlainArt()
    straight = Laying(Habit(crooked_deg=0.0, sideways_mm=0.0), Habit(crooked_deg=0.0,
                                                                       sideways_mm=0.0))
    table = lay_table({"flag3.south": ["R7"]}, art, np.random.default_rng(0), laying=straight)
    ys, xs = np.nonzero(_card_pixels(table.image, art.colour))
    s = table.px_per_mm
    width, height = (xs.max() - xs.min() + 1) / s, (ys.max() - ys.min() + 1) / s
    assert abs(width - 57) < 0.7 and abs(height - 89) < 0.7  # not the mat's 63 x 88
    zone = table.layout.zone("flag3.south").rect
    assert abs((xs.min() + xs.max() + 1) / 2 / s - zone.cx) < 0.5
    assert 0 <= ys.min() / s - zone.y <= 8.5  # the first card's top near the flag line
    # The classic laying lays the art at its own size too.
    classic = lay_table({"flag3.south": ["R7"]}, art, np.random.default_rng(0), crooked_deg=0)
    xs = np.nonzero(_card_pixels(classic.image, art.colour))[1]
    assert abs((xs.max() - xs.min() + 1) / s - 57) < 0.7


def test_rounded_corners_show_the_mat_through_the_corner():
    seen = {}
    for radius in (0.0, 3.0):
        art = PlainArt(corner_radius_mm=radius)
        laying = Laying(Habit(crooked_deg=0.0), Habit(crooked_deg=0.0))
        table = lay_table({"flag5.south": ["B3"]}, art, np.random.default_rng(1), laying=laying)
        s = table.px_per_mm
        x, y = (int(v * s) + 1 for v in table.cards[0].corners[0])  # just inside top-left
        img = table.image.astype(int)
        seen[radius] = (img[y, x], img[y + 6 * round(s), x])  # the corner, the edge below it
    corner, edge = seen[3.0]
    assert np.abs(corner - FILL).max() < 30  # mat grey (a little shadow), not the card
    assert np.abs(edge - PlainArt.colour).max() < 12  # the edge itself is not cut
    assert np.abs(seen[0.0][0] - PlainArt.colour).max() < 12  # a square card fills it


def test_crooked_cards_reach_eight_degrees_never_more():
    crooked = Laying(Habit(crooked_deg=8.0), Habit(crooked_deg=8.0))
    angles = [abs(_angle(c)) for seed in range(4)
              for c in lay_table(random_deal(np.random.default_rng(seed), 0.9), PlainArt(),
                                 np.random.default_rng(seed), laying=crooked).cards]
    assert len(angles) > 100
    assert 7.7 < max(angles) <= 8.0 + 1e-9
    # Drawn habits stay within 8 degrees too, and some players are that sloppy.
    rng = np.random.default_rng(5)
    habits = [h for _ in range(200) for h in (Laying.random(rng).north, Laying.random(rng).south)]
    assert 7.8 < max(h.crooked_deg for h in habits) <= 8.0
    # And the picture agrees with the truth: one card, found in the image.
    table = lay_table({"flag2.north": ["G4"]}, PlainArt(), np.random.default_rng(7),
                      laying=Laying(Habit(crooked_deg=8.0), Habit()))
    pts = np.argwhere(_card_pixels(table.image, PlainArt.colour))[:, ::-1].astype(np.float32)
    (_, _), (rw, rh), ra = cv2.minAreaRect(pts)
    ra = ra if rw < rh else ra - 90  # the long side is the card's height
    truth = _angle(table.cards[0])
    assert abs(truth) > 7.0 and abs(((ra - truth) + 90) % 180 - 90) < 0.6


def test_fans_are_uneven_tight_for_one_player_loose_for_the_other():
    laying = Laying(Habit(fan_mm=14.0), Habit(fan_mm=30.0), gap_spread=0.15)
    zones = {f"flag{f}.{side}": ["R1", "R2", "R3"] for f in range(1, 10)
             for side in ("north", "south")}
    table = lay_table(zones, PlainArt(), np.random.default_rng(2), laying=laying)
    gaps: dict[str, list[float]] = {"north": [], "south": []}
    for name in zones:
        tops = [(c.corners[0][1] + c.corners[1][1]) / 2 for c in table.cards if c.zone == name]
        gaps[name.split(".")[1]] += [abs(b - a) for a, b in itertools.pairwise(tops)]
    north, south = np.array(gaps["north"]), np.array(gaps["south"])
    assert north.min() >= MIN_GAP_MM - 0.5 and 13 < north.mean() < 15.5
    assert 26 < south.mean() < 34 and south.std() > 1.0  # each gap its own
    # No card is pushed off the mat, however loose the fan.
    corners = np.array([c.corners for c in table.cards])
    assert corners[..., 1].max() < table.layout.height


def _mat_grey(frame: Frame, table: Table) -> NDArray[np.bool_]:
    """Frame pixels that show the mat's plain grey fill (no card, line or marker)."""
    plain = np.all(table.image == np.array(FILL, np.uint8), axis=2).astype(np.uint8)
    to_frame = frame.mat_to_frame @ np.diag([1 / table.px_per_mm, 1 / table.px_per_mm, 1])
    h, w = frame.image.shape[:2]
    seen = cv2.warpPerspective(plain, to_frame, (w, h), flags=cv2.INTER_NEAREST)
    return cv2.erode(seen, np.ones((5, 5), np.uint8)).astype(bool)


def _blue_over_red(image: Image, where: NDArray[np.bool_]) -> float:
    px = image[where].astype(np.float32)
    return float(np.median(px[:, 0] / np.maximum(px[:, 2], 1)))


def test_a_warm_lamp_makes_the_grey_mat_warm_and_an_led_does_not():
    table = lay_table({"flag4.south": ["Y9", "B2"]}, "classic", np.random.default_rng(4))
    ratios = {}
    for kind in ("tungsten", "led"):
        rng = np.random.default_rng(8)
        cond = _replace(Conditions.room(rng, kind=kind), glares=(), shades=())
        frame = photograph(table, Camera(), cond.for_frame(SMALL), rng, SMALL)
        ratios[kind] = _blue_over_red(frame.image, _mat_grey(frame, table))
    assert ratios["tungsten"] < 0.75  # FILL is neutral grey: B/R 1 under white light
    assert ratios["led"] > 1.0


def test_mixed_light_is_warm_on_one_side_and_cool_on_the_other():
    table = lay_table({}, "classic", np.random.default_rng(0))
    cond = Conditions(gain=(0.6, 0.9, 1.15), cast_far=(1.1, 1.0, 0.9), cast_angle_deg=0.0,
                      noise=1.0)
    frame = photograph(table, Camera(), cond, np.random.default_rng(0), SMALL)
    grey = _mat_grey(frame, table)
    left, right = grey.copy(), grey.copy()
    left[:, SMALL[0] // 3:] = False
    right[:, : 2 * SMALL[0] // 3] = False
    assert _blue_over_red(frame.image, left) < 0.75 < 1.05 < _blue_over_red(frame.image, right)


def test_room_cameras_keep_the_mat_in_view_with_a_mild_lens():
    rng = np.random.default_rng(6)
    cams = [Camera.room(rng) for _ in range(40)]
    assert all(mat_in_view(c, standard_mat()) for c in cams)
    assert all(-0.06 <= c.k1 <= 0.03 for c in cams)
    assert max(abs(c.tilt_x_deg) for c in cams) > 10  # wider than Camera.random's poses


def test_a_room_scenes_frames_share_one_light_and_differ_in_the_sensor():
    table, frames = room_scene(3, PlainArt(corner_radius_mm=3.0), frames=3, frame_size=SMALL)
    assert len(frames) == 3 and all(f.image.shape == (SMALL[1], SMALL[0], 3) for f in frames)
    means = np.array([f.image.reshape(-1, 3).mean(axis=0) for f in frames])
    assert np.abs(means / means[0] - 1).max() < 0.08  # the same room's light
    assert not np.array_equal(frames[0].image, frames[1].image)
    assert table.cloth is not None and any(c.token for c in table.cards)


def test_a_room_scene_calibrates():
    for seed in (0, 1):
        _, frames = room_scene(seed, "classic", frames=1)
        calib = Calibrator().update(frames[0].image)
        assert len(calib.seen) >= 5 and calib.reprojection_mm < 1.5
