"""Built-in players for simulated games: a random one and a plain greedy one.

Both see only what a player at the table sees (own hand, the table), and
both choose among ``GameState.legal_actions()``, so every move they make is
legal by construction.
"""

from __future__ import annotations

import random
from typing import Protocol

from companion.rules.actions import Action, Claim, DeckKind, Draw, EndTurn, Pass, Play, ScoutReturn
from companion.rules.cards import Tactic, Troop
from companion.rules.formations import troop_mask
from companion.rules.game import GameState
from companion.rules.terrain import side_best


class Bot(Protocol):
    name: str

    def choose(self, state: GameState) -> Action: ...


class RandomBot:
    """Any legal action, uniformly: the widest coverage of the rules."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self._random = random.Random(seed)

    def choose(self, state: GameState) -> Action:
        return self._random.choice(state.legal_actions())


class GreedyBot:
    """Claims whatever it can prove, then plays the card that builds its strongest formation.

    Each troop play is scored by the strongest formation that side could still
    reach with the cards the bot cannot see plus its own hand, minus what the
    opponent already shows there. Tactics are kept for when no troop fits.
    """

    name = "greedy"

    def __init__(self, seed: int | None = None) -> None:
        self._random = random.Random(seed)

    def choose(self, state: GameState) -> Action:
        actions = state.legal_actions()
        claims = [a for a in actions if isinstance(a, Claim)]
        if claims:
            return claims[0]
        troops = [a for a in actions if isinstance(a, Play) and isinstance(a.card, Troop)]
        if troops:
            hand = troop_mask(c for c in state.hand(state.player) if isinstance(c, Troop))
            pool = state.position.unseen_troops() | hand
            threats = {i: _threat(state, i, pool) for i in {a.flag for a in troops}}
            return max(
                troops,
                key=lambda a: (self._score(state, a, pool, threats[a.flag]), self._random.random()),
            )
        draws = [a for a in actions if isinstance(a, Draw)]
        if draws:
            wanted = [d for d in draws if d.deck is DeckKind.TROOP] or draws
            return wanted[0]
        returns = [a for a in actions if isinstance(a, ScoutReturn)]
        if returns:  # put back the weakest troops, tactics last
            return min(returns, key=lambda a: a.card.value if isinstance(a.card, Troop) else 99)
        for kind in (EndTurn, Pass):
            found = [a for a in actions if isinstance(a, kind)]
            if found:
                return found[0]
        others = [a for a in actions if not (isinstance(a, Play) and a.card in _HOARDED)]
        return self._random.choice(others or actions)

    def _score(self, state: GameState, play: Play, pool: int, threat: int) -> float:
        """``pool``: troops that may still come, as the bot sees it (unseen plus its hand)."""
        me = state.player
        flag = state.position.flags[play.flag]
        placed = flag.with_cards(me, (*flag.cards(me), play.card), state.moment)
        mine = side_best(placed, me, pool)  # terrain-aware: Hills, a Castle's extra card
        if mine is None:
            return -100.0
        strength = mine.strength.formation * 100 + mine.strength.total
        # Prefer flags it can win, then strong formations; fill flags rather than open new ones.
        return strength - 0.5 * threat + 20 * len(flag.cards(me))


def _threat(state: GameState, index: int, pool: int) -> int:
    """How strong the opponent's side of a flag could still become, as one number."""
    flag = state.position.flags[index]
    theirs = side_best(flag, state.player.other, pool)
    return theirs.strength.formation * 100 + theirs.strength.total if theirs else 0


_HOARDED = frozenset({Tactic.SCOUT})  # only played when nothing better is left

BOTS: dict[str, type[RandomBot] | type[GreedyBot]] = {"random": RandomBot, "greedy": GreedyBot}
