"""The wide "room" of scenes: any deck's art, uneven laying, a lamp's light.

And the classic scenes exactly as they were: the benchmark's figures compare
runs of the same seeds, so widening the room must not move a single draw.
"""

from __future__ import annotations

import hashlib

import numpy as np

from vision.synth import Camera, Conditions, lay_table, photograph, random_deal, scene


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
