"""Building game states for tests: a hand-set table with every other card in the decks."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace

from companion.rules.cards import TACTICS, TROOPS, Card, Tactic, parse_card
from companion.rules.game import Deck, GameState, Phase
from companion.rules.position import Flag, Player, Position, Variant
from companion.rules.table import Table


def cards(text: str) -> tuple[Card, ...]:
    return tuple(parse_card(t) for t in text.split())


def flag(
    north: str = "",
    south: str = "",
    *,
    fog: bool = False,
    mud: bool = False,
    claimed_by: Player | None = None,
    first: Player | None = None,
) -> Flag:
    """A flag; complete sides are stamped complete at moment 0 (``first``) or 1."""
    f = Flag(north=cards(north), south=cards(south), fog=fog, mud=mud, claimed_by=claimed_by)
    stamps = {p: (0 if p is (first or Player.NORTH) else 1) for p in Player if f.is_complete(p)}
    return replace(
        f, north_completed=stamps.get(Player.NORTH), south_completed=stamps.get(Player.SOUTH)
    )


def state(
    *,
    north_hand: str = "",
    south_hand: str = "",
    flags: Mapping[int, Flag] | None = None,
    discards: str = "",
    player: Player = Player.SOUTH,
    phase: Phase = Phase.PLAY,
    tactics_played: tuple[int, int] = (0, 0),
    leader_played: tuple[bool, bool] = (False, False),
    guile: tuple[str, str] = ("", ""),
    deck_top: Iterable[Card] = (),
    empty_decks: bool = False,
    variant: Variant | None = None,
) -> GameState:
    """A state in ``phase`` for ``player``; flags keyed 1..9; the rest of the cards in the decks."""
    table = [Flag() for _ in range(9)]
    for number, f in (flags or {}).items():
        table[number - 1] = f
    position = Position(
        flags=tuple(table), discards=cards(discards), to_move=player, variant=variant or Variant()
    )
    hands = (cards(north_hand), cards(south_hand))
    guiles = (cards(guile[0]), cards(guile[1]))
    used = set(position.cards_on_table()) | set(hands[0]) | set(hands[1])
    used |= set(guiles[0]) | set(guiles[1])
    top = tuple(deck_top)
    used |= set(top)
    troop_top = tuple(c for c in top if c in TROOPS)
    tactic_top = tuple(c for c in top if isinstance(c, Tactic))
    rest_troops = frozenset() if empty_decks else frozenset(c for c in TROOPS if c not in used)
    rest_tactics = frozenset() if empty_decks else frozenset(c for c in TACTICS if c not in used)
    return GameState(
        table=Table(position, tactics_played, leader_played, guiles),
        player=player,
        phase=phase,
        hands=hands,
        troop_deck=Deck(top=troop_top, rest=rest_troops),
        tactic_deck=Deck(top=tactic_top, rest=rest_tactics),
        draws_left=1 if phase is Phase.DRAW else 0,
        moment=10,
    )
