"""``battleline-companion adjudicate FILE``: rulings on every flag of a position file.

Kept to the rules library and the standard library so it starts fast.
"""

from __future__ import annotations

import sys

from companion.i18n import ArgumentParser, _, set_language
from companion.messages import describe
from companion.rules.claims import adjudicate
from companion.rules.errors import NotationError
from companion.rules.notation import parse_position, rulings_to_json


def main(argv: list[str]) -> int:
    set_language("auto")  # the system's: adjudicate reads no settings
    parser = ArgumentParser(
        prog="battleline-companion adjudicate",
        description=_("Print battleline-rulings/1 JSON for a battleline-position/1 file ('-' "
                      "reads stdin)."),
    )
    parser.add_argument("file", help=_("the position file, or - for standard input"))
    args = parser.parse_args(argv)
    try:
        if args.file == "-":
            text = sys.stdin.buffer.read()
        else:
            with open(args.file, "rb") as handle:
                text = handle.read()
    except OSError as error:
        print(_("adjudicate: cannot read {path}: {error}").format(
            path=args.file, error=error.strerror), file=sys.stderr)
        return 1
    try:
        position = parse_position(text)
    except NotationError as error:
        print(f"adjudicate: {args.file}: {describe(error)}", file=sys.stderr)
        return 1
    print(rulings_to_json(adjudicate(position)))
    return 0
