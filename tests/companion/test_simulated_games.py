"""Whole seeded games on the simulated table: journal, rulings and lights against the truth."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.app import Companion, Options
from companion.records.export import export_text
from companion.records.journal import Journal, read_journal, variant_json
from companion.records.replay import replay
from companion.rules.actions import Discard, Place, Remove
from companion.rules.notation import dump_position
from companion.rules.position import Variant
from companion.rules.table_record import parse_table_record
from companion.sim.simtable import Script, TruthSnapshots, script_game, seeded_script
from companion.sim.simulate import Driver, DriveReport
from companion.tracker import Tracker
from companion.ui.terminal import NoView
from hardware.config import LightsConfig
from hardware.factory import open_lights
from hardware.lights import FlagLights, NoLights
from hardware.states import FlagState


def run_game(
    tmp_path: Path,
    script: Script,
    table: TruthSnapshots,
    *,
    lights: FlagLights | None = None,
    options: Options | None = None,
    variant: Variant | None = None,
) -> tuple[Companion, DriveReport]:
    tracker = Tracker(variant or Variant(), script.first)
    journal = Journal.create(tmp_path, {"mode": "simulated", "first": script.first.value,
                                        "variant": variant_json(variant or Variant()),
                                        "seed": script.seed})
    board = lights or NoLights(LightsConfig(board="none"))
    companion = Companion(tracker, journal, board, NoView(), options or Options())
    report = Driver(companion, script, table).run()
    journal.close()
    return companion, report


def assert_journal_is_the_script(path: Path, script: Script) -> None:
    record = read_journal(path)
    assert record.ended and record.outcome == script.outcome
    got = [(e.player, e.action) for e in record.events]
    assert got == [(s.player, s.action) for s in script.steps]
    # Each event line carries the position after it: the engine's, flag for flag.
    lines = [line for line in record.lines if line["type"] == "event"]
    for line, step in zip(lines, script.steps, strict=True):
        truth = dump_position(step.position)
        assert line["position"]["flags"] == truth["flags"]
        assert line["position"]["discards"] == truth["discards"]


@pytest.mark.parametrize("seed", range(20))
def test_seeded_game_journal_equals_the_script(tmp_path: Path, seed: int) -> None:
    """20 games; a tenth of the cards are first read unsure, so the companion must ask."""
    script = seeded_script(seed)
    companion, report = run_game(tmp_path, script, TruthSnapshots(unsure=0.1, seed=seed))
    assert report.problems == []
    assert report.ruling_mismatches == 0 and report.ruling_checks > 100
    assert report.wrong_events == 0
    assert companion.outcome == script.outcome
    [path] = tmp_path.glob("*.jsonl")
    assert_journal_is_the_script(path, script)


def test_unsure_readings_are_asked_about_not_guessed(tmp_path: Path) -> None:
    script = script_game(7)
    _, report = run_game(tmp_path, script, TruthSnapshots(unsure=1.0, seed=7))
    # Every card laid was first read unsure: each took a straightening, none a guess.
    laid = sum(1 for s in script.steps if s.on_table)
    assert report.nudges == laid and report.wrong_events == 0 and report.problems == []


def test_auto_claim_and_advanced_timing_follow_the_bots(tmp_path: Path) -> None:
    variant = Variant(claim_timing="advanced")
    script = script_game(12, variant=variant)
    companion, report = run_game(tmp_path, script, TruthSnapshots(), options=Options(auto_claim=True),
                                 variant=variant)
    assert report.problems == [] and companion.outcome == script.outcome
    [path] = tmp_path.glob("*.jsonl")
    assert_journal_is_the_script(path, script)


def test_the_lights_follow_claims_and_hints(tmp_path: Path) -> None:
    script = script_game(5)
    lights = open_lights(LightsConfig(board="mock"))
    seen: list[tuple[FlagState, ...]] = []
    try:
        tracker = Tracker(Variant(), script.first)
        journal = Journal.create(tmp_path, {"mode": "simulated", "first": "south", "variant": {}})
        companion = Companion(tracker, journal, lights, NoView(), Options(hints=True))

        def watch(index: int, step: object) -> None:
            seen.append(lights.flags)
            for i, flag in enumerate(companion.tracker.position.flags):
                if flag.claimed_by is not None:
                    assert lights.flags[i] is FlagState.claimed(flag.claimed_by.value)
            for i, who in companion.tracker.provable().items():
                if companion.tracker.position.flags[i].claimed_by is None:
                    assert lights.flags[i] is FlagState.claimable(who.value)

        Driver(companion, script, TruthSnapshots(), on_step=watch).run()
        assert companion.outcome is not None
        assert lights.effect is not None and lights.effect.kind == "won"
        assert any(FlagState.CLAIMABLE_NORTH in s or FlagState.CLAIMABLE_SOUTH in s for s in seen)
    finally:
        lights.close()


def test_a_failing_source_raises_attention_and_recovers(tmp_path: Path) -> None:
    script = script_game(9)
    table = TruthSnapshots(seed=9)
    tracker = Tracker(Variant(), script.first)
    journal = Journal.create(tmp_path, {"mode": "simulated", "first": "south", "variant": {}})
    lights = NoLights(LightsConfig(board="none"))
    companion = Companion(tracker, journal, lights, NoView())
    states: list[tuple[FlagState, ...]] = []

    def unplug(index: int, step: object) -> None:
        if index == 20:
            table.fail(3)
            table.show(script.steps[21].zones)  # the next card is laid while the camera is out
            for _ in range(3):
                companion.pump(table)
                states.append(lights.flags)
            assert companion.camera_problem is not None

    report = Driver(companion, script, table, on_step=unplug).run()
    assert report.problems == [] and companion.outcome == script.outcome
    # While out: every unclaimed flag blinks attention; afterwards the game went on.
    position = script.steps[20].position
    for state in states:
        for i, flag in enumerate(position.flags):
            expected = FlagState.ATTENTION if flag.claimed_by is None else FlagState.claimed(
                flag.claimed_by.value)
            assert state[i] is expected
    notes = [line["message"] for line in read_journal(journal.path).lines if line["type"] == "note"]
    assert any("unplugged" in n for n in notes) and "camera: frames again" in notes


@pytest.mark.parametrize("seed", [2, 6, 8])
def test_a_seeded_terrain_game_journal_equals_the_script(tmp_path: Path, seed: int) -> None:
    """Battlefield cards laid in the flag row, then the game with the Marshes' and the
    Watchtower's discards: each an event the rules check, journalled like any other."""
    variant = Variant(terrain=True)
    script = script_game(seed, variant=variant)
    kinds = {type(s.action) for s in script.steps}
    assert {Place, Discard, Remove} <= kinds
    companion, report = run_game(tmp_path, script, TruthSnapshots(unsure=0.1, seed=seed),
                                 variant=variant)
    assert report.problems == [] and report.wrong_events == 0
    assert report.ruling_mismatches == 0 and report.ruling_checks > 100
    assert companion.outcome == script.outcome
    [path] = tmp_path.glob("*.jsonl")
    assert_journal_is_the_script(path, script)
    last = [line for line in read_journal(path).lines if line["type"] == "event"][-1]
    laid = [flag.get("terrain") for flag in last["position"]["flags"]]
    assert laid == [f.terrain.token if f.terrain else None for f in script.final.position.flags]
    assert None not in laid
    # The journal replays (as a resume does), and the exported record replays through
    # the rules, to the same end.
    assert replay(path, []).outcome == script.outcome
    record = parse_table_record(export_text(path))
    assert record.variant.terrain and record.replay().outcome == script.outcome


def test_a_card_read_on_top_of_one_missed_under_it_counts_right_and_a_misread_wrong() -> None:
    from companion.snapshot import Reading, Snapshot

    report = DriveReport()
    truth = {"flag3.south": ("P10", "P8"), "flag4.north": ("R1",)}
    # The P10 under the P8 was not seen; the P8 on top was read surely, and R1 read R2.
    report.tally(Snapshot({"flag3.south": (Reading("P8", 1.0),),
                           "flag4.north": (Reading("R2", 0.999),)}), truth)
    assert report.reliability[">=0.99"] == [2, 1]
    assert report.misreads == ["flag4.north card 1: read R2 (0.999); the zone holds R1"]
    # An unknown card is counted apart, not as named.
    report.tally(Snapshot({"flag3.south": (Reading("unknown", 0.0), Reading("P8", 1.0))}), truth)
    assert report.cards_unknown == 1 and report.reliability[">=0.99"] == [3, 1]
    assert report.cards_guessed == 0
    # Guesses the picker would offer: right where the zone holds the card unnamed there.
    report.tally(Snapshot({"flag3.south": (Reading("unknown", 0.0, guess="P10"),
                                           Reading("unknown", 0.0, guess="P8")),
                           "flag4.north": (Reading("unknown", 0.0, guess="R2"),)}), truth)
    assert (report.cards_unknown, report.cards_guessed, report.guesses_right) == (4, 3, 2)
    report.tally(Snapshot({"flag3.south": (Reading("unknown", 0.0, guess="P8"),
                                           Reading("P8", 1.0))}), truth)
    assert (report.cards_guessed, report.guesses_right) == (4, 2)  # P8 is named there


def test_the_games_figures_give_the_middle_games_median_read() -> None:
    from companion.sim.simulate import CONFIDENCE_BANDS, totals

    def game(read_ms: float | None) -> dict[str, object]:
        row: dict[str, object] = {key: 0 for key in (
            "confident_wrong_rulings", "ruling_checks", "wrong_events", "corrections",
            "nudges", "table_changes", "unsettled_steps", "cards_unknown", "cards_guessed",
            "guesses_right")}
        row.update(seconds=1.0, cpu_seconds=1.0, journal_equals_script=True,
                   reliability={band: [0, 0] for band in CONFIDENCE_BANDS},
                   read_ms_median=read_ms)
        return row

    assert totals([game(10.0), game(30.0), game(None)])["read_ms_median"] == 20.0
    assert totals([game(None)])["read_ms_median"] is None
