"""The game: an immutable state, its legal actions, and the state each action leads to.

``GameState.apply(action)`` returns a new state or raises an ``IllegalAction``
subclass naming the rule broken. Deck draws are explicit chance events: a
state whose ``chance_outcomes()`` is not empty waits for ``Chance(card)``
(a seeded ``Dealer`` picks one for simulations; at the table the camera
reveals nothing of hands, so the tracker works from the position).

A turn: claims (standard timing: any time before drawing; advanced: only
before playing), one card played (or a pass when none can be), then one draw
back up to 7 (Scout: three draws, then cards put back).
"""

from __future__ import annotations

import enum
import random
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Final

from companion.rules.actions import (
    Action,
    Betray,
    Chance,
    Claim,
    DeckKind,
    Desert,
    Draw,
    EndTurn,
    Pass,
    Play,
    Redeploy,
    Scout,
    ScoutReturn,
)
from companion.rules.cards import ALL_CARDS, TACTICS, TROOPS, Card, Tactic, Troop, card_sort_key
from companion.rules.claims import Ruling, rule_claim
from companion.rules.errors import (
    CardNotInHand,
    ClaimNotAllowed,
    ClaimRefused,
    EmptyDeck,
    EnvironmentAlreadyThere,
    FlagAlreadyClaimed,
    GameOver,
    IllegalAction,
    InvalidTarget,
    MustDraw,
    MustPlayCard,
    NoSuchFlag,
    NotAFormationCard,
    SecondLeader,
    SideFull,
    TacticsLimit,
    WrongPhase,
)
from companion.rules.position import FLAG_COUNT, PLAYERS, Flag, Player, Position, Variant

HAND_SIZE: Final = 7
SCOUT_DRAWS: Final = 3


class Phase(enum.Enum):
    DEAL = "deal"  # opening hands being dealt (chance events)
    PLAY = "play"  # claim (any timing), then play a card or pass
    DRAW = "draw"  # claim (standard timing, before the first draw), then draw or end
    RETURN = "return"  # after Scout: put cards back on top of their decks
    OVER = "over"


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


def _pair_set(pair: tuple[int, int], player: Player, value: int) -> tuple[int, int]:
    return (value, pair[1]) if player is Player.NORTH else (pair[0], value)


@dataclass(frozen=True, slots=True)
class GameState:
    """Everything about a game at one moment; ``position`` is the table part."""

    position: Position
    player: Player  # whose turn it is (the dealer's target while dealing)
    phase: Phase = Phase.DEAL
    hands: tuple[tuple[Card, ...], tuple[Card, ...]] = ((), ())
    troop_deck: Deck = field(default_factory=lambda: Deck(rest=frozenset(TROOPS)))
    tactic_deck: Deck = field(default_factory=lambda: Deck(rest=frozenset(TACTICS)))
    guile: tuple[tuple[Card, ...], tuple[Card, ...]] = ((), ())  # played guile cards
    tactics_played: tuple[int, int] = (0, 0)
    leader_played: tuple[bool, bool] = (False, False)
    pending: DeckKind | None = None  # a draw waiting for its chance event
    draws_left: int = 0
    drew: bool = False  # a draw happened this turn: no more claims
    passes: int = 0  # consecutive passes; two end the game
    moment: int = 0
    outcome: Outcome | None = None

    # ----------------------------------------------------------------- set-up
    @classmethod
    def new(cls, first: Player = Player.SOUTH, variant: Variant | None = None) -> GameState:
        """A new game: opening hands still to be dealt, ``first`` to play."""
        variant = variant or Variant()
        tactics = frozenset(TACTICS) if variant.tactics else frozenset()
        return cls(
            position=Position(to_move=first, variant=variant),
            player=first,
            tactic_deck=Deck(rest=tactics),
        )

    # ----------------------------------------------------------------- queries
    def hand(self, player: Player) -> tuple[Card, ...]:
        return self.hands[_idx(player)]

    def deck(self, kind: DeckKind) -> Deck:
        return self.troop_deck if kind is DeckKind.TROOP else self.tactic_deck

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.OVER

    def chance_outcomes(self) -> tuple[Card, ...]:
        """The cards the next chance event may reveal (empty when a player acts)."""
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
        yield from self.position.cards_on_table()
        for guile in self.guile:
            yield from guile

    def can_play_tactic(self, player: Player) -> bool:
        mine, theirs = self.tactics_played[_idx(player)], self.tactics_played[_idx(player.other)]
        return self.position.variant.tactics and mine <= theirs

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
        """The card plays ``_play_error`` allows, generated directly (the playouts check both agree)."""
        me, flags = self.player, self.position.flags
        open_flags = [i for i, f in enumerate(flags) if f.claimed_by is None]
        free = [i for i in open_flags if flags[i].free_slots(me) > 0]
        tactics_ok = self.can_play_tactic(me)
        for card in dict.fromkeys(self.hand(me)):
            if isinstance(card, Troop):
                yield from (Play(card, i) for i in free)
                continue
            if not tactics_ok or (card.is_leader and self.leader_played[_idx(me)]):
                continue
            if card.is_morale:
                yield from (Play(card, i) for i in free)
            elif card.is_environment:
                yield from (Play(card, i) for i in open_flags if card not in flags[i].environment)
            elif card is Tactic.SCOUT:
                yield Scout()
            elif card is Tactic.REDEPLOY:
                for i in open_flags:
                    for c in flags[i].cards(me):
                        yield Redeploy(i, c, None)
                        yield from (Redeploy(i, c, j) for j in free if j != i)
            elif card is Tactic.DESERTER:
                for i in open_flags:
                    yield from (Desert(i, c) for c in flags[i].cards(me.other))
            elif card is Tactic.TRAITOR:
                for i in open_flags:
                    for c in flags[i].cards(me.other):
                        if isinstance(c, Troop):
                            yield from (Betray(i, c, j) for j in free)

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
            raise WrongPhase("a card must be revealed first")
        if isinstance(action, Claim):
            return self._claim(action.flag)
        if isinstance(action, Draw):
            return self._draw(action.deck)
        if isinstance(action, EndTurn):
            if self.phase is not Phase.DRAW:
                raise WrongPhase("the turn ends after playing a card")
            if self.draws_left and (len(self.troop_deck) or len(self.tactic_deck)):
                raise MustDraw()
            return self._next_turn()
        if isinstance(action, ScoutReturn):
            return self._scout_return(action.card)
        if isinstance(action, Pass):
            if self.phase is not Phase.PLAY:
                raise WrongPhase("a pass takes the place of playing a card")
            if next(self._plays(), None) is not None:
                raise MustPlayCard()
            state = replace(self, passes=self.passes + 1)
            return state._resolve() if state.passes >= 2 else state._next_turn(passed=True)
        error = self._play_error(action)
        if error is not None:
            raise error
        return self._play(action)

    def _chance(self, card: Card) -> GameState:
        if card not in self.chance_outcomes():
            raise IllegalAction(f"{card.token} cannot be revealed now")
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
        return self._with_deck(kind, deck)._give(self.player, card)._after_draw()

    def _give(self, player: Player, card: Card) -> GameState:
        hands = list(self.hands)
        hands[_idx(player)] = tuple(sorted((*hands[_idx(player)], card), key=card_sort_key))
        return replace(self, hands=(hands[0], hands[1]))

    def _take(self, player: Player, card: Card) -> GameState:
        hand = list(self.hand(player))
        if card not in hand:
            raise CardNotInHand(f"{card.token} is not in {player}'s hand")
        hand.remove(card)
        hands = list(self.hands)
        hands[_idx(player)] = tuple(hand)
        return replace(self, hands=(hands[0], hands[1]))

    def _with_deck(self, kind: DeckKind, deck: Deck) -> GameState:
        if kind is DeckKind.TROOP:
            return replace(self, troop_deck=deck, pending=None)
        return replace(self, tactic_deck=deck, pending=None)

    def _claim(self, index: int) -> GameState:
        _check_flag(index)
        if not self._claims_open():
            timing = self.position.variant.claim_timing
            raise ClaimNotAllowed(f"not in the {self.phase.value} step ({timing} claim timing)")
        ruling = self.rule(index)
        if not ruling.granted:
            raise ClaimRefused(ruling.reason.value, ruling)
        flag = replace(self.position.flags[index], claimed_by=self.player)
        state = self._with_flag(index, flag)
        winner = state.position.winner()
        if winner is not None:
            return state._finish(winner, state._ending_by_claims(winner))
        return state

    def _draw(self, kind: DeckKind) -> GameState:
        if self.phase is not Phase.DRAW:
            raise WrongPhase("draw after playing a card")
        if not self.draws_left:
            raise WrongPhase("no more draws this turn")
        deck = self.deck(kind)
        if not len(deck):
            raise EmptyDeck(f"the {kind.value} deck is empty")
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
            raise WrongPhase("cards are put back only after Scout")
        state = self._take(self.player, card)
        kind = DeckKind.TROOP if isinstance(card, Troop) else DeckKind.TACTIC
        deck = self.deck(kind)
        state = state._with_deck(kind, replace(deck, top=(*deck.top, card)))
        if len(state.hand(self.player)) > HAND_SIZE:
            return state
        return state._next_turn()

    def _next_turn(self, *, passed: bool = False) -> GameState:
        nxt = self.player.other
        position = replace(self.position, to_move=nxt)
        return replace(
            self,
            position=position,
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
            return WrongPhase("cards are played once per turn, before drawing")
        me = self.player
        card = _played_card(action)
        if card is None:
            return WrongPhase(f"{action.notation()} is not a card play")
        if card not in self.hand(me):
            return CardNotInHand(f"{card.token} is not in {me}'s hand")
        if isinstance(card, Tactic):
            if not self.can_play_tactic(me):
                return TacticsLimit(f"{me} has played {self.tactics_played[_idx(me)]}")
            if card.is_leader and self.leader_played[_idx(me)]:
                return SecondLeader(f"{me} already played a leader")
        flags = self.position.flags
        if isinstance(action, Play):
            if not 0 <= action.flag < FLAG_COUNT:
                return NoSuchFlag(str(action.flag + 1))
            flag = flags[action.flag]
            if flag.claimed_by is not None:
                return FlagAlreadyClaimed(f"flag {action.flag + 1}")
            if isinstance(card, Tactic) and card.is_environment:
                if card in flag.environment:
                    return EnvironmentAlreadyThere(f"flag {action.flag + 1}")
                return None
            if isinstance(card, Tactic) and not card.is_morale:
                return NotAFormationCard(card.token)
            if not flag.free_slots(me):
                return SideFull(f"flag {action.flag + 1}")
            return None
        if isinstance(action, Redeploy | Desert | Betray):
            owner = me if isinstance(action, Redeploy) else me.other
            if not 0 <= action.flag < FLAG_COUNT:
                return NoSuchFlag(str(action.flag + 1))
            source = flags[action.flag]
            if source.claimed_by is not None:
                return FlagAlreadyClaimed(f"flag {action.flag + 1}")
            if action.card not in source.cards(owner):
                return InvalidTarget(
                    f"{action.card.token} is not on {owner}'s side of flag {action.flag + 1}"
                )
            if isinstance(action, Betray) and not isinstance(action.card, Troop):
                return InvalidTarget("Traitor takes troops only")
            to = action.to if isinstance(action, Redeploy | Betray) else None
            if to is not None:
                if not 0 <= to < FLAG_COUNT:
                    return NoSuchFlag(str(to + 1))
                if isinstance(action, Redeploy) and to == action.flag:
                    return InvalidTarget("Redeploy moves a card to another flag")
                target = flags[to]
                if target.claimed_by is not None:
                    return FlagAlreadyClaimed(f"flag {to + 1}")
                if not target.free_slots(me):
                    return SideFull(f"flag {to + 1}")
            return None
        return None  # Scout

    def _play(self, action: Action) -> GameState:
        me, moment = self.player, self.moment
        card = _played_card(action)
        assert card is not None
        state = self._take(me, card)
        if isinstance(card, Tactic):
            state = replace(
                state,
                tactics_played=_pair_set(
                    self.tactics_played, me, self.tactics_played[_idx(me)] + 1
                ),
            )
            if card.is_leader:
                leaders = self.leader_played
                state = replace(
                    state,
                    leader_played=(True, leaders[1]) if me is Player.NORTH else (leaders[0], True),
                )
            if card.is_guile:
                guile = list(self.guile)
                guile[_idx(me)] = (*guile[_idx(me)], card)
                state = replace(state, guile=(guile[0], guile[1]))
        flags = list(state.position.flags)
        discards = state.position.discards
        if isinstance(action, Play):
            flag = flags[action.flag]
            if isinstance(card, Tactic) and card.is_environment:
                flags[action.flag] = flag.with_environment(card, moment)
            else:
                flags[action.flag] = flag.with_cards(me, (*flag.cards(me), card), moment)
        elif isinstance(action, Redeploy | Desert | Betray):
            owner = me if isinstance(action, Redeploy) else me.other
            source = flags[action.flag]
            left = tuple(c for c in source.cards(owner) if c != action.card)
            flags[action.flag] = source.with_cards(owner, left, moment)
            to = action.to if isinstance(action, Redeploy | Betray) else None
            if to is None:
                discards = (*discards, action.card)
            else:
                target = flags[to]
                flags[to] = target.with_cards(me, (*target.cards(me), action.card), moment)
        position = replace(state.position, flags=tuple(flags), discards=discards)
        state = replace(state, position=position, passes=0)
        draws = SCOUT_DRAWS if isinstance(action, Scout) else 1
        return replace(state, phase=Phase.DRAW, draws_left=draws, drew=False)

    def _with_flag(self, index: int, flag: Flag) -> GameState:
        flags = list(self.position.flags)
        flags[index] = flag
        return replace(self, position=replace(self.position, flags=tuple(flags)))

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
                    flag = replace(state.position.flags[index], claimed_by=player)
                    state = state._with_flag(index, flag)
                    break
        winner = state.position.winner()
        if winner is not None:
            return state._finish(winner, state._ending_by_claims(winner))
        north, south = (state.position.flag_count(p) for p in PLAYERS)
        if north == south:
            return state._finish(None, Ending.DRAW)
        return state._finish(Player.NORTH if north > south else Player.SOUTH, Ending.FLAGS)


def _played_card(action: Action) -> Card | None:
    if isinstance(action, Play):
        return action.card
    if isinstance(action, Scout):
        return Tactic.SCOUT
    if isinstance(action, Redeploy):
        return Tactic.REDEPLOY
    if isinstance(action, Desert):
        return Tactic.DESERTER
    if isinstance(action, Betray):
        return Tactic.TRAITOR
    return None


def _check_flag(index: int) -> None:
    if not 0 <= index < FLAG_COUNT:
        raise NoSuchFlag(str(index + 1))


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
    """All cards accounted for: each of the deck's cards exactly once."""
    cards = list(state.all_cards())
    expected = set(ALL_CARDS) if state.position.variant.tactics else set(TROOPS)
    return len(cards) == len(expected) and set(cards) == expected
