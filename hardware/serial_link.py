"""The Pico board: the firmware in firmware/ driven over USB serial (pyserial).

A background thread owns the port. It finds the board, shakes hands, sends
whatever the board does not yet show, keeps the link alive with a heartbeat,
turns the board's button events into ButtonEvents, and when the board goes
away (unplugged, reset, crashed) it looks for it again and re-sends the whole
current state. Callers never wait on the serial line: they change the state
and carry on; `flush` waits for the board to catch up when that matters.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from functools import partial
from typing import Any

from hardware import discovery, framing, looks
from hardware.config import LightsConfig
from hardware.lights import Clock, FlagLights
from hardware.protocol import BoardEvent, BoardInfo, JunkLine, Reply, command, parse_line
from hardware.states import PLAYERS, ButtonEvent, codes

log = logging.getLogger(__name__)

READ_SLICE_S = 0.02  # how long one read waits: also the latency of a state change
RETRY_S = 0.1  # how often to look for the board while it is away
GIVE_UP_S = 5.0  # after a refused handshake, wait this long before trying again
MAX_REPLY = 4096  # a board line longer than this is junk


class LinkLost(Exception):
    """The board stopped answering or the port went away."""


class BoardUnavailable(Exception):
    """A request needed the board, and it was not connected in time."""


class _Throttle:
    """Logs a warning at most `burst` times a `window`; the rest at debug level,
    so a board babbling (a REPL, a crash loop) cannot flood the log."""

    def __init__(self, burst: int = 5, window: float = 60.0) -> None:
        self.burst = burst
        self.window = window
        self.times: list[float] = []

    def __call__(self, message: str) -> None:
        now = time.monotonic()
        self.times = [t for t in self.times if now - t < self.window]
        if len(self.times) < self.burst:
            self.times.append(now)
            log.warning("%s", message)
            if len(self.times) == self.burst:
                log.warning("lights: more such lines in the next %g s go to the debug log",
                            self.window)
        else:
            log.debug("%s", message)


class _Link:
    """One open connection: sequence numbers, lines, replies matched to commands."""

    def __init__(self, port: Any, path: str, on_event: Callable[[BoardEvent], None],
                 report: Callable[[str], None]) -> None:
        self.port = port
        self.path = path
        self.on_event = on_event
        self.report = report  # for lines that are not what we expect
        self.buffer = bytearray()
        self.seq = 0
        self.last_sent = 0.0

    def write(self, data: bytes) -> None:
        import serial

        try:
            self.port.write(data)
            self.port.flush()
        except (serial.SerialException, OSError) as e:
            raise LinkLost(f"writing to {self.path} failed: {e}") from None
        self.last_sent = time.monotonic()

    def transact(self, timeout: float, verb: str, *args: str) -> Reply:
        self.seq = self.seq % 65535 + 1
        seq = self.seq
        self.write(command(seq, verb, *args))
        deadline = time.monotonic() + timeout
        while True:
            line = self.read_line(deadline)
            if line is None:
                raise LinkLost(f"no answer to {verb} from {self.path} within {timeout:g} s")
            reply = self.take(line, seq)
            if reply is not None:
                return reply

    def take(self, line: bytes, seq: int | None = None) -> Reply | None:
        """The reply to command `seq` if `line` is it; events go to on_event, and
        anything else (junk, replies to other commands) to the log."""
        try:
            item = parse_line(line)
        except JunkLine as e:
            self.report(f"lights: ignored a line from the board on {self.path} that is not the "
                        f"protocol ({e}): {line[:80]!r}")
            return None
        if isinstance(item, BoardEvent):
            self.on_event(item)
            return None
        if seq is not None and item.seq == seq:
            return item
        self.report(f"lights: the board on {self.path} answered {str(item)[:80]!r} to a command "
                    f"we did not send just now (seq {item.seq or '-'}); ignored")
        return None

    def read_line(self, deadline: float, interrupt: threading.Event | None = None) -> bytes | None:
        """The next line (without CR LF), or None if none came before `deadline` or
        `interrupt` was set (see `wake`)."""
        import serial

        while True:
            end = self.buffer.find(b"\n")
            if end >= 0:
                line = bytes(self.buffer[:end]).rstrip(b"\r")
                del self.buffer[: end + 1]
                return line
            if interrupt is not None and interrupt.is_set():
                return None
            if len(self.buffer) > MAX_REPLY:
                log.warning("lights: dropped %d bytes from %s without a line end",
                            len(self.buffer), self.path)
                self.buffer.clear()
            if time.monotonic() >= deadline:
                return None
            try:
                chunk = self.port.read(max(1, self.port.in_waiting))
            except (serial.SerialException, OSError) as e:
                raise LinkLost(f"reading from {self.path} failed: {e}") from None
            self.buffer += chunk

    def wake(self) -> None:
        """Cut short a read waiting in another thread (pyserial's cancel_read)."""
        try:
            self.port.cancel_read()
        except Exception as e:  # a port closing under us: the worker notices by itself
            log.debug("lights: cancel_read on %s: %s", self.path, e)

    def close(self) -> None:
        try:
            self.port.close()
        except Exception as e:  # closing a vanished device may fail; it is gone either way
            log.debug("lights: closing %s: %s", self.path, e)


class SerialLights(FlagLights):
    name = "Pico board"

    def __init__(
        self,
        config: LightsConfig,
        clock: Clock = time.monotonic,
        find_port: Callable[[], str | None] | None = None,
    ) -> None:
        super().__init__(config, clock)
        self._find_port = find_port or partial(discovery.find_port, config)
        self.board: BoardInfo | None = None
        self.port_path: str | None = None
        self.connections = 0  # how many times a handshake has succeeded
        self._link: _Link | None = None
        self._shown: dict[str, Any] = {}  # what the board is known to show
        self._version = 0  # bumped on every change of the wanted state
        self._synced_version = -1
        self._effect_serial = 0
        self._changed = threading.Condition(self._lock)
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._requests: queue.Queue[tuple[Future[Reply], str, tuple[str, ...]]] = queue.Queue()
        self._last_event: int | None = None
        self._missing_logged = False
        self._open_problem = ""
        self._handshake_problem = ""
        self._report = _Throttle()
        self._board_starts = 0  # READY events seen: each means the board lost our state
        self._thread = threading.Thread(target=self._run, name="flag-lights-serial", daemon=True)
        self._thread.start()

    # -- what callers use beyond FlagLights -----------------------------------

    @property
    def connected(self) -> bool:
        return self._link is not None

    def flush(self, timeout: float = 2.0) -> bool:
        """Wait until the board shows the current state; False if it did not in time."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while self._synced_version != self._version or self._link is None:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._changed.wait(left)
            return True

    def request(self, verb: str, *args: str, timeout: float = 2.0) -> Reply:
        """Send one command (after the state is synced) and return the board's reply."""
        done: Future[Reply] = Future()
        self._requests.put((done, verb, args))
        self._wake_worker()
        try:
            return done.result(timeout)
        except TimeoutError:
            done.cancel()
            raise BoardUnavailable(f"the board did not answer {verb} within {timeout:g} s") from None

    def dump_pixels(self) -> list[tuple[int, int, int]]:
        """The board's strip, read back with the DUMP debug command."""
        reply = self.request("DUMP")
        if not reply.ok or not reply.words:
            raise BoardUnavailable(f"DUMP failed: {reply}")
        text = reply.words[0]
        return [(int(text[i:i + 2], 16), int(text[i + 2:i + 4], 16), int(text[i + 4:i + 6], 16))
                for i in range(0, len(text), 6)]

    def press(self, player: str, flag: int, hold: bool = False) -> Reply:
        """Debug: make the board report a press as if its button were pushed."""
        return self.request("PRESS", player, str(flag), *(("hold",) if hold else ()))

    def close(self) -> None:
        self._stop.set()
        self._wake_worker()
        self._thread.join()
        link = self._link
        if link is not None:
            try:  # leave the line dark rather than frozen on the last game
                link.transact(self.config.reply_timeout_s, "RESET")
            except LinkLost as e:
                log.info("lights: could not turn the board off: %s", e)
            link.close()
        self._link = None
        super().close()

    # -- FlagLights ------------------------------------------------------------

    def _show(self) -> None:
        self._version += 1
        self._wake_worker()

    def _wake_worker(self) -> None:
        self._wake.set()
        link = self._link
        if link is not None:
            link.wake()

    def _start(self, effect: Any) -> None:
        with self._lock:
            self._effect_serial += 1
            super()._start(effect)

    def clear_effect(self) -> None:
        with self._lock:
            self._effect_serial += 1
            super().clear_effect()

    # -- the thread that owns the port ----------------------------------------

    def _run(self) -> None:
        while not self._stop.is_set():
            link = self._link
            if link is None:
                if not self._connect():
                    self._stop.wait(self._retry_delay)
                continue
            try:
                self._sync(link)
                self._serve_requests(link)
                self._listen(link)
            except LinkLost as e:
                log.warning("lights: lost the board: %s; looking for it again", e)
                self._drop()
            except Exception:  # never let the lights thread die: log, drop, reconnect
                log.exception("lights: unexpected error on the serial link")
                self._drop()
                self._stop.wait(RETRY_S)

    _retry_delay = RETRY_S

    def _connect(self) -> bool:
        import serial

        path = self._find_port()
        if path is None:
            if not self._missing_logged:
                log.warning("lights: no Pico board found (looked for %s); still looking",
                            discovery.describe_search(self.config))
                self._missing_logged = True
            self._retry_delay = RETRY_S
            return False
        try:
            port = serial.Serial(path, 115200, timeout=READ_SLICE_S, write_timeout=1.0,
                                 exclusive=True)
        except (serial.SerialException, OSError) as e:
            # Right after a plug-in the device can lag its name; say so only once.
            problem = f"lights: cannot open {path}: {e}; still trying"
            if "Permission denied" in str(e):
                problem += " (add your user to the dialout group, then log in again)"
            if problem != self._open_problem:
                log.warning("%s", problem)
                self._open_problem = problem
            self._retry_delay = RETRY_S
            return False
        self._open_problem = ""
        link = _Link(port, path, self._on_board_event, self._report)
        try:
            port.reset_input_buffer()
            link.write(b"\n")  # end any half line the board may hold
            reply = link.transact(self.config.reply_timeout_s, "HELLO",
                                  str(framing.PROTOCOL_VERSION))
            if not reply.ok:
                raise JunkLine(f"the board refused the handshake: {reply}")
            info = BoardInfo.from_words(reply.words)
        except (LinkLost, JunkLine) as e:
            problem = (f"lights: no handshake with {path}: {e}. Is the battle line firmware on "
                       "the Pico? See firmware/README.md")
            if problem != self._handshake_problem:  # once, not at every retry
                log.error("%s", problem)
                self._handshake_problem = problem
            link.close()
            self._retry_delay = GIVE_UP_S if isinstance(e, JunkLine) else RETRY_S
            return False
        with self._changed:
            self._link = link
            self.board = info
            self.port_path = path
            self._shown = {}
            self._synced_version = -1
            self.connections += 1
            self._missing_logged = False
            self._handshake_problem = ""
            self._last_event = None
        log.info("lights: connected to %s %s on %s (%d pixels)", info.name, info.version, path,
                 info.pixels)
        return True

    def _drop(self) -> None:
        with self._changed:
            link, self._link = self._link, None
            self._shown = {}
            self._changed.notify_all()
        if link is not None:
            link.close()

    def _sync(self, link: _Link) -> None:
        """Send what the board does not show yet; after a reconnect, all of it."""
        with self._lock:
            version = self._version
            starts = self._board_starts
            ppf = self.config.pixels_per_flag
            colours = dict(self.config.colours)
            brightness = round(self.config.brightness * 255)
            flags = codes(self._flags)
            effect = self.effect
            serial_no = self._effect_serial
        # (key in _shown, value, command): whatever the board is not known to show
        wanted: list[tuple[str, Any, str, tuple[str, ...]]] = []
        if self._shown.get("layout") != ppf:
            wanted.append(("layout", ppf, "LAYOUT", (str(ppf),)))
        for name in looks.COLOUR_NAMES:
            rgb = colours[name]
            if self._shown.get("colour " + name) != rgb:
                wanted.append(("colour " + name, rgb, "COLOR", (name, *(str(c) for c in rgb))))
        if self._shown.get("bright") != brightness:
            wanted.append(("bright", brightness, "BRIGHT", (str(brightness),)))
        if self._shown.get("flags") != flags:
            wanted.append(("flags", flags, "FLAGS", (flags,)))
        if self._shown.get("effect") != serial_no:
            words = effect.words if effect is not None else ("none",)
            wanted.append(("effect", serial_no, "EFFECT", words))
        for key, value, verb, args in wanted:
            reply = link.transact(self.config.reply_timeout_s, verb, *args)
            if not reply.ok and reply.code == "CHECKSUM":
                return  # garbled on the way: the next round sends it again
            if not reply.ok:
                log.error("lights: the board refused %s %s: %s", verb, " ".join(args), reply)
            elif verb == "LAYOUT":
                self.board = BoardInfo.from_words(reply.words)
            self._shown[key] = value
        with self._changed:
            if self._link is link and version == self._version and starts == self._board_starts:
                self._synced_version = version
                self._changed.notify_all()

    def _serve_requests(self, link: _Link) -> None:
        while True:
            try:
                done, verb, args = self._requests.get_nowait()
            except queue.Empty:
                return
            if not done.set_running_or_notify_cancel():
                continue
            try:
                done.set_result(link.transact(self.config.reply_timeout_s, verb, *args))
            except LinkLost as e:
                done.set_exception(BoardUnavailable(str(e)))
                raise

    def _listen(self, link: _Link) -> None:
        """Take in events until something changes; PING when the line has been quiet."""
        if self._wake.is_set():
            self._wake.clear()
            return
        if time.monotonic() - link.last_sent >= self.config.heartbeat_s:
            reply = link.transact(self.config.reply_timeout_s, "PING")
            if not reply.ok:
                log.warning("lights: the board answered the heartbeat with %s", reply)
            return
        line = link.read_line(time.monotonic() + READ_SLICE_S, self._wake)
        if line is not None:
            link.take(line)

    def _on_board_event(self, event: BoardEvent) -> None:
        if self._last_event is not None and event.number != (self._last_event + 1) % 65536:
            log.warning("lights: missed board events %d..%d", self._last_event + 1,
                        event.number - 1)
        self._last_event = event.number
        if event.kind == "READY":
            # The board started afresh (reset, watchdog, power): it shows nothing of ours.
            log.info("lights: the board (re)started; sending the state")
            with self._changed:
                self._board_starts += 1
                self._shown = {}
                self._synced_version = -1
            self._wake.set()
            return
        if event.kind in ("PRESS", "HOLD") and len(event.words) == 2:
            player, flag = event.words
            if player in PLAYERS and flag.isdigit():
                self._emit(ButtonEvent(player, int(flag), event.kind == "HOLD"))  # type: ignore[arg-type]
                return
        log.warning("lights: ignored an event the host does not know: %.80r",
                    " ".join((event.kind, *event.words)))
