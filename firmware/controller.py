"""The board's logic: protocol lines in; replies, button events and pixels out.

Every piece of hardware comes in as an argument (a write function for the host
link, a factory for the pixel strip, the debounced buttons, a clock, a status
LED, a watchdog), so the same code runs on the Pico (main.py) and under the
MicroPython unix port (unix_main.py, which the tests drive). PROTOCOL.md is
the contract this module keeps.
"""

import time

import framing
import looks
from linereader import TOO_LONG, LineReader

NAME = "battleline-lights"
VERSION = "1.0.0"
MAX_PIXELS_PER_FLAG = 16
HOST_TIMEOUT_MS = 5000  # no valid command for this long: the status LED blinks
RENDER_MS = 20  # repaint at most 50 times a second unless something changed
MILLIAMPS_PER_CHANNEL = 20  # one WS2812 colour channel at 255 draws about 20 mA


class CommandError(Exception):
    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message


class DebugClock:
    """time.ticks_ms(), unless frozen at a given value by the TIME command."""

    def __init__(self):
        self.frozen = None

    def __call__(self):
        return time.ticks_ms() if self.frozen is None else self.frozen

    def freeze(self, ms):
        self.frozen = ms


def paint(pixels, colours, pixels_per_flag, brightness, max_milliamps):
    """Fill `pixels` (r, g, b bytes) from the nine flag colours, at `brightness`
    (0..255), scaled down as a whole if the strip would draw over `max_milliamps`."""
    i = 0
    for colour in colours:
        r, g, b = looks.scaled(colour, brightness)
        for _ in range(pixels_per_flag):
            pixels[i] = r
            pixels[i + 1] = g
            pixels[i + 2] = b
            i += 3
    milliamps = sum(pixels) * MILLIAMPS_PER_CHANNEL // 255
    if milliamps > max_milliamps:
        for j in range(len(pixels)):
            pixels[j] = pixels[j] * max_milliamps // milliamps


def _number(text, low, high, what):
    if not text.isdigit() or not low <= int(text) <= high:
        raise CommandError("ARGS", f"{what} must be a number {low}..{high}, not {text}")
    return int(text)


def _count(args, *allowed):
    if len(args) not in allowed:
        wanted = " or ".join(str(n) for n in allowed)
        raise CommandError("ARGS", f"takes {wanted} arguments, got {len(args)}")


def _seq_of(text):
    return text.isdigit() and len(text) <= 5 and 1 <= int(text) <= 65535


class Controller:
    def __init__(
        self,
        write,
        make_strip,
        buttons=None,
        clock=time.ticks_ms,
        status_led=None,
        wdt=None,
        pixels_per_flag=3,
        max_milliamps=500,
        on_safe=None,
    ):
        self.write = write
        self.make_strip = make_strip
        self.buttons = buttons
        self.clock = clock
        self.status_led = status_led
        self.wdt = wdt
        self.max_milliamps = max_milliamps
        self.on_safe = on_safe
        self.safe_requested = False
        self.reader = LineReader(framing.MAX_LINE)
        self.events = 0
        self.started = clock()
        self.last_host = None
        self.last_render = None
        self.strip = None
        self.pixels_per_flag = 0
        self.reset_state()
        self.layout(pixels_per_flag)
        self.event("READY " + self.identity())

    # -- state -------------------------------------------------------------

    def reset_state(self):
        self.flags = looks.OFF * looks.FLAGS
        self.colours = dict(looks.DEFAULT_COLOURS)
        self.brightness = 255
        self.effect = None
        self.effect_start = 0
        self.dirty = True

    def layout(self, pixels_per_flag):
        if self.strip is not None:
            # Blank the old strip first: pixels past a shorter new one stay dark.
            for i in range(len(self.strip)):
                self.strip[i] = (0, 0, 0)
            self.strip.write()
        self.pixels_per_flag = pixels_per_flag
        self.strip = self.make_strip(pixels_per_flag * looks.FLAGS)
        self.pixels = bytearray(3 * pixels_per_flag * looks.FLAGS)
        self.shown = None
        self.dirty = True

    def identity(self):
        n = self.pixels_per_flag
        return f"{NAME} {VERSION} {framing.PROTOCOL_VERSION} {n * looks.FLAGS} {n} {looks.FLAGS}"

    # -- the link ----------------------------------------------------------

    def reply(self, seq, text):
        self.write(framing.frame(f"{seq} {text}"))

    def event(self, text):
        self.write(framing.frame(f"! {self.events} {text}"))
        self.events = (self.events + 1) % 65536

    def feed(self, data):
        """Handle the bytes `data` from the host."""
        for line in self.reader.feed(data):
            if line is TOO_LONG:
                self.reply("-", f"ERR TOOLONG line longer than {framing.MAX_LINE} bytes")
            else:
                self.handle(line)
            if self.safe_requested:
                self.on_safe()
                return

    def handle(self, line):
        try:
            body = framing.unframe(line)
        except framing.FrameError as e:
            # Name the sequence number if it can still be read, so the host
            # knows which of its commands to send again.
            first = line.split(b" ")[0]
            seq = first.decode() if first.isdigit() and _seq_of(first.decode()) else "-"
            self.reply(seq, f"ERR {e.code} {e.message}")
            return
        words = body.split()
        if not words or not _seq_of(words[0]):
            self.reply("-", "ERR SYNTAX line must start with a sequence number 1..65535")
            return
        seq = words[0]
        if len(words) < 2:
            self.reply(seq, "ERR SYNTAX no command after the sequence number")
            return
        self.last_host = self.clock()
        handler = COMMANDS.get(words[1])
        if handler is None:
            self.reply(seq, f"ERR UNKNOWN no command {words[1]}")
            return
        try:
            result = handler(self, words[2:])
        except CommandError as e:
            self.reply(seq, f"ERR {e.code} {words[1]}: {e.message}")
            return
        self.reply(seq, "OK" if result is None else "OK " + result)

    # -- commands (PROTOCOL.md) ---------------------------------------------

    def cmd_hello(self, args):
        _count(args, 1)
        if args[0] != str(framing.PROTOCOL_VERSION):
            raise CommandError(
                "VERSION", f"this firmware speaks protocol {framing.PROTOCOL_VERSION}")
        return self.identity()

    def cmd_ping(self, args):
        _count(args, 0)
        return str(time.ticks_diff(self.clock(), self.started))

    def _code(self, text):
        if len(text) != 1 or text not in looks.CODES:
            raise CommandError("ARGS", f"flag state must be one of {looks.CODES}, not {text}")
        return text

    def cmd_flag(self, args):
        _count(args, 2)
        n = _number(args[0], 1, looks.FLAGS, "flag")
        self.flags = self.flags[: n - 1] + self._code(args[1]) + self.flags[n:]
        self.dirty = True

    def cmd_flags(self, args):
        _count(args, 1)
        if len(args[0]) != looks.FLAGS:
            raise CommandError("ARGS", f"needs {looks.FLAGS} state codes, got {len(args[0])}")
        for code in args[0]:
            self._code(code)
        self.flags = args[0]
        self.dirty = True

    def cmd_color(self, args):
        _count(args, 4)
        if args[0] not in looks.COLOUR_NAMES:
            names = " ".join(looks.COLOUR_NAMES)
            raise CommandError("ARGS", f"colour name must be one of {names}")
        self.colours[args[0]] = tuple(_number(v, 0, 255, "a colour channel") for v in args[1:])
        self.dirty = True

    def cmd_bright(self, args):
        _count(args, 1)
        self.brightness = _number(args[0], 0, 255, "brightness")
        self.dirty = True

    def cmd_effect(self, args):
        if args == ["none"]:
            self.effect = None
        else:
            problem = looks.check_effect(args)
            if problem is not None:
                raise CommandError("ARGS", problem)
            self.effect = tuple(args)
            self.effect_start = self.clock()
        self.dirty = True

    def cmd_layout(self, args):
        _count(args, 1)
        n = _number(args[0], 1, MAX_PIXELS_PER_FLAG, "pixels per flag")
        if n != self.pixels_per_flag:
            self.layout(n)
        return self.identity()

    def cmd_reset(self, args):
        _count(args, 0)
        self.reset_state()

    def cmd_dump(self, args):
        _count(args, 0)
        self.render(self.clock(), True)
        strip = self.strip
        return "".join("{:02X}{:02X}{:02X}".format(*strip[i]) for i in range(len(strip)))

    def cmd_press(self, args):
        _count(args, 2, 3)
        if args[0] not in looks.PLAYERS:
            raise CommandError("ARGS", f"player must be north or south, not {args[0]}")
        flag = _number(args[1], 1, looks.FLAGS, "flag")
        if len(args) == 3 and args[2] != "hold":
            raise CommandError("ARGS", "the third argument can only be hold")
        self.event(f"PRESS {args[0]} {flag}")
        if len(args) == 3:
            self.event(f"HOLD {args[0]} {flag}")

    def cmd_time(self, args):
        _count(args, 0, 1)
        if not hasattr(self.clock, "freeze"):
            raise CommandError("UNSUPPORTED", "this board's clock cannot be set")
        self.clock.freeze(_number(args[0], 0, 2**29, "time") if args else None)
        self.dirty = True

    def cmd_safe(self, args):
        _count(args, 0)
        if self.on_safe is None:
            raise CommandError("UNSUPPORTED", "no safe mode on this board")
        self.safe_requested = True

    # -- the main loop's work ------------------------------------------------

    def poll(self):
        """Read the buttons, repaint, show the link on the status LED, feed the dog."""
        now = self.clock()
        if self.buttons is not None:
            for kind, player, flag in self.buttons.scan(now):
                self.event(f"{kind} {player} {flag}")
        self.render(now)
        if self.status_led is not None:
            alive = self.last_host is not None and (
                time.ticks_diff(now, self.last_host) < HOST_TIMEOUT_MS)
            self.status_led.value(1 if alive else (now // 250) % 2)
        if self.wdt is not None:
            self.wdt.feed()

    def render(self, now, force=False):
        if not (force or self.dirty or self.last_render is None
                or time.ticks_diff(now, self.last_render) >= RENDER_MS):
            return
        self.last_render = now
        self.dirty = False
        elapsed = time.ticks_diff(now, self.effect_start)
        if self.effect is not None and looks.effect_over(self.effect, elapsed):
            self.effect = None
        colours = looks.line_colours(self.flags, self.colours, now, self.effect, elapsed)
        paint(self.pixels, colours, self.pixels_per_flag, self.brightness, self.max_milliamps)
        if self.pixels != self.shown:
            strip, px = self.strip, self.pixels
            for i in range(len(strip)):
                strip[i] = (px[3 * i], px[3 * i + 1], px[3 * i + 2])
            strip.write()
            self.shown = bytes(px)


COMMANDS = {
    "HELLO": Controller.cmd_hello,
    "PING": Controller.cmd_ping,
    "FLAG": Controller.cmd_flag,
    "FLAGS": Controller.cmd_flags,
    "COLOR": Controller.cmd_color,
    "BRIGHT": Controller.cmd_bright,
    "EFFECT": Controller.cmd_effect,
    "LAYOUT": Controller.cmd_layout,
    "RESET": Controller.cmd_reset,
    "DUMP": Controller.cmd_dump,
    "PRESS": Controller.cmd_press,
    "TIME": Controller.cmd_time,
    "SAFE": Controller.cmd_safe,
}
