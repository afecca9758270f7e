"""Stable table snapshots: what the tracker consumes, whatever produced it.

A snapshot is, per mat zone (``flag3.north``, ``flag3.north.env``,
``north.guile``, ``north.discard``), the cards lying there in fan order, each
with the token read and how confident the reading is. ``vision`` produces
them from camera frames (through ``companion.vision_path``); the simulated
table can also produce them straight from its ground truth. A source that
cannot give snapshots for a while raises ``SourceError`` and is asked again.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Final, Protocol

UNKNOWN: Final = "unknown"


class SourceError(RuntimeError):
    """The camera (or whatever feeds the tracker) gives nothing now; the message says why.

    ``ended``: nothing more will come (a folder of images read through), so there is
    nothing to wait for; the message, in the player's language, is only shown.
    """

    def __init__(self, message: str, *, ended: bool = False) -> None:
        super().__init__(message)
        self.ended = ended


@dataclass(frozen=True, slots=True)
class Reading:
    """One card as read: a token (or ``unknown``) and a confidence 0..1; where it is
    ``unknown``, perhaps the card the camera would offer a person who says which it is
    (``guess``: never a reading, and no change of the table when it alone changes)."""

    token: str
    confidence: float = 1.0
    guess: str | None = field(default=None, compare=False)

    def certain(self, threshold: float) -> bool:
        return self.token != UNKNOWN and self.confidence >= threshold


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A still table: per zone the readings, first played first. Empty zones may be left out."""

    zones: Mapping[str, tuple[Reading, ...]]

    def readings(self, zone: str) -> tuple[Reading, ...]:
        return self.zones.get(zone, ())

    def tokens(self) -> dict[str, list[str]]:
        return {z: [r.token for r in rs] for z, rs in self.zones.items() if rs}


def snapshot_of(zones: Mapping[str, Iterable[str]], confidence: float = 1.0) -> Snapshot:
    """A snapshot from plain tokens per zone, all read with ``confidence``."""
    return Snapshot({z: tuple(Reading(t, confidence) for t in ts) for z, ts in zones.items()})


class SnapshotSource(Protocol):
    """Gives the next stable snapshot when the table changed, else None; SourceError on failure."""

    name: str

    def poll(self) -> Snapshot | None: ...

    def close(self) -> None: ...
