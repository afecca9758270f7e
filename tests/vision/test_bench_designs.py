"""The cross-design bench counts what was laid and what was read, per deck."""

from vision.bench_designs import run_design
from vision.designs import design
from vision.synth import room_scene


def test_a_design_is_enrolled_from_photos_and_every_laid_card_is_counted():
    art = design("tune", 1)
    ms: list[float] = []
    tally = run_design(art, scenes=1, frames=2, seed=7, ms=ms, photo_size=(1008, 756))
    table, _ = room_scene(7 * 1000, art, 2)
    laid = sum(len(v) for v in table.zones.values())
    figures = tally.figures()
    assert figures["cards"] == laid > 0
    # Every photo was taken (a refused one is shot again), so the profile holds the deck.
    assert figures["cards_enrolled"] == 79
    assert 0 <= figures["single_frame_accuracy"] <= 1 and len(ms) == 1
    # Every card read right in the first frame is in the reliability data as right.
    assert sum(ok for _, ok in tally.named) >= tally.right_single
