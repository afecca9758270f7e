"""controller.py under MicroPython: commands, replies, pixels, errors, buttons."""

import framing
from buttons import Buttons
from controller import paint
from mp_helpers import Board, flag_pixels

RED, GREEN, BLACK = (255, 0, 0), (0, 255, 0), (0, 0, 0)


def test_ready_event_then_handshake():
    b = Board()
    assert b.lines == ["! 0 READY battleline-lights 1.0.0 1 27 3 9"]
    assert b.ok("HELLO 1") == "battleline-lights 1.0.0 1 27 3 9"
    assert b.send("HELLO 2").startswith("ERR VERSION")


def test_every_flag_state_on_the_strip():
    b = Board()
    b.ok("FLAGS NnSs!?...")
    b.at(2000)  # attention on (2000 // 250 is even), uncertain at its floor
    d = b.dump()
    assert flag_pixels(d, 1) == [RED] * 3
    assert flag_pixels(d, 2) == [(64, 0, 0)] * 3
    assert flag_pixels(d, 3) == [GREEN] * 3
    assert flag_pixels(d, 4) == [(0, 64, 0)] * 3
    assert flag_pixels(d, 5) == [(255, 160, 0)] * 3
    assert flag_pixels(d, 6) == [(51, 51, 51)] * 3
    assert d[18:] == [BLACK] * 9
    b.at(2250)
    d = b.dump()
    assert flag_pixels(d, 5) == [BLACK] * 3
    b.at(3000)
    assert flag_pixels(b.dump(), 6) == [(255, 255, 255)] * 3


def test_single_flag_and_colours_and_brightness():
    b = Board()
    b.ok("FLAG 9 S")
    b.ok("COLOR south 0 80 255")
    assert flag_pixels(b.dump(), 9) == [(0, 80, 255)] * 3
    b.ok("BRIGHT 128")
    assert flag_pixels(b.dump(), 9) == [(0, 40, 128)] * 3
    assert b.dump()[:24] == [BLACK] * 24


def test_effects_override_flags_and_selftest_ends_by_itself():
    b = Board()
    b.ok("FLAGS NNNNNNNNN")
    b.at(5000)
    b.ok("EFFECT selftest")
    assert b.dump() == [RED] * 3 + [BLACK] * 24
    b.at(5000 + 1900)  # step 19: the third pass, white, at flag 2
    assert b.dump() == [BLACK] * 3 + [(255, 255, 255)] * 3 + [BLACK] * 21
    b.at(5000 + 2700)
    assert b.dump() == [RED] * 27
    assert b.ctl.effect is None


def test_won_and_idle_persist_until_cleared():
    b = Board()
    b.at(100)
    b.ok("EFFECT won south envelopment")
    assert b.dump() == [GREEN] * 27
    b.at(600)
    assert b.dump() == [BLACK] * 27
    b.at(100 + 3600 * 1000)
    assert b.dump() == [GREEN] * 27
    b.ok("EFFECT won north breakthrough")
    assert b.dump() == [RED] * 3 + [(64, 0, 0)] * 24
    b.ok("EFFECT idle")
    d = b.dump()
    assert any(p != BLACK for p in d) and max(max(p) for p in d) <= 64
    b.ok("EFFECT none")
    assert b.dump() == [BLACK] * 27


def test_reset_clears_state_and_colours():
    b = Board()
    b.ok("COLOR north 1 2 3")
    b.ok("FLAGS NNNNNNNNN")
    b.ok("EFFECT idle")
    b.ok("RESET")
    assert b.dump() == [BLACK] * 27
    b.ok("FLAG 1 N")
    assert b.dump()[0] == RED


def test_layout_changes_the_pixel_count_and_blanks_the_old_strip():
    b = Board()
    b.ok("FLAGS NNNNNNNNN")
    b.dump()
    assert b.ok("LAYOUT 2") == "battleline-lights 1.0.0 1 18 2 9"
    assert b.strips[0].pixels == [BLACK] * 27
    assert b.dump() == [RED] * 18
    assert b.send("LAYOUT 0").startswith("ERR ARGS")
    assert b.send("LAYOUT 17").startswith("ERR ARGS")


def test_current_limit_scales_the_whole_frame():
    pixels = bytearray(27 * 3)
    paint(pixels, [(255, 255, 255)] * 9, 3, 255, 500)
    # 27 white pixels would draw 1620 mA; scaled to stay within 500 mA.
    assert sum(pixels) * 20 // 255 <= 500
    assert len(set(pixels)) == 1 and 70 <= pixels[0] <= 80
    paint(pixels, [(255, 0, 0)] * 9, 3, 255, 1000)
    assert pixels[0] == 255  # 540 mA: under the limit, untouched


def test_ping_reports_uptime():
    b = Board()
    b.at(1000 + 4321)
    assert b.ok("PING") == "4321"


def test_bad_commands_get_error_replies():
    b = Board()
    assert b.send("FLAG 10 N").startswith("ERR ARGS FLAG: flag must be a number 1..9")
    assert b.send("FLAG 1 X").startswith("ERR ARGS")
    assert b.send("FLAGS NNN").startswith("ERR ARGS")
    assert b.send("COLOR purple 1 2 3").startswith("ERR ARGS")
    assert b.send("COLOR north 1 2 256").startswith("ERR ARGS")
    assert b.send("BRIGHT").startswith("ERR ARGS")
    assert b.send("EFFECT won east breakthrough").startswith("ERR ARGS")
    assert b.send("EFFECT dance").startswith("ERR ARGS")
    assert b.send("DANCE").startswith("ERR UNKNOWN")
    assert b.send("PRESS west 1").startswith("ERR ARGS")
    assert b.send("SAFE").startswith("ERR UNSUPPORTED")


def _errors(b, data):
    b.take()
    b.ctl.feed(data)
    return b.take()


def test_frame_errors_name_the_sequence_number_when_readable():
    b = Board()
    line = framing.frame("42 FLAG 1 N")
    bad = line.replace(b"FLAG 1", b"FLAG 2")
    assert _errors(b, bad)[0].startswith("42 ERR CHECKSUM")
    assert _errors(b, b"\xff\xfe junk\n")[0].startswith("- ERR SYNTAX")
    assert _errors(b, b"hello there\n")[0].startswith("- ERR SYNTAX")
    assert _errors(b, framing.frame("x PING"))[0].startswith("- ERR SYNTAX")
    assert _errors(b, framing.frame("0 PING"))[0].startswith("- ERR SYNTAX")
    assert _errors(b, framing.frame("7"))[0].startswith("7 ERR SYNTAX")
    assert _errors(b, b"1" * 200 + b"\n") == ["- ERR TOOLONG line longer than 96 bytes"]
    assert b.dump() == [BLACK] * 27  # none of it changed anything


def test_random_bytes_never_stop_the_controller():
    import random
    b = Board()
    random.seed(3)
    for _ in range(50):
        junk = bytes(random.getrandbits(8) for _ in range(random.getrandbits(8)))
        for line in _errors(b, junk + b"\n"):
            assert " ERR " in line, line
    b.ok("FLAG 2 S")
    assert flag_pixels(b.dump(), 2) == [GREEN] * 3


def test_injected_presses_come_back_as_events():
    b = Board()
    b.take()
    b.seq += 1
    b.ctl.feed(framing.frame(f"{b.seq} PRESS south 7 hold"))
    assert b.take() == ["! 1 PRESS south 7", "! 2 HOLD south 7", f"{b.seq} OK"]


class Pin:
    def __init__(self):
        self.v = 1

    def value(self):
        return self.v


def test_real_button_scans_become_events_and_the_watchdog_is_fed():
    pins = [Pin() for _ in range(18)]
    wiring = [(("north", "south")[i // 9], i % 9 + 1, p) for i, p in enumerate(pins)]
    b = Board(buttons=Buttons(wiring, 1000))
    b.take()
    pins[13].v = 0  # south, flag 5
    b.at(1001)
    b.ctl.poll()
    b.at(1030)
    b.ctl.poll()
    assert b.take() == ["! 1 PRESS south 5"]
    assert b.wdt.feeds == 2


def test_status_led_is_steady_with_a_host_and_blinks_without():
    b = Board()
    b.at(2000)
    b.ctl.poll()
    b.at(2250)
    b.ctl.poll()
    seen = b.led.state
    b.at(2500)
    b.ctl.poll()
    assert b.led.state != seen  # no host yet: blinking
    b.ok("PING")
    for t in (2600, 2850, 3100):
        b.at(t)
        b.ctl.poll()
        assert b.led.state == 1
    # Five seconds without a command: blinking again.
    states = set()
    for t in range(8000, 9000, 250):
        b.at(t)
        b.ctl.poll()
        states.add(b.led.state)
    assert states == {0, 1}


def test_safe_command_answers_then_hands_over():
    called = []
    b = Board(on_safe=lambda: called.append(1))
    assert b.ok("SAFE") == ""
    assert called == [1]


def test_strip_is_only_rewritten_when_the_picture_changes():
    b = Board()
    b.ok("FLAGS N........")
    b.ctl.poll()
    writes = b.strips[0].writes
    for t in range(1100, 2000, 50):
        b.at(t)
        b.ctl.poll()
    assert b.strips[0].writes == writes
