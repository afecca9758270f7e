"""Typed commands: what the view offers besides the buttons, one line each.

The command words stay English (they are typed, and documented so); the replies
are in the language shown.
"""

from __future__ import annotations

from companion.app import Companion
from companion.i18n import N_, _, translation
from companion.messages import describe, localized
from companion.rules.errors import IllegalAction, NotationError
from companion.rules.position import Player

# Each command and what it does; the description is translated where shown.
HELP_LINES: tuple[tuple[str, str], ...] = (
    ("claim 3 north", N_("a claim (the ruling, with the counter-example for a refusal)")),
    ("pass south", N_("south cannot play")),
    ("confirm 3", N_('accept the uncertain readings at flag 3 ("confirm" alone: everywhere)')),
    ("correct flag3.north R7 B2", N_("what really lies in a zone, first played first")),
    ("undo", N_("take back the last event")),
    ("hints", N_("the flags provable now, and for whom")),
)


def help_text() -> str:
    return "\n".join(f"{command:<27} {_(text)}" for command, text in HELP_LINES)


def _flag(text: str) -> int:
    if not text.isdigit() or not 1 <= int(text) <= 9:
        raise ValueError(_("{text} is not a flag 1..9").format(text=repr(text)))
    return int(text) - 1


def _player(text: str) -> Player:
    try:
        return Player(text.lower())
    except ValueError:
        raise ValueError(_("{text} is not north or south").format(text=repr(text))) from None


def _side(player: Player) -> str:
    return _("north") if player is Player.NORTH else _("south")


def run_command(companion: Companion, line: str) -> str:
    """Do one typed command; returns what to tell the person, in the language shown."""
    words = line.split()
    if not words:
        return ""
    verb, args = words[0].lower(), words[1:]
    shown = translation()
    try:
        if verb == "claim" and len(args) == 2:
            return localized(companion.claim(_flag(args[0]), _player(args[1])).message, shown)
        if verb == "pass" and len(args) == 1:
            return f"{companion.pass_(_player(args[0])).describe()}"
        if verb == "confirm" and len(args) <= 1:
            companion.confirm(_flag(args[0]) if args else None)
            if companion.tracker.settled:
                return _("confirmed")
            return "; ".join(localized(m, shown) for m in companion.messages())
        if verb == "correct" and args:
            companion.correct(args[0], args[1:])
            if companion.tracker.settled:
                return _("corrected")
            return "; ".join(localized(m, shown) for m in companion.messages())
        if verb == "undo" and not args:
            event = companion.undo()
            if event is None:
                return _("nothing to undo")
            return _("undone: {event}").format(event=event.describe())
        if verb == "hints" and not args:
            hints = companion.tracker.provable()
            if not hints:
                return _("no flag is provable now")
            return ", ".join(_("flag {flag}: {side}").format(flag=f + 1, side=_side(p))
                             for f, p in sorted(hints.items()))
    except (ValueError, IllegalAction, NotationError) as error:
        return f"{verb}: {describe(error, shown)}"
    return _("unknown command {line}; commands:\n{commands}").format(
        line=repr(line.strip()), commands=help_text())
