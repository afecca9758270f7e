"""The terrain variant's steps of a full game, kept apart so ``game.py`` holds the plain turn:
laying out, drafting and placing the battlefield, and claimed Marshes, Watchtower and Fields."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Final

from companion.rules.actions import Action, DeckKind, Discard, Place, Remove, ScoutReturn
from companion.rules.battlefield import Setup
from companion.rules.cards import Card, Terrain, Troop
from companion.rules.errors import (
    N_,
    BattlefieldTaken,
    CardNotInHand,
    FieldsReturn,
    MarshesDiscard,
    NotInDraft,
    NotYourBattlefield,
    WatchtowerTarget,
    WrongPhase,
    term,
)
from companion.rules.phase import HAND_SIZE, Phase
from companion.rules.position import Player, check_flag

if TYPE_CHECKING:
    from companion.rules.game import GameState

# These are GameState's own steps, written as functions of the game: like its
# methods, they use its private helpers (_give, _take, _with_deck, _with_position).

_PENDING: Final = N_("the {terrain} effect is pending")
FIELDS_DRAWS: Final = 3


@dataclass(frozen=True, slots=True)
class Effect:
    """A claimed terrain's effect in progress; ``resume`` is the turn's step to go back to.

    Fields: ``draws`` troop cards still to draw, then ``returns`` cards to put back.
    """

    terrain: Terrain
    flag: int
    claimant: Player
    resume: Phase
    draws: int = 0
    returns: int = 0

    @property
    def actor(self) -> Player:
        """Who decides: the loser discards at the Marshes, else the claimant."""
        return self.claimant.other if self.terrain is Terrain.MARSHES else self.claimant


# ----------------------------------------------------------------- battlefield set-up
def _first(game: GameState) -> Player:
    return game.position.to_move or Player.SOUTH


def lay_battlefield(game: GameState, terrain: Terrain) -> GameState:
    """A battlefield card revealed: laid at the next flag, or dealt for the draft."""
    assert game.battlefield is not None
    first = _first(game)
    if game.setup is Setup.HUNDRED_YEARS_WAR:
        field_ = game.battlefield.with_dealt(terrain, first)
        state = replace(game, battlefield=field_)
        if field_.stack:
            return state
        return replace(state, phase=Phase.DRAFT, player=field_.picker(first))
    field_, index = game.battlefield.with_laid(terrain)
    placed = field_.line[index]
    assert placed is not None
    state = _with_flag_terrain(
        replace(game, battlefield=field_), index, terrain, placed.defender(first)
    )
    if field_.stack:
        return state
    return replace(state, phase=Phase.DEAL, player=first)


def _with_flag_terrain(
    game: GameState, index: int, terrain: Terrain | None, defender: Player | None
) -> GameState:
    flags = list(game.position.flags)
    flags[index] = replace(flags[index], terrain=terrain, defender=defender)
    return game._with_position(replace(game.position, flags=tuple(flags)))


def pick_battlefield(game: GameState, terrain: Terrain) -> GameState:
    """``game.player`` picks ``terrain`` in the Hundred Years' War draft."""
    if game.phase is not Phase.DRAFT:
        raise WrongPhase(N_("battlefield cards are picked in the Hundred Years' War draft"))
    assert game.battlefield is not None
    if terrain not in game.battlefield.choosing_of(game.player):
        raise NotInDraft(N_("{terrain} is not among {side}'s cards to choose from"),
                         terrain=terrain.token, side=term(game.player))
    first = _first(game)
    field_ = game.battlefield.with_pick(game.player, terrain, first)
    if field_.drafting:
        return replace(game, battlefield=field_, player=field_.picker(first))
    return replace(game, battlefield=field_, phase=Phase.PLACE, player=field_.placer(first))


def place_battlefield(game: GameState, action: Place) -> GameState:
    """``game.player`` places a drafted battlefield card in the line."""
    if game.phase is not Phase.PLACE:
        raise WrongPhase(N_("battlefield cards are placed after the Hundred Years' War draft"))
    check_flag(action.flag)
    assert game.battlefield is not None
    if action.terrain not in game.battlefield.to_place(game.player):
        raise NotYourBattlefield(N_("{terrain} is not {side}'s to place now"),
                                 terrain=action.terrain.token, side=term(game.player))
    if game.battlefield.line[action.flag] is not None:
        raise BattlefieldTaken(N_("flag {flag} already has its battlefield"),
                               flag=action.flag + 1)
    field_ = game.battlefield.with_placed(game.player, action.terrain, action.flag, action.up)
    placed = field_.line[action.flag]
    assert placed is not None
    terrain = action.terrain if action.up else None
    state = _with_flag_terrain(
        replace(game, battlefield=field_), action.flag, terrain, placed.defender(_first(game))
    )
    if field_.free_places():
        return replace(state, player=field_.placer(_first(game)))
    return replace(state, phase=Phase.DEAL, player=_first(game))


# ----------------------------------------------------------------- terrain effects
def effect_options(game: GameState) -> list[Action]:
    """What the effect in progress lets its decider do now."""
    effect = game.effect
    assert effect is not None
    if effect.terrain is Terrain.MARSHES:
        return list(game.table.marshes_targets(effect.actor))
    if effect.terrain is Terrain.WATCHTOWER:
        return list(game.table.watchtower_targets(effect.flag, effect.claimant))
    return [ScoutReturn(c) for c in game.hand(effect.claimant) if isinstance(c, Troop)]


def start_effect(game: GameState, index: int) -> GameState:
    """A flag was just claimed: start its terrain's effect, unless there is nothing to do."""
    terrain = game.position.flags[index].terrain
    if terrain not in (Terrain.MARSHES, Terrain.WATCHTOWER, Terrain.FIELDS):
        return game
    effect = Effect(terrain, index, game.player, game.phase)
    if terrain is Terrain.FIELDS:
        drawn = min(FIELDS_DRAWS, len(game.troop_deck))
        if not drawn:
            return game
        # Short deck: put back one card fewer than drawn, as Scout's FAQ rule.
        effect = replace(effect, draws=drawn, returns=drawn - 1)
        return fields_drew(replace(game, phase=Phase.TERRAIN, effect=effect), first=True)
    state = replace(game, phase=Phase.TERRAIN, effect=effect, player=effect.actor)
    return state if effect_options(state) else game


def fields_drew(game: GameState, *, first: bool = False) -> GameState:
    """Count a Fields draw (``first``: none yet); draw known cards, wait for unseen ones."""
    state, effect = game, game.effect
    assert effect is not None
    left = effect.draws - (0 if first else 1)
    while left:
        deck = state.troop_deck
        if not deck.top:
            return replace(state, effect=replace(effect, draws=left), pending=DeckKind.TROOP)
        card, top = deck.top[-1], deck.top[:-1]
        state = state._with_deck(DeckKind.TROOP, replace(deck, top=top))
        state = state._give(effect.claimant, card)
        left -= 1
    state = replace(state, effect=replace(effect, draws=0))
    return state if effect.returns else _end_effect(state)


def fields_return(game: GameState, card: Card) -> GameState:
    """The Fields claimant puts ``card`` back on top of the troop deck."""
    effect = game.effect
    assert effect is not None
    if effect.terrain is not Terrain.FIELDS:
        raise WrongPhase(_PENDING, terrain=effect.terrain.token)
    if card not in game.hand(game.player):
        raise CardNotInHand(N_("{card} is not in {side}'s hand"), card=card.token,
                            side=term(game.player))
    if not isinstance(card, Troop):
        raise FieldsReturn(N_("{card} is not a troop card"), card=card.token)
    state = game._take(game.player, card)
    deck = game.troop_deck
    state = state._with_deck(DeckKind.TROOP, replace(deck, top=(*deck.top, card)))
    effect = replace(effect, returns=effect.returns - 1)
    state = replace(state, effect=effect)
    return state if effect.returns else _end_effect(state)


def effect_target(game: GameState, action: Discard | Remove) -> GameState:
    """The card the Marshes (a discard) or the Watchtower (a removal) takes off the table."""
    effect = game.effect
    if game.phase is not Phase.TERRAIN or effect is None:
        raise WrongPhase(N_("{action} follows claiming Marshes or a Watchtower"),
                         action=action.notation())
    check_flag(action.flag)
    if isinstance(action, Discard):
        if effect.terrain is not Terrain.MARSHES:
            raise WrongPhase(_PENDING, terrain=effect.terrain.token)
        if action not in game.table.marshes_targets(effect.actor):
            raise MarshesDiscard(N_("{card} at flag {flag}"), card=action.card.token,
                                 flag=action.flag + 1)
        owner = effect.actor
    else:
        if effect.terrain is not Terrain.WATCHTOWER:
            raise WrongPhase(_PENDING, terrain=effect.terrain.token)
        if action not in game.table.watchtower_targets(effect.flag, effect.claimant):
            raise WatchtowerTarget(N_("{card} at flag {flag}"), card=action.card.token,
                                   flag=action.flag + 1)
        owner = effect.claimant.other
    table = game.table.with_discard(owner, action.flag, action.card, game.moment)
    return _end_effect(replace(game, table=table))


def _end_effect(game: GameState) -> GameState:
    """The effect is done: back to the claimant's turn where it was."""
    effect = game.effect
    assert effect is not None
    state = replace(game, phase=effect.resume, player=effect.claimant, effect=None)
    full = len(state.hand(effect.claimant)) >= HAND_SIZE
    if effect.resume is Phase.DRAW and state.draws_left == 1 and full:
        state = replace(state, draws_left=0)
    return state
