"""``bench loop`` prints its figures as one JSON object."""

from __future__ import annotations

import json

import pytest

from companion.bench import main


@pytest.mark.slow
def test_bench_loop_prints_latency_and_memory(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["loop", "--changes", "3", "--fps", "30"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["timed_changes"] >= 1
    assert 0 < figures["latency_ms_median"] <= figures["latency_ms_p95"]
    assert 50 < figures["peak_rss_mb"] < 2000
    assert figures["confident_wrong_rulings"] == 0


@pytest.mark.slow
def test_bench_loop_says_where_the_time_goes_and_arms_held_still_make_no_play(
        capsys: pytest.CaptureFixture[str]) -> None:
    """Each card laid with two arms over the table, the second held still for three
    frames: no snapshot is made from a frame with an arm in it, and the stages of the
    latency (frames awaited, looking at the frame, rules, lights) add up to it."""
    assert main(["loop", "--changes", "3", "--fps", "30", "--hand-frames", "2",
                 "--hand-pause", "3"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["false_updates"] == 0 and figures["snapshots"] >= 3
    assert figures["nudges"] == 0 and figures["corrections"] == 0
    stages = figures["stages_ms_median"]
    assert set(stages) == {"frames", "look", "read", "read_on_path", "rules", "lights"}
    on_path = sum(stages[s] for s in ("frames", "look", "read_on_path", "rules", "lights"))
    assert 0.7 * figures["latency_ms_median"] < on_path < 1.3 * figures["latency_ms_median"]
    # The first frame without an arm is read, the next one shows the table still.
    assert figures["frames_after_hand_median"] == 2
