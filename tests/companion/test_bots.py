"""The built-in bots play whole games of every variant, legally."""

from __future__ import annotations

import pytest

from companion.rules.game import Dealer, GameState, card_count_ok
from companion.rules.position import Player, Variant
from companion.sim.bots import GreedyBot, RandomBot


@pytest.mark.parametrize(
    "variant",
    [Variant(), Variant(terrain=True), Variant(tactics=False), Variant(claim_timing="advanced")],
    ids=["gmt", "terrain", "no-tactics", "advanced-claims"],
)
def test_greedy_against_random_finishes_every_variant(variant: Variant) -> None:
    for seed in range(4):
        dealer, bots = Dealer(seed), {Player.NORTH: GreedyBot(seed), Player.SOUTH: RandomBot(seed)}
        state = GameState.new(Player.SOUTH, variant)
        while not state.is_over:
            if state.chance_outcomes():
                state = state.apply(dealer.reveal(state))
                continue
            # The player who decides may be off turn (Marshes): ask the one the state waits for.
            action = bots[state.player].choose(state)
            assert action in state.legal_actions()
            state = state.apply(action)
            assert card_count_ok(state)
        assert state.outcome is not None
