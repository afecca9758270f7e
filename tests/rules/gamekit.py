"""Building game states for tests: a hand-set table with every other card in the decks."""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from dataclasses import replace

from companion.rules.actions import Action, Claim
from companion.rules.battlefield import Battlefield, Placed
from companion.rules.cards import TACTICS, TROOPS, Card, Tactic, Terrain, parse_card
from companion.rules.game import Deck, GameState
from companion.rules.phase import Phase
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
    terrain: Terrain | None = None,
    defender: Player | None = None,
) -> Flag:
    """A flag; complete sides are stamped complete at moment 0 (``first``) or 1."""
    f = Flag(
        north=cards(north),
        south=cards(south),
        fog=fog,
        mud=mud,
        claimed_by=claimed_by,
        terrain=terrain,
        defender=defender,
    )
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
    """A state in ``phase`` for ``player``; flags keyed 1..9; the rest of the cards in the decks.

    With ``Variant.terrain`` the battlefield is laid: each flag's terrain
    text-up, the other battlefield cards text-down at the plain flags.
    """
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
    battlefield = None
    if position.variant.terrain:
        shown = {f.terrain for f in table if f.terrain is not None}
        hidden = iter(t for t in Terrain if t not in shown)
        line = tuple(
            Placed(f.terrain) if f.terrain is not None else Placed(next(hidden), up=False)
            for f in table
        )
        battlefield = Battlefield(stack=frozenset(), line=line)
    return GameState(
        battlefield=battlefield,
        table=Table(position, tactics_played, leader_played, guiles),
        player=player,
        phase=phase,
        hands=hands,
        troop_deck=Deck(top=troop_top, rest=rest_troops),
        tactic_deck=Deck(top=tactic_top, rest=rest_tactics),
        draws_left=1 if phase is Phase.DRAW else 0,
        moment=10,
    )


class ClaimingBot:
    """Claims whatever it can (so terrain effects come often), else any legal action.

    The playouts use it for terrain games: its choices are always legal.
    """

    name = "claiming"

    def __init__(self, seed: int | None = None) -> None:
        self._random = random.Random(seed)

    def choose(self, state: GameState) -> Action:
        return self.choose_from(state.legal_actions())

    def choose_from(self, actions: list[Action]) -> Action:
        """The choice among ``actions`` (a state's legal actions, already listed)."""
        claims = [a for a in actions if isinstance(a, Claim)]
        if claims and self._random.random() < 0.9:
            return self._random.choice(claims)
        return self._random.choice(actions)
