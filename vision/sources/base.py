"""The frame-source interface and the retry wrapper every live source runs in."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import cv2

from companion.i18n import _, ngettext
from vision.types import Image

LOW_SIZE = (384, 216)  # the motion stream: enough to see a hand, cheap every frame


class SourceError(RuntimeError):
    """A camera or file that cannot give frames; the message says which and why."""


class SourceEnded(SourceError):
    """A source with an end (a folder of images) has given its last frame: not a failure
    to retry, and told apart by its class, since its message is in the player's language."""


@dataclass
class FramePair:
    main: Image  # full resolution BGR, for reading cards
    low: Image  # low resolution BGR, for motion and hands


def low_from_main(main: Image) -> Image:
    out: Image = cv2.resize(main, LOW_SIZE, interpolation=cv2.INTER_AREA)
    return out


@runtime_checkable
class FrameSource(Protocol):
    name: str

    def read(self) -> FramePair:
        """The next frame; raises SourceError when the source fails."""
        ...

    def close(self) -> None: ...


class RetryingSource:
    """Reopens a failing source: an unplugged camera is reported and retried, not fatal."""

    def __init__(self, opener: Callable[[], FrameSource], retries: int = 5,
                 delay: float = 1.0, log: Callable[[str], None] = print,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self._opener, self.retries, self.delay = opener, retries, delay
        self._log, self._sleep = log, sleep
        self._source: FrameSource | None = None
        self.failures = 0
        self.name = "retrying"

    def read(self) -> FramePair:
        last: SourceError | None = None
        for attempt in range(self.retries + 1):
            try:
                if self._source is None:
                    self._source = self._opener()
                    self.name = self._source.name
                return self._source.read()
            except SourceError as exc:
                last = exc
                self.failures += 1
                self._log(_("camera problem: {problem}; retrying ({k}/{n})").format(
                    problem=exc, k=attempt + 1, n=self.retries))
                if self._source is not None:
                    self._source.close()
                    self._source = None
                if attempt < self.retries:
                    self._sleep(self.delay)
        raise SourceError(ngettext("gave up after {n} retry: {problem}",
                                   "gave up after {n} retries: {problem}", self.retries).format(
                                       n=self.retries, problem=last))

    def close(self) -> None:
        if self._source is not None:
            self._source.close()
            self._source = None
