"""buttons.py under MicroPython: debounce and hold, with a hand-driven clock."""

from buttons import DEBOUNCE_MS, HOLD_MS, Buttons


class Pin:
    def __init__(self, v=1):
        self.v = v

    def value(self):
        return self.v


def _one(pin=None):
    pin = pin or Pin()
    return pin, Buttons([("south", 4, pin)], 0)


def test_press_counts_after_the_debounce_time():
    pin, b = _one()
    pin.v = 0
    assert b.scan(10) == []
    assert b.scan(10 + DEBOUNCE_MS - 1) == []
    assert b.scan(10 + DEBOUNCE_MS) == [("PRESS", "south", 4)]
    assert b.scan(200) == []


def test_bounces_shorter_than_the_debounce_time_are_ignored():
    pin, b = _one()
    t = 0
    for _ in range(10):
        pin.v = 1 - pin.v
        t += DEBOUNCE_MS // 4
        assert b.scan(t) == []
        assert b.scan(t + 1) == []
    pin.v = 1
    assert b.scan(t + 100) == []
    assert b.scan(t + 200) == []


def test_hold_fires_once_then_release_and_press_again():
    pin, b = _one()
    pin.v = 0
    b.scan(0)
    assert b.scan(DEBOUNCE_MS) == [("PRESS", "south", 4)]
    assert b.scan(HOLD_MS - 1) == []
    assert b.scan(HOLD_MS) == [("HOLD", "south", 4)]
    assert b.scan(HOLD_MS * 3) == []
    pin.v = 1
    b.scan(HOLD_MS * 3 + 1)
    b.scan(HOLD_MS * 3 + 100)
    pin.v = 0
    b.scan(HOLD_MS * 4)
    assert b.scan(HOLD_MS * 4 + DEBOUNCE_MS) == [("PRESS", "south", 4)]


def test_button_down_at_start_up_is_not_a_press():
    pin = Pin(0)
    b = Buttons([("north", 1, pin)], 0)
    assert b.down("north", 1)
    assert b.scan(100) == []
    assert b.scan(5000) == []
    pin.v = 1
    b.scan(5001)
    b.scan(5100)
    pin.v = 0
    b.scan(5200)
    assert b.scan(5300) == [("PRESS", "north", 1)]


def test_each_button_reports_its_own_player_and_flag():
    pins = [Pin() for _ in range(18)]
    b = Buttons([(("north", "south")[i // 9], i % 9 + 1, p) for i, p in enumerate(pins)], 0)
    pins[2].v = 0
    pins[16].v = 0
    b.scan(1)
    assert b.scan(50) == [("PRESS", "north", 3), ("PRESS", "south", 8)]
