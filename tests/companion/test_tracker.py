"""The tracker: snapshots to events, what it refuses to explain, and how play goes on."""

from __future__ import annotations

import pytest

from companion.rules.actions import Betray, Claim, Desert, Play, Redeploy, Scout
from companion.rules.battlefield import Setup
from companion.rules.cards import Tactic, parse_card, parse_terrain
from companion.rules.claims import Reason
from companion.rules.errors import IllegalAction
from companion.rules.position import Player, Variant
from companion.snapshot import Reading, Snapshot, snapshot_of
from companion.tracker import Issue, IssueKind, Tracker

N, S = Player.NORTH, Player.SOUTH


def play_through(tracker: Tracker, *tables: dict[str, list[str]]) -> None:
    """Show each table in turn; each must be exactly one legal event."""
    for zones in tables:
        events = tracker.observe(snapshot_of(zones))
        assert len(events) == 1, tracker.issues


def test_a_card_laid_is_a_play_by_that_side_at_that_flag() -> None:
    t = Tracker(first=S)
    [event] = t.observe(snapshot_of({"flag3.south": ["R7"]}))
    assert (event.player, event.action) == (S, Play(parse_card("R7"), 2))
    assert t.position.flags[2].south == (parse_card("R7"),)
    assert t.state.to_move is N
    # The same table again is no new event.
    assert t.observe(snapshot_of({"flag3.south": ["R7"]})) == []


def test_two_cards_at_once_is_attention_until_one_is_taken_back() -> None:
    t = Tracker(first=S)
    play_through(t, {"flag3.south": ["R7"]})
    assert t.observe(snapshot_of({"flag3.south": ["R7"], "flag5.north": ["B2"], "flag6.north": ["B3"]})) == []
    flags = {i.flag for i in t.issues}
    assert flags == {4, 5} and all(i.kind is IssueKind.ATTENTION for i in t.issues)
    assert "two cards at once" in t.issues[0].message
    assert "B2" in t.issues[0].message and "B3" in t.issues[0].message
    # North takes B3 back: the table now shows one legal play, and tracking goes on.
    [event] = t.observe(snapshot_of({"flag3.south": ["R7"], "flag5.north": ["B2"]}))
    assert event.describe() == "north B2@5"
    assert t.settled


def test_a_vanished_card_is_attention_and_putting_it_back_clears_it() -> None:
    t = Tracker(first=S)
    play_through(t, {"flag3.south": ["R7"]}, {"flag3.south": ["R7"], "flag3.north": ["B2"]})
    assert t.observe(snapshot_of({"flag3.north": ["B2"]})) == []
    assert [i.flag for i in t.issues] == [2]
    assert "R7 vanished from south's side of flag 3" in t.issues[0].message
    assert t.observe(snapshot_of({"flag3.north": ["B2"], "flag3.south": ["R7"]})) == []
    assert t.settled


def test_a_card_added_at_a_claimed_flag_is_attention() -> None:
    t = Tracker(first=S)
    play_through(
        t,
        {"flag1.south": ["R8"]},
        {"flag1.south": ["R8"], "flag1.north": ["B1"]},
        {"flag1.south": ["R8", "R9"], "flag1.north": ["B1"]},
        {"flag1.south": ["R8", "R9"], "flag1.north": ["B1", "B2"]},
        {"flag1.south": ["R8", "R9", "R10"], "flag1.north": ["B1", "B2"]},
    )
    result = t.claim(0, S)
    assert result.event is not None and result.ruling is not None
    assert result.ruling.reason is Reason.UNBEATABLE
    zones = {"flag1.south": ["R8", "R9", "R10"], "flag1.north": ["B1", "B2", "B3"]}
    assert t.observe(snapshot_of(zones)) == []
    [issue] = t.issues
    assert issue.flag == 0 and issue.kind is IssueKind.ATTENTION
    assert "claimed" in issue.message


def test_the_tactics_limit_and_a_second_leader_are_attention() -> None:
    t = Tracker(first=S)
    play_through(t, {"flag1.south": ["AL"]})
    # North answers with a troop; south may not play a second tactic while ahead.
    play_through(t, {"flag1.south": ["AL"], "flag2.north": ["B5"]})
    assert t.observe(snapshot_of({"flag1.south": ["AL"], "flag2.north": ["B5"],
                                  "flag4.south.env": ["FOG"]})) == []
    assert "tactics limit" in t.issues[0].message and t.issues[0].flag == 3
    play_through(t, {"flag1.south": ["AL"], "flag2.north": ["B5"], "flag3.south": ["G1"]})
    play_through(t, {"flag1.south": ["AL"], "flag2.north": ["B5", "CC"], "flag3.south": ["G1"]})
    # South, level on tactics now, tries the second leader.
    zones = {"flag1.south": ["AL"], "flag2.north": ["B5", "CC"], "flag3.south": ["G1", "DA"]}
    assert t.observe(snapshot_of(zones)) == []
    assert "already played a leader" in t.issues[0].message and t.issues[0].flag == 2


def test_playing_out_of_turn_is_attention() -> None:
    t = Tracker(first=S)
    assert t.observe(snapshot_of({"flag1.north": ["R1"]})) == []
    assert "south's turn" in t.issues[0].message


def test_an_unsure_reading_is_never_guessed_at() -> None:
    t = Tracker(first=S)
    unsure = Snapshot({"flag2.south": (Reading("G4", 0.4),)})
    assert t.observe(unsure) == []
    [issue] = t.issues
    assert issue.kind is IssueKind.UNCERTAIN and issue.flag == 1
    assert t.claim(1, S).event is None  # no ruling while the table is not settled
    [event] = t.confirm(1)
    assert event.describe() == "south G4@2"
    # A card read "unknown" needs a correction: confirm cannot guess it.
    assert t.observe(Snapshot({"flag2.south": (Reading("G4"),), "flag7.north": (Reading("unknown", 0.0),)})) == []
    assert t.confirm(6) == [] and t.issues[0].kind is IssueKind.UNCERTAIN
    [event] = t.correct("flag7.north", ["Y3"])
    assert event.describe() == "north Y3@7"


def _unread_at_flag3(guess: str) -> tuple[Tracker, Issue]:
    """South's R7 at flag 3 and north's B2 at flag 1 recorded, then a second card at
    flag 3 the camera could not name but guessed ``guess``: the tracker and its issue."""
    t = Tracker(first=S)
    play_through(t, {"flag3.south": ["R7"]}, {"flag3.south": ["R7"], "flag1.north": ["B2"]})
    assert t.observe(Snapshot({
        "flag3.south": (Reading("R7"), Reading("unknown", 0.0, guess=guess)),
        "flag1.north": (Reading("B2"),)})) == []
    [issue] = t.issues
    return t, issue


def test_a_card_the_camera_only_guessed_is_named_and_confirm_takes_the_guess() -> None:
    t, issue = _unread_at_flag3("Y5")
    assert issue.kind is IssueKind.UNCERTAIN and issue.flag == 2
    assert "the camera guesses R7 Y5" in issue.message
    [event] = t.confirm(2)
    assert event.describe() == "south Y5@3"
    assert t.state.zones["flag3.south"] == ("R7", "Y5")


def test_a_guess_of_a_card_recorded_elsewhere_is_not_offered_nor_confirmed() -> None:
    # The camera guesses B2, which the record holds at flag 1: a card lies in one place.
    t, issue = _unread_at_flag3("B2")
    assert "guesses" not in issue.message and "confirm or correct" in issue.message
    assert t.confirm(2) == [] and t.issues[0].kind is IssueKind.UNCERTAIN
    assert t.state.zones["flag3.south"] == ("R7",)


def test_the_guesses_a_person_may_take_are_told_card_by_card() -> None:
    t, _issue = _unread_at_flag3("Y5")
    assert t.guesses("flag3.south") == (None, "Y5")  # R7 was read: nothing to guess
    t, _issue = _unread_at_flag3("B2")  # held at flag 1
    assert t.guesses("flag3.south") == (None, None)
    # One card guessed for two unread cards lies in one place: neither guess is taken.
    assert t.observe(Snapshot({
        "flag3.south": (Reading("R7"), Reading("unknown", 0.0, guess="Y5"),
                        Reading("unknown", 0.0, guess="Y5")),
        "flag1.north": (Reading("B2"),)})) == []
    assert t.guesses("flag3.south") == (None, None, None)
    assert "guesses" not in t.issues[0].message and t.confirm(2) == []
    assert t.guesses("flag8.north") == ()


def test_a_guess_of_a_card_read_by_name_in_the_same_zone_is_not_offered() -> None:
    # R7 is read clearly at flag 3; a second card there guessed R7 cannot be it.
    t, issue = _unread_at_flag3("R7")
    assert t.guesses("flag3.south") == (None, None)
    assert "guesses" not in issue.message
    assert t.confirm(2) == [] and t.state.zones["flag3.south"] == ("R7",)


def test_an_unsure_reading_of_a_known_card_needs_nothing() -> None:
    t = Tracker(first=S)
    play_through(t, {"flag2.south": ["G4"]})
    same = Snapshot({"flag2.south": (Reading("unknown", 0.1),)})
    assert t.observe(same) == [] and t.settled


def test_a_card_laid_on_cards_read_unsure_now_they_are_covered_is_played() -> None:
    t = Tracker(first=S)
    play_through(t, {"flag1.south": ["R1"]}, {"flag1.south": ["R1"], "flag1.north": ["B2"]},
                 {"flag1.south": ["R1", "R3"], "flag1.north": ["B2"]},
                 {"flag1.south": ["R1", "R3"], "flag1.north": ["B2", "B9"]})
    # South lays R2 on R1 and R3: only its band shows of each, read unsure now.
    laid = Snapshot({"flag1.south": (Reading("unknown", 0.0), Reading("R3", 0.5), Reading("R2")),
                     "flag1.north": (Reading("B2"), Reading("B9"))})
    [event] = t.observe(laid)
    assert event.describe() == "south R2@1" and t.settled
    assert t.state.zones["flag1.south"] == ("R1", "R3", "R2")


def test_a_card_laid_is_asked_about_unless_it_is_the_one_read_surely_on_top() -> None:
    t = Tracker(first=S)
    play_through(t, {"flag1.south": ["R1"]}, {"flag1.south": ["R1"], "flag1.north": ["B2"]})
    # The new card itself unsure: what was laid is not known.
    new_unsure = Snapshot({"flag1.south": (Reading("R1"), Reading("R2", 0.5)),
                           "flag1.north": (Reading("B2"),)})
    assert t.observe(new_unsure) == []
    assert [i.kind for i in t.issues] == [IssueKind.UNCERTAIN]
    # A card read surely under one read unsure: not a card laid on top.
    under = Snapshot({"flag1.south": (Reading("R2"), Reading("unknown", 0.0)),
                      "flag1.north": (Reading("B2"),)})
    assert t.observe(under) == [] and [i.kind for i in t.issues] == [IssueKind.UNCERTAIN]
    # Two cards more than believed: asked.
    two = Snapshot({"flag1.south": (Reading("unknown", 0.0), Reading("R2"), Reading("R3")),
                    "flag1.north": (Reading("B2"),)})
    assert t.observe(two) == [] and not t.settled
    assert t.events[-1].describe() == "north B2@1"


def test_guile_moves_are_inferred_from_the_cards_that_moved() -> None:
    t = Tracker(first=S)
    play_through(
        t,
        {"flag1.south": ["R1"]},
        {"flag1.south": ["R1"], "flag2.north": ["B2"]},
    )
    # Redeploy: the guile card is down, the moved card not yet placed: waiting.
    half = {"flag2.north": ["B2"], "south.guile": ["REDEPLOY"]}
    assert t.observe(snapshot_of(half)) == []
    assert t.issues[0].kind is IssueKind.WAITING
    [event] = t.observe(snapshot_of({**half, "flag4.south": ["R1"]}))
    assert event.action == Redeploy(0, parse_card("R1"), 3) and event.player is S
    # Deserter: north discards south's R1 onto a discard pile.
    zones = {"flag2.north": ["B2"], "south.guile": ["REDEPLOY"], "north.guile": ["DESERTER"],
             "north.discard": ["R1"]}
    [event] = t.observe(snapshot_of(zones))
    assert event.action == Desert(3, parse_card("R1")) and event.pile == "north.discard"
    # Traitor: south takes north's B2 to its own side of flag 9.
    zones = {"south.guile": ["REDEPLOY", "TRAITOR"], "north.guile": ["DESERTER"],
             "north.discard": ["R1"], "flag9.south": ["B2"]}
    [event] = t.observe(snapshot_of(zones))
    assert event.action == Betray(1, parse_card("B2"), 8)
    # Scout: only the card in the guile area.
    zones["north.guile"] = ["DESERTER", "SCOUT"]
    [event] = t.observe(snapshot_of(zones))
    assert event.action == Scout() and event.player is N
    assert t.table.tactics_played == (2, 2)
    # A moved card without a guile card is attention.
    zones2 = {**zones, "flag9.south": [], "flag8.south": ["B2"]}
    assert t.observe(snapshot_of(zones2)) == []
    assert "without Redeploy or Traitor" in t.issues[0].message


def test_claims_rule_with_reason_and_counterexample_and_advanced_timing() -> None:
    t = Tracker(variant=Variant(claim_timing="advanced"), first=S)
    play_through(
        t,
        {"flag1.south": ["R1"]},
        {"flag1.south": ["R1"], "flag1.north": ["B2"]},
        {"flag1.south": ["R1", "R2"], "flag1.north": ["B2"]},
        {"flag1.south": ["R1", "R2"], "flag1.north": ["B2", "B3"]},
        {"flag1.south": ["R1", "R2", "R3"], "flag1.north": ["B2", "B3"]},
    )
    # South just played: under the advanced timing only north (to move) may claim.
    assert "advanced claim timing" in t.claim(0, S).message
    refused = t.claim(0, N)
    assert refused.ruling is not None and refused.ruling.reason is Reason.INCOMPLETE
    play_through(t, {"flag1.south": ["R1", "R2", "R3"], "flag1.north": ["B2", "B3", "Y9"],
                     "flag2.south": []})
    result = t.claim(0, S)  # south to move now: R1-R2-R3 wedge vs north's host
    assert result.event is not None and "granted" in result.message
    north_try = Tracker(first=S)
    play_through(north_try, {"flag1.south": ["R5"]}, {"flag1.south": ["R5"], "flag1.north": ["B1"]},
                 {"flag1.south": ["R5", "R6"], "flag1.north": ["B1"]},
                 {"flag1.south": ["R5", "R6"], "flag1.north": ["B1", "G1"]},
                 {"flag1.south": ["R5", "R6"], "flag1.north": ["B1", "G1"], "flag2.south": ["Y2"]},
                 {"flag1.south": ["R5", "R6"], "flag1.north": ["B1", "G1", "P1"], "flag2.south": ["Y2"]})
    refusal = north_try.claim(0, N)
    assert refusal.ruling is not None and refusal.ruling.reason is Reason.BEATABLE
    assert refusal.ruling.counterexample == (parse_card("R7"),) or refusal.ruling.counterexample
    assert "could still add" in refusal.message


def test_undo_takes_back_the_last_event() -> None:
    t = Tracker(first=S)
    play_through(t, {"flag1.south": ["R1"]}, {"flag1.south": ["R1"], "flag1.north": ["B2"]})
    undone = t.undo()
    assert undone is not None and undone.action == Play(parse_card("B2"), 0)
    assert t.position.flags[0].north == () and t.state.to_move is N
    assert len(t.history) == 1


def test_passes_end_the_game_with_flags_resolved() -> None:
    t = Tracker(first=S)
    play_through(t, {"flag1.south": ["R1"]})
    t.pass_(N)
    t.pass_(S)
    assert t.outcome is not None
    assert t.events[-1].action.notation() == "pass"
    assert isinstance(t.events[0].action, Play) and not isinstance(t.events[0].action, Claim)
    assert Tactic.SCOUT not in t.table.guile[0]


def test_a_correction_stands_while_the_camera_keeps_missing_the_card() -> None:
    t = Tracker(first=S)
    play_through(t, {"flag1.south": ["R1"]}, {"flag1.south": ["R1"], "flag1.north": ["B2"]})
    # South lays R2 but the camera sees only one card at flag 1 south, unsure.
    assert t.observe(Snapshot({"flag1.south": (Reading("R1"), Reading("unknown", 0.0)),
                               "flag1.north": (Reading("B2"),)})) == []
    [event] = t.correct("flag1.south", ["R1", "R2"])
    assert event.describe() == "south R2@1"
    # Later snapshots miss R2 altogether: the correction still stands.
    missed = {"flag1.south": ["R1"], "flag1.north": ["B2"], "flag5.north": ["G7"]}
    [event] = t.observe(snapshot_of(missed))
    assert event.describe() == "north G7@5" and t.settled
    # A card read for sure in the zone that the correction does not list drops it.
    assert t.observe(snapshot_of({**missed, "flag1.south": ["R1", "Y9"]})) == []
    assert not t.settled and "flag1.south" not in t.corrections


def test_at_a_real_table_whoever_lays_the_first_card_starts() -> None:
    t = Tracker(first=S, first_known=False)
    [event] = t.observe(snapshot_of({"flag4.north": ["G2"]}))
    assert event.player is N and t.state.to_move is S
    assert t.observe(snapshot_of({"flag4.north": ["G2", "G3"]})) == []  # then turns alternate
    assert "south's turn" in t.issues[0].message


def test_a_correction_stands_while_the_same_misreading_persists() -> None:
    t = Tracker(first=S)
    play_through(t, {"flag2.south": ["Y5"]}, {"flag2.south": ["Y5"], "flag2.north": ["B1"]})
    misread = {"flag2.south": ["Y4"], "flag2.north": ["B1"]}  # Y5 read as Y4, for sure
    assert t.observe(snapshot_of(misread)) == [] and not t.settled
    assert t.correct("flag2.south", ["Y5"]) == [] and t.settled
    [event] = t.observe(snapshot_of({**misread, "flag6.south": ["R1"]}))
    assert event.describe() == "south R1@6"


def test_a_card_corrected_into_another_zone_drops_the_correction_that_listed_it() -> None:
    t = Tracker(first=S)
    play_through(t, {"flag1.south": ["R1"]}, {"flag1.south": ["R1"], "flag4.north": ["O10"]},
                 {"flag1.south": ["R1", "R2"], "flag4.north": ["O10"]})
    # North lays Y10, read unknown: corrected, so flag 4 north's correction lists Y10.
    laid = {"flag1.south": (Reading("R1"), Reading("R2")),
            "flag4.north": (Reading("O10"), Reading("unknown", 0.0))}
    assert t.observe(Snapshot(laid)) == []
    [event] = t.correct("flag4.north", ["O10", "Y10"])
    assert event.describe() == "north Y10@4"
    # South deserts Y10 onto its pile: flag 4 reads O10 alone (which fits the correction),
    # the pile reads unknown and the player corrects it. Y10 cannot lie in both zones.
    deserted = {**laid, "flag4.north": (Reading("O10"),), "south.guile": (Reading("DESERTER"),),
                "south.discard": (Reading("unknown", 0.0),)}
    assert t.observe(Snapshot(deserted)) == []
    [event] = t.correct("south.discard", ["Y10"])
    assert (event.player, event.action) == (S, Desert(3, parse_card("Y10")))
    assert event.pile == "south.discard" and "flag4.north" not in t.corrections


# ----------------------------------------------------------------- terrain
LAYOUT = ["CASTLE", "MARSHES", "RIVER", "WATCHTOWER", "TOWN", "FIELDS", "FORTRESS", "HILLS",
          "WOODLAND"]


def lay_battlefield(t: Tracker, order: list[int]) -> dict[str, list[str]]:
    """Lay the nine battlefield cards, flag by flag in ``order``; the table after."""
    zones: dict[str, list[str]] = {}
    for i in order:
        zones = {**zones, f"flag{i + 1}": [LAYOUT[i]]}
        [event] = t.observe(snapshot_of(zones))
        assert event.notation() == f"place {LAYOUT[i]}@{i + 1} up"
    return zones


def test_terrain_laid_in_the_flag_row_is_an_event_and_changes_the_flags() -> None:
    t = Tracker(Variant(terrain=True), first=S)
    zones = lay_battlefield(t, [8, 0, 1, 2, 3, 4, 5, 6, 7])  # in any order
    flags = t.position.flags
    assert [f.terrain.token for f in flags if f.terrain] == LAYOUT
    # Shuffled layout: the first player defends the Castle, the other the Fortress.
    assert flags[0].defender is S and flags[6].defender is N
    assert flags[2].size == 4  # River: four-card formations
    play_through(t, {**zones, "flag3.south": ["R7"]})
    # A battlefield card cannot be laid or swapped once play began.
    assert t.observe(snapshot_of({**zones, "flag3.south": ["R7"], "flag1": ["HILLS"]})) == []
    assert [i.flag for i in t.issues] == [0] and "battlefield" in t.issues[0].message


def test_a_card_played_before_the_battlefield_is_laid_is_attention() -> None:
    t = Tracker(Variant(terrain=True), first=S)
    [_] = t.observe(snapshot_of({"flag1": ["CASTLE"]}))
    assert t.observe(snapshot_of({"flag1": ["CASTLE"], "flag2.south": ["R7"]})) == []
    assert "1 of 9 laid" in t.issues[0].message
    assert t.observe(snapshot_of({"flag1": ["CASTLE"], "flag2": ["R7"]})) == []
    assert t.issues[0].message == (
        "R7 lies on flag 2's battlefield place: only battlefield cards go there")


def test_without_terrain_a_battlefield_card_is_attention() -> None:
    t = Tracker(first=S)
    assert t.observe(snapshot_of({"flag4": ["HILLS"]})) == []
    assert [i.flag for i in t.issues] == [3] and "terrain is not played" in t.issues[0].message


def test_when_the_table_decides_who_starts_the_defenders_follow_the_first_card() -> None:
    t = Tracker(Variant(terrain=True), first=S, first_known=False)
    zones = lay_battlefield(t, list(range(9)))
    assert t.position.flags[0].defender is None  # not known yet
    play_through(t, {**zones, "flag2.north": ["B4"]})
    assert t.position.flags[0].defender is N and t.position.flags[6].defender is S


def test_claiming_marshes_owes_a_discard_by_the_loser() -> None:
    t = Tracker(Variant(terrain=True), first=S)
    zones = lay_battlefield(t, list(range(9)))
    plays = [("flag2.south", "R10"), ("flag2.north", "B1"), ("flag2.south", "R9"),
             ("flag3.north", "B2"), ("flag2.south", "R8"), ("flag4.north", "B3")]
    for zone, card in plays:
        zones = {**zones, zone: [*zones.get(zone, []), card]}
        play_through(t, zones)
    assert t.claim(1, S).event is not None  # Marshes, flag 2
    # North (the loser) must discard a troop first: a play now is attention.
    assert t.observe(snapshot_of({**zones, "flag5.south": ["R1"]})) == []
    assert "north must discard a troop first" in t.issues[0].message
    zones = {**zones, "flag3.north": [], "north.discard": ["B2"]}
    [event] = t.observe(snapshot_of(zones))
    assert (event.player, event.notation()) == (N, "discard B2@3")
    assert t.position.discards == (parse_card("B2"),)
    play_through(t, {**zones, "flag5.south": ["R1"]})


def test_hundred_years_war_placements_alternate_and_a_text_down_card_is_said() -> None:
    t = Tracker(Variant(terrain=True), first=S, setup=Setup.HUNDRED_YEARS_WAR)
    zones: dict[str, list[str]] = {}
    for i in range(9):
        terrain = parse_terrain(LAYOUT[i])
        if i % 3 == 2:  # text-down: a plain flag the camera cannot tell from nothing
            event = t.place(i, terrain, up=False)
        else:
            zones = {**zones, f"flag{i + 1}": [LAYOUT[i]]}
            [event] = t.observe(snapshot_of(zones))
        # The second player places first, then in turn; each defends what they placed.
        assert event.player is (N if i % 2 == 0 else S)
    flags = t.position.flags
    assert flags[0].defender is N and flags[6].defender is N  # Castle, Fortress: by north
    assert flags[2].terrain is None and flags[5].terrain is None  # River, Fields text-down
    with pytest.raises(IllegalAction, match="all nine"):
        t.place(0, parse_terrain("HILLS"), up=True)
    play_through(t, {**zones, "flag3.south": ["R7"]})
    assert t.position.flags[2].size == 3  # the River lies text-down: a plain flag
