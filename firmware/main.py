"""Pico entry point: wires the real pins, strip, watchdog and USB serial to the
controller. The only module that touches `machine`, `neopixel` or `micropython`;
the pin map below is the one in hardware/WIRING.md.
"""

import os
import select
import sys
import time

import machine
import micropython
import neopixel
from buttons import Buttons
from controller import Controller

STRIP_PIN = 22  # GP22, through a 74AHCT125 to the strip's DIN
NORTH_BUTTON_PINS = (2, 3, 4, 5, 6, 7, 8, 9, 10)  # GP2..GP10: flags 1..9
SOUTH_BUTTON_PINS = (11, 12, 13, 14, 15, 16, 17, 18, 19)  # GP11..GP19: flags 1..9
PIXELS_PER_FLAG = 3  # until the host says otherwise (LAYOUT)
MAX_MILLIAMPS = 500  # what the strip may draw; raise it with a 5 V supply of its own
WATCHDOG_MS = 4000
SAFE_FLAG_FILE = "safe_mode"  # written by the SAFE command, removed at the next boot


def _safe_mode_requested(buttons):
    # SAFE left a file behind, or north's and south's flag-1 buttons are held at power-up.
    try:
        os.remove(SAFE_FLAG_FILE)
        return True
    except OSError:
        pass
    return buttons.down("north", 1) and buttons.down("south", 1)


def _enter_safe_mode():
    with open(SAFE_FLAG_FILE, "w") as f:
        f.write("1")
    time.sleep_ms(50)  # let the OK reach the host
    machine.reset()


def run():
    pull_up = machine.Pin.PULL_UP
    pins = [("north", i + 1, machine.Pin(gp, machine.Pin.IN, pull_up))
            for i, gp in enumerate(NORTH_BUTTON_PINS)]
    pins += [("south", i + 1, machine.Pin(gp, machine.Pin.IN, pull_up))
             for i, gp in enumerate(SOUTH_BUTTON_PINS)]
    buttons = Buttons(pins, time.ticks_ms())
    if _safe_mode_requested(buttons):
        print("battleline-lights: safe mode, REPL only, no watchdog; reset to run again")
        return
    # From here on every byte from the host is data: Ctrl-C must not stop us.
    micropython.kbd_intr(-1)
    data_pin = machine.Pin(STRIP_PIN, machine.Pin.OUT)
    led = machine.Pin("LED", machine.Pin.OUT)
    wdt = machine.WDT(timeout=WATCHDOG_MS)
    out = sys.stdout.buffer
    inp = sys.stdin.buffer

    def write(data):
        out.write(data)

    controller = Controller(
        write,
        lambda n: neopixel.NeoPixel(data_pin, n),
        buttons=buttons,
        status_led=led,
        wdt=wdt,
        pixels_per_flag=PIXELS_PER_FLAG,
        max_milliamps=MAX_MILLIAMPS,
        on_safe=_enter_safe_mode,
    )
    poller = select.poll()
    poller.register(sys.stdin, select.POLLIN)
    while True:
        # Wait up to 5 ms for the host, then take what is there, but never so
        # much that a flood of bytes starves the buttons and the watchdog.
        if poller.poll(5):
            for _ in range(256):
                controller.feed(inp.read(1))
                if not poller.poll(0):
                    break
        controller.poll()


run()
