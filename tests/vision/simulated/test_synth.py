"""The simulated table: a scene is its seed's, whatever ran before it."""

from __future__ import annotations

import cv2
import numpy as np

from vision.simulated.camera_model import Camera
from vision.simulated.synth import Conditions, lay_table, photograph


def test_a_photograph_is_its_seeds_whatever_used_opencvs_generator_before():
    # Tests and the bench compare reads of scenes made from seeds: their sensor noise
    # must not depend on what else drew from OpenCV's process-wide generator.
    table = lay_table({"flag3.south": ["R7", "B2"]}, "classic", np.random.default_rng(1))
    cond = Conditions(noise=4.0, jpeg=90)
    first = photograph(table, Camera(), cond, np.random.default_rng(2)).image
    cv2.randn(np.empty((64, 64), np.float32), 0.0, 1.0)  # someone else's draw
    again = photograph(table, Camera(), cond, np.random.default_rng(2)).image
    other = photograph(table, Camera(), cond, np.random.default_rng(3)).image
    assert np.array_equal(first, again)
    assert not np.array_equal(first, other)  # the noise is still the seed's own
