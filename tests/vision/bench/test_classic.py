"""The classic bench says where a frame's time goes, as the cross-design bench does."""

from unittest import mock

import numpy as np

from vision.bench import classic
from vision.profile import builtin_profile


def test_the_classic_bench_splits_each_first_frame_by_step():
    # The enrolment is the cross-design bench's to test: here the deck's own art stands
    # in for its photos, and the scene is read as the bench reads it.
    with mock.patch.object(classic, "card_photo", lambda *a: np.zeros((8, 8, 3), np.uint8)), \
            mock.patch.object(classic, "enroll_from_dir",
                              lambda *a: builtin_profile(classic.STYLE)):
        got = classic.run(scenes=2, frames=1, seed=3)
    steps = got["frame_ms_by_step"]
    assert isinstance(steps, dict)
    assert {"calibration", "view", "stacks", "tilts", "placing", "naming"} <= set(steps)
    assert all(t >= 0 for t in steps.values())
    assert list(steps.values()) == sorted(steps.values(), reverse=True)  # dearest first
    # The steps' means add up to the mean frame (each rounded to 0.1 ms).
    assert abs(sum(steps.values()) - got["frame_ms_mean"]) <= 0.1 * len(steps)
    assert got["single_frame_accuracy"] >= 0.9  # the scenes were read, not skipped
