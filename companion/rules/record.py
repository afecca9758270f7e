"""A game record in text (like PGN): headers, then one action per line.

```
[Format "battleline-record/1"]
[First "south"]
[ClaimTiming "standard"]
[Tactics "true"]
[Result "south breakthrough"]

deal R7
...
R7@3
claim 3
draw troop
```
Chance events (``deal X``) are part of the record, so a replay needs no seed.
Lines starting with ``#`` are comments. ``parse_record(record.text()) == record``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Final

from companion.rules.actions import Action, parse_action
from companion.rules.errors import IllegalAction, NotationError
from companion.rules.game import GameState
from companion.rules.position import Player, Variant

RECORD_FORMAT: Final = "battleline-record/1"
_HEADER: Final = re.compile(r'\[(\w+) "([^"]*)"\]')


@dataclass(frozen=True, slots=True)
class GameRecord:
    first: Player = Player.SOUTH
    variant: Variant = field(default_factory=Variant)
    actions: tuple[Action, ...] = ()

    def replay(self) -> GameState:
        """The state after every action; IllegalAction says which line broke a rule."""
        state = GameState.new(self.first, self.variant)
        for number, action in enumerate(self.actions, start=1):
            try:
                state = state.apply(action)
            except IllegalAction as error:
                raise type(error)(
                    f"action {number} ({action.notation()}): {error.detail}"
                ) from None
        return state

    def with_action(self, action: Action) -> GameRecord:
        return GameRecord(self.first, self.variant, (*self.actions, action))

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
            "Edition": self.variant.edition,
            "Result": result,
        }
        lines = [f'[{k} "{v}"]' for k, v in headers.items()]
        return "\n".join([*lines, "", *(a.notation() for a in self.actions)]) + "\n"


def parse_record(text: str) -> GameRecord:
    """A record from its text; NotationError names the line of any problem."""
    headers: dict[str, str] = {}
    actions: list[Action] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        header = _HEADER.fullmatch(line)
        if header:
            headers[header[1]] = header[2]
            continue
        try:
            actions.append(parse_action(line))
        except NotationError as error:
            raise NotationError(f"line {number}", error.problem) from None
    if headers.get("Format") != RECORD_FORMAT:
        raise NotationError("Format", f'expected "{RECORD_FORMAT}", got {headers.get("Format")!r}')
    try:
        first = Player(headers.get("First", "south"))
    except ValueError:
        raise NotationError(
            "First", f'expected "north" or "south", got {headers["First"]!r}'
        ) from None
    timing = headers.get("ClaimTiming", "standard")
    if timing not in ("standard", "advanced"):
        raise NotationError("ClaimTiming", f'expected "standard" or "advanced", got {timing!r}')
    edition = headers.get("Edition", "gmt")
    if edition not in ("gmt", "medieval"):
        raise NotationError("Edition", f'expected "gmt" or "medieval", got {edition!r}')
    variant = Variant(
        tactics=headers.get("Tactics", "true") == "true",
        claim_timing="advanced" if timing == "advanced" else "standard",
        edition="medieval" if edition == "medieval" else "gmt",
    )
    return GameRecord(first, variant, tuple(actions))
