"""Shared by the MicroPython tests: a controller wired to in-memory parts."""

import framing
from controller import Controller, DebugClock
from unix_main import MemoryPin, MemoryStrip


class FakeWdt:
    def __init__(self):
        self.feeds = 0

    def feed(self):
        self.feeds += 1


class Board:
    """A controller with a frozen clock, recording every line it writes."""

    def __init__(self, pixels_per_flag=3, buttons=None, max_milliamps=100000, on_safe=None):
        self.lines = []
        self.clock = DebugClock()
        self.clock.freeze(1000)
        self.strips = []
        self.led = MemoryPin()
        self.wdt = FakeWdt()
        self.seq = 0

        def make_strip(n):
            self.strips.append(MemoryStrip(n))
            return self.strips[-1]

        self.ctl = Controller(
            self.write, make_strip, buttons=buttons, clock=self.clock,
            status_led=self.led, wdt=self.wdt, pixels_per_flag=pixels_per_flag,
            max_milliamps=max_milliamps, on_safe=on_safe)

    def write(self, data):
        assert data.endswith(b"\n"), data
        self.lines.append(framing.unframe(data[:-1]))

    def take(self):
        lines, self.lines = self.lines, []
        return lines

    def send(self, body):
        """Send one command; its reply line without the sequence number."""
        self.seq += 1
        self.take()
        self.ctl.feed(framing.frame(f"{self.seq} {body}"))
        replies = [line for line in self.lines if not line.startswith("!")]
        assert len(replies) == 1, self.lines
        seq, rest = replies[0].split(" ", 1)
        assert seq == str(self.seq), (seq, self.seq)
        return rest

    def ok(self, body):
        reply = self.send(body)
        assert reply == "OK" or reply.startswith("OK "), (body, reply)
        return reply[3:]

    def dump(self):
        """The strip as a list of (r, g, b), read back through DUMP."""
        text = self.ok("DUMP")
        return [tuple(int(text[i + j:i + j + 2], 16) for j in (0, 2, 4))
                for i in range(0, len(text), 6)]

    def at(self, ms):
        self.clock.freeze(ms)


def flag_pixels(dump, flag, per_flag=3):
    return dump[(flag - 1) * per_flag:flag * per_flag]
