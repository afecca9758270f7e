"""Stand-in for the Pico's `machine`, only to run firmware/main.py's wiring
under the unix port (which has no Pin, WDT or reset). Signatures follow the
MicroPython rp2 documentation; every call is recorded in CALLS."""

CALLS = []


class Pin:
    IN = 0
    OUT = 1
    PULL_UP = 1

    def __init__(self, id, mode=-1, pull=-1):
        if not (isinstance(id, int) and 0 <= id <= 29) and id != "LED":
            raise ValueError("invalid pin")
        self.id = id
        self.state = 1 if pull == Pin.PULL_UP else 0
        CALLS.append(("Pin", id, mode, pull))

    def value(self, v=None):
        if v is None:
            return self.state
        self.state = v
        return None


class WDT:
    def __init__(self, id=0, timeout=5000):
        if not 1 <= timeout <= 8388:
            raise ValueError("rp2 watchdog timeout is 1..8388 ms")
        self.feeds = 0
        CALLS.append(("WDT", timeout))

    def feed(self):
        self.feeds += 1


def reset():
    CALLS.append(("reset",))
    raise SystemExit(3)
