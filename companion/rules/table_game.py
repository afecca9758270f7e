"""A game as the table shows it: face-up events only, checked by the rules.

``TableGame`` is what a camera (or a person watching) can follow without
seeing hands or draws: cards laid and moved, claims, passes, and with terrain
the battlefield cards laid in the flag row and the discards Marshes and the
Watchtower force. ``apply(player, action)`` returns the game after the event
or raises the ``IllegalAction`` subclass naming the rule broken; the tracker
and the table record (``table_record.py``) both replay through it.

Turns: cards are played alternately (``first`` first; None when the table
decides, i.e. whoever lays the first card starts), a pass counts as a turn,
two passes in a row end the game with every flag resolved. Claims come at any
time in standard timing, only from the player to move in advanced timing.

Terrain (``Variant.terrain``): the nine battlefield cards are laid, one
``place CASTLE@3 up`` event each, before any card is played. In the shuffled
layout anyone lays them, in any order, and the Castle is defended by the
player who plays first, the Fortress by the other (``battlefield.Placed``);
when the table decides who is first, the defenders are set with the first
card played. In the Hundred Years' War the players place alternately, the
player who does not play first starting, and a placed Castle or Fortress is
defended by whoever placed it. Claiming Marshes or a Watchtower owes one
discard (``discard R7@3`` by the loser, ``remove B4@2`` by the claimant)
before anything else happens; Fields only touches hands and decks, unseen.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from companion.rules.actions import Action, Claim, Discard, Pass, Place, Remove
from companion.rules.battlefield import Placed, Setup
from companion.rules.cards import Terrain
from companion.rules.claims import Ruling
from companion.rules.errors import (
    N_,
    BattlefieldNotLaid,
    BattlefieldTaken,
    ClaimNotAllowed,
    ClaimRefused,
    GameOver,
    IllegalAction,
    InvalidSetup,
    MarshesDiscard,
    NoSuchFlag,
    NotYourBattlefield,
    NotYourTurn,
    TerrainNotInPlay,
    WatchtowerTarget,
    WrongPhase,
    term,
)
from companion.rules.game import Ending, Outcome
from companion.rules.position import FLAG_COUNT, PLAYERS, Player, Position, Variant
from companion.rules.table import Table, played_card


@dataclass(frozen=True, slots=True)
class Effect:
    """A claimed Marshes or Watchtower: the discard still owed, and by whom."""

    terrain: Terrain
    flag: int
    claimant: Player

    @property
    def actor(self) -> Player:
        return self.claimant.other if self.terrain is Terrain.MARSHES else self.claimant


@dataclass(frozen=True, slots=True)
class TableGame:
    """The face-up game after some events; immutable."""

    table: Table
    first: Player | None = Player.SOUTH  # None: whoever lays the first card starts
    setup: Setup = Setup.STANDARD
    moment: int = 0
    passes: int = 0
    outcome: Outcome | None = None
    effect: Effect | None = None
    battlefield: tuple[Placed | None, ...] = (None,) * FLAG_COUNT
    played: bool = False  # a card has been played (the layout is over)

    @classmethod
    def new(
        cls, variant: Variant | None = None, first: Player | None = Player.SOUTH,
        setup: Setup = Setup.STANDARD,
    ) -> TableGame:
        variant = variant or Variant()
        if setup is Setup.HUNDRED_YEARS_WAR:
            if not (variant.terrain and variant.tactics):
                raise InvalidSetup(N_("the Hundred Years' War is played with terrain and tactics"))
            if first is None:
                raise InvalidSetup(N_("the Hundred Years' War needs to know who plays first"))
        position = Position(to_move=first or Player.SOUTH, variant=variant)
        return cls(Table(position), first, setup)

    # ----------------------------------------------------------------- queries
    @property
    def position(self) -> Position:
        return self.table.position

    @property
    def variant(self) -> Variant:
        return self.position.variant

    @property
    def to_move(self) -> Player:
        return self.position.to_move or Player.SOUTH

    @property
    def laid(self) -> int:
        return sum(p is not None for p in self.battlefield)

    @property
    def laying(self) -> bool:
        """The battlefield is still being laid (terrain, and not all nine cards yet)."""
        return self.variant.terrain and self.laid < FLAG_COUNT

    def placer(self) -> Player | None:
        """Who places the next battlefield card (Hundred Years' War); None: anyone."""
        if self.setup is not Setup.HUNDRED_YEARS_WAR or self.first is None:
            return None
        return self.first.other if self.laid % 2 == 0 else self.first

    def actor(self) -> Player | None:
        """Who must act next, when the rules say: a pending discard's actor, the placer."""
        if self.effect is not None:
            return self.effect.actor
        if self.laying:
            return self.placer()
        return self.to_move if (self.first is not None or self.played) else None

    def rule(self, flag: int, player: Player) -> Ruling:
        return self.table.rule(flag, player)

    # ----------------------------------------------------------------- checks
    def error(self, player: Player, action: Action) -> IllegalAction | None:
        """Why the rules forbid ``player``'s ``action`` now, or None (a refused claim is
        ``ClaimRefused`` carrying the ruling)."""
        if self.outcome is not None:
            return GameOver()
        if isinstance(action, Place):
            return self._place_error(player, action)
        if self.effect is not None:
            return self._effect_error(player, action)
        if isinstance(action, Discard | Remove):
            return WrongPhase(N_("{action} follows claiming Marshes or a Watchtower"),
                              action=action.notation())
        if self.laying:
            return BattlefieldNotLaid(N_("{laid} of {n} laid"), laid=self.laid, n=FLAG_COUNT)
        turn_known = self.first is not None or self.played
        if isinstance(action, Claim):
            if not 0 <= action.flag < FLAG_COUNT:
                return NoSuchFlag("{flag}", flag=action.flag + 1)
            if self.variant.claim_timing == "advanced" and player is not self.to_move:
                return ClaimNotAllowed(
                    N_("advanced timing: {side} claims only at the start of their own turn"),
                    side=term(player))
            ruling = self.rule(action.flag, player)
            if not ruling.granted:
                return ClaimRefused(term(ruling.reason.value), ruling)
            return None
        if turn_known and player is not self.to_move:
            return NotYourTurn(N_("it is {side}'s turn, not {other}'s"), side=term(self.to_move),
                               other=term(player))
        if isinstance(action, Pass):
            return None
        if played_card(action) is None:
            return WrongPhase(N_("{action} is not seen on the table"), action=action.notation())
        return self.table.play_error(player, action)

    def _place_error(self, player: Player, action: Place) -> IllegalAction | None:
        if not self.variant.terrain:
            return TerrainNotInPlay(N_("{terrain} laid, but terrain is not played"),
                                    terrain=action.terrain.token)
        if not self.laying:
            return BattlefieldTaken(N_("all nine battlefield cards are laid"))
        if not 0 <= action.flag < FLAG_COUNT:
            return NoSuchFlag("{flag}", flag=action.flag + 1)
        if self.battlefield[action.flag] is not None:
            return BattlefieldTaken(N_("flag {flag} already has its battlefield"),
                                    flag=action.flag + 1)
        if any(p is not None and p.terrain is action.terrain for p in self.battlefield):
            return BattlefieldTaken(N_("{terrain} already lies in the line"),
                                    terrain=action.terrain.token)
        placer = self.placer()
        if placer is not None and player is not placer:
            return NotYourBattlefield(N_("it is {side}'s placement"), side=term(placer))
        if self.setup is Setup.STANDARD and not action.up:
            return WrongPhase(N_("the shuffled layout lays every battlefield card text-up"))
        return None

    def _effect_error(self, player: Player, action: Action) -> IllegalAction | None:
        effect = self.effect
        assert effect is not None
        if not isinstance(action, Discard | Remove):
            owed = (N_("{terrain} at flag {flag} was claimed: {side} must discard a troop first")
                    if effect.terrain is Terrain.MARSHES else
                    N_("{terrain} at flag {flag} was claimed: {side} must remove a troop first"))
            return WrongPhase(owed, terrain=effect.terrain.token, flag=effect.flag + 1,
                              side=term(effect.actor))
        if player is not effect.actor:
            return NotYourTurn(N_("{side} chooses the card for {terrain}"),
                               side=term(effect.actor), terrain=effect.terrain.token)
        if isinstance(action, Discard):
            if effect.terrain is not Terrain.MARSHES:
                return WrongPhase(N_("the {terrain} effect is pending"),
                                  terrain=effect.terrain.token)
            if action not in self.table.marshes_targets(effect.actor):
                return MarshesDiscard(N_("{card} at flag {flag}"), card=action.card.token,
                                      flag=action.flag + 1)
            return None
        if effect.terrain is not Terrain.WATCHTOWER:
            return WrongPhase(N_("the {terrain} effect is pending"), terrain=effect.terrain.token)
        if action not in self.table.watchtower_targets(effect.flag, effect.claimant):
            return WatchtowerTarget(N_("{card} at flag {flag}"), card=action.card.token,
                                    flag=action.flag + 1)
        return None

    # ----------------------------------------------------------------- events
    def apply(self, player: Player, action: Action) -> TableGame:
        """The game after ``player``'s ``action``; raises the rule it breaks."""
        error = self.error(player, action)
        if error is not None:
            raise error
        moment = self.moment + 1
        game = replace(self, moment=moment)
        if isinstance(action, Place):
            return game._placed(player, action)
        if isinstance(action, Claim):
            return game._claimed(player, action.flag)
        if isinstance(action, Discard | Remove):
            assert self.effect is not None
            owner = self.effect.actor if isinstance(action, Discard) else self.effect.claimant.other
            table = self.table.with_discard(owner, action.flag, action.card, moment)
            return replace(game, table=table, effect=None)
        if isinstance(action, Pass):
            passes = self.passes + 1
            game = replace(game, table=_with_to_move(self.table, player.other), passes=passes)
            return game._resolved() if passes >= 2 else game
        if not self.played:
            game = game._first_known(player)
        table = game.table.with_play(player, action, moment)
        return replace(game, table=_with_to_move(table, player.other), passes=0, played=True)

    def _placed(self, player: Player, action: Place) -> TableGame:
        hyw = self.setup is Setup.HUNDRED_YEARS_WAR
        placed = Placed(action.terrain, action.up, player if hyw else None)
        line = list(self.battlefield)
        line[action.flag] = placed
        game = replace(self, battlefield=tuple(line))
        defender = placed.defender(self.first) if self.first is not None else None
        return game._with_terrain(action.flag, action.terrain if action.up else None, defender)

    def _with_terrain(self, index: int, terrain: Terrain | None, defender: Player | None) -> TableGame:
        flags = list(self.position.flags)
        flags[index] = replace(flags[index], terrain=terrain, defender=defender)
        position = replace(self.position, flags=tuple(flags))
        return replace(self, table=replace(self.table, position=position))

    def _first_known(self, player: Player) -> TableGame:
        """The first card is played: who plays first is known, and so the defenders."""
        if self.first is not None:
            return self
        game = replace(self, first=player)
        for index, placed in enumerate(self.battlefield):
            if placed is not None and placed.up:
                game = game._with_terrain(index, placed.terrain, placed.defender(player))
        return game

    def _claimed(self, player: Player, index: int) -> TableGame:
        game = replace(self, table=self.table.with_claim(index, player))
        outcome = claim_outcome(game.position)
        if outcome is not None:
            return replace(game, outcome=outcome)
        terrain = game.position.flags[index].terrain
        if terrain is Terrain.MARSHES and game.table.marshes_targets(player.other):
            return replace(game, effect=Effect(terrain, index, player))
        if terrain is Terrain.WATCHTOWER and game.table.watchtower_targets(index, player):
            return replace(game, effect=Effect(terrain, index, player))
        return game

    def _resolved(self) -> TableGame:
        """Both players passed: every flag resolved by the usual proof, then counted."""
        table = self.table
        for index in range(FLAG_COUNT):
            for player in PLAYERS:
                if table.rule(index, player).granted:
                    table = table.with_claim(index, player)
                    break
        position = table.position
        outcome = claim_outcome(position)
        if outcome is None:
            north, south = (position.flag_count(p) for p in PLAYERS)
            if north == south:
                outcome = Outcome(None, Ending.DRAW, (north, south))
            else:
                winner = Player.NORTH if north > south else Player.SOUTH
                outcome = Outcome(winner, Ending.FLAGS, (north, south))
        return replace(self, table=table, outcome=outcome)


def _with_to_move(table: Table, player: Player) -> Table:
    return replace(table, position=replace(table.position, to_move=player))


def claim_outcome(position: Position) -> Outcome | None:
    """The game's end when the claimed flags decide it (breakthrough or envelopment)."""
    winner = position.winner()
    if winner is None:
        return None
    counts = (position.flag_count(Player.NORTH), position.flag_count(Player.SOUTH))
    held = position.flag_count(winner)
    return Outcome(winner, Ending.ENVELOPMENT if held >= 5 else Ending.BREAKTHROUGH, counts)
