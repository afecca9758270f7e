"""A clock the test moves by hand, in seconds like time.monotonic."""

from __future__ import annotations


class HandClock:
    def __init__(self, start: float = 100.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds
