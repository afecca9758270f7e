"""Debounced claim buttons.

Each button is a pin object with `value()` reading 0 while pressed (wired to
ground, internal pull-up), so tests can hand in any object that does that.
"""

import time

DEBOUNCE_MS = 20  # a reading must hold this long before it counts
HOLD_MS = 1000  # still pressed this long after the press: a hold


class Buttons:
    def __init__(self, buttons, now):
        """`buttons` is a list of (player, flag, pin); `now` the clock in ms."""
        self.buttons = buttons
        self.raw = [pin.value() for _, _, pin in buttons]
        # A button already down at start-up is not a press: it must be let go first.
        self.stable = list(self.raw)
        self.since = [now] * len(buttons)
        self.held = [True] * len(buttons)

    def scan(self, now):
        """The (kind, player, flag) events since the last scan, kind PRESS or HOLD."""
        events = []
        for i, (player, flag, pin) in enumerate(self.buttons):
            value = pin.value()
            if value != self.raw[i]:
                self.raw[i] = value
                self.since[i] = now
                continue
            steady = time.ticks_diff(now, self.since[i])
            if value != self.stable[i]:
                if steady >= DEBOUNCE_MS:
                    self.stable[i] = value
                    if value == 0:
                        self.held[i] = False
                        events.append(("PRESS", player, flag))
            elif value == 0 and not self.held[i] and steady >= HOLD_MS:
                self.held[i] = True
                events.append(("HOLD", player, flag))
        return events

    def down(self, player, flag):
        """Whether that button reads pressed right now (for the boot-time safe mode)."""
        for p, f, pin in self.buttons:
            if p == player and f == flag:
                return pin.value() == 0
        return False
