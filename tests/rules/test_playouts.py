"""1000 seeded bot-vs-bot games: every action legal, every game ends, all cards accounted for.

Besides the bots' own (legal) choices, each step also tries actions the
rules forbid and checks the engine rejects exactly those: ``legal_actions``
and ``apply`` must agree. One game in ten plays the medieval terrain layout
and one in ten the Hundred Years' War set-up, between bots that claim
whenever they can (so Marshes, Watchtower and Fields come into play).
"""

from __future__ import annotations

import random

import pytest

from companion.rules.actions import (
    Action,
    Betray,
    Claim,
    DeckKind,
    Desert,
    Discard,
    Draw,
    EndTurn,
    Pass,
    Pick,
    Place,
    Play,
    Redeploy,
    Remove,
    Scout,
    ScoutReturn,
)
from companion.rules.battlefield import Setup
from companion.rules.cards import ALL_CARDS, Terrain
from companion.rules.errors import IllegalAction
from companion.rules.game import Dealer, GameState, card_count_ok
from companion.rules.position import Player, Variant
from companion.sim.bots import GreedyBot, RandomBot

from .gamekit import ClaimingBot

GAMES = 1000
BATCHES = 10
MAX_ACTIONS = 2000  # far above any real game: a game that runs longer never ends


def _probe(state: GameState, rng: random.Random, legal: list[Action]) -> None:
    """A few random actions: each must be accepted iff it is listed as legal."""
    card, flag, to = rng.choice(ALL_CARDS), rng.randrange(9), rng.randrange(9)
    terrain = rng.choice(list(Terrain))
    candidates: list[Action] = [
        Discard(flag, card),
        Remove(flag, card),
        ScoutReturn(card),
        Pick(terrain),
        Place(terrain, flag, rng.random() < 0.5),
        Play(card, flag),
        Claim(flag),
        Draw(rng.choice(list(DeckKind))),
        Pass(),
        EndTurn(),
        Scout(),
        Redeploy(flag, card, rng.choice([None, to])),
        Desert(flag, card),
        Betray(flag, card, to),
    ]
    # Aim some at cards that really lie at a flag, where the subtle checks are.
    table = [(i, c) for i, f in enumerate(state.position.flags) for c in (*f.north, *f.south)]
    if table:
        i, c = rng.choice(table)
        candidates += [Redeploy(i, c, rng.choice([None, to])), Desert(i, c), Betray(i, c, to)]
        candidates += [Discard(i, c), Remove(i, c)]
    if state.battlefield is not None:  # battlefield cards someone holds
        held = [t for hand in (*state.battlefield.choosing, *state.battlefield.kept) for t in hand]
        if held:
            t = rng.choice(held)
            candidates += [Pick(t), Place(t, flag, rng.random() < 0.5)]
    for action in candidates:
        try:
            state.apply(action)
            accepted = True
        except IllegalAction:
            accepted = False
        assert accepted == (action in legal), (action, state.phase, state.player)


def _play(seed: int) -> GameState:
    rng = random.Random(seed)
    kinds = [RandomBot, GreedyBot]
    bots = {p: rng.choice(kinds)(seed * 2 + i) for i, p in enumerate(Player)}
    variant = Variant(claim_timing="advanced") if seed % 7 == 0 else Variant()
    setup = Setup.STANDARD
    if seed % 10 in (3, 8):  # terrain: half without tactics; Hundred Years' War needs them
        setup = Setup.HUNDRED_YEARS_WAR if seed % 10 == 8 else Setup.STANDARD
        tactics = setup is Setup.HUNDRED_YEARS_WAR or seed % 20 == 3
        variant = Variant(claim_timing=variant.claim_timing, terrain=True, tactics=tactics)
        bots = {p: ClaimingBot(seed * 2 + i) for i, p in enumerate(Player)}
    dealer = Dealer(seed)
    state = GameState.new(rng.choice(list(Player)), variant, setup)
    for _ in range(MAX_ACTIONS):
        if state.is_over:
            return state
        if state.chance_outcomes():
            action: Action = dealer.reveal(state)
        else:
            legal = state.legal_actions()
            assert legal, "a player to move always has an action"
            bot = bots[state.player]
            action = bot.choose_from(legal) if isinstance(bot, ClaimingBot) else bot.choose(state)
            assert action in legal
            if rng.random() < 0.15:
                _probe(state, rng, legal)
        state = state.apply(action)
        assert card_count_ok(state), f"seed {seed}: cards lost or doubled after {action.notation()}"
    raise AssertionError(f"seed {seed}: no end after {MAX_ACTIONS} actions")


@pytest.mark.slow
@pytest.mark.parametrize("batch", range(BATCHES))
def test_seeded_playouts(batch: int) -> None:
    per = GAMES // BATCHES
    for seed in range(batch * per, (batch + 1) * per):
        final = _play(seed)
        assert final.outcome is not None
        north, south = final.outcome.flags
        if final.outcome.winner is not None:
            assert (
                final.position.winner() is final.outcome.winner
                or final.outcome.ending.value == "more flags"
            )
        else:
            assert north == south
