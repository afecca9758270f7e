"""The ``battleline-companion`` command: a thin dispatcher.

Each sub-command lives in its own module and is imported only when used, so a
quick command such as ``adjudicate`` never pays for OpenCV or pygame.
"""

from __future__ import annotations

import importlib
import os
import sys

from companion.i18n import N_, _, set_language

# pygame greets on import; the companion's own output should be all a player reads.
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

# name -> (module with ``main(argv: list[str]) -> int``, one-line help, translated where shown)
COMMANDS: dict[str, tuple[str, str]] = {
    "play": ("companion.run", N_("run the companion (default): camera table, or the simulated one")),
    "botgame": ("companion.sim.botgame", N_("a seeded bot-vs-bot game in the terminal, rules engine only")),
    "replay": ("companion.records.replay", N_("replay a game journal through tracker and rules")),
    "export": ("companion.records.export", N_("write a journal as a readable game record")),
    "adjudicate": ("companion.records.adjudicate", N_("rule on every flag of a position file")),
    "bench": ("companion.bench", N_("print benchmark figures as JSON (rules, vision, ...)")),
    "lights": ("hardware.cli", N_("flag lights: 'lights test' walks every state")),
    "mat": ("vision.cli", N_("export the printable play mat")),
    "deck": ("vision.cli", N_("export the printable recognition-friendly deck")),
    "enroll": ("vision.cli", N_("enrol a physical deck from photos or the camera")),
    "read": ("vision.cli", N_("read the cards in an image of the mat")),
    "ui-shots": ("companion.ui.shots", N_("save every touchscreen screen as PNG (both sizes)")),
    "ui-demo": ("companion.ui.demo", N_("try the touchscreen in a window on a demonstration game")),
    "kiosk": ("companion.ui.kiosk", N_("print or install the systemd unit of the touchscreen kiosk")),
}
DEFAULT = "play"


def _usage() -> str:
    lines = [_("usage: battleline-companion [COMMAND] [OPTIONS]"), "", _("commands:")]
    lines += [f"  {name:<11} {_(text)}" for name, (_module, text) in COMMANDS.items()]
    lines += ["", _("Run 'battleline-companion COMMAND --help' for a command's options.")]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] in ("-h", "--help", "help"):
        set_language("auto")  # the commands set the language of their settings themselves
        print(_usage())
        return 0
    if args and args[0] in COMMANDS:
        name, rest = args[0], args[1:]
    elif not args or args[0].startswith("-"):
        name, rest = DEFAULT, args
    else:
        set_language("auto")
        unknown = _("battleline-companion: unknown command {command}").format(
            command=repr(args[0]))
        print(f"{unknown}\n\n{_usage()}", file=sys.stderr)
        return 2
    module = importlib.import_module(COMMANDS[name][0])
    # Modules serving several commands take the command name as their first argument.
    if sum(1 for mod, _help in COMMANDS.values() if mod == COMMANDS[name][0]) > 1:
        rest = [name, *rest]
    result: int = module.main(rest)
    return result


if __name__ == "__main__":
    sys.exit(main())
