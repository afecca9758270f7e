"""Typed commands: what the view offers besides the buttons, one line each.

```
claim 3 north       a claim (the ruling, with the counter-example for a refusal)
pass south          south cannot play
confirm 3           accept the uncertain readings at flag 3 ("confirm" alone: everywhere)
correct flag3.north R7 B2   what really lies in a zone, first played first
undo                take back the last event
hints               the flags provable now, and for whom
```
"""

from __future__ import annotations

from companion.app import Companion
from companion.rules.errors import IllegalAction, NotationError
from companion.rules.position import Player

HELP = __doc__.split("```")[1].strip() if __doc__ else ""


def _flag(text: str) -> int:
    if not text.isdigit() or not 1 <= int(text) <= 9:
        raise ValueError(f"{text!r} is not a flag 1..9")
    return int(text) - 1


def _player(text: str) -> Player:
    try:
        return Player(text.lower())
    except ValueError:
        raise ValueError(f"{text!r} is not north or south") from None


def run_command(companion: Companion, line: str) -> str:
    """Do one typed command; returns what to tell the person."""
    words = line.split()
    if not words:
        return ""
    verb, args = words[0].lower(), words[1:]
    try:
        if verb == "claim" and len(args) == 2:
            return companion.claim(_flag(args[0]), _player(args[1])).message
        if verb == "pass" and len(args) == 1:
            return f"{companion.pass_(_player(args[0])).describe()}"
        if verb == "confirm" and len(args) <= 1:
            companion.confirm(_flag(args[0]) if args else None)
            return "confirmed" if companion.tracker.settled else "; ".join(companion.messages())
        if verb == "correct" and args:
            companion.correct(args[0], args[1:])
            return "corrected" if companion.tracker.settled else "; ".join(companion.messages())
        if verb == "undo" and not args:
            event = companion.undo()
            return "nothing to undo" if event is None else f"undone: {event.describe()}"
        if verb == "hints" and not args:
            hints = companion.tracker.provable()
            if not hints:
                return "no flag is provable now"
            return ", ".join(f"flag {f + 1}: {p}" for f, p in sorted(hints.items()))
    except (ValueError, IllegalAction, NotationError) as error:
        return f"{verb}: {error}"
    return f"unknown command {line.strip()!r}; commands:\n{HELP}"
