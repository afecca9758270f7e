"""The one small interface every board offers: `FlagLights`.

A caller sets what each flag says and starts whole-line effects; button
presses come back as `ButtonEvent`s, both on the `events` queue and through
`on_event` if set. The state lives here, so every board can show (or, after a
reconnect, re-send) the whole of it at any time.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from types import TracebackType

from hardware import looks
from hardware.config import LightsConfig
from hardware.states import (
    FLAG_NUMBERS,
    IDLE,
    SELF_TEST,
    ButtonEvent,
    Effect,
    FlagState,
    Player,
    WinKind,
    codes,
    won,
)

log = logging.getLogger(__name__)
Clock = Callable[[], float]  # seconds, like time.monotonic


class FlagLights(ABC):
    """The line of nine flag lights and the players' claim/confirm buttons."""

    name = "lights"

    def __init__(self, config: LightsConfig, clock: Clock = time.monotonic) -> None:
        self.config = config
        self.clock = clock
        self.events: queue.Queue[ButtonEvent] = queue.Queue()
        self.on_event: Callable[[ButtonEvent], None] | None = None
        self._lock = threading.RLock()
        self._flags: tuple[FlagState, ...] = (FlagState.OFF,) * looks.FLAGS
        self._effect: Effect | None = None
        self._effect_started = 0.0
        self.closed = False

    # -- what callers use ----------------------------------------------------

    @property
    def flags(self) -> tuple[FlagState, ...]:
        return self._flags

    @property
    def effect(self) -> Effect | None:
        """The effect showing now (a finished self-test reads as None)."""
        with self._lock:
            effect = self._effect
            if effect is not None and effect.ends_by_itself and self.effect_elapsed_ms() >= (
                looks.SELFTEST_MS
            ):
                return None
            return effect

    def set_flag(self, flag: int, state: FlagState) -> None:
        if flag not in FLAG_NUMBERS:
            raise ValueError(f"flags are numbered 1..{looks.FLAGS}, not {flag!r}")
        if not isinstance(state, FlagState):
            raise TypeError(f"state must be a FlagState, not {state!r}")
        with self._lock:
            changed = list(self._flags)
            changed[flag - 1] = state
            self._flags = tuple(changed)
            self._show()

    def set_all(self, states: Sequence[FlagState]) -> None:
        if len(states) != looks.FLAGS or not all(isinstance(s, FlagState) for s in states):
            raise ValueError(f"set_all needs {looks.FLAGS} FlagStates, got {states!r}")
        with self._lock:
            self._flags = tuple(states)
            self._show()

    def set_colours(self, colours: Mapping[str, tuple[int, int, int]]) -> None:
        """New colours for some of the names in looks.COLOUR_NAMES (a player chose
        another colour); the others stay. Every board shows them from now on."""
        unknown = [name for name in colours if name not in looks.COLOUR_NAMES]
        if unknown:
            raise ValueError(f"no colour named {unknown[0]!r} (known: "
                             f"{', '.join(looks.COLOUR_NAMES)})")
        with self._lock:
            self.config = replace(self.config, colours={**self.config.colours, **colours})
            self._show()

    def self_test(self) -> None:
        """The start-up sweep: each flag in turn, in north's, south's colour, then white.
        It ends by itself after looks.SELFTEST_MS and the flags show again."""
        self._start(SELF_TEST)

    def won(self, player: Player, how: WinKind) -> None:
        """The game is over: a light runs along the line (breakthrough) or the
        whole line flashes (envelopment) in the winner's colour, until cleared."""
        self._start(won(player, how))

    def idle(self) -> None:
        """A slow dim wave while no game is on, until cleared."""
        self._start(IDLE)

    def clear_effect(self) -> None:
        with self._lock:
            self._effect = None
            self._show()

    def close(self) -> None:
        """Turn the lights off and let go of the board."""
        self.closed = True

    def __enter__(self) -> FlagLights:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    # -- for the boards --------------------------------------------------------

    def effect_elapsed_ms(self) -> int:
        return round((self.clock() - self._effect_started) * 1000)

    def colours_now(self, now_ms: int) -> list[tuple[int, int, int]]:
        """The nine flag colours at full brightness, at `now_ms` on the board's clock."""
        with self._lock:
            effect = None if self._effect is None else self._effect.words
            colours: list[tuple[int, int, int]] = looks.line_colours(
                codes(self._flags), self.config.colours, now_ms, effect,
                self.effect_elapsed_ms(),
            )
            return colours

    def _start(self, effect: Effect) -> None:
        with self._lock:
            self._effect = effect
            self._effect_started = self.clock()
            self._show()

    def _emit(self, event: ButtonEvent) -> None:
        log.info("%s: %s pressed%s%s", self.name, event.player,
                 f" at flag {event.flag}" if event.flag else "", " (held)" if event.held else "")
        self.events.put(event)
        callback = self.on_event
        if callback is not None:
            try:
                callback(event)
            except Exception:  # a broken handler must not kill the board's thread
                log.exception("%s: the button event handler failed on %s", self.name, event)

    @abstractmethod
    def _show(self) -> None:
        """Make the board show the current state (called with the lock held)."""


class NoLights(FlagLights):
    """Board 'none': keeps the state for whoever asks, shows nothing."""

    name = "no lights"

    def _show(self) -> None:
        pass
