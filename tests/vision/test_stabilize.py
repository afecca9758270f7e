from collections import Counter

import numpy as np
import pytest

from vision.calibrate import Calibration, Calibrator
from vision.position import UNKNOWN
from vision.profile import builtin_profile
from vision.read import Reader
from vision.reading.result import CardRead, FrameRead
from vision.sources.simulated import SimulatedSource
from vision.stabilize import Stabilizer


@pytest.mark.slow
def test_nothing_is_emitted_while_a_hand_is_over_the_mat():
    # The table starts clear (the companion calibrates on it), then a hand comes and
    # goes twice. Each frame is photographed afresh (sensor noise, JPEG).
    script = [False, True, True, False, False, False, False, True, False]
    src = SimulatedSource(seed=4, script=script)
    reader = Reader(builtin_profile())
    calib = Calibrator()
    stab = Stabilizer(still_frames=2, vote_frames=2)
    emitted = []
    for i in range(len(script)):
        pair = src.read()
        cal = calib.update(pair.main)
        wanted = stab.look(pair.low, cal)
        assert stab.hand == script[i], f"frame {i}: hand seen {stab.hand}, truth {script[i]}"
        snap = stab.take(reader.read(pair.main, cal) if wanted else None, i)
        if script[i]:
            assert not wanted and snap is None
        if snap is not None:
            emitted.append((i, snap))
    # Clear from frame 3: read at 3 (the first frame of a still table) and 4, the
    # snapshot at 4 once the table is seen still; then no change, no read.
    assert [(i, snap.frames) for i, snap in emitted] == [(4, [3, 4])]
    snap = emitted[0][1]
    placed = [t for toks in snap.zones.values() for t in toks if t != UNKNOWN]
    assert len(placed) == len(set(placed))
    truth = Counter(t for toks in src.table.zones.values() for t in toks)
    got = Counter(placed)
    assert not got - truth  # nothing confidently wrong
    assert sum((got & truth).values()) >= 0.85 * sum(truth.values())


@pytest.mark.slow
def test_a_hand_held_still_over_the_table_is_never_read():
    """An arm laying a card and then held still over the table (the same frame again
    and again: nothing moves) makes no snapshot; the table after it does, at once."""
    from companion.vision_path import TableFrames

    frames = TableFrames(seed=8, hand_frames=3)
    calib = Calibrator()
    stab = Stabilizer(still_frames=2, vote_frames=1)
    tables = [{"flag2.south": ("R7",)}, {"flag2.south": ("R7",), "flag7.north": ("B3",)},
              {"flag2.south": ("R7", "R8"), "flag7.north": ("B3",)},
              {"flag2.south": ("R7", "R8"), "flag7.north": ("B3",), "south.discard": ("G1",)}]
    _, still = frames.render({}, hand=False)
    cal = calib.update(still.main)
    stab.frame_width = still.main.shape[1]
    for _ in range(3):  # the empty table, seen still
        stab.take(_read_as({}, cal) if stab.look(still.low, cal) else None)
    for zones in tables:
        hands, still = frames.render(zones)
        for hand in hands:
            for _ in range(4):  # held still for 4 frames
                assert not stab.look(hand.low, cal) and stab.hand
                assert stab.take(None) is None
        assert stab.look(still.low, cal)  # the first frame of the still table is read
        assert stab.take(_read_as(zones, cal), 1) is None  # not taken until seen still
        assert not stab.look(still.low, cal)
        snap = stab.take(None)
        assert snap is not None and snap.frames == [1]


@pytest.mark.slow
def test_something_left_at_the_mats_edge_blocks_reading_only_for_a_while():
    """A cup put down just beside the mat looks like an arm reaching in, but it stays
    put: once it has been still for EDGE_SETTLE_FRAMES it is part of the table."""
    import cv2

    from companion.vision_path import TableFrames
    from vision.stabilize import EDGE_SETTLE_FRAMES

    _, still = TableFrames(seed=2).render({"flag4.north": ("Y5",)}, hand=False)
    cal = Calibrator().update(still.main)
    stab = Stabilizer(still_frames=2, vote_frames=1, frame_width=still.main.shape[1])
    for _ in range(2):
        stab.take(_read_as({"flag4.north": ("Y5",)}, cal) if stab.look(still.low, cal)
                  else None)
    # A dark cup on the table 5 to 25 mm beyond the mat's south edge, mid-way along.
    scale = still.low.shape[1] / still.main.shape[1]
    corners = np.array([[[400.0, 637.0]], [[470.0, 657.0]]])
    (x0, y0), (x1, y1) = (cv2.perspectiveTransform(corners, cal.mat_to_frame)[:, 0] * scale
                          ).round().astype(int)
    cup = still.low.copy()
    cv2.rectangle(cup, (x0, y0), (x1, y1), (20, 30, 160), -1)
    hands, snaps = [], []
    for _ in range(EDGE_SETTLE_FRAMES + 3):
        wanted = stab.look(cup, cal)
        hands.append(stab.hand)
        snaps.append(stab.take(_read_as({"flag4.north": ("Y5",)}, cal) if wanted else None))
    # Taken for an arm while it is new, then part of the table: read again, and as
    # nothing changed on the mat, no snapshot.
    clear = hands.index(False)
    assert EDGE_SETTLE_FRAMES - 1 <= clear <= EDGE_SETTLE_FRAMES and not any(hands[clear:])
    assert snaps == [None] * len(snaps)


def _read_as(zones: dict[str, tuple[str, ...]], cal: Calibration) -> FrameRead:
    """A read of exactly ``zones``, each card sure."""
    cards = [CardRead(z, k, t, 1.0, 0.9, [(0.0, 0.0)] * 4)
             for z, toks in zones.items() for k, t in enumerate(toks)]
    return FrameRead(cards, cal, np.zeros((4, 4), bool), np.ones((1, 1, 3), np.float32))


def test_a_still_runs_reads_agreeing_on_a_guess_do_not_name_it():
    """The reads of one still run are nearly one picture (the same camera a tenth of a
    second apart): every one guessing R7 from 0.98 is no second look, so the snapshot
    asks, as each read did (``vision.vote`` names such a card only across distinct
    looks: on tuning decks, noise-only re-reads named one wrong)."""
    src = SimulatedSource(seed=4, script=[False] * 3)
    calib = Calibrator()
    stab = Stabilizer(still_frames=1, vote_frames=3)
    snaps = []
    for i in range(3):
        pair = src.read()
        cal = calib.update(pair.main)
        asked = CardRead("flag1.south", 0, UNKNOWN, 0.98, 0.9, [(0.0, 0.0)] * 4,
                         guess=("R7", 0.98))
        named = CardRead("flag2.south", 0, "B3", 1.0, 0.9, [(0.0, 0.0)] * 4)
        read = FrameRead([asked, named], cal, np.zeros((4, 4), bool),
                         np.ones((1, 1, 3), np.float32))
        snaps.append(stab.take(read if stab.look(pair.low, cal) else None, i))
    assert snaps[:2] == [None, None]
    assert snaps[2] is not None and snaps[2].frames == [0, 1, 2]
    assert snaps[2].zones == {"flag1.south": [UNKNOWN], "flag2.south": ["B3"]}
    # Yet the person who says which card it is is offered R7 first.
    assert snaps[2].suggested == {"flag1.south": ["R7"], "flag2.south": [None]}
