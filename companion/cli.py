"""The ``battleline-companion`` command: a thin dispatcher.

Each sub-command lives in its own module and is imported only when used, so a
quick command such as ``adjudicate`` never pays for OpenCV or pygame.
"""

from __future__ import annotations

import importlib
import os
import sys

# pygame greets on import; the companion's own output should be all a player reads.
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

# name -> (module with ``main(argv: list[str]) -> int``, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "play": ("companion.run", "run the companion (default): camera table, or the simulated one"),
    "botgame": ("companion.play", "a seeded bot-vs-bot game in the terminal, rules engine only"),
    "replay": ("companion.replay", "replay a game journal through tracker and rules"),
    "export": ("companion.export", "write a journal as a readable game record"),
    "adjudicate": ("companion.adjudicate", "rule on every flag of a position file"),
    "bench": ("companion.bench", "print benchmark figures as JSON (rules, vision, ...)"),
    "lights": ("hardware.cli", "flag lights: 'lights test' walks every state"),
    "mat": ("vision.cli", "export the printable play mat"),
    "deck": ("vision.cli", "export the printable recognition-friendly deck"),
    "enroll": ("vision.cli", "enrol a physical deck from photos or the camera"),
    "read": ("vision.cli", "read the cards in an image of the mat"),
    "ui-shots": ("companion.ui.shots", "save every touchscreen screen as PNG (both sizes)"),
    "ui-demo": ("companion.ui.demo", "try the touchscreen in a window on a demonstration game"),
    "kiosk": ("companion.ui.kiosk", "print or install the systemd unit of the touchscreen kiosk"),
}
DEFAULT = "play"


def _usage() -> str:
    lines = ["usage: battleline-companion [COMMAND] [OPTIONS]", "", "commands:"]
    lines += [f"  {name:<11} {text}" for name, (_, text) in COMMANDS.items()]
    lines += ["", "Run 'battleline-companion COMMAND --help' for a command's options."]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] in ("-h", "--help", "help"):
        print(_usage())
        return 0
    if args and args[0] in COMMANDS:
        name, rest = args[0], args[1:]
    elif not args or args[0].startswith("-"):
        name, rest = DEFAULT, args
    else:
        print(f"battleline-companion: unknown command {args[0]!r}\n\n{_usage()}", file=sys.stderr)
        return 2
    module = importlib.import_module(COMMANDS[name][0])
    # Modules serving several commands take the command name as their first argument.
    if sum(1 for mod, _ in COMMANDS.values() if mod == COMMANDS[name][0]) > 1:
        rest = [name, *rest]
    result: int = module.main(rest)
    return result


if __name__ == "__main__":
    sys.exit(main())
