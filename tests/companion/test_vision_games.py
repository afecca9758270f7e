"""Issue point 7: 20 seeded games on the simulated table through the REAL vision path.

Rendered camera frames (a hand over the table while a card is laid, then the
still table) go through calibration, the stabiliser and the reader
(``VisionSnapshots`` over ``WorkerFrames``, which renders the next table on
the other core while this one is read), then tracker, rules and lights. The
simulated players straighten a card the companion cannot read and correct it
on the view if it still cannot, as people would; what must never happen is a
confident wrong reading. For every game: the journal equals the scripted game
event for event (positions included), every ruling the companion shows while
settled equals the engine's on the true position, and no wrong card is taken
as played.

Frames are rendered only when the table changes (the still frame is served
again in between; the frames of a hand laying a card are that photograph with
an arm drawn over it) and only changed zones are read. One game takes about
20 s of CPU on the 2-core development machine (``python -m companion.sim.simulate
--seeds 0-19`` prints each game's figures); the suite runs on both cores
(pytest-xdist), so the 21 games add about 4 minutes.
"""

from __future__ import annotations

import statistics
from pathlib import Path

import pytest

from companion.rules.position import Variant
from companion.sim.simtable import Script, script_game, seeded_script
from companion.sim.simulate import Deck, play_through_vision
from vision.deck_art import ALL_FACES, CARD_H, CARD_W
from vision.designs import design
from vision.models.learnt import with_model
from vision.profile import profile_from_cards

from .test_simulated_games import assert_journal_is_the_script

SEEDS = range(20)


@pytest.mark.slow
@pytest.mark.parametrize("seed", SEEDS)
def test_seeded_game_through_vision(tmp_path: Path, seed: int) -> None:
    script = seeded_script(seed)
    result = play_through_vision(script, tmp_path)
    report = result.report
    assert report.wrong_events == 0, report.problems  # no wrong card taken as played
    assert report.ruling_mismatches == 0, report.problems  # zero confident-wrong rulings
    assert report.ruling_checks > 100
    assert report.problems == []
    assert result.companion.outcome == script.outcome
    assert_journal_is_the_script(result.journal, script)


@pytest.mark.slow
def test_a_terrain_game_through_vision(tmp_path: Path) -> None:
    """Battlefield cards read in the flag row, Marshes and Watchtower discards seen."""
    variant = Variant(terrain=True)
    script = script_game(2, variant=variant)
    result = play_through_vision(script, tmp_path, variant)
    report = result.report
    assert report.wrong_events == 0 and report.ruling_mismatches == 0, report.problems
    assert report.problems == [] and result.companion.outcome == script.outcome
    assert_journal_is_the_script(result.journal, script)


@pytest.mark.slow
def test_the_opening_of_a_game_on_a_generated_design(tmp_path: Path) -> None:
    """``--design``: the table drawn with a generated design's art (cards of its own
    size, rendered in the worker process) and read with that deck's profile and
    learnt model. The profile is made from the art here (no photos: seconds, not the
    minutes of enrolment); ``python -m companion.sim.simulate --design held-03`` enrols."""
    art = design("tune", 0)
    assert art.card_mm != (CARD_W, CARD_H)
    cards = {face.token: art.render(face, 8.0) for face in ALL_FACES}
    profile = with_model(profile_from_cards(f"{art.name} (from its art)", cards, *art.card_mm))
    full = seeded_script(1)
    script = Script(full.seed, full.first, full.steps[:8], full.final)
    result = play_through_vision(script, tmp_path, deck=Deck(art.name, art, profile))
    assert (result.card_mm, result.profile) == (art.card_mm, profile.name)
    report = result.report
    assert report.wrong_events == 0 and report.ruling_mismatches == 0, report.problems
    assert report.ruling_checks > 50 and report.problems == []
    # What the reader cannot name with trust 0.99 the player corrects (on this table
    # that is most cards: see vision/README.md, "Simulated games on held designs").
    assert report.corrections <= sum(step.on_table for step in script.steps)
    figures = result.figures()
    assert figures["design"] == art.name and figures["journal_equals_script"]
    # Each read's CPU time is kept: the games print the median read the live path makes.
    assert len(result.read_ms) == result.reads > 0
    assert figures["read_ms_median"] == round(statistics.median(result.read_ms), 1) > 0
