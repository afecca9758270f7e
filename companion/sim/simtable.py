"""The simulated table: two built-in bots play a seeded game, and the table shows it.

``script_game`` plays the whole game with the rules engine first (the bots
see only what a player sees) and keeps every step a person at the table could
notice: a card laid or moved (with the zones of the mat after it, worked out
from the engine's own state), a claim (a button press) and a pass (a held
button). The table then shows those steps one at a time, either as
ground-truth snapshots (``TruthSnapshots``, optionally with unsure readings
mixed in) or as rendered camera frames for the real vision path
(``TableFrames``).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field

from companion.rules.actions import (
    Action,
    Betray,
    Claim,
    Desert,
    Discard,
    Pass,
    Place,
    Play,
    Redeploy,
    Remove,
    Scout,
)
from companion.rules.battlefield import Setup
from companion.rules.cards import Card, Tactic, Terrain
from companion.rules.game import Dealer, GameState, Outcome
from companion.rules.position import PLAYERS, Player, Position, Variant
from companion.sim.bots import BOTS, Bot
from companion.snapshot import UNKNOWN, Reading, Snapshot, SourceError

Zones = dict[str, tuple[str, ...]]


@dataclass(frozen=True)
class Step:
    """One thing a person at the table could notice, and the true table after it."""

    player: Player
    # Play, Scout, Redeploy, Desert, Betray, Claim or Pass; with terrain also Place (a
    # battlefield card laid text-up in the flag row) and the Discard/Remove Marshes and
    # the Watchtower force
    action: Action
    zones: Zones  # every mat zone after the step
    position: Position  # the engine's position after the step

    @property
    def on_table(self) -> bool:
        return not isinstance(self.action, Claim | Pass)

    def describe(self) -> str:
        return f"{self.player} {self.action.notation()}"


@dataclass
class Script:
    seed: int
    first: Player
    steps: list[Step]
    final: GameState

    @property
    def outcome(self) -> Outcome:
        assert self.final.outcome is not None
        return self.final.outcome


def _zones(state: GameState, env_side: Mapping[tuple[int, Tactic], Player],
           piles: Mapping[Card, Player]) -> Zones:
    """The mat zones of the engine's table: formations in play order, Fog/Mud on the
    side of who laid them, discards on the pile of who discarded them, guile areas."""
    out: dict[str, tuple[str, ...]] = {}
    for i, flag in enumerate(state.position.flags):
        if flag.terrain is not None:
            out[f"flag{i + 1}"] = (flag.terrain.token,)
        for player in PLAYERS:
            cards = flag.cards(player)
            if cards:
                out[f"flag{i + 1}.{player}"] = tuple(c.token for c in cards)
        for env in flag.environment:
            zone = f"flag{i + 1}.{env_side[(i, env)]}.env"
            out[zone] = (*out.get(zone, ()), env.token)
    for card in state.position.discards:
        zone = f"{piles[card]}.discard"
        out[zone] = (*out.get(zone, ()), card.token)
    for player, guile in zip(PLAYERS, state.table.guile, strict=True):
        if guile:
            out[f"{player}.guile"] = tuple(c.token for c in guile)
    return out


def bots_for(seed: int, north: str = "greedy", south: str = "greedy") -> tuple[Bot, Bot]:
    """The same seeding as the terminal bot game, so a seed means the same game."""
    return BOTS[north](seed * 2), BOTS[south](seed * 2 + 1)


def script_game(
    seed: int,
    first: Player = Player.SOUTH,
    variant: Variant | None = None,
    north: str = "greedy",
    south: str = "greedy",
    setup: Setup = Setup.STANDARD,
) -> Script:
    """Play a whole seeded game between two bots and keep the visible steps."""
    bots = dict(zip(PLAYERS, bots_for(seed, north, south), strict=True))
    dealer = Dealer(seed)
    state = GameState.new(first, variant, setup)
    env_side: dict[tuple[int, Tactic], Player] = {}
    piles: dict[Card, Player] = {}
    steps: list[Step] = []
    seen = (Play, Scout, Redeploy, Desert, Betray, Claim, Pass, Place, Discard, Remove)
    while not state.is_over:
        if state.chance_outcomes():
            chance = dealer.reveal(state)
            before = state.position.flags
            state = state.apply(chance)
            if isinstance(chance.card, Terrain) and state.setup is Setup.STANDARD:
                # The shuffled layout: a battlefield card laid at the next flag (the
                # tracker records the first player laying it).
                index = next(i for i, f in enumerate(state.position.flags)
                             if f.terrain is not before[i].terrain)
                place = Place(chance.card, index, True)
                steps.append(Step(first, place, _zones(state, env_side, piles), state.position))
            continue
        player = state.player
        action = bots[player].choose(state)
        state = state.apply(action)
        if isinstance(action, Play) and isinstance(action.card, Tactic) and action.card.is_environment:
            env_side[(action.flag, action.card)] = player
        if isinstance(action, Desert) or (isinstance(action, Redeploy) and action.to is None):
            piles[action.card] = player  # the discarding player's own pile
        if isinstance(action, Discard):
            piles[action.card] = player  # Marshes: the loser's own troop
        if isinstance(action, Remove):
            piles[action.card] = player.other  # Watchtower: to the troop's owner's pile
        if isinstance(action, Place) and not action.up:
            # Text-down the card is a plain flag: the camera sees no battlefield card
            # there, so the Hundred Years' War is not scripted for the table.
            raise ValueError("text-down battlefield cards cannot be shown on the table")
        if isinstance(action, seen):
            steps.append(Step(player, action, _zones(state, env_side, piles), state.position))
    return Script(seed, first, steps, state)


@dataclass
class TruthSnapshots:
    """Snapshots straight from the simulated table's truth (no camera, no vision).

    ``unsure`` is the chance that a card just laid is first read unsure (low
    confidence, or unknown): the companion must then ask rather than guess, and
    the table is "straightened" by showing it again. ``fail_polls`` makes the
    next polls fail, as an unplugged camera would.
    """

    unsure: float = 0.0
    seed: int = 0
    name: str = "simulated table (ground truth)"
    polls_per_change: int = 1
    zones: Zones = field(default_factory=dict)
    fail_polls: int = 0
    _pending: bool = False
    _previous: Zones = field(default_factory=dict)
    _blur: bool = False
    _random: random.Random = field(init=False)

    def __post_init__(self) -> None:
        self._random = random.Random(self.seed)

    def show(self, zones: Zones, hand: bool = True) -> None:
        self._previous, self.zones = self.zones, dict(zones)
        self._pending = True
        self._blur = hand and self._random.random() < self.unsure

    def fail(self, polls: int) -> None:
        self.fail_polls = polls

    def prefetch(self, zones: Zones) -> None:
        """Nothing to prepare: the truth is at hand."""

    def nudge(self) -> None:
        """The player straightens the cards: the table reads cleanly again."""
        self._pending = True
        self._blur = False

    def poll(self) -> Snapshot | None:
        if self.fail_polls > 0:
            self.fail_polls -= 1
            raise SourceError("simulated camera unplugged")
        if not self._pending:
            return None
        self._pending = False
        zones: dict[str, tuple[Reading, ...]] = {}
        for zone, tokens in self.zones.items():
            before = self._previous.get(zone, ())
            readings = []
            for k, token in enumerate(tokens):
                new = k >= len(before) or before[k] != token
                if new and self._blur:
                    unknown = self._random.random() < 0.5
                    readings.append(Reading(UNKNOWN if unknown else token, 0.3))
                else:
                    readings.append(Reading(token, 1.0))
            zones[zone] = tuple(readings)
        return Snapshot(zones)

    def close(self) -> None:
        pass


def seeded_script(seed: int, variant: Variant | None = None) -> Script:
    """The test games' seeding: every third game north starts, every other one the
    north bot plays at random (so weak and odd plays show up too)."""
    north = "greedy" if seed % 2 else "random"
    return script_game(seed, Player.SOUTH if seed % 3 else Player.NORTH, variant, north=north)
