"""A game record in text (like PGN): headers, then one action per line.

```
[Format "battleline-record/1"]
[First "south"]
[ClaimTiming "standard"]
[Tactics "true"]
[Terrain "false"]
[Setup "standard"]
[Result "south breakthrough"]

deal R7
...
R7@3
claim 3
draw troop
```
Chance events (``deal X``) are part of the record, so a replay needs no seed:
with terrain the battlefield's layout is nine ``deal CASTLE`` lines first.
``Terrain`` and ``Setup`` (``standard`` or ``hundred-years-war``) default to
``false`` and ``standard`` when absent (records written before terrain).
Lines starting with ``#`` are comments. ``parse_record(record.text()) == record``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final

from companion.rules.actions import Action, parse_action
from companion.rules.battlefield import Setup
from companion.rules.errors import N_, IllegalAction, NotationError, Phrase
from companion.rules.game import GameState
from companion.rules.position import Player, Variant

RECORD_FORMAT: Final = "battleline-record/1"
_HEADER: Final = re.compile(r'\[(\w+) "([^"]*)"\]')


@dataclass(frozen=True, slots=True)
class GameRecord:
    first: Player = Player.SOUTH
    variant: Variant = field(default_factory=Variant)
    actions: tuple[Action, ...] = ()
    setup: Setup = Setup.STANDARD

    def replay(self) -> GameState:
        """The state after every action; IllegalAction says which line broke a rule."""
        state = GameState.new(self.first, self.variant, self.setup)
        for number, action in enumerate(self.actions, start=1):
            try:
                state = state.apply(action)
            except IllegalAction as error:
                raise type(error)(N_("action {number} ({action}): {detail}"), number=number,
                                  action=action.notation(), detail=error.detail) from None
        return state

    def with_action(self, action: Action) -> GameRecord:
        return GameRecord(self.first, self.variant, (*self.actions, action), self.setup)

    def text(self) -> str:
        final = self.replay()
        result = "*"
        if final.outcome is not None:
            winner = final.outcome.winner.value if final.outcome.winner else "none"
            result = f"{winner} {final.outcome.ending.value}"
        headers = {
            "Format": RECORD_FORMAT,
            "First": self.first.value,
            "Tactics": "true" if self.variant.tactics else "false",
            "ClaimTiming": self.variant.claim_timing,
            "Terrain": "true" if self.variant.terrain else "false",
            "Setup": self.setup.value,
            "Edition": self.variant.edition,
            "Result": result,
        }
        lines = [f'[{k} "{v}"]' for k, v in headers.items()]
        return "\n".join([*lines, "", *(a.notation() for a in self.actions)]) + "\n"


def record_lines(text: str) -> tuple[dict[str, str], list[tuple[int, str]]]:
    """A record's ``[Name "value"]`` headers and its numbered body lines, blank lines and
    ``#`` comments left out; NotationError names a header that follows the body."""
    headers: dict[str, str] = {}
    body: list[tuple[int, str]] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        header = _HEADER.fullmatch(line)
        if header is None:
            body.append((number, line))
        elif body:
            raise NotationError(line_at(number), N_("headers come before the events"))
        else:
            headers[header[1]] = header[2]
    return headers, body


def line_at(number: int) -> Phrase:
    """The field of a problem on a record's line ``number``."""
    return Phrase(N_("line {number}"), number=number)


def _either(choices: tuple[str, ...]) -> str:
    """``"a" or "b" or "c"``, each "or" translatable."""
    if len(choices) == 1:
        return f'"{choices[0]}"'
    return Phrase(N_("{first} or {last}"), first=_either(choices[:-1]), last=f'"{choices[-1]}"')


def header_choice(headers: Mapping[str, str], name: str, default: str,
                  choices: tuple[str, ...]) -> str:
    """The header's value, one of ``choices``; NotationError names the header otherwise."""
    value = headers.get(name, default)
    if value not in choices:
        raise NotationError(name, N_("expected {wanted}, got {value}"), wanted=_either(choices),
                            value=repr(value))
    return value


def header_variant(headers: Mapping[str, str]) -> Variant:
    """The rule options of a record's headers (Tactics, ClaimTiming, Terrain, Edition)."""
    flags = ("true", "false")
    timing = header_choice(headers, "ClaimTiming", "standard", ("standard", "advanced"))
    edition = header_choice(headers, "Edition", "gmt", ("gmt", "medieval"))
    return Variant(
        tactics=header_choice(headers, "Tactics", "true", flags) == "true",
        claim_timing="advanced" if timing == "advanced" else "standard",
        terrain=header_choice(headers, "Terrain", "false", flags) == "true",
        edition="medieval" if edition == "medieval" else "gmt",
    )


def parse_record(text: str) -> GameRecord:
    """A record from its text; NotationError names the line of any problem."""
    headers, body = record_lines(text)
    actions: list[Action] = []
    for number, line in body:
        try:
            actions.append(parse_action(line))
        except NotationError as error:
            raise NotationError(line_at(number), error.problem) from None
    if headers.get("Format") != RECORD_FORMAT:
        raise NotationError("Format", N_("expected {wanted}, got {value}"),
                            wanted=f'"{RECORD_FORMAT}"', value=repr(headers.get("Format")))
    first = Player(header_choice(headers, "First", "south", ("north", "south")))
    variant = header_variant(headers)
    setup = Setup(header_choice(headers, "Setup", Setup.STANDARD.value,
                                tuple(s.value for s in Setup)))
    if setup is Setup.HUNDRED_YEARS_WAR and not (variant.terrain and variant.tactics):
        raise NotationError("Setup", N_('the Hundred Years\' War needs Terrain and Tactics "true"'))
    return GameRecord(first, variant, tuple(actions), setup)
