"""Several reads of a still table voted into one snapshot (``vision.vote``)."""

import numpy as np

from vision.calibrate import Calibration
from vision.position import UNKNOWN
from vision.reading.result import CardRead, FrameRead
from vision.vote import GUESS_AT, SUGGEST_AT, vote, vote_photos


def frame(*cards: tuple[str, str, float] | tuple[str, str, float, tuple[str, float]],
          ) -> FrameRead:
    """A frame's read of one card per zone: (zone, token, confidence[, guess])."""
    return FrameRead([CardRead(z, 0, t, c, 0.9, [(0.0, 0.0)] * 4, guess=g[0] if g else None)
                      for z, t, c, *g in cards],
                     Calibration(np.eye(3), [], [], True), np.zeros((4, 4), bool),
                     np.ones((1, 1, 3), np.float32))


def test_vote_takes_majorities_and_places_each_card_once():
    reads = [
        {"flag1.south": ["R7", "R8"], "flag2.north": ["B3"]},
        {"flag1.south": ["R7", "unknown"], "flag2.north": ["B3"]},
        {"flag1.south": ["R7", "R9"], "flag2.north": ["R7"]},
        {"flag1.south": ["R7"], "flag2.north": ["B3"]},
    ]
    snap = vote(reads)
    assert snap.zones["flag1.south"] == ["R7", UNKNOWN]  # R8/R9 split: no majority
    assert snap.zones["flag2.north"] == ["B3"]
    # R7 read in two places: the better supported one wins, the other is unknown.
    twice = vote([{"a": ["R7"], "b": ["R7"]}, {"a": ["R7"], "b": ["R7"]}, {"a": ["R7"]}])
    assert twice.zones["a"] == ["R7"] and twice.zones["b"] == [UNKNOWN]


def test_a_card_one_read_named_counts_though_the_other_reads_missed_it():
    # A covered card two photos missed (glare on its band) and one found and named.
    reads = [{"a": ["R7", "B3"]}, {"a": ["R7", "B3"]}, {"a": ["R7", "G5", "B3"]}]
    assert vote(reads).zones == {"a": ["R7", "G5", "B3"]}
    # A zone only one read found a card in, and named it.
    assert vote([{}, {}, {"a": ["G5"]}]).zones == {"a": ["G5"]}
    # The read that saw more named nothing more: the count most reads saw stands.
    assert vote([{"a": ["R7", "B3"]}, {"a": ["R7", "B3"]},
                 {"a": ["R7", UNKNOWN, "B3"]}]).zones == {"a": ["R7", "B3"]}
    assert vote([{}, {}, {"a": [UNKNOWN]}]).zones == {}
    # Counts naming as many cards: the one more reads saw (two against one).
    assert vote([{"a": ["R7", UNKNOWN]}, {"a": ["R7"]}, {"a": ["R7"]}]).zones == {"a": ["R7"]}


def test_vote_never_places_a_card_twice_when_frames_disagree_where_it_lies():
    # Each frame's read already holds R7 once (both sure: neither stands there).
    both = frame(("a", "R7", 1.0), ("b", "R7", 1.0), ("c", "B3", 1.0))
    assert both.zones() == {"a": [UNKNOWN], "b": [UNKNOWN], "c": ["B3"]}
    # Two frames put R7 at a, two at b: as many votes each, so neither stands.
    reads = [frame(("a", "R7", 1.0), ("b", UNKNOWN, 0.0)),
             frame(("a", "R7", 1.0), ("b", UNKNOWN, 0.0)),
             frame(("a", UNKNOWN, 0.0), ("b", "R7", 1.0)),
             frame(("a", UNKNOWN, 0.0), ("b", "R7", 1.0)), both]
    snap = vote([r.zones() for r in reads[:4]], [r.confidences() for r in reads[:4]])
    assert snap.zones == {"a": [UNKNOWN], "b": [UNKNOWN]}
    assert snap.confidence == {"a": [0.0], "b": [0.0]}
    assert "R7" not in str(snap.position())
    # Three frames at a against one at b: a stands.
    three = [reads[0], reads[1], reads[2], frame(("a", "R7", 0.9), ("b", UNKNOWN, 0.0))]
    snap = vote([r.zones() for r in three], [r.confidences() for r in three])
    assert snap.zones == {"a": ["R7"], "b": [UNKNOWN]}
    # Two frames against one: a stands when the reader was sure there...
    sure = [reads[0], reads[1], reads[2]]
    snap = vote([r.zones() for r in sure], [r.confidences() for r in sure])
    assert snap.zones == {"a": ["R7"], "b": [UNKNOWN]}
    # ...but not when it was unsure (0.55 against b's third of the votes).
    unsure = [frame(("a", "R7", 0.55), ("b", UNKNOWN, 0.0))] * 2 + [reads[2]]
    snap = vote([r.zones() for r in unsure], [r.confidences() for r in unsure])
    assert snap.zones == {"a": [UNKNOWN], "b": [UNKNOWN]}


def test_a_card_every_frame_guesses_alike_and_nearly_surely_is_named():
    # The model's nearest card is R7 in all three frames, each asking (below NAME_AT).
    reads = [frame(("a", UNKNOWN, 0.97, ("R7", 0.97))), frame(("a", UNKNOWN, 0.99, ("R7", 0.99))),
             frame(("a", UNKNOWN, GUESS_AT, ("R7", GUESS_AT)))]
    snap = vote_photos(reads)
    assert snap.zones == {"a": ["R7"]}
    assert snap.agreement["a"] == [1.0]
    assert snap.confidence["a"] == [GUESS_AT]  # the least trust of the frames in it
    # Two frames are enough; without the guesses the vote asks, as before.
    assert vote_photos(reads[:2]).zones == {"a": ["R7"]}
    assert vote([r.zones() for r in reads]).zones == {"a": [UNKNOWN]}


def test_a_guess_is_never_named_from_one_frame_or_one_frame_in_doubt():
    sure = ("R7", 0.99)
    # One read: a single read's guess is never a name.
    assert vote_photos([frame(("a", UNKNOWN, 0.99, sure))]).zones == {"a": [UNKNOWN]}
    # Two frames nearly sure of R7, a third in doubt of it (0.74: a tuning deck's R8
    # guessed R9 at 0.74, 0.973 and 0.978).
    doubt = [frame(("a", UNKNOWN, 0.99, sure)), frame(("a", UNKNOWN, 0.99, sure)),
             frame(("a", UNKNOWN, 0.74, ("R7", 0.74)))]
    assert vote_photos(doubt).zones == {"a": [UNKNOWN]}
    # Two sure of R7, a third whose nearest card is R8: the frames disagree.
    split = [frame(("a", UNKNOWN, 0.99, sure)), frame(("a", UNKNOWN, 0.99, sure)),
             frame(("a", UNKNOWN, 0.99, ("R8", 0.99)))]
    assert vote_photos(split).zones == {"a": [UNKNOWN]}
    # A frame without a guess there (not judged: not found, or the face disagreed).
    blind = [frame(("a", UNKNOWN, 0.99, sure)), frame(("a", UNKNOWN, 0.99, sure)),
             frame(("a", UNKNOWN, 0.0))]
    assert vote_photos(blind).zones == {"a": [UNKNOWN]}
    # Frames that saw the zone hold another count of cards say nothing of its slots:
    # the third frame named a second card there, so the zone holds two, and the two
    # frames that saw one card guess at neither slot.
    other = [frame(("a", UNKNOWN, 0.99, sure)), frame(("a", UNKNOWN, 0.99, sure)),
             frame(("a", UNKNOWN, 0.99, sure), ("a", "B3", 1.0))]
    assert vote_photos(other).zones["a"] == [UNKNOWN, "B3"]


def test_a_guess_named_elsewhere_on_the_table_stays_unknown():
    sure = ("R7", 0.99)
    # Another zone holds R7 in the vote: a card lies once.
    elsewhere = [frame(("a", UNKNOWN, 0.99, sure), ("b", "R7", 1.0))] * 3
    assert vote_photos(elsewhere).zones == {"a": [UNKNOWN], "b": ["R7"]}
    # One frame named R7 at b, though the vote left b unknown: still a rival place.
    once = [frame(("a", UNKNOWN, 0.99, sure), ("b", "R7", 1.0)),
            frame(("a", UNKNOWN, 0.99, sure), ("b", UNKNOWN, 0.0)),
            frame(("a", UNKNOWN, 0.99, sure), ("b", "B3", 1.0))]
    assert vote_photos(once).zones == {"a": [UNKNOWN], "b": [UNKNOWN]}
    # Two zones guessed alike: neither is named.
    twice = [frame(("a", UNKNOWN, 0.99, sure), ("b", UNKNOWN, 0.99, sure))] * 3
    assert vote_photos(twice).zones == {"a": [UNKNOWN], "b": [UNKNOWN]}


def test_a_card_asked_about_is_offered_to_the_person_as_its_reads_guess_it():
    """The picker shows first the card every read that asked guessed alike from
    SUGGEST_AT: never a name, and never a card the table holds elsewhere."""
    one = vote_photos([frame(("a", UNKNOWN, SUGGEST_AT, ("R7", SUGGEST_AT)))])
    assert one.zones == {"a": [UNKNOWN]} and one.suggested == {"a": ["R7"]}
    low = vote_photos([frame(("a", UNKNOWN, 0.7, ("R7", SUGGEST_AT - 0.01)))])
    assert low.suggested == {"a": [None]}
    # Reads that guess other cards, or one that did not judge the band, offer none.
    split = [frame(("a", UNKNOWN, 0.9, ("R7", 0.9))), frame(("a", UNKNOWN, 0.9, ("R8", 0.9)))]
    assert vote_photos(split).suggested == {"a": [None]}
    blind = [frame(("a", UNKNOWN, 0.9, ("R7", 0.9))), frame(("a", UNKNOWN, 0.0))]
    assert vote_photos(blind).suggested == {"a": [None]}
    # Named elsewhere on the table, or guessed at two places: a card lies once.
    named = vote_photos([frame(("a", UNKNOWN, 0.9, ("R7", 0.9)), ("b", "R7", 1.0))])
    assert named.suggested == {"a": [None], "b": [None]}
    twice = vote_photos([frame(("a", UNKNOWN, 0.9, ("R7", 0.9)), ("b", UNKNOWN, 0.9, ("R7", 0.9)))])
    assert twice.suggested == {"a": [None], "b": [None]}
