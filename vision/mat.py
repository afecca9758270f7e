"""The play mat's geometry, in millimetres (origin top-left, x right, y down).

``north`` sits at the top edge, ``south`` at the bottom; flags are numbered
1..9 from left to right as south sees them. Every card area is a ``Zone``; a
zone's ``up`` says where the tops of the cards in it point (toward the flag
line), so a reader can rotate every zone into the same "tops up" frame.

Cards at a flag are fanned toward their player: the first card lies nearest
the flag line, each later card covers the previous one except its top band.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from functools import cache
from typing import Final, Literal

from companion.rules.cards import Tactic, Terrain, Troop, parse_token
from companion.rules.errors import NotationError

Side = Literal["north", "south"]
ZoneKind = Literal["formation", "environment", "flag", "guile", "discard"]

CARD_W: Final = 63.0  # a standard 2.5" x 3.5" card, the GMT deck's size
CARD_H: Final = 88.0
FAN_STEP: Final = 22.0  # printed fan guide: where each later card's top goes
MAX_FAN: Final = 4  # cards per side under Mud

OUTER: Final = 8.0
GAP: Final = 4.0
PITCH: Final = 76.0  # one flag column
ZONE_W: Final = PITCH - GAP
END_W: Final = 84.0  # the guile/discard/marker columns at both ends
FORM_H: Final = CARD_H + (MAX_FAN - 1) * FAN_STEP + 2.0
ENV_H: Final = CARD_H + 8.0
FLAG_H: Final = CARD_H + 8.0

MARKER_DICT: Final = "DICT_4X4_50"
MARKER_MM: Final = 30.0  # the black square
MARKER_PAD: Final = 5.0  # white quiet zone around it


@dataclass(frozen=True, slots=True)
class Rect:
    x: float
    y: float
    w: float
    h: float

    @property
    def cx(self) -> float:
        return self.x + self.w / 2

    @property
    def cy(self) -> float:
        return self.y + self.h / 2

    def contains(self, x: float, y: float) -> bool:
        return self.x <= x <= self.x + self.w and self.y <= y <= self.y + self.h


@dataclass(frozen=True, slots=True)
class Zone:
    name: str
    kind: ZoneKind
    rect: Rect
    up: Literal["up", "down"]  # where card tops point in mat coordinates
    side: Side | None = None
    flag: int | None = None  # 1..9 for flag zones


@cache
def holds(kind: ZoneKind, token: str) -> bool:
    """Whether a zone of ``kind`` may hold the card ``token`` by the rules: a formation
    troops and morale tactics, an environment slot Fog or Mud, a flag's slot its
    terrain battlefield, a guile area guile tactics, a discard pile anything. A deck's
    own extra card, no token of the rules, may lie anywhere."""
    try:
        card = parse_token(token)
    except NotationError:
        return True
    if kind == "formation":
        return isinstance(card, Troop) or (isinstance(card, Tactic) and card.is_morale)
    if kind == "environment":
        return isinstance(card, Tactic) and card.is_environment
    if kind == "flag":
        return isinstance(card, Terrain)
    if kind == "guile":
        return isinstance(card, Tactic) and card.is_guile
    return True


@dataclass(frozen=True, slots=True)
class Marker:
    id: int
    cx: float
    cy: float
    size: float = MARKER_MM

    def corners(self) -> list[tuple[float, float]]:
        """Corner order of OpenCV's detector: top-left, top-right, bottom-right, bottom-left."""
        h = self.size / 2
        return [
            (self.cx - h, self.cy - h),
            (self.cx + h, self.cy - h),
            (self.cx + h, self.cy + h),
            (self.cx - h, self.cy + h),
        ]


@dataclass(frozen=True, slots=True)
class MatLayout:
    width: float
    height: float
    zones: tuple[Zone, ...]
    markers: tuple[Marker, ...]
    card_w: float = CARD_W
    card_h: float = CARD_H
    fan_step: float = FAN_STEP

    def zone(self, name: str) -> Zone:
        for z in self.zones:
            if z.name == name:
                return z
        raise KeyError(f"no zone named {name!r}")

    def marker(self, marker_id: int) -> Marker:
        for m in self.markers:
            if m.id == marker_id:
                return m
        raise KeyError(f"no marker with id {marker_id}")

    def to_json(self) -> dict[str, object]:
        return {
            "format": "battleline-mat/1",
            "units": "mm",
            "width": self.width,
            "height": self.height,
            "card": {"width": self.card_w, "height": self.card_h, "fan_step": self.fan_step},
            "marker_dictionary": MARKER_DICT,
            "markers": [
                {"id": m.id, "center": [m.cx, m.cy], "size": m.size, "corners": m.corners()}
                for m in self.markers
            ],
            "zones": [
                {
                    "name": z.name,
                    "kind": z.kind,
                    "side": z.side,
                    "flag": z.flag,
                    "card_tops_point": z.up,
                    **{k: v for k, v in asdict(z.rect).items()},
                }
                for z in self.zones
            ],
        }


def zone_name(flag: int, side: Side, kind: Literal["formation", "environment"]) -> str:
    return f"flag{flag}.{side}" if kind == "formation" else f"flag{flag}.{side}.env"


@cache
def standard_mat() -> MatLayout:
    """The mat we print: 868 x 632 mm."""
    width = 2 * OUTER + 2 * END_W + 9 * PITCH
    y_north_form = OUTER
    y_north_env = y_north_form + FORM_H + GAP
    y_flag = y_north_env + ENV_H + GAP
    y_south_env = y_flag + FLAG_H + GAP
    y_south_form = y_south_env + ENV_H + GAP
    height = y_south_form + FORM_H + OUTER
    zones: list[Zone] = []
    for i in range(9):
        flag = i + 1
        x = OUTER + END_W + i * PITCH + GAP / 2
        zones += [
            Zone(zone_name(flag, "north", "formation"), "formation",
                 Rect(x, y_north_form, ZONE_W, FORM_H), "down", "north", flag),
            Zone(zone_name(flag, "north", "environment"), "environment",
                 Rect(x, y_north_env, ZONE_W, ENV_H), "down", "north", flag),
            Zone(f"flag{flag}", "flag", Rect(x, y_flag, ZONE_W, FLAG_H), "up", None, flag),
            Zone(zone_name(flag, "south", "environment"), "environment",
                 Rect(x, y_south_env, ZONE_W, ENV_H), "up", "south", flag),
            Zone(zone_name(flag, "south", "formation"), "formation",
                 Rect(x, y_south_form, ZONE_W, FORM_H), "up", "south", flag),
        ]
    # Each player's guile and discard areas lie at their own right hand.
    block = MARKER_MM + 2 * MARKER_PAD
    col_w = END_W - 2 * GAP
    left_x, right_x = OUTER + GAP, width - OUTER - END_W + GAP
    guile_h, discard_h = ENV_H, CARD_H + 2 * FAN_STEP + 6.0
    ny = OUTER + block + GAP
    zones += [
        Zone("north.guile", "guile", Rect(left_x, ny, col_w, guile_h), "down", "north"),
        Zone("north.discard", "discard",
             Rect(left_x, ny + guile_h + GAP, col_w, discard_h), "down", "north"),
    ]
    sy = height - OUTER - block - GAP
    zones += [
        Zone("south.guile", "guile", Rect(right_x, sy - guile_h, col_w, guile_h), "up", "south"),
        Zone("south.discard", "discard",
             Rect(right_x, sy - guile_h - GAP - discard_h, col_w, discard_h), "up", "south"),
    ]
    # Six markers spread over the whole mat: any five still give a good homography.
    lx, rx = OUTER + END_W / 2, width - OUTER - END_W / 2
    top, mid, bottom = OUTER + block / 2, y_flag + FLAG_H / 2, height - OUTER - block / 2
    markers = (
        Marker(0, lx, top), Marker(1, rx, top),
        Marker(2, lx, mid), Marker(3, rx, mid),
        Marker(4, lx, bottom), Marker(5, rx, bottom),
    )
    return MatLayout(width, height, tuple(zones), markers)


def layout_json(layout: MatLayout | None = None) -> str:
    return json.dumps((layout or standard_mat()).to_json(), indent=2)
