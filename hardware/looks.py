"""What each flag state and whole-line effect looks like: colours over time.

Both boards show the same looks. The direct board (hardware.direct) maps these
colours onto its bicolour LEDs; the Pico firmware paints them onto the WS2812
strip (firmware/looks.py is a link to this file). So this module keeps to the
Python that CPython and MicroPython both run: no imports, integer maths only,
types named only inside annotations (MicroPython never evaluates those).

Colours are (r, g, b) tuples of 0..255 at full brightness; each board applies
its own brightness afterwards. Times are integer milliseconds.
"""

FLAGS = 9

# Flag state codes, exactly as they travel on the wire (firmware/PROTOCOL.md).
OFF = "."
CLAIMABLE_NORTH = "n"
CLAIMABLE_SOUTH = "s"
CLAIMED_NORTH = "N"
CLAIMED_SOUTH = "S"
ATTENTION = "!"
UNCERTAIN = "?"
CODES = ".nsNS!?"

# Effects, as their first word on the wire.
SELFTEST = "selftest"
WON = "won"
IDLE = "idle"
PLAYERS = ("north", "south")
WIN_KINDS = ("breakthrough", "envelopment")

FULL = 255
DIM = 64  # claimable is a quarter of claimed: same hue, clearly weaker
BLINK_MS = 250  # attention: 250 ms on, 250 ms off, hard to miss
PULSE_MS = 2000  # uncertain: one slow breath every 2 s ...
PULSE_FLOOR = 51  # ... never below a fifth, so it is never mistaken for off
SELFTEST_STEP_MS = 100
SELFTEST_COLOURS = ("north", "south", "white")
SELFTEST_MS = SELFTEST_STEP_MS * FLAGS * len(SELFTEST_COLOURS)
CHASE_STEP_MS = 100  # breakthrough: a bright light runs along a dim line
WON_BLINK_MS = 500  # envelopment: the whole line flashes once a second
IDLE_MS = 3000  # idle: a slow dim wave, alternating the players' colours

BLACK = (0, 0, 0)
COLOUR_NAMES = ("north", "south", "attention", "uncertain", "white")
DEFAULT_COLOURS = {
    "north": (255, 0, 0),
    "south": (0, 255, 0),
    "attention": (255, 160, 0),
    "uncertain": (255, 255, 255),
    "white": (255, 255, 255),
}


def scaled(rgb: tuple, level: int) -> tuple:
    """`rgb` at `level`/255 of its strength."""
    return (rgb[0] * level // FULL, rgb[1] * level // FULL, rgb[2] * level // FULL)


def triangle(t: int, period: int) -> int:
    """0 at the start of each period, 255 half-way, back to 0 at its end."""
    half = period // 2
    p = t % period
    if p < half:
        return p * FULL // half
    return (period - p) * FULL // half


def flag_colour(code: str, colours: dict, now_ms: int) -> tuple:
    """The colour of one flag in state `code` at time `now_ms`."""
    if code == OFF:
        return BLACK
    if code == CLAIMED_NORTH:
        return tuple(colours["north"])
    if code == CLAIMED_SOUTH:
        return tuple(colours["south"])
    if code == CLAIMABLE_NORTH:
        return scaled(colours["north"], DIM)
    if code == CLAIMABLE_SOUTH:
        return scaled(colours["south"], DIM)
    if code == ATTENTION:
        if (now_ms // BLINK_MS) % 2 == 0:
            return tuple(colours["attention"])
        return BLACK
    if code == UNCERTAIN:
        level = PULSE_FLOOR + triangle(now_ms, PULSE_MS) * (FULL - PULSE_FLOOR) // FULL
        return scaled(colours["uncertain"], level)
    raise ValueError(f"unknown flag state code {code!r}")


def effect_over(effect: tuple, elapsed_ms: int) -> bool:
    """Whether an effect has run its course (only the self-test ends by itself)."""
    return effect[0] == SELFTEST and elapsed_ms >= SELFTEST_MS


def effect_colours(effect: tuple, colours: dict, elapsed_ms: int) -> list:
    """The nine flag colours `elapsed_ms` into `effect`.

    `effect` is its words on the wire: ("selftest",), ("idle",) or
    ("won", player, "breakthrough" | "envelopment").
    """
    kind = effect[0]
    if kind == SELFTEST:
        # One flag at a time, left to right, in each colour in turn: a dead
        # LED or a swapped wire shows as a gap or a jump in the sweep.
        step = min(elapsed_ms // SELFTEST_STEP_MS, FLAGS * len(SELFTEST_COLOURS) - 1)
        colour = tuple(colours[SELFTEST_COLOURS[step // FLAGS]])
        lit = step % FLAGS
        return [colour if i == lit else BLACK for i in range(FLAGS)]
    if kind == WON:
        colour = tuple(colours[effect[1]])
        if effect[2] == "breakthrough":
            head = (elapsed_ms // CHASE_STEP_MS) % FLAGS
            dim = scaled(colour, DIM)
            return [colour if i == head else dim for i in range(FLAGS)]
        if (elapsed_ms // WON_BLINK_MS) % 2 == 0:
            return [colour] * FLAGS
        return [BLACK] * FLAGS
    if kind == IDLE:
        out = []
        for i in range(FLAGS):
            level = triangle(elapsed_ms + i * IDLE_MS // FLAGS, IDLE_MS) * DIM // FULL
            out.append(scaled(colours[PLAYERS[i % 2]], level))
        return out
    raise ValueError(f"unknown effect {kind!r}")


def line_colours(
    flags: str, colours: dict, now_ms: int, effect: tuple | None = None, elapsed_ms: int = 0
) -> list:
    """The nine flag colours: the running effect if any, else each flag's state."""
    if effect is not None and not effect_over(effect, elapsed_ms):
        return effect_colours(effect, colours, elapsed_ms)
    return [flag_colour(code, colours, now_ms) for code in flags]


def check_effect(words: list) -> str | None:
    """None if `words` name a valid effect, else what is wrong with them."""
    if not words:
        return "no effect named"
    kind = words[0]
    if kind in (SELFTEST, IDLE):
        return None if len(words) == 1 else f"{kind} takes no arguments"
    if kind == WON:
        if len(words) != 3 or words[1] not in PLAYERS or words[2] not in WIN_KINDS:
            return "won takes north|south and breakthrough|envelopment"
        return None
    return f"unknown effect {kind!r}"
