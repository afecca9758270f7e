"""The host's reading and writing of the board protocol (firmware/PROTOCOL.md)."""

from __future__ import annotations

from dataclasses import dataclass

from hardware import framing

FIRMWARE_NAME = "battleline-lights"


class JunkLine(ValueError):
    """A line from the board that is not the protocol."""


@dataclass(frozen=True)
class Reply:
    """`<seq> OK words...` or `<seq> ERR CODE message` (seq None for '-')."""

    seq: int | None
    ok: bool
    words: tuple[str, ...] = ()
    code: str = ""
    message: str = ""

    def __str__(self) -> str:
        return "OK " + " ".join(self.words) if self.ok else f"ERR {self.code} {self.message}"


@dataclass(frozen=True)
class BoardEvent:
    """`! <n> KIND words...`, sent by the board unasked."""

    number: int
    kind: str
    words: tuple[str, ...]


@dataclass(frozen=True)
class BoardInfo:
    """What the board says of itself in the handshake and its READY event."""

    name: str
    version: str
    protocol: int
    pixels: int
    pixels_per_flag: int
    flags: int

    @classmethod
    def from_words(cls, words: tuple[str, ...]) -> BoardInfo:
        if len(words) != 6 or words[0] != FIRMWARE_NAME or not all(w.isdigit() for w in words[2:]):
            raise JunkLine(f"expected '{FIRMWARE_NAME} VERSION PROTOCOL PIXELS PER-FLAG FLAGS', "
                           f"got {' '.join(words)!r}")
        return cls(words[0], words[1], *(int(w) for w in words[2:]))


def command(seq: int, verb: str, *args: str) -> bytes:
    return framing.frame(" ".join((str(seq), verb, *args)))


def parse_line(line: bytes) -> Reply | BoardEvent:
    """One line from the board, without its LF. Raises JunkLine, naming the problem."""
    try:
        body = framing.unframe(line)
    except framing.FrameError as e:
        raise JunkLine(e.message) from None
    words = body.split(" ")
    if words[0] == "!":
        if len(words) < 3 or not words[1].isdigit():
            raise JunkLine("an event must be '! NUMBER KIND ...'")
        return BoardEvent(int(words[1]), words[2], tuple(words[3:]))
    if len(words) < 2 or not (words[0].isdigit() or words[0] == "-"):
        raise JunkLine("a reply must start with a sequence number or '-'")
    seq = None if words[0] == "-" else int(words[0])
    if words[1] == "OK":
        return Reply(seq, True, tuple(words[2:]))
    if words[1] == "ERR" and len(words) >= 3:
        return Reply(seq, False, (), words[2], " ".join(words[3:]))
    raise JunkLine("a reply must be OK or ERR CODE")
