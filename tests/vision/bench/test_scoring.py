"""The benches' arithmetic: what counts as right, wrong and how sure."""

import pytest

from vision.bench.scoring import Tally, offers, outcomes, reliability, score
from vision.position import UNKNOWN


def test_a_card_named_in_a_zone_that_does_not_hold_it_is_confidently_wrong():
    truth = {"flag1.south": ["R7", "B3"], "flag2.north": ["Y1"]}
    got = {"flag1.south": ["R7", "unknown"], "flag2.north": ["Y1", "G5"]}
    cards, right, wrong, phantom = score(truth, got)
    assert (cards, right, wrong, phantom) == (3, 2, 1, 1)


def test_one_card_read_twice_counts_once_right():
    named = outcomes({"flag1.south": ["R7"]},
                     [("flag1.south", "R7", 0.9), ("flag1.south", "R7", 0.6),
                      ("flag1.south", "unknown", 0.1)])
    assert named == [(0.9, True), (0.6, False)]


def test_reliability_gives_the_share_right_at_each_level():
    named = [(0.95, True), (0.9, True), (0.7, False), (0.55, True)]
    rows = {r["min_confidence"]: r for r in reliability(named, (0.5, 0.75))}
    assert rows[0.5] == {"min_confidence": 0.5, "named": 4, "wrong": 1, "share_right": 0.75}
    assert rows[0.75] == {"min_confidence": 0.75, "named": 2, "wrong": 0, "share_right": 1.0}


def test_an_offer_is_right_while_its_zone_holds_the_card_not_named_there():
    truth = {"a": ["R7", "R8"], "b": ["B3"]}
    got = {"a": ["R7", UNKNOWN], "b": [UNKNOWN]}
    # R8 is the asked card; R7, named at a already, is offered wrongly at b.
    assert offers(truth, got, {"a": [None, "R8"], "b": ["R7"]}) == (2, 1)
    # An offer of the card a read named there already is no second card.
    assert offers(truth, got, {"a": [None, "R7"], "b": [None]}) == (1, 0)
    assert offers(truth, got, {"a": [None, None]}) == (0, 0)


def test_the_enrolment_figures_are_over_every_design_added():
    a = Tally(colour_errors=[1.0, 2.0], outline_offs=[0.1, 0.2])
    b = Tally(colour_errors=[9.0], outline_offs=[2.0])
    a.add(b)
    figures = a.figures()
    assert figures["enrol_colour_error_median"] == 2.0
    assert figures["enrol_outline_off_mm_p90"] == pytest.approx(1.64)
    assert Tally().figures()["enrol_colour_error_median"] is None  # a deck not enrolled
