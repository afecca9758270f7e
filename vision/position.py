"""What the camera saw, as a ``battleline-position/1`` dict (NOTATION.md).

The one place that knows the position format; swap it for the rules library's
serialiser once that exists. Vision knows nothing of claims, so ``claimed_by``
and ``completed_first`` are always null; cards read as unknown are left out
(the caller reports them separately).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from companion.rules.cards import Terrain, parse_token
from vision.mat import MatLayout, standard_mat

UNKNOWN = "unknown"


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
