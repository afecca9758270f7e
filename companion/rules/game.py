"""The game: an immutable state, its legal actions, and the state each action leads to.

``GameState.apply(action)`` returns a new state or raises an ``IllegalAction``
subclass naming the rule broken. Deck draws are explicit chance events: a
state whose ``chance_outcomes()`` is not empty waits for ``Chance(card)``
(a seeded ``Dealer`` picks one for simulations; at the table the camera
reveals nothing of hands, so the tracker works from the position).

A turn: claims (standard timing: any time before drawing; advanced: only
before playing), one card played (or a pass when none can be), then one draw
back up to 7 (Scout: three draws, then cards put back).

Medieval terrain (``Variant.terrain``; its steps are in ``terrain_steps.py``):
the battlefield is laid out first (``battlefield.py``: shuffled, or the
Hundred Years' War draft and placement), then troops are dealt. Claiming Marshes, Watchtower or Fields starts a
terrain effect (phase TERRAIN): ``player`` is then whoever decides (the loser
for Marshes) and the turn resumes where it was once it is done. An effect
with nothing to choose is skipped.
"""

from __future__ import annotations

import enum
import random
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Final

from companion.rules.actions import (
    Action,
    Chance,
    Claim,
    DeckKind,
    Discard,
    Draw,
    EndTurn,
    Pass,
    Pick,
    Place,
    Remove,
    Scout,
    ScoutReturn,
)
from companion.rules.battlefield import KINGS, TERRAIN_ORDER, Battlefield, Setup
from companion.rules.cards import (
    ALL_CARDS,
    TACTICS,
    TROOPS,
    Card,
    Terrain,
    Troop,
    card_sort_key,
)
from companion.rules.claims import Ruling, rule_claim
from companion.rules.errors import (
    N_,
    CardNotInHand,
    ClaimNotAllowed,
    EmptyDeck,
    GameOver,
    IllegalAction,
    InvalidSetup,
    MustDraw,
    MustPlayCard,
    WrongPhase,
    term,
)
from companion.rules.phase import HAND_SIZE, Phase
from companion.rules.position import FLAG_COUNT, PLAYERS, Player, Position, Variant, check_flag
from companion.rules.table import Table, played_card
from companion.rules.terrain_steps import (
    Effect,
    effect_options,
    effect_target,
    fields_drew,
    fields_return,
    lay_battlefield,
    pick_battlefield,
    place_battlefield,
    start_effect,
)

SCOUT_DRAWS: Final = 3


class Ending(enum.Enum):
    BREAKTHROUGH = "breakthrough"
    ENVELOPMENT = "envelopment"
    FLAGS = "more flags"  # both players passed, flags resolved and counted
    DRAW = "draw"


@dataclass(frozen=True, slots=True)
class Outcome:
    winner: Player | None
    ending: Ending
    flags: tuple[int, int]  # held by north, south

    def score(self) -> tuple[int, int]:
        """Match points (north, south): the winner 5, the loser 1 per flag held.

        Decision: after a draw each player scores 1 per flag held.
        """
        north, south = self.flags
        if self.winner is Player.NORTH:
            return 5, south
        if self.winner is Player.SOUTH:
            return north, 5
        return north, south


@dataclass(frozen=True, slots=True)
class Deck:
    """A face-down deck: cards put back on top (known order, last on top) over a shuffled rest."""

    top: tuple[Card, ...] = ()
    rest: frozenset[Card] = frozenset()

    def __len__(self) -> int:
        return len(self.top) + len(self.rest)

    def cards(self) -> Iterator[Card]:
        yield from self.top
        yield from self.rest


def _idx(player: Player) -> int:
    return 0 if player is Player.NORTH else 1


@dataclass(frozen=True, slots=True)
class GameState:
    """Everything about a game at one moment; ``position`` is the table part."""

    table: Table
    # whose turn it is; while dealing the dealer's target; in the draft, the
    # placement and a terrain effect, whoever acts now
    player: Player
    phase: Phase = Phase.DEAL
    hands: tuple[tuple[Card, ...], tuple[Card, ...]] = ((), ())
    troop_deck: Deck = field(default_factory=lambda: Deck(rest=frozenset(TROOPS)))
    tactic_deck: Deck = field(default_factory=lambda: Deck(rest=frozenset(TACTICS)))
    pending: DeckKind | None = None  # a draw waiting for its chance event
    draws_left: int = 0
    drew: bool = False  # a draw happened this turn: no more claims
    passes: int = 0  # consecutive passes; two end the game
    moment: int = 0
    outcome: Outcome | None = None
    setup: Setup = Setup.STANDARD
    battlefield: Battlefield | None = None  # the nine battlefield cards (terrain variant)
    effect: Effect | None = None  # a terrain effect in progress (phase TERRAIN)

    # ----------------------------------------------------------------- set-up
    @classmethod
    def new(
        cls,
        first: Player = Player.SOUTH,
        variant: Variant | None = None,
        setup: Setup = Setup.STANDARD,
    ) -> GameState:
        """A new game: battlefield (terrain) and opening hands still to come, ``first`` to play.

        The Hundred Years' War needs terrain and tactics: each player's king
        (south England ``AL``, north France ``DA``) starts in their hand.
        """
        variant = variant or Variant()
        tactics = frozenset(TACTICS) if variant.tactics else frozenset()
        hands: tuple[tuple[Card, ...], tuple[Card, ...]] = ((), ())
        if setup is Setup.HUNDRED_YEARS_WAR:
            if not (variant.terrain and variant.tactics):
                raise InvalidSetup(N_("the Hundred Years' War is played with terrain and tactics"))
            hands = ((KINGS[Player.NORTH],), (KINGS[Player.SOUTH],))
            tactics -= set(KINGS.values())
        return cls(
            table=Table(Position(to_move=first, variant=variant)),
            player=first,
            phase=Phase.LAYOUT if variant.terrain else Phase.DEAL,
            hands=hands,
            tactic_deck=Deck(rest=tactics),
            setup=setup,
            battlefield=Battlefield() if variant.terrain else None,
        )

    # ----------------------------------------------------------------- queries
    @property
    def position(self) -> Position:
        return self.table.position

    @property
    def tactics_played(self) -> tuple[int, int]:
        return self.table.tactics_played

    @property
    def leader_played(self) -> tuple[bool, bool]:
        return self.table.leader_played

    @property
    def guile(self) -> tuple[tuple[Card, ...], tuple[Card, ...]]:
        """Guile cards each player has played (face up by the tactics deck)."""
        return self.table.guile

    def hand(self, player: Player) -> tuple[Card, ...]:
        return self.hands[_idx(player)]

    def deck(self, kind: DeckKind) -> Deck:
        return self.troop_deck if kind is DeckKind.TROOP else self.tactic_deck

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.OVER

    def chance_outcomes(self) -> tuple[Card | Terrain, ...]:
        """The cards the next chance event may reveal (empty when a player acts)."""
        if self.phase is Phase.LAYOUT:
            assert self.battlefield is not None
            return tuple(sorted(self.battlefield.stack, key=TERRAIN_ORDER.index))
        if self.phase is Phase.DEAL:
            return tuple(sorted(self.troop_deck.rest, key=card_sort_key))
        if self.pending is not None:
            return tuple(sorted(self.deck(self.pending).rest, key=card_sort_key))
        return ()

    def all_cards(self) -> Iterator[Card]:
        """Every card somewhere: hands, decks, table, guile areas. Always the 70 (or 60)."""
        for hand in self.hands:
            yield from hand
        yield from self.troop_deck.cards()
        yield from self.tactic_deck.cards()
        yield from self.table.face_up()

    def can_play_tactic(self, player: Player) -> bool:
        return self.table.can_play_tactic(player)

    def rule(self, flag: int, player: Player | None = None) -> Ruling:
        """The ruling on ``player`` (default: the player to move) claiming ``flag``."""
        return rule_claim(self.position, flag, player or self.player)

    def legal_actions(self) -> list[Action]:
        """Every action the rules allow now, chance events included."""
        if self.phase is Phase.OVER:
            return []
        outcomes = self.chance_outcomes()
        if outcomes:
            return [Chance(c) for c in outcomes]
        actions: list[Action] = []
        if self._claims_open():
            unseen = self.position.unseen_troops()
            actions += [
                Claim(i)
                for i in range(FLAG_COUNT)
                if rule_claim(self.position, i, self.player, unseen=unseen).granted
            ]
        if self.phase is Phase.PLAY:
            plays = list(self._plays())
            actions += plays or [Pass()]
        elif self.phase is Phase.DRAW:
            draws = [Draw(k) for k in DeckKind if len(self.deck(k))]
            actions += draws if self.draws_left and draws else [EndTurn()]
        elif self.phase is Phase.RETURN:
            actions += [ScoutReturn(c) for c in self.hand(self.player)]
        elif self.phase is Phase.TERRAIN:
            actions += effect_options(self)
        elif self.phase is Phase.DRAFT:
            assert self.battlefield is not None
            actions += [Pick(t) for t in self.battlefield.choosing_of(self.player)]
        elif self.phase is Phase.PLACE:
            assert self.battlefield is not None
            free = self.battlefield.free_places()
            actions += [
                Place(t, i, up)
                for t in self.battlefield.to_place(self.player)
                for i in free
                for up in (True, False)
            ]
        return actions

    def _claims_open(self) -> bool:
        if self.phase is Phase.PLAY:
            return True
        return (
            self.phase is Phase.DRAW
            and not self.drew
            and self.position.variant.claim_timing == "standard"
        )

    def _plays(self) -> Iterator[Action]:
        return self.table.plays(self.player, self.hand(self.player))

    # ----------------------------------------------------------------- applying
    def apply(self, action: Action) -> GameState:
        """The state after ``action``; raises an IllegalAction subclass if the rules forbid it."""
        if self.phase is Phase.OVER:
            raise GameOver()
        state = self._apply(action)
        return replace(state, moment=self.moment + 1)

    def _apply(self, action: Action) -> GameState:
        if isinstance(action, Chance):
            return self._chance(action.card)
        if self.chance_outcomes():
            raise WrongPhase(N_("a card must be revealed first"))
        if isinstance(action, Claim):
            return self._claim(action.flag)
        if isinstance(action, Draw):
            return self._draw(action.deck)
        if isinstance(action, EndTurn):
            if self.phase is not Phase.DRAW:
                raise WrongPhase(N_("the turn ends after playing a card"))
            if self.draws_left and (len(self.troop_deck) or len(self.tactic_deck)):
                raise MustDraw()
            return self._next_turn()
        if isinstance(action, ScoutReturn):
            if self.phase is Phase.TERRAIN:
                return fields_return(self, action.card)
            return self._scout_return(action.card)
        if isinstance(action, Discard | Remove):
            return effect_target(self, action)
        if isinstance(action, Pick):
            return pick_battlefield(self, action.terrain)
        if isinstance(action, Place):
            return place_battlefield(self, action)
        if isinstance(action, Pass):
            if self.phase is not Phase.PLAY:
                raise WrongPhase(N_("a pass takes the place of playing a card"))
            if next(self._plays(), None) is not None:
                raise MustPlayCard()
            state = replace(self, passes=self.passes + 1)
            return state._resolve() if state.passes >= 2 else state._next_turn(passed=True)
        error = self._play_error(action)
        if error is not None:
            raise error
        return self._play(action)

    def _chance(self, card: Card | Terrain) -> GameState:
        if card not in self.chance_outcomes():
            raise IllegalAction(N_("{card} cannot be revealed now"), card=card.token)
        if isinstance(card, Terrain):
            return lay_battlefield(self, card)
        if self.phase is Phase.DEAL:
            deck = replace(self.troop_deck, rest=self.troop_deck.rest - {card})
            state = self._give(self.player, card)
            state = replace(state, troop_deck=deck, player=self.player.other)
            if all(len(h) == HAND_SIZE for h in state.hands):
                first = self.position.to_move or Player.SOUTH
                state = replace(state, phase=Phase.PLAY, player=first)
            return state
        assert self.pending is not None
        kind = self.pending
        deck = replace(self.deck(kind), rest=self.deck(kind).rest - {card})
        state = self._with_deck(kind, deck)._give(self.player, card)
        if self.phase is Phase.TERRAIN:
            return fields_drew(state)
        return state._after_draw()

    def _give(self, player: Player, card: Card) -> GameState:
        hands = list(self.hands)
        hands[_idx(player)] = tuple(sorted((*hands[_idx(player)], card), key=card_sort_key))
        return replace(self, hands=(hands[0], hands[1]))

    def _take(self, player: Player, card: Card) -> GameState:
        hand = list(self.hand(player))
        if card not in hand:
            raise CardNotInHand(N_("{card} is not in {side}'s hand"), card=card.token,
                                side=term(player))
        hand.remove(card)
        hands = list(self.hands)
        hands[_idx(player)] = tuple(hand)
        return replace(self, hands=(hands[0], hands[1]))

    def _with_deck(self, kind: DeckKind, deck: Deck) -> GameState:
        if kind is DeckKind.TROOP:
            return replace(self, troop_deck=deck, pending=None)
        return replace(self, tactic_deck=deck, pending=None)

    def _claim(self, index: int) -> GameState:
        check_flag(index)
        if not self._claims_open():
            timing = self.position.variant.claim_timing
            raise ClaimNotAllowed(N_("not in the {step} step ({timing} claim timing)"),
                                  step=term(self.phase.value), timing=term(timing))
        state = replace(self, table=self.table.with_claim(index, self.player))
        winner = state.position.winner()
        if winner is not None:
            return state._finish(winner, state._ending_by_claims(winner))
        return start_effect(state, index)

    def _draw(self, kind: DeckKind) -> GameState:
        if self.phase is not Phase.DRAW:
            raise WrongPhase(N_("draw after playing a card"))
        if not self.draws_left:
            raise WrongPhase(N_("no more draws this turn"))
        deck = self.deck(kind)
        if not len(deck):
            raise EmptyDeck(N_("the {deck} deck is empty"), deck=term(kind.value))
        state = replace(self, drew=True)
        if deck.top:  # cards put back by Scout: known, no chance
            card, top = deck.top[-1], deck.top[:-1]
            return (
                state._with_deck(kind, replace(deck, top=top))
                ._give(self.player, card)
                ._after_draw()
            )
        return replace(state, pending=kind)

    def _after_draw(self) -> GameState:
        left = self.draws_left - 1
        if left and (len(self.troop_deck) or len(self.tactic_deck)):
            return replace(self, draws_left=left)
        state = replace(self, draws_left=0)
        if len(state.hand(self.player)) > HAND_SIZE:
            return replace(state, phase=Phase.RETURN)
        return state._next_turn()

    def _scout_return(self, card: Card) -> GameState:
        if self.phase is not Phase.RETURN:
            raise WrongPhase(N_("cards are put back only after Scout"))
        state = self._take(self.player, card)
        kind = DeckKind.TROOP if isinstance(card, Troop) else DeckKind.TACTIC
        deck = self.deck(kind)
        state = state._with_deck(kind, replace(deck, top=(*deck.top, card)))
        if len(state.hand(self.player)) > HAND_SIZE:
            return state
        return state._next_turn()

    def _next_turn(self, *, passed: bool = False) -> GameState:
        nxt = self.player.other
        return replace(
            self._with_position(replace(self.position, to_move=nxt)),
            player=nxt,
            phase=Phase.PLAY,
            draws_left=0,
            drew=False,
            passes=self.passes if passed else 0,
        )

    # ----------------------------------------------------------------- playing cards
    def _play_error(self, action: Action) -> IllegalAction | None:
        """Why the rules forbid playing ``action`` now, or None if they allow it."""
        if self.phase is not Phase.PLAY:
            return WrongPhase(N_("cards are played once per turn, before drawing"))
        return self.table.play_error(self.player, action, self.hand(self.player))

    def _play(self, action: Action) -> GameState:
        card = played_card(action)
        assert card is not None
        state = self._take(self.player, card)
        table = self.table.with_play(self.player, action, self.moment)
        # The draw refills the hand to 7: none after Fields left it full.
        refill = 1 if len(state.hand(self.player)) < HAND_SIZE else 0
        draws = SCOUT_DRAWS if isinstance(action, Scout) else refill
        return replace(state, table=table, passes=0, phase=Phase.DRAW, draws_left=draws, drew=False)

    def _with_position(self, position: Position) -> GameState:
        return replace(self, table=replace(self.table, position=position))

    # ----------------------------------------------------------------- the end
    def _ending_by_claims(self, winner: Player) -> Ending:
        held = self.position.flag_count(winner)
        return Ending.ENVELOPMENT if held >= 5 else Ending.BREAKTHROUGH

    def _finish(self, winner: Player | None, ending: Ending) -> GameState:
        counts = (self.position.flag_count(Player.NORTH), self.position.flag_count(Player.SOUTH))
        return replace(self, phase=Phase.OVER, outcome=Outcome(winner, ending, counts))

    def _resolve(self) -> GameState:
        """Both players passed: every flag is resolved by the usual proof, then counted."""
        state = self
        for index in range(FLAG_COUNT):
            for player in PLAYERS:
                if rule_claim(state.position, index, player).granted:
                    state = replace(state, table=state.table.with_claim(index, player))
                    break
        winner = state.position.winner()
        if winner is not None:
            return state._finish(winner, state._ending_by_claims(winner))
        north, south = (state.position.flag_count(p) for p in PLAYERS)
        if north == south:
            return state._finish(None, Ending.DRAW)
        return state._finish(Player.NORTH if north > south else Player.SOUTH, Ending.FLAGS)


class Dealer:
    """Resolves chance events with a seeded random generator: a reproducible shuffle."""

    def __init__(self, seed: int | None = None) -> None:
        self._random = random.Random(seed)

    def reveal(self, state: GameState) -> Chance:
        return Chance(self._random.choice(state.chance_outcomes()))


def deal_until_decision(state: GameState, dealer: Dealer) -> GameState:
    """Apply chance events until a player must act (or the game is over)."""
    while state.chance_outcomes():
        state = state.apply(dealer.reveal(state))
    return state


def card_count_ok(state: GameState) -> bool:
    """All cards accounted for: each of the deck's cards exactly once, and the battlefield's."""
    cards = list(state.all_cards())
    expected = set(ALL_CARDS) if state.position.variant.tactics else set(TROOPS)
    return len(cards) == len(expected) and set(cards) == expected and battlefield_ok(state)


def battlefield_ok(state: GameState) -> bool:
    """The nine battlefield cards once each; a flag shows its card's terrain only text-up."""
    field_ = state.battlefield
    flags = state.position.flags
    if field_ is None:
        return True
    cards = list(field_.cards())
    if len(cards) != len(Terrain) or set(cards) != set(Terrain):
        return False
    for flag, placed in zip(flags, field_.line, strict=True):
        shown = placed.terrain if placed is not None and placed.up else None
        if flag.terrain is not shown:
            return False
    return True
