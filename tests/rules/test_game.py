"""The game's turn structure, tactics and end, as RULES.md states them."""

from __future__ import annotations

import pytest

from companion.rules import errors
from companion.rules.actions import (
    Betray,
    Chance,
    Claim,
    DeckKind,
    Desert,
    Draw,
    Pass,
    Play,
    Redeploy,
    Scout,
    ScoutReturn,
    parse_action,
)
from companion.rules.cards import Tactic, parse_card
from companion.rules.claims import Reason
from companion.rules.game import Dealer, Ending, GameState, Outcome, card_count_ok
from companion.rules.phase import Phase
from companion.rules.position import Player, Variant

from .gamekit import cards, flag, state

N, S = Player.NORTH, Player.SOUTH
c = parse_card


def test_new_game_deals_seven_troops_each_then_the_first_player_plays() -> None:
    game = GameState.new(first=N)
    dealer = Dealer(5)
    dealt = 0
    while game.chance_outcomes():
        assert game.phase is Phase.DEAL
        game = game.apply(dealer.reveal(game))
        dealt += 1
    assert dealt == 14
    assert game.phase is Phase.PLAY and game.player is N
    assert all(len(game.hand(p)) == 7 for p in Player)
    assert all(not isinstance(card, Tactic) for p in Player for card in game.hand(p))
    assert len(game.troop_deck) == 46 and len(game.tactic_deck) == 10
    assert card_count_ok(game)


def test_same_seed_same_deal_other_seed_other_deal() -> None:
    def deal(seed: int) -> GameState:
        game, dealer = GameState.new(), Dealer(seed)
        while game.chance_outcomes():
            game = game.apply(dealer.reveal(game))
        return game

    assert deal(3).hands == deal(3).hands
    assert deal(3).hands != deal(4).hands


def test_a_turn_is_play_then_draw_then_the_opponent() -> None:
    game = state(south_hand="R1 R2 R3 R4 R5 R6 R7")
    game = game.apply(Play(c("R7"), 0))
    assert game.phase is Phase.DRAW and game.player is S
    assert game.position.flags[0].south == cards("R7")
    with pytest.raises(errors.WrongPhase):
        game.apply(Play(c("R6"), 1))
    game = game.apply(Draw(DeckKind.TROOP))
    assert game.chance_outcomes()  # the drawn card is a chance event
    card = game.chance_outcomes()[0]
    game = game.apply(Chance(card))
    assert card in game.hand(S) and len(game.hand(S)) == 7
    assert game.player is N and game.phase is Phase.PLAY


def test_playing_a_card_not_in_hand_names_the_rule() -> None:
    game = state(south_hand="R1")
    with pytest.raises(errors.CardNotInHand, match="own hand"):
        game.apply(Play(c("B9"), 0))


def test_a_side_holds_three_cards_four_with_mud() -> None:
    game = state(
        south_hand="R4 B4", flags={1: flag(south="R1 R2 R3"), 2: flag(south="G1 G2 G3", mud=True)}
    )
    with pytest.raises(errors.SideFull):
        game.apply(Play(c("R4"), 0))
    after = game.apply(Play(c("B4"), 1))
    assert len(after.position.flags[1].south) == 4


def test_no_card_is_added_at_a_claimed_flag() -> None:
    game = state(south_hand="R4 FOG", flags={1: flag(north="B1", claimed_by=N)})
    for action in (Play(c("R4"), 0), Play(Tactic.FOG, 0)):
        with pytest.raises(errors.FlagAlreadyClaimed):
            game.apply(action)


def test_the_tactics_limit_counts_every_tactic_ever_played() -> None:
    game = state(south_hand="FOG R1", tactics_played=(0, 1))
    with pytest.raises(errors.TacticsLimit):
        game.apply(Play(Tactic.FOG, 3))
    assert all(not (isinstance(a, Play) and a.card is Tactic.FOG) for a in game.legal_actions())
    level = state(south_hand="FOG R1", tactics_played=(1, 1))
    assert level.apply(Play(Tactic.FOG, 3)).tactics_played == (1, 2)


def test_only_one_leader_per_player_per_game_even_after_deserter() -> None:
    # South's Alexander was deserted earlier: Darius stays unplayable (HU FAQ).
    game = state(
        south_hand="DA R1",
        discards="AL DESERTER",
        leader_played=(False, True),
        tactics_played=(1, 1),
    )
    with pytest.raises(errors.SecondLeader):
        game.apply(Play(Tactic.DARIUS, 2))


def test_morale_tactics_go_into_formations_and_guile_cards_cannot() -> None:
    game = state(south_hand="CC SCOUT")
    after = game.apply(Play(Tactic.COMPANION_CAVALRY, 4))
    assert after.position.flags[4].south == (Tactic.COMPANION_CAVALRY,)
    with pytest.raises(errors.NotAFormationCard):
        game.apply(Play(Tactic.SCOUT, 4))
    with pytest.raises(errors.NotationError):
        parse_action("SCOUT@5")


def test_fog_and_mud_lie_at_a_flag_and_mud_makes_complete_sides_incomplete() -> None:
    game = state(
        south_hand="MUD FOG",
        flags={1: flag(north="R1 R2 R3", south="B5 B6 B7", first=S)},
        tactics_played=(1, 0),
    )
    assert game.position.flags[0].completed_first() is S
    muddy = game.apply(Play(Tactic.MUD, 0))
    f = muddy.position.flags[0]
    assert f.mud and f.size == 4
    assert f.north_completed is None and f.south_completed is None
    assert muddy.rule(0, S).reason is Reason.INCOMPLETE
    with pytest.raises(errors.EnvironmentAlreadyThere):
        state(south_hand="MUD", flags={1: flag(mud=True)}).apply(Play(Tactic.MUD, 0))


def test_fog_and_mud_cannot_be_moved_or_deserted() -> None:
    game = state(
        south_hand="REDEPLOY DESERTER", flags={1: flag(north="R1", south="B1", fog=True, mud=True)}
    )
    targets = {a for a in game.legal_actions() if isinstance(a, Redeploy | Desert)}
    assert all(a.card not in (Tactic.FOG, Tactic.MUD) for a in targets)
    with pytest.raises(errors.InvalidTarget):
        game.apply(Desert(0, Tactic.FOG))


def test_scout_draws_three_puts_two_back_on_top_and_ends_the_turn() -> None:
    game = state(south_hand="SCOUT R1 R2 R3 R4 R5 R6")
    game = game.apply(Scout())
    assert game.phase is Phase.DRAW and game.draws_left == 3
    dealer = Dealer(1)
    for deck in (DeckKind.TROOP, DeckKind.TACTIC, DeckKind.TROOP):
        game = game.apply(Draw(deck))
        game = game.apply(dealer.reveal(game))
    assert game.phase is Phase.RETURN and len(game.hand(S)) == 9
    with pytest.raises(errors.WrongPhase):
        game.apply(Draw(DeckKind.TROOP))
    game = game.apply(ScoutReturn(c("R1")))
    game = game.apply(ScoutReturn(c("R2")))
    assert game.player is N and len(game.hand(S)) == 7
    assert game.troop_deck.top == cards("R1 R2")
    assert Tactic.SCOUT in game.guile[1]
    # The next troop draw takes the card put back last, with no chance event.
    nxt = state(north_hand="B1", deck_top=cards("R1 R2"), player=N)
    nxt = nxt.apply(Play(c("B1"), 0)).apply(Draw(DeckKind.TROOP))
    assert c("R2") in nxt.hand(N) and not nxt.chance_outcomes()


def test_scout_with_a_short_deck_draws_what_is_left_and_keeps_seven() -> None:
    game = state(south_hand="SCOUT R1 R2 R3 R4 R5 R6", empty_decks=True, deck_top=cards("B9"))
    game = game.apply(Scout()).apply(Draw(DeckKind.TROOP))
    # One card was left: hand back to 7, nothing to put back, the turn is over.
    assert game.player is N and len(game.hand(S)) == 7 and c("B9") in game.hand(S)


def test_redeploy_moves_own_card_or_discards_it() -> None:
    game = state(south_hand="REDEPLOY", flags={1: flag(south="R1 AL"), 2: flag(south="B1 B2 B3")})
    moved = game.apply(Redeploy(0, Tactic.ALEXANDER, 4))
    assert moved.position.flags[4].south == (Tactic.ALEXANDER,)
    assert moved.position.flags[0].south == cards("R1")
    gone = game.apply(Redeploy(0, c("R1"), None))
    assert gone.position.discards == cards("R1")
    with pytest.raises(errors.SideFull):
        game.apply(Redeploy(0, c("R1"), 1))
    with pytest.raises(errors.InvalidTarget):
        game.apply(Redeploy(0, c("R1"), 0))


def test_deserter_discards_an_opponent_card_face_up() -> None:
    game = state(south_hand="DESERTER", flags={3: flag(north="CC G5")})
    after = game.apply(Desert(2, Tactic.COMPANION_CAVALRY))
    assert after.position.flags[2].north == cards("G5")
    assert Tactic.COMPANION_CAVALRY in after.position.discards
    assert card_count_ok(game) and card_count_ok(after)


def test_traitor_takes_troops_only_into_a_free_slot() -> None:
    game = state(south_hand="TRAITOR", flags={3: flag(north="SB G5"), 4: flag(south="R1 R2 R3")})
    after = game.apply(Betray(2, c("G5"), 5))
    assert after.position.flags[5].south == cards("G5")
    assert after.position.flags[2].north == (Tactic.SHIELD_BEARERS,)
    with pytest.raises(errors.InvalidTarget, match="troops only"):
        game.apply(Betray(2, Tactic.SHIELD_BEARERS, 5))
    with pytest.raises(errors.SideFull):
        game.apply(Betray(2, c("G5"), 3))


def test_a_tie_goes_against_the_side_that_recompleted_after_deserter() -> None:
    # North completed 8-8-8 first; south deserts a north card; north re-completes later.
    game = state(
        south_hand="DESERTER R4",
        north_hand="Y8 R5",
        flags={1: flag(north="R8 B8 G8", south="O8 P8 CC", first=N)},
    )
    assert game.rule(0, N).granted and not game.rule(0, S).granted
    game = game.apply(Desert(0, c("R8"))).apply(Draw(DeckKind.TROOP))
    game = game.apply(Dealer(0).reveal(game))
    game = game.apply(Play(c("Y8"), 0))  # north re-completes: now the last to complete
    assert game.rule(0, S).granted and game.rule(0, S).reason is Reason.TIE_COMPLETED_FIRST
    assert not game.rule(0, N).granted


def test_refused_claim_raises_with_the_ruling_and_counterexample() -> None:
    game = state(south_hand="R1", flags={2: flag(north="B9", south="R1 R2 R3")})
    with pytest.raises(errors.ClaimRefused) as refused:
        game.apply(Claim(1))
    ruling = refused.value.ruling
    assert ruling.reason is Reason.BEATABLE
    assert ruling.counterexample == cards("B8 B10")


def test_claim_timing_standard_allows_after_playing_advanced_does_not() -> None:
    table = {1: flag(north="R1", south="B8 B9 B10")}
    for timing, allowed in (("standard", True), ("advanced", False)):
        game = state(south_hand="G1", flags=table, variant=Variant(claim_timing=timing))
        assert game.apply(Claim(0)).position.flags[0].claimed_by is S  # before playing: always
        played = game.apply(Play(c("G1"), 4))
        if allowed:
            assert played.apply(Claim(0)).position.flags[0].claimed_by is S
        else:
            with pytest.raises(errors.ClaimNotAllowed):
                played.apply(Claim(0))


def test_pass_only_when_no_card_can_be_played() -> None:
    with pytest.raises(errors.MustPlayCard):
        state(south_hand="R1").apply(Pass())
    full = {
        i: flag(
            south=f"{'ROYGBPR'[i % 6]}{i} {'ROYGBPR'[(i + 1) % 6]}{i} {'ROYGBPR'[(i + 2) % 6]}{i}"
        )
        for i in range(1, 10)
    }
    stuck = state(south_hand="R10", flags=full)
    assert stuck.legal_actions() == [Pass()]
    assert stuck.apply(Pass()).player is N


def test_both_players_passing_resolves_every_flag_by_proof() -> None:
    table = {
        1: flag(north="R1 R2 R3", south="B1 G2 Y3"),  # wedge beats skirmish
        2: flag(north="R4 R5 R6", south="B4 G4 Y4", first=N),
        3: flag(north="P1 O5 G9", south="P8 P9 P10"),
    }
    game = state(north_hand="", south_hand="", flags=table, player=S, empty_decks=True)
    game = game.apply(Pass())
    assert game.passes == 1 and game.player is N
    game = game.apply(Pass())
    assert game.is_over and game.outcome is not None
    assert [f.claimed_by for f in game.position.flags[:3]] == [N, N, S]
    assert game.outcome == Outcome(N, Ending.FLAGS, (2, 1))


def test_breakthrough_and_envelopment_end_the_game_at_once() -> None:
    table = {
        1: flag(north="R1", claimed_by=S),
        2: flag(claimed_by=S),
        3: flag(north="B1", south="G8 G9 G10"),
    }
    game = state(south_hand="R5", flags=table).apply(Claim(2))
    assert game.is_over and game.outcome == Outcome(S, Ending.BREAKTHROUGH, (0, 3))
    with pytest.raises(errors.GameOver):
        game.apply(Play(c("R5"), 5))
    spread = {
        1: flag(claimed_by=N),
        3: flag(claimed_by=N),
        5: flag(claimed_by=N),
        7: flag(claimed_by=N),
        9: flag(north="Y8 Y9 Y10", south="B1"),
    }
    over = state(north_hand="R5", flags=spread, player=N).apply(Claim(8))
    assert over.outcome == Outcome(N, Ending.ENVELOPMENT, (5, 0))


def test_match_scoring_winner_five_loser_one_per_flag() -> None:
    assert Outcome(N, Ending.BREAKTHROUGH, (3, 2)).score() == (5, 2)
    assert Outcome(S, Ending.ENVELOPMENT, (1, 5)).score() == (1, 5)
    assert Outcome(None, Ending.DRAW, (3, 3)).score() == (3, 3)


@pytest.mark.parametrize(
    "text",
    [
        "deal R7",
        "R7@3",
        "AL@1",
        "FOG@9",
        "SCOUT",
        "return B10",
        "REDEPLOY R7@3>5",
        "REDEPLOY CC@3>x",
        "DESERTER B4@2",
        "TRAITOR B4@2>6",
        "claim 3",
        "draw troop",
        "draw tactic",
        "end",
        "pass",
    ],
)
def test_action_notation_round_trips(text: str) -> None:
    action = parse_action(text)
    assert action.notation() == text
    assert parse_action(text.lower()) == action


def test_bad_action_text_names_the_problem() -> None:
    with pytest.raises(errors.NotationError, match="not an action"):
        parse_action("R7@0")
    with pytest.raises(errors.NotationError, match="not a card token"):
        parse_action("X7@3")
