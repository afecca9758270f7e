"""looks.py (shared by the direct board and the firmware) under MicroPython."""

import looks

C = {
    "north": (200, 0, 40),
    "south": (0, 100, 255),
    "attention": (255, 160, 0),
    "uncertain": (255, 255, 255),
    "white": (255, 255, 255),
}


def test_steady_states():
    assert looks.flag_colour(".", C, 0) == (0, 0, 0)
    assert looks.flag_colour("N", C, 0) == (200, 0, 40)
    assert looks.flag_colour("S", C, 12345) == (0, 100, 255)
    # Claimable: the player's colour at a quarter (64/255) of claimed.
    assert looks.flag_colour("n", C, 0) == (50, 0, 10)
    assert looks.flag_colour("s", C, 999) == (0, 25, 64)


def test_attention_blinks_four_times_a_second():
    on, off = (255, 160, 0), (0, 0, 0)
    assert [looks.flag_colour("!", C, t) for t in (0, 249, 250, 499, 500)] == [on, on, off, off, on]


def test_uncertain_breathes_between_a_fifth_and_full():
    assert looks.flag_colour("?", C, 0) == (51, 51, 51)
    assert looks.flag_colour("?", C, 1000) == (255, 255, 255)
    assert looks.flag_colour("?", C, 2000) == (51, 51, 51)
    mid = looks.flag_colour("?", C, 500)[0]
    assert 51 < mid < 255


def test_unknown_code_is_refused():
    try:
        looks.flag_colour("x", C, 0)
    except ValueError:
        return
    raise AssertionError("accepted an unknown code")


def test_selftest_sweeps_each_colour_then_ends():
    st = ("selftest",)
    frame = looks.effect_colours(st, C, 0)
    assert frame == [C["north"]] + [(0, 0, 0)] * 8
    frame = looks.effect_colours(st, C, 850)
    assert frame[8] == C["north"] and frame.count((0, 0, 0)) == 8
    frame = looks.effect_colours(st, C, 900 + 300)
    assert frame[3] == C["south"] and frame.count((0, 0, 0)) == 8
    frame = looks.effect_colours(st, C, 1800 + 800)
    assert frame[8] == C["white"]
    assert not looks.effect_over(st, looks.SELFTEST_MS - 1)
    assert looks.effect_over(st, looks.SELFTEST_MS)
    # Over: the flags show again.
    assert looks.line_colours("N" * 9, C, 0, st, looks.SELFTEST_MS) == [C["north"]] * 9


def test_breakthrough_runs_a_light_along_the_line():
    won = ("won", "south", "breakthrough")
    dim = looks.scaled(C["south"], looks.DIM)
    assert looks.effect_colours(won, C, 0) == [C["south"]] + [dim] * 8
    assert looks.effect_colours(won, C, 450) == [dim] * 4 + [C["south"]] + [dim] * 4
    assert looks.effect_colours(won, C, 900) == [C["south"]] + [dim] * 8
    assert not looks.effect_over(won, 10**6)


def test_envelopment_flashes_the_whole_line():
    won = ("won", "north", "envelopment")
    assert looks.effect_colours(won, C, 0) == [C["north"]] * 9
    assert looks.effect_colours(won, C, 500) == [(0, 0, 0)] * 9
    assert looks.effect_colours(won, C, 1000) == [C["north"]] * 9


def test_idle_is_a_dim_wave_in_both_colours():
    frame = looks.effect_colours(("idle",), C, 1500)
    assert frame[0] == looks.scaled(C["north"], looks.DIM)
    assert frame[1][0] == 0 and frame[1][2] > 0  # south's hue
    levels = [max(c) for c in looks.effect_colours(("idle",), C, 0)]
    assert max(levels) <= 64 and len(set(levels)) > 3
    assert looks.effect_colours(("idle",), C, 3000) == looks.effect_colours(("idle",), C, 0)


def test_effect_words_are_checked():
    assert looks.check_effect(["selftest"]) is None
    assert looks.check_effect(["won", "north", "envelopment"]) is None
    assert looks.check_effect(["won", "east", "envelopment"]) is not None
    assert looks.check_effect(["won", "north"]) is not None
    assert looks.check_effect(["idle", "x"]) is not None
    assert looks.check_effect(["party"]) is not None
    assert looks.check_effect([]) is not None
