"""A frame's time split by step adds up to the frame: what the read spent outside its
steps is charged as ``rest``."""

from collections import defaultdict

from vision.reading.laps import Laps, by_step, charge


def test_the_steps_and_the_rest_add_up_to_the_read():
    laps = Laps()
    laps.ms.update({"view": 5.0})
    before = dict(laps.ms)
    laps.ms["view"] += 3.0
    laps.ms["naming"] += 4.0
    steps: defaultdict[str, float] = defaultdict(float)
    charge(steps, laps, before, read_ms=9.5)
    assert steps == {"view": 3.0, "naming": 4.0, "rest": 2.5}
    assert by_step(steps, 1) == {"naming": 4.0, "view": 3.0, "rest": 2.5}
