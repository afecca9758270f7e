"""Formations, their strength, and the strongest completion of a partial formation.

One search serves both questions the rules ask: "how strong is this complete
formation?" (nothing to add) and "what is the strongest formation the
opponent could still complete from the unseen troops?" (the claim proof).
It walks the formation ranks from the top, and within a rank from the highest
sum down, so the first completion it finds is the strongest one: no
enumeration of troop combinations, which is what keeps a claim under a
millisecond.

Wild morale cards take any identity their card allows, chosen as best for
their owner, independently of every other card (RULES.md: a wild may copy a
troop visible elsewhere; we apply the same to its own formation).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import permutations
from typing import Final, NamedTuple

from companion.rules.cards import COLOURS, TROOPS, Card, Tactic, Troop


class Formation(enum.IntEnum):
    """Formation ranks, strongest highest. ``SUM`` is the only rank under Fog."""

    SUM = 0
    HOST = 1
    SKIRMISH = 2
    BATTALION = 3
    PHALANX = 4
    WEDGE = 5

    @property
    def token(self) -> str:
        """The lower-case name NOTATION.md uses in rulings."""
        return self.name.lower()


GMT_FORMATION_NAMES: Final[dict[Formation, str]] = {
    Formation.WEDGE: "Wedge",
    Formation.PHALANX: "Phalanx",
    Formation.BATTALION: "Battalion Order",
    Formation.SKIRMISH: "Skirmish Line",
    Formation.HOST: "Host",
    Formation.SUM: "Sum (Fog)",
}
MEDIEVAL_FORMATION_NAMES: Final[dict[Formation, str]] = {
    Formation.WEDGE: "Wedge",
    Formation.PHALANX: "Square",
    Formation.BATTALION: "Column",
    Formation.SKIRMISH: "Skirmish",
    Formation.HOST: "Fray",
    Formation.SUM: "Sum (Fog)",
}


class Strength(NamedTuple):
    """A formation's rank and sum: tuples compare rank first, then sum."""

    formation: Formation
    total: int


class Completion(NamedTuple):
    """A formation reached by adding ``added`` troops, and how strong it is."""

    strength: Strength
    added: tuple[Troop, ...]


# The values each wild morale card may take; any colour for all of them.
WILD_VALUES: Final[dict[Tactic, tuple[int, ...]]] = {
    Tactic.ALEXANDER: tuple(range(1, 11)),
    Tactic.DARIUS: tuple(range(1, 11)),
    Tactic.COMPANION_CAVALRY: (8,),
    Tactic.SHIELD_BEARERS: (1, 2, 3),
}
WildValues = Mapping[Tactic, tuple[int, ...]]

_VALUE_MASKS: Final[tuple[int, ...]] = tuple(
    sum(1 << (c * 10 + v - 1) for c in range(6)) for v in range(1, 11)
)  # index v-1: the bits of every troop of value v
ALL_TROOPS_MASK: Final[int] = (1 << 60) - 1
_CAP_MASKS: Final[tuple[int, ...]] = tuple(
    sum(_VALUE_MASKS[v - 1] for v in range(1, cap + 1)) for cap in range(11)
)  # index cap: the bits of every troop of value <= cap


def troop_mask(troops: Iterable[Troop]) -> int:
    """A set of troops as a 60-bit integer (bit ``troop.index``)."""
    mask = 0
    for t in troops:
        mask |= 1 << t.index
    return mask


def troops_in(mask: int) -> tuple[Troop, ...]:
    """The troops of a 60-bit mask, colour-major."""
    return tuple(t for t in TROOPS if mask >> t.index & 1)


@dataclass(frozen=True, slots=True)
class _Side:
    """A formation's cards split for the search: troops and wild value sets."""

    troops: tuple[Troop, ...]
    wilds: tuple[tuple[int, ...], ...]
    wild_best: int


def _split(cards: Iterable[Card], wild_values: WildValues, cap: int) -> _Side | None:
    """The side for the search, or None if a card cannot stay within ``cap``."""
    troops: list[Troop] = []
    wilds: list[tuple[int, ...]] = []
    best = 0
    for card in cards:
        if isinstance(card, Troop):
            if card.value > cap:
                return None
            troops.append(card)
        elif card in wild_values:
            allowed = tuple(v for v in wild_values[card] if v <= cap)
            if not allowed:
                return None
            wilds.append(allowed)
            best += max(allowed)
        else:
            raise ValueError(f"{card.token} is not a formation card")
    return _Side(tuple(troops), tuple(wilds), best)


def _wilds_cover(
    free: Sequence[int], missing: Sequence[int], wilds: Sequence[tuple[int, ...]]
) -> tuple[int, ...] | None:
    """Place each wild on a distinct free value it may take, covering every missing value.

    Returns the free values left for troops, or None. Formations hold at most
    four cards, so trying every placement is cheap and exact.
    """
    if not wilds:
        return None if missing else tuple(free)
    for placed in permutations(free, len(wilds)):
        if all(v in allowed for v, allowed in zip(placed, wilds, strict=True)) and all(
            m in placed for m in missing
        ):
            rest = list(free)
            for v in placed:
                rest.remove(v)
            return tuple(rest)
    return None


def _unseen_of_value(value: int, unseen: int) -> Troop | None:
    bits = unseen & _VALUE_MASKS[value - 1]
    if not bits:
        return None
    return TROOPS[(bits & -bits).bit_length() - 1]


def _run_starts(values: Sequence[int], size: int) -> range:
    """Starts of the runs of ``size`` within 1..10 holding every value, highest first."""
    top, bottom = 11 - size, 1
    if values:
        top, bottom = min(top, min(values)), max(bottom, max(values) - size + 1)
    return range(top, bottom - 1, -1)


def _run_sum(size: int, start: int) -> int:
    return size * start + size * (size - 1) // 2


def _wedge(side: _Side, size: int, need: int, unseen: int) -> Completion | None:
    colours = {t.colour for t in side.troops}
    if len(colours) > 1:
        return None
    values = [t.value for t in side.troops]
    candidates = [c for c in COLOURS if c in colours] if colours else list(COLOURS)
    for start in _run_starts(values, size):
        run = range(start, start + size)
        free = [v for v in run if v not in values]
        for colour in candidates:
            base = colour.index * 10 - 1
            missing = [v for v in free if not unseen >> (base + v) & 1]
            rest = _wilds_cover(free, missing, side.wilds)
            if rest is not None and len(rest) == need:
                added = tuple(TROOPS[base + v] for v in rest)
                return Completion(Strength(Formation.WEDGE, _run_sum(size, start)), added)
    return None


def _phalanx(side: _Side, size: int, need: int, unseen: int) -> Completion | None:
    values = {t.value for t in side.troops}
    if len(values) > 1:
        return None
    for value in sorted(values) if values else range(10, 0, -1):
        if not all(value in allowed for allowed in side.wilds):
            continue
        bits = unseen & _VALUE_MASKS[value - 1]
        if bits.bit_count() >= need:
            added = troops_in(bits)[:need]
            return Completion(Strength(Formation.PHALANX, size * value), added)
    return None


def _battalion(side: _Side, size: int, need: int, unseen: int) -> Completion | None:
    colours = {t.colour for t in side.troops}
    if len(colours) > 1:
        return None
    fixed = sum(t.value for t in side.troops) + side.wild_best
    best: Completion | None = None
    for colour in [c for c in COLOURS if c in colours] if colours else COLOURS:
        base = colour.index * 10
        added: list[Troop] = []
        for value in range(10, 0, -1):
            if len(added) == need:
                break
            if unseen >> (base + value - 1) & 1:
                added.append(TROOPS[base + value - 1])
        if len(added) < need:
            continue
        total = fixed + sum(t.value for t in added)
        if best is None or total > best.strength.total:
            best = Completion(Strength(Formation.BATTALION, total), tuple(added))
    return best


def _skirmish(side: _Side, size: int, need: int, unseen: int) -> Completion | None:
    values = [t.value for t in side.troops]
    if len(set(values)) < len(values):
        return None
    for start in _run_starts(values, size):
        free = [v for v in range(start, start + size) if v not in values]
        picks = {v: _unseen_of_value(v, unseen) for v in free}
        missing = [v for v, t in picks.items() if t is None]
        rest = _wilds_cover(free, missing, side.wilds)
        if rest is not None and len(rest) == need:
            added = tuple(t for v in rest if (t := picks[v]) is not None)
            return Completion(Strength(Formation.SKIRMISH, _run_sum(size, start)), added)
    return None


def _highest(side: _Side, need: int, unseen: int, formation: Formation) -> Completion | None:
    """The highest sum: the host (any cards), and the only measure under Fog."""
    added: list[Troop] = []
    for value in range(10, 0, -1):
        bits = unseen & _VALUE_MASKS[value - 1]
        while bits and len(added) < need:
            low = bits & -bits
            added.append(TROOPS[low.bit_length() - 1])
            bits ^= low
        if len(added) == need:
            break
    if len(added) < need:
        return None
    total = sum(t.value for t in side.troops) + side.wild_best + sum(t.value for t in added)
    return Completion(Strength(formation, total), tuple(added))


def best_completion(
    cards: Iterable[Card],
    size: int,
    unseen: int = 0,
    *,
    fog: bool = False,
    better_than: Strength | None = None,
    cap: int = 10,
    wild_values: WildValues = WILD_VALUES,
) -> Completion | None:
    """The strongest formation of ``size`` cards from ``cards`` plus unseen troops.

    ``unseen`` is a troop mask (see ``troop_mask``) of the troops that may be
    added. With ``better_than``, only a completion strictly stronger than it is
    returned (the search stops as soon as none can be), else None. None also
    when the formation cannot be completed at all. ``cap`` keeps every card at
    or below a value, and ``wild_values`` gives the wilds other ranges: the
    terrain rules (a defender's highest card ignored, inverted values) need both.
    """
    cards = tuple(cards)
    side = _split(cards, wild_values, cap)
    need = size - len(cards)
    if need < 0:
        raise ValueError(f"{len(cards)} cards do not fit a formation of {size}")
    if side is None:
        return None
    unseen &= ~troop_mask(side.troops) & _CAP_MASKS[cap]
    if fog:
        found = _highest(side, need, unseen, Formation.SUM)
        return found if found and (better_than is None or found.strength > better_than) else None
    floor = better_than.formation if better_than is not None else Formation.HOST
    for formation, search in _SEARCHES:
        if formation < floor:
            break
        found = search(side, size, need, unseen)
        if found is not None:
            return found if better_than is None or found.strength > better_than else None
    return None


_SEARCHES: Final = (
    (Formation.WEDGE, _wedge),
    (Formation.PHALANX, _phalanx),
    (Formation.BATTALION, _battalion),
    (Formation.SKIRMISH, _skirmish),
    (Formation.HOST, lambda side, size, need, unseen: _highest(side, need, unseen, Formation.HOST)),
)


def evaluate(cards: Iterable[Card], *, fog: bool = False) -> Strength:
    """The strength of a complete formation, wilds at their best for their owner."""
    cards = tuple(cards)
    found = best_completion(cards, len(cards), fog=fog)
    assert found is not None  # a complete formation is always at least a host
    return found.strength
