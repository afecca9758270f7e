"""Medieval terrain in the game: the battlefield's set-up and the effects of claiming terrain."""

from __future__ import annotations

from dataclasses import replace

import pytest

from companion.rules import errors
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
    Play,
    Remove,
    ScoutReturn,
    parse_action,
)
from companion.rules.battlefield import Setup
from companion.rules.cards import TACTICS, TROOPS, Tactic, Terrain, Troop, parse_card
from companion.rules.errors import NotationError
from companion.rules.game import Dealer, Deck, GameState, card_count_ok
from companion.rules.phase import Phase
from companion.rules.position import Player, Variant
from companion.rules.record import GameRecord, parse_record

from .gamekit import ClaimingBot, cards, flag, state

N, S = Player.NORTH, Player.SOUTH
c = parse_card
TERRAIN = Variant(terrain=True)
NO_TACTICS = Variant(terrain=True, tactics=False)
HYW = Setup.HUNDRED_YEARS_WAR


def reveal(game: GameState, dealer: Dealer) -> GameState:
    while game.chance_outcomes():
        game = game.apply(dealer.reveal(game))
    return game


def assert_rejected(game: GameState, action: Action, error: type[errors.IllegalAction]) -> None:
    assert action not in game.legal_actions()
    with pytest.raises(error):
        game.apply(action)


# ----------------------------------------------------------------- the shuffled layout
def test_terrain_game_lays_nine_battlefields_in_turn_then_deals() -> None:
    game, dealer = GameState.new(N, NO_TACTICS), Dealer(11)
    assert game.phase is Phase.LAYOUT
    assert set(game.chance_outcomes()) == set(Terrain)
    for number in range(1, 10):
        laid = dealer.reveal(game)
        assert isinstance(laid.card, Terrain)
        game = game.apply(laid)
        assert game.position.flags[number - 1].terrain is laid.card
        assert all(f.terrain is None for f in game.position.flags[number:])
        assert card_count_ok(game)
    assert game.phase is Phase.DEAL
    assert {f.terrain for f in game.position.flags} == set(Terrain)
    castle, fortress = (
        next(f for f in game.position.flags if f.terrain is t)
        for t in (Terrain.CASTLE, Terrain.FORTRESS)
    )
    assert castle.defender is N and fortress.defender is S  # the first player holds the Castle
    assert all(f.defender is None for f in game.position.flags if f not in (castle, fortress))
    game = reveal(game, dealer)
    assert game.phase is Phase.PLAY and all(len(game.hand(p)) == 7 for p in Player)


def test_the_layout_is_reproducible_from_the_seed() -> None:
    def layout(seed: int) -> tuple[Terrain | None, ...]:
        game = GameState.new(S, TERRAIN)
        return tuple(f.terrain for f in reveal(game, Dealer(seed)).position.flags)

    assert layout(4) == layout(4)
    assert layout(4) != layout(5)


def test_a_terrain_card_cannot_be_revealed_twice_or_a_troop_during_the_layout() -> None:
    game = GameState.new(S, TERRAIN).apply(Chance(Terrain.HILLS))
    for wrong in (Chance(Terrain.HILLS), Chance(c("R7"))):
        assert_rejected(game, wrong, errors.IllegalAction)
    assert_rejected(game, Play(c("R7"), 0), errors.WrongPhase)
    assert_rejected(game, Pick(Terrain.TOWN), errors.WrongPhase)


# ----------------------------------------------------------------- the Hundred Years' War
def hyw_dealt(first: Player = S, seed: int = 3) -> tuple[GameState, Dealer]:
    game, dealer = GameState.new(first, TERRAIN, HYW), Dealer(seed)
    return reveal(game, dealer), dealer


def test_hundred_years_war_kings_start_in_hand_england_south_france_north() -> None:
    game = GameState.new(S, TERRAIN, HYW)
    assert game.hand(S) == (Tactic.ALEXANDER,) and game.hand(N) == (Tactic.DARIUS,)
    assert set(game.tactic_deck.rest) == set(TACTICS) - {Tactic.ALEXANDER, Tactic.DARIUS}
    assert card_count_ok(game)
    with pytest.raises(errors.InvalidSetup):
        GameState.new(S, Variant(), HYW)
    with pytest.raises(errors.InvalidSetup):
        GameState.new(S, NO_TACTICS, HYW)


def test_hundred_years_war_deals_four_battlefields_each_and_one_between_the_decks() -> None:
    game, _ = hyw_dealt(first=N)
    field = game.battlefield
    assert field is not None and not field.stack
    assert len(field.choosing_of(N)) == len(field.choosing_of(S)) == 4
    assert field.middle is not None
    assert game.phase is Phase.DRAFT and game.player is N  # the first player picks first
    assert all(f.terrain is None for f in game.position.flags)
    assert card_count_ok(game)


def test_the_draft_picks_one_and_passes_the_rest_until_both_hold_four() -> None:
    game, _ = hyw_dealt(first=S)
    field = game.battlefield
    assert field is not None
    south_first, north_first = field.choosing_of(S), field.choosing_of(N)
    not_mine = north_first[0]
    assert_rejected(game, Pick(not_mine), errors.NotInDraft)
    game = game.apply(Pick(south_first[0]))
    assert game.player is N and game.phase is Phase.DRAFT
    game = game.apply(Pick(north_first[0]))
    field = game.battlefield
    assert field is not None
    # The rest has been passed across: south now chooses from north's other three.
    assert field.choosing_of(S) == north_first[1:] and field.choosing_of(N) == south_first[1:]
    assert game.player is S
    picks = 2
    while game.phase is Phase.DRAFT:
        options = game.legal_actions()
        assert all(isinstance(a, Pick) for a in options)
        game = game.apply(options[-1])
        picks += 1
        assert card_count_ok(game)
    assert picks == 6  # three picks each; the last card passed is simply kept
    field = game.battlefield
    assert field is not None
    assert len(field.kept_of(S)) == len(field.kept_of(N)) == 4
    assert south_first[0] in field.kept_of(S) and north_first[0] in field.kept_of(N)
    assert game.phase is Phase.PLACE and game.player is N  # the non-first player places first


def drafted(first: Player = S) -> GameState:
    game, _ = hyw_dealt(first)
    while game.phase is Phase.DRAFT:
        game = game.apply(game.legal_actions()[0])
    return game


def test_placement_alternates_text_up_or_down_and_the_middle_card_comes_last() -> None:
    game = drafted(first=S)
    field = game.battlefield
    assert field is not None
    middle = field.middle
    assert middle is not None
    norths, souths = field.kept_of(N), field.kept_of(S)
    assert_rejected(game, Place(souths[0], 0, True), errors.NotYourBattlefield)
    assert_rejected(game, Place(middle, 0, True), errors.NotYourBattlefield)
    assert_rejected(game, Place(norths[0], 9, True), errors.NoSuchFlag)
    assert_rejected(game, Pick(norths[0]), errors.WrongPhase)
    assert len(game.legal_actions()) == 4 * 9 * 2
    game = game.apply(Place(norths[0], 4, up=True))
    assert game.position.flags[4].terrain is norths[0] and game.player is S
    assert_rejected(game, Place(souths[0], 4, True), errors.BattlefieldTaken)
    game = game.apply(Place(souths[0], 0, up=False))
    assert game.position.flags[0].terrain is None  # text-down: a plain flag
    assert card_count_ok(game)
    for n, s in zip(norths[1:], souths[1:], strict=True):
        for player, terrain in ((N, n), (S, s)):
            assert game.player is player and game.battlefield is not None
            game = game.apply(Place(terrain, game.battlefield.free_places()[0], up=True))
    assert game.player is N  # the ninth placement: the card between the decks, one place left
    assert game.battlefield is not None
    last = game.battlefield.free_places()
    assert len(last) == 1
    assert set(game.legal_actions()) == {
        Place(middle, last[0], True),
        Place(middle, last[0], False),
    }
    game = game.apply(Place(middle, last[0], up=True))
    assert game.phase is Phase.DEAL and game.player is S
    assert card_count_ok(game)
    assert game.battlefield is not None
    for placed, f in zip(game.battlefield.line, game.position.flags, strict=True):
        assert placed is not None
        assert f.terrain is (placed.terrain if placed.up else None)
        fortified = placed.up and placed.terrain in (Terrain.CASTLE, Terrain.FORTRESS)
        assert f.defender is (placed.by if fortified else None)  # its placer defends it


def test_hundred_years_war_opening_hands_hold_the_king_and_six_troops() -> None:
    game, dealer = hyw_dealt(first=N, seed=8)
    while game.phase in (Phase.DRAFT, Phase.PLACE):
        game = game.apply(game.legal_actions()[-1])
    game = reveal(game, dealer)
    assert game.phase is Phase.PLAY and game.player is N
    for player, king in ((S, Tactic.ALEXANDER), (N, Tactic.DARIUS)):
        hand = game.hand(player)
        assert len(hand) == 7 and king in hand
        assert sum(isinstance(x, Troop) for x in hand) == 6
    assert len(game.troop_deck) == 48 and len(game.tactic_deck) == 8
    assert card_count_ok(game)


# ----------------------------------------------------------------- Marshes
MARSH = flag(north="R1 O2 Y4", south="G8 G9 G10", terrain=Terrain.MARSHES)  # south claims it


def test_claiming_marshes_makes_the_loser_discard_a_troop_then_the_turn_resumes() -> None:
    table = {
        1: MARSH,
        2: flag(north="B5 AL", south="P3"),
        3: flag(north="B7 B8 B9", south="P7 P8 P9", claimed_by=S),
        4: flag(south="O9"),
    }
    game = state(south_hand="R10", flags=table, variant=TERRAIN)
    game = game.apply(Claim(0))
    assert game.phase is Phase.TERRAIN and game.player is N  # the loser decides
    # Troops only, from unclaimed flags only: not the leader, not the claimed flag's cards.
    assert set(game.legal_actions()) == {Discard(1, c("B5"))}
    assert_rejected(game, Discard(1, Tactic.ALEXANDER), errors.MarshesDiscard)
    assert_rejected(game, Discard(2, c("B7")), errors.MarshesDiscard)
    assert_rejected(game, Discard(3, c("O9")), errors.MarshesDiscard)  # south's, not the loser's
    assert_rejected(game, Remove(1, c("B5")), errors.WrongPhase)
    assert_rejected(game, Play(c("R10"), 3), errors.WrongPhase)
    assert_rejected(game, Claim(3), errors.ClaimNotAllowed)
    assert_rejected(game, Pass(), errors.WrongPhase)
    game = game.apply(Discard(1, c("B5")))
    assert game.position.flags[1].north == (Tactic.ALEXANDER,)
    assert game.position.discards == cards("B5")
    assert game.phase is Phase.PLAY and game.player is S  # south's turn goes on
    assert card_count_ok(game)
    assert Play(c("R10"), 3) in game.legal_actions()


def test_marshes_with_no_troop_to_discard_is_skipped() -> None:
    table = {1: MARSH, 2: flag(north="AL")}
    game = state(south_hand="R10", flags=table, variant=TERRAIN).apply(Claim(0))
    assert game.phase is Phase.PLAY and game.player is S and game.effect is None


def test_a_claim_that_wins_the_game_ends_it_without_the_terrain_effect() -> None:
    table = {
        1: MARSH,
        2: flag(north="B1", south="P7 P8 P9", claimed_by=S),
        3: flag(south="O7 O8 O9", claimed_by=S),
    }
    game = state(flags=table, variant=TERRAIN).apply(Claim(0))
    assert game.is_over and game.outcome is not None and game.outcome.winner is S
    assert game.position.flags[1].north == cards("B1")


def test_marshes_discard_makes_a_complete_side_incomplete_again() -> None:
    table = {1: MARSH, 2: flag(north="B5 B6 B7", south="P1 P2 P3")}
    game = state(flags=table, variant=TERRAIN, phase=Phase.DRAW).apply(Claim(0))
    assert game.position.flags[1].north_completed is not None
    game = game.apply(Discard(1, c("B6")))
    assert game.position.flags[1].north_completed is None
    assert game.phase is Phase.DRAW and game.legal_actions()[-1] == Draw(DeckKind.TACTIC)


# ----------------------------------------------------------------- Watchtower
TOWER = flag(north="R1 O2 Y4", south="G8 G9 G10", terrain=Terrain.WATCHTOWER)


def test_watchtower_removes_an_opponent_troop_from_an_adjacent_unclaimed_flag() -> None:
    table = {
        4: flag(north="B3 CC", south="P3"),
        5: TOWER,
        6: flag(north="B6", south="P6"),
        7: flag(north="B9"),
    }
    game = state(flags=table, variant=TERRAIN).apply(Claim(4))
    assert game.phase is Phase.TERRAIN and game.player is S  # the claimant decides
    assert set(game.legal_actions()) == {Remove(3, c("B3")), Remove(5, c("B6"))}
    assert_rejected(game, Remove(6, c("B9")), errors.WatchtowerTarget)  # not adjacent
    assert_rejected(game, Remove(3, Tactic.COMPANION_CAVALRY), errors.WatchtowerTarget)
    assert_rejected(game, Remove(5, c("P6")), errors.WatchtowerTarget)  # own troop
    assert_rejected(game, Remove(9, c("B6")), errors.NoSuchFlag)
    assert_rejected(game, Discard(5, c("B6")), errors.WrongPhase)
    game = game.apply(Remove(5, c("B6")))
    assert game.position.flags[5].north == () and game.position.discards == cards("B6")
    assert game.phase is Phase.PLAY and game.player is S
    assert card_count_ok(game)


def test_the_town_is_not_adjacent_to_the_watchtower() -> None:
    table = {
        1: flag(north="B2", south="P2", terrain=Terrain.TOWN),
        2: TOWER,
        3: flag(north="B3", south="P3", claimed_by=N),
    }
    game = state(flags=table, variant=TERRAIN).apply(Claim(1))
    assert game.phase is Phase.PLAY and game.effect is None  # no target: skipped
    assert game.position.flags[0].north == cards("B2")


# ----------------------------------------------------------------- Fields
FIELDS = flag(north="R1 O2 Y4", south="G8 G9 G10", terrain=Terrain.FIELDS)


def test_fields_draws_three_troops_then_two_go_back_on_top_of_the_troop_deck() -> None:
    hand = "R7 R8 B1 B2 B3 MUD"  # after playing: six cards
    game = state(south_hand=hand, flags={1: FIELDS}, variant=TERRAIN, phase=Phase.DRAW)
    game = game.apply(Claim(0))
    assert game.phase is Phase.TERRAIN and game.player is S
    drawn = []
    for _ in range(3):
        outcomes = game.chance_outcomes()
        assert outcomes and all(isinstance(x, Troop) for x in outcomes)  # the troop deck only
        assert_rejected(game, ScoutReturn(c("R7")), errors.WrongPhase)
        game = game.apply(Chance(outcomes[0]))
        drawn.append(outcomes[0])
    assert len(game.hand(S)) == 9 and not game.chance_outcomes()
    assert set(game.legal_actions()) == {ScoutReturn(x) for x in game.hand(S) if x != Tactic.MUD}
    assert_rejected(game, ScoutReturn(Tactic.MUD), errors.FieldsReturn)
    assert_rejected(game, ScoutReturn(c("P10")), errors.CardNotInHand)
    assert_rejected(game, Discard(1, c("R1")), errors.WrongPhase)
    game = game.apply(ScoutReturn(c("B1"))).apply(ScoutReturn(drawn[0]))
    assert game.troop_deck.top == (c("B1"), drawn[0])  # the last one put back is on top
    assert len(game.hand(S)) == 7
    # Back in the draw step with a full hand: nothing to draw, the turn just ends.
    assert game.phase is Phase.DRAW and game.player is S
    assert game.legal_actions() == [EndTurn()]
    assert_rejected(game, Draw(DeckKind.TROOP), errors.WrongPhase)
    assert card_count_ok(game)
    game = game.apply(EndTurn())
    assert game.player is N and game.phase is Phase.PLAY


def test_fields_claimed_before_playing_leaves_eight_and_the_turn_draws_nothing() -> None:
    hand = "R7 R8 B1 B2 B3 B4 B5"
    game = state(south_hand=hand, flags={1: FIELDS}, variant=NO_TACTICS)
    game = game.apply(Claim(0))
    game = reveal(game, Dealer(1))
    game = game.apply(ScoutReturn(c("B1"))).apply(ScoutReturn(c("B2")))
    assert game.phase is Phase.PLAY and len(game.hand(S)) == 8
    game = game.apply(Play(c("R8"), 4))
    assert game.phase is Phase.DRAW and game.legal_actions() == [EndTurn()]
    assert_rejected(game, Draw(DeckKind.TROOP), errors.WrongPhase)


def test_fields_draws_known_cards_put_back_first_and_the_short_deck_keeps_one() -> None:
    # Two troops left, one of them known on top: draw both, put back one.
    table = {1: FIELDS, 2: flag()}
    game = state(south_hand="R7", flags=table, variant=NO_TACTICS, empty_decks=True)
    game = game_with_troops(game, top=("B5",), rest=("P5",))
    assert card_count_ok(game)
    game = game.apply(Claim(0))
    assert game.chance_outcomes() == (c("P5"),)  # B5 came without a chance event
    game = game.apply(Chance(c("P5")))
    assert set(game.hand(S)) == set(cards("R7 B5 P5"))
    game = game.apply(ScoutReturn(c("R7")))
    assert game.phase is Phase.PLAY and game.troop_deck.top == cards("R7")
    assert len(game.hand(S)) == 2 and card_count_ok(game)


def test_fields_with_an_empty_troop_deck_is_skipped() -> None:
    game = state(south_hand="R7", flags={1: FIELDS}, variant=NO_TACTICS, empty_decks=True)
    game = game.apply(Claim(0))
    assert game.phase is Phase.PLAY and game.effect is None and game.hand(S) == cards("R7")


def game_with_troops(game: GameState, *, top: tuple[str, ...], rest: tuple[str, ...]) -> GameState:
    """``game`` with only these troops in the deck; every other unplaced troop discarded."""
    deck = Deck(top=cards(" ".join(top)), rest=frozenset(cards(" ".join(rest))))
    placed = {*game.position.cards_on_table(), *game.hands[0], *game.hands[1], *deck.cards()}
    spare = tuple(t for t in TROOPS if t not in placed)
    position = replace(game.position, discards=(*game.position.discards, *spare))
    return replace(game, troop_deck=deck, table=replace(game.table, position=position))


# ----------------------------------------------------------------- terrain adjudication in play
def test_claims_at_terrain_flags_use_the_terrain_rules() -> None:
    hills = flag(north="R6 O8 Y10", south="G1 B3 P5", terrain=Terrain.HILLS)
    plain = flag(north="R7 O9 Y4", south="G2 B6 P4")
    game = state(flags={1: hills, 2: plain}, variant=TERRAIN)
    claims = [a for a in game.legal_actions() if isinstance(a, Claim)]
    assert claims == [Claim(0)]  # low cards win on the Hills only
    assert_rejected(game, Claim(1), errors.ClaimRefused)


def test_the_castle_defender_plays_one_card_more() -> None:
    castle = flag(north="R5 R6 R7", south="B8 B9", terrain=Terrain.CASTLE, defender=S)
    game = state(south_hand="B10 P10", flags={1: castle}, variant=TERRAIN)
    assert Play(c("B10"), 0) in game.legal_actions()
    game = game.apply(Play(c("B10"), 0))
    castle = game.position.flags[0]
    assert castle.free_slots(S) == 1 and not castle.is_complete(S)  # three, plus one ignored
    assert castle.free_slots(N) == 0


# ----------------------------------------------------------------- notation and records
@pytest.mark.parametrize(
    "text",
    [
        "deal CASTLE",
        "pick TOWN",
        "place HILLS@7 down",
        "place FORTRESS@1 up",
        "discard R7@3",
        "remove B4@2",
        "return G5",
    ],
)
def test_terrain_action_notation_round_trips(text: str) -> None:
    action = parse_action(text)
    assert action.notation() == text
    assert parse_action(text.lower()) == action


@pytest.mark.parametrize(
    "text", ["pick R7", "place CASTLE@3", "place CASTLE@3 sideways", "discard CASTLE@3", "deal X9"]
)
def test_bad_terrain_action_text_is_a_notation_error(text: str) -> None:
    with pytest.raises(NotationError):
        parse_action(text)


@pytest.mark.parametrize(("setup", "seed"), [(Setup.STANDARD, 5), (HYW, 6)])
def test_a_terrain_game_record_round_trips_and_replays(setup: Setup, seed: int) -> None:
    variant = TERRAIN if setup is HYW else NO_TACTICS
    record, game, dealer = (
        GameRecord(N, variant, setup=setup),
        GameState.new(N, variant, setup),
        Dealer(seed),
    )
    bot = ClaimingBot(seed)
    kinds: set[type] = set()
    while not game.is_over:
        action = dealer.reveal(game) if game.chance_outcomes() else bot.choose(game)
        kinds.add(type(action))
        game = game.apply(action)
        record = record.with_action(action)
    text = record.text()
    assert '[Terrain "true"]' in text and f'[Setup "{setup.value}"]' in text
    again = parse_record(text)
    assert again == record and again.replay() == game
    if setup is HYW:
        assert {Pick, Place} <= kinds


def test_record_headers_for_terrain_are_checked() -> None:
    base = '[Format "battleline-record/1"]\n'
    with pytest.raises(NotationError, match="Setup"):
        parse_record(base + '[Setup "hundred-years-war"]\n')  # without terrain
    with pytest.raises(NotationError, match="Setup"):
        parse_record(base + '[Terrain "true"]\n[Setup "crusade"]\n')
    with pytest.raises(NotationError, match="Terrain"):
        parse_record(base + '[Terrain "yes"]\n')
    old = parse_record(base + "deal R1\n")  # a record from before terrain
    assert old.setup is Setup.STANDARD and not old.variant.terrain


# ----------------------------------------------------------------- legal actions are exact
def _expected_error(game: GameState, action: Action) -> type[errors.IllegalAction]:
    """The rule an illegal set-up or terrain decision breaks, by the step the game is in."""
    effect = game.effect
    if isinstance(action, Pick):
        return errors.NotInDraft if game.phase is Phase.DRAFT else errors.WrongPhase
    if isinstance(action, Place):
        if game.phase is not Phase.PLACE:
            return errors.WrongPhase
        assert game.battlefield is not None
        if action.terrain not in game.battlefield.to_place(game.player):
            return errors.NotYourBattlefield
        return errors.BattlefieldTaken
    if isinstance(action, Discard):
        marshes = effect is not None and effect.terrain is Terrain.MARSHES
        return errors.MarshesDiscard if marshes else errors.WrongPhase
    if isinstance(action, Remove):
        tower = effect is not None and effect.terrain is Terrain.WATCHTOWER
        return errors.WatchtowerTarget if tower else errors.WrongPhase
    assert isinstance(action, ScoutReturn)
    if effect is None or effect.terrain is not Terrain.FIELDS:
        return errors.WrongPhase
    in_hand = action.card in game.hand(game.player)
    return errors.FieldsReturn if in_hand else errors.CardNotInHand


def _every_decision(game: GameState) -> list[Action]:
    everything = [*TROOPS, *TACTICS]
    actions: list[Action] = [Pick(t) for t in Terrain]
    actions += [Place(t, i, up) for t in Terrain for i in range(9) for up in (True, False)]
    actions += [Discard(i, x) for i in range(9) for x in everything]
    actions += [Remove(i, x) for i in range(9) for x in everything]
    actions += [ScoutReturn(x) for x in everything]
    return actions


ALL_EFFECTS = {Terrain.MARSHES, Terrain.WATCHTOWER, Terrain.FIELDS}


@pytest.mark.parametrize(
    ("setup", "seed", "effects"),
    [
        (Setup.STANDARD, 20, ALL_EFFECTS),
        (HYW, 32, {Terrain.WATCHTOWER, Terrain.FIELDS}),
        (HYW, 23, {Terrain.MARSHES}),
    ],
)
def test_every_setup_and_terrain_decision_is_legal_exactly_when_listed(
    setup: Setup, seed: int, effects: set[Terrain]
) -> None:
    variant = TERRAIN if setup is HYW else NO_TACTICS
    game, dealer, bot = GameState.new(S, variant, setup), Dealer(seed), ClaimingBot(seed)
    phases: set[Phase] = set()
    seen: set[Terrain] = set()
    while not game.is_over:
        if game.chance_outcomes():
            game = game.apply(dealer.reveal(game))
            continue
        legal = game.legal_actions()
        if game.phase in (Phase.DRAFT, Phase.PLACE, Phase.TERRAIN):
            phases.add(game.phase)
            if game.effect is not None:
                seen.add(game.effect.terrain)
            for action in _every_decision(game):
                if action in legal:
                    game.apply(action)  # accepted
                else:
                    with pytest.raises(_expected_error(game, action)):
                        game.apply(action)
        game = game.apply(bot.choose_from(legal))
    assert seen == effects  # the seed's game meets these effects (so they are checked)
    assert (Phase.DRAFT in phases) is (setup is HYW)


def test_the_accounting_notices_a_battlefield_card_lost_doubled_or_shown_wrongly() -> None:
    game = reveal(GameState.new(S, NO_TACTICS), Dealer(7))
    assert game.battlefield is not None and card_count_ok(game)
    line = list(game.battlefield.line)
    first, second = line[0], line[1]
    assert first is not None and second is not None
    doubled = replace(game.battlefield, line=(first, first, *line[2:]))
    lost = replace(game.battlefield, line=(None, *line[1:]))
    hidden = replace(game.battlefield, line=(replace(first, up=False), *line[1:]))
    for field in (doubled, lost, hidden):
        assert not card_count_ok(replace(game, battlefield=field))
