"""What the camera saw, as a ``battleline-position/1`` dict (NOTATION.md).

The one place that knows the position format; swap it for the rules library's
serialiser once that exists. Vision knows nothing of claims, so ``claimed_by``
and ``completed_first`` are always null; cards read as unknown are left out
(the caller reports them separately).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Protocol, TypeVar

from companion.rules.cards import Terrain, parse_token
from vision.mat import MatLayout, standard_mat

UNKNOWN = "unknown"
# A token read at two places stands at the one read clearly more confidently (by this
# much, on the reader's 0..1 scale: a sure read of 1 against one under the reader's
# 0.75 "sure"); nearer than that the companion asks rather than guesses which.
TIE_MARGIN = 0.25


class TokenRead(Protocol):
    @property
    def token(self) -> str: ...

    @property
    def confidence(self) -> float: ...


class _CardLike(TokenRead, Protocol):
    __dataclass_fields__: ClassVar[dict[str, Any]]


C = TypeVar("C", bound=_CardLike)


def contested(reads: Sequence[TokenRead], margin: float = TIE_MARGIN) -> set[int]:
    """Indices of the reads that must become unknown: every card exists once.

    Of the reads of one token, the most confident stands when it is more confident
    than all the others by ``margin``; else none stands.
    """
    where: dict[str, list[int]] = {}
    for i, r in enumerate(reads):
        if r.token != UNKNOWN:
            where.setdefault(r.token, []).append(i)
    out: set[int] = set()
    for idx in where.values():
        if len(idx) < 2:
            continue
        ranked = sorted(idx, key=lambda i: reads[i].confidence, reverse=True)
        clear = reads[ranked[0]].confidence - reads[ranked[1]].confidence >= margin
        out.update(ranked[1:] if clear else ranked)
    return out


def unique_tokens(cards: Sequence[C], margin: float = TIE_MARGIN) -> list[C]:
    """``cards`` (dataclasses with ``token`` and ``confidence``, e.g. ``CardRead``)
    with each token at most once: the ``contested`` ones unknown, confidence 0."""
    out = contested(cards, margin)
    return [dataclasses.replace(c, token=UNKNOWN, confidence=0.0) if i in out else c
            for i, c in enumerate(cards)]


def build_position(
    zones: Mapping[str, Sequence[str]],
    to_move: str = "south",
    layout: MatLayout | None = None,
) -> dict[str, Any]:
    """``zones`` maps a mat zone name to the tokens lying there, first-played first."""
    lay = layout or standard_mat()

    def known(name: str) -> list[str]:
        return [t for t in zones.get(name, ()) if t != UNKNOWN]

    flags: list[dict[str, Any]] = []
    for n in range(1, 10):
        entry: dict[str, Any] = {
            "north": known(f"flag{n}.north"),
            "south": known(f"flag{n}.south"),
            "environment": known(f"flag{n}.north.env") + known(f"flag{n}.south.env"),
            "claimed_by": None,
            "completed_first": None,
        }
        terrain = [t for t in known(f"flag{n}") if isinstance(parse_token(t), Terrain)]
        if terrain:
            entry["terrain"] = terrain[0]
        flags.append(entry)
    discards: list[str] = []
    for z in lay.zones:
        if z.kind in ("discard", "guile"):
            discards += known(z.name)
    return {
        "format": "battleline-position/1",
        # The parser refuses terrain outside the terrain variant: say it when terrain shows.
        "variant": {"tactics": True, "terrain": any("terrain" in f for f in flags)},
        "to_move": to_move,
        "flags": flags,
        "discards": discards,
    }
