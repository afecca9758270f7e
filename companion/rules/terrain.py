"""What the ground at a flag does to formations: Fog and Mud, and the terrain battlefields.

Every strength the claim proof needs goes through ``side_best``: plain flags
take the direct search; Hills mirror values (v becomes 11 - v) around it; a
Castle or Fortress makes its defender hold one card more and ignores their
highest. River (4 cards) and Woodland (sums only) are plain size and Fog
settings of ``Flag``; the Town only changes how flags count (``Position``).

Decisions: on Hills, "highest" means strongest, i.e. the highest value after
mirroring. When the defender's highest value is shared, or a wild could be
it, the card ignored is the one best for the defender (as wilds are).
"""

from __future__ import annotations

from typing import Final

from companion.rules.cards import TROOPS, Card, Tactic, Terrain, Troop
from companion.rules.formations import (
    WILD_VALUES,
    Completion,
    Strength,
    WildValues,
    best_completion,
    troop_mask,
)
from companion.rules.position import Flag, Player

_MIRRORED_WILDS: Final[WildValues] = {
    w: tuple(sorted(11 - v for v in values)) for w, values in WILD_VALUES.items()
}
_MIRROR: Final[tuple[Troop, ...]] = tuple(
    TROOPS[t.colour.index * 10 + (11 - t.value) - 1] for t in TROOPS
)  # index: troop index -> its mirrored troop


def mirror_troop(troop: Troop) -> Troop:
    return _MIRROR[troop.index]


def mirror_mask(mask: int) -> int:
    out = 0
    while mask:
        low = mask & -mask
        out |= 1 << _MIRROR[low.bit_length() - 1].index
        mask ^= low
    return out


def _mirror_cards(cards: tuple[Card, ...]) -> tuple[Card, ...]:
    return tuple(mirror_troop(c) if isinstance(c, Troop) else c for c in cards)


def side_best(
    flag: Flag,
    player: Player,
    unseen: int = 0,
    *,
    better_than: Strength | None = None,
) -> Completion | None:
    """The strongest formation ``player``'s side of ``flag`` can reach (see ``best_completion``).

    With nothing to add (a complete side) this is the side's strength.
    """
    cards = flag.cards(player)
    wilds: WildValues = WILD_VALUES
    hills = flag.terrain is Terrain.HILLS
    if hills:
        cards, unseen, wilds = _mirror_cards(cards), mirror_mask(unseen), _MIRRORED_WILDS
    if flag.defender is player and flag.terrain in (Terrain.CASTLE, Terrain.FORTRESS):
        found = _defended(cards, flag.size, unseen, flag.sum_only, better_than, wilds)
    else:
        found = best_completion(
            cards, flag.size, unseen, fog=flag.sum_only, better_than=better_than, wild_values=wilds
        )
    if found is not None and hills:
        found = Completion(found.strength, tuple(mirror_troop(t) for t in found.added))
    return found


def side_strength(flag: Flag, player: Player) -> Strength | None:
    """The strength of ``player``'s formation at ``flag`` if it is complete."""
    if not flag.is_complete(player):
        return None
    found = side_best(flag, player)
    assert found is not None  # a complete side is at least a host
    return found.strength


def _defended(
    cards: tuple[Card, ...],
    size: int,
    unseen: int,
    fog: bool,
    better_than: Strength | None,
    wilds: WildValues,
) -> Completion | None:
    """The defender's best: ``size + 1`` cards, the highest ignored.

    Whichever card is ignored has a value ``d`` at least that of every kept
    card, so each case is one capped search: an own troop ignored (``d`` its
    value), an own wild ignored at a value it may take, or an added troop of
    value ``d`` ignored.
    """
    best: Completion | None = None

    def consider(found: Completion | None, ignored: tuple[Troop, ...] = ()) -> None:
        nonlocal best
        if found is not None and (best is None or found.strength > best.strength):
            best = Completion(found.strength, found.added + ignored)

    def search(kept: tuple[Card, ...], cap: int, pool: int) -> Completion | None:
        return best_completion(
            kept, size, pool, fog=fog, better_than=better_than, cap=cap, wild_values=wilds
        )

    for i, card in enumerate(cards):
        kept = cards[:i] + cards[i + 1 :]
        if isinstance(card, Troop):
            consider(search(kept, card.value, unseen))
        elif isinstance(card, Tactic):
            for value in wilds[card]:
                consider(search(kept, value, unseen))
    if len(cards) < size + 1:
        pool = unseen & ~troop_mask(c for c in cards if isinstance(c, Troop))
        for troop in TROOPS:
            if pool >> troop.index & 1:
                consider(search(cards, troop.value, pool & ~(1 << troop.index)), (troop,))
    return best
