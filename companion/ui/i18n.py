"""Every string the touchscreen shows goes through ``_`` (gettext).

The catalog source is ``battleline.en.po`` beside this module, compiled to
``battleline.en.mo`` (beside it, so the package-data globs ship both). ``python -m companion.ui.i18n`` collects
the ``_("...")`` strings of the ui package into the .po (keeping translations
already there) and compiles it, so no gettext tools are needed. A missing
catalog falls back to the source strings.
"""

from __future__ import annotations

import ast
import gettext
import struct
import sys
from pathlib import Path

DOMAIN = "battleline"
HERE = Path(__file__).parent
PO_PATH = HERE / f"{DOMAIN}.en.po"
MO_PATH = PO_PATH.with_suffix(".mo")

_translation: gettext.NullTranslations = gettext.NullTranslations()


def set_language(language: str = "en") -> None:
    """Use ``battleline.<language>.mo``; without one, the source strings."""
    global _translation
    path = HERE / f"{DOMAIN}.{language}.mo"
    if path.exists():
        with path.open("rb") as mo:
            _translation = gettext.GNUTranslations(mo)
    else:
        _translation = gettext.NullTranslations()


def _(message: str) -> str:
    return _translation.gettext(message)


def N_(message: str) -> str:
    """Marks a string for the catalog where it is defined; ``_`` translates it where shown."""
    return message


def extract(sources: list[Path]) -> list[str]:
    """The literal arguments of every ``_(...)`` and ``N_(...)`` call, in first-seen order."""
    found: dict[str, None] = {}
    for path in sources:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("_", "N_")
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
            ):
                found[node.args[0].value] = None
    return list(found)


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _unquote(text: str) -> str:
    body = text.strip()[1:-1]
    out, i = [], 0
    while i < len(body):
        if body[i] == "\\" and i + 1 < len(body):
            out.append({"n": "\n", "t": "\t"}.get(body[i + 1], body[i + 1]))
            i += 2
        else:
            out.append(body[i])
            i += 1
    return "".join(out)


def read_po(path: Path) -> dict[str, str]:
    """msgid -> msgstr of a .po file (single-line or continued strings, no plurals)."""
    entries: dict[str, str] = {}
    key: str | None = None
    msgid = msgstr = ""
    for raw in [*path.read_text(encoding="utf-8").splitlines(), ""]:
        line = raw.strip()
        if line.startswith("msgid "):
            if key == "msgstr":
                entries[msgid] = msgstr
            key, msgid, msgstr = "msgid", _unquote(line[6:]), ""
        elif line.startswith("msgstr "):
            key, msgstr = "msgstr", _unquote(line[7:])
        elif line.startswith('"') and key == "msgid":
            msgid += _unquote(line)
        elif line.startswith('"') and key == "msgstr":
            msgstr += _unquote(line)
        elif not line and key == "msgstr":
            entries[msgid] = msgstr
            key = None
    return entries


def write_po(path: Path, messages: list[str], old: dict[str, str]) -> None:
    lines = [
        'msgid ""',
        'msgstr ""',
        '"Content-Type: text/plain; charset=UTF-8\\n"',
        '"Language: en\\n"',
        "",
    ]
    for message in messages:
        lines += [f"msgid {_quote(message)}", f"msgstr {_quote(old.get(message, message))}", ""]
    path.write_text("\n".join(lines), encoding="utf-8")


def mo_bytes(entries: dict[str, str]) -> bytes:
    """A GNU .mo file of ``entries`` (the format gettext reads)."""
    keys = sorted(entries)
    ids = [k.encode() for k in keys]
    strs = [entries[k].encode() for k in keys]
    header = 7 * 4
    table = header + 2 * 8 * len(keys)
    offsets_id, offsets_str, blob = [], [], b""
    for data in ids:
        offsets_id.append((len(data), table + len(blob)))
        blob += data + b"\0"
    for data in strs:
        offsets_str.append((len(data), table + len(blob)))
        blob += data + b"\0"
    out = struct.pack("<7I", 0x950412DE, 0, len(keys), header, header + 8 * len(keys), 0, 0)
    for length, offset in offsets_id + offsets_str:
        out += struct.pack("<2I", length, offset)
    return out + blob


def ui_sources() -> list[Path]:
    """The modules whose strings the touchscreen shows: the ui's own, and the app's and
    the tracker's messages (their templates marked with ``companion.messages.N_``)."""
    from companion import messages

    ui = sorted(p for p in Path(__file__).parent.glob("*.py") if p.name != "terminal.py")
    return [*ui, *messages.sources(), HERE.parent / "app.py"]


def main(argv: list[str] | None = None) -> int:
    """Collect the ui strings into the .po and compile the .mo."""
    old = read_po(PO_PATH) if PO_PATH.exists() else {}
    messages = extract(ui_sources())
    write_po(PO_PATH, messages, old)
    entries = {k: v for k, v in read_po(PO_PATH).items()}
    MO_PATH.write_bytes(mo_bytes(entries))
    print(f"{len(messages)} messages: {PO_PATH.name}, {MO_PATH.name}")
    return 0


set_language()

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
