"""Runs the firmware under the MicroPython unix port, for tests and development.

    micropython unix_main.py [--port TTY] [--pixels-per-flag N]

The same controller as on the Pico talks the protocol on stdin/stdout (or on
the terminal device TTY, set to raw mode). The strip is kept in memory (read it
back with DUMP), presses come from the PRESS command, and the clock can be
frozen with TIME. Ends at end of input on a pipe; on a terminal whose other
end has gone it waits, as a Pico does when its USB cable is pulled.
"""

import select
import sys
import termios
import time

from controller import Controller, DebugClock


class MemoryStrip:
    """A NeoPixel stand-in: the pixels live in a list."""

    def __init__(self, n):
        self.pixels = [(0, 0, 0)] * n
        self.writes = 0

    def __len__(self):
        return len(self.pixels)

    def __setitem__(self, i, rgb):
        self.pixels[i] = tuple(rgb)

    def __getitem__(self, i):
        return self.pixels[i]

    def write(self):
        self.writes += 1


class MemoryPin:
    """A status-LED stand-in."""

    def __init__(self):
        self.state = 0

    def value(self, v=None):
        if v is not None:
            self.state = v
        return self.state


def _options(argv):
    port, per_flag = None, 3
    i = 0
    while i < len(argv):
        if argv[i] == "--port" and i + 1 < len(argv):
            port = argv[i + 1]
        elif argv[i] == "--pixels-per-flag" and i + 1 < len(argv):
            per_flag = int(argv[i + 1])
        else:
            raise SystemExit("usage: unix_main.py [--port TTY] [--pixels-per-flag N]")
        i += 2
    return port, per_flag


def main(argv):
    port, per_flag = _options(argv)
    if port is None:
        inp, out = sys.stdin.buffer, sys.stdout.buffer
    else:
        inp = out = open(port, "r+b")  # noqa: SIM115 - open for the life of the process
        termios.setraw(inp.fileno())

    def write(data):
        out.write(data)
        out.flush()

    def leave():
        raise SystemExit(0)

    controller = Controller(
        write, MemoryStrip, clock=DebugClock(), status_led=MemoryPin(),
        pixels_per_flag=per_flag, on_safe=leave)
    poller = select.poll()
    poller.register(inp, select.POLLIN)
    while True:
        ready = poller.poll(5)
        if ready and not ready[0][1] & select.POLLIN:
            time.sleep_ms(20)  # the other end hung up: wait for it to come back
        elif ready:
            for _ in range(256):
                try:
                    data = inp.read(1)
                except OSError:  # EIO: the terminal's other end is closed
                    break
                if not data:
                    return
                controller.feed(data)
                if not poller.poll(0):
                    break
        controller.poll()


if __name__ == "__main__":
    main(sys.argv[1:])
