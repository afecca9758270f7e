"""Where a frame's time goes: this thread's CPU time per step of the reader.

The benches print it beside the frame time (``frame_ms_by_step``), so a change that
makes one step dearer, or a search for the frame budget, starts from the figures.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Mapping


class Laps:
    """Milliseconds of this thread's CPU time spent in each named step, summed over
    every read since made: each ``lap`` charges the time since the last one (or
    ``start``) to its step."""

    def __init__(self) -> None:
        self.ms: defaultdict[str, float] = defaultdict(float)
        self._at = time.thread_time()

    def start(self) -> None:
        self._at = time.thread_time()

    def lap(self, step: str) -> None:
        now = time.thread_time()
        self.ms[step] += (now - self._at) * 1000.0
        self._at = now


def charge(steps: defaultdict[str, float], laps: Laps, before: Mapping[str, float],
           read_ms: float) -> None:
    """Add to ``steps`` what each of the reader's steps took since ``before`` (a copy
    of ``laps.ms`` taken then): one read's share of its running tally; and, as
    ``rest``, what the read of ``read_ms`` spent outside its steps (entering it,
    making its result), so the steps add up to the frame."""
    charged = 0.0
    for step, t in laps.ms.items():
        spent = t - before.get(step, 0.0)
        steps[step] += spent
        charged += spent
    steps["rest"] += max(read_ms - charged, 0.0)


def by_step(steps: Mapping[str, float], frames: int) -> dict[str, float]:
    """Each step's mean ms a frame over ``frames`` frames, dearest first (means add up
    to the mean frame; medians would not)."""
    return {step: round(t / frames, 1)
            for step, t in sorted(steps.items(), key=lambda st: -st[1])} if frames else {}
