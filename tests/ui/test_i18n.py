"""Every string the touchscreen shows is in the English catalog, compiled and shipped."""

from __future__ import annotations

import gettext

from companion.ui import i18n


def test_the_catalog_holds_every_ui_string_and_the_mo_matches_the_po() -> None:
    messages = i18n.extract(i18n.ui_sources())
    catalog = i18n.read_po(i18n.PO_PATH)
    missing = [m for m in messages if m not in catalog]
    assert not missing, f"run python -m companion.ui.i18n: {missing}"
    assert i18n.MO_PATH.read_bytes() == i18n.mo_bytes(catalog)
    with i18n.MO_PATH.open("rb") as mo:
        compiled = gettext.GNUTranslations(mo)
    assert compiled.gettext("Refused") == catalog["Refused"] == "Refused"


def test_the_screen_strings_come_from_the_catalog() -> None:
    try:
        i18n.set_language("xx")  # no such catalog: the source strings
        assert i18n._("Refused") == "Refused"
        i18n.set_language("en")
        assert isinstance(i18n._translation, gettext.GNUTranslations)
        assert i18n._("Refused") == "Refused"
    finally:
        i18n.set_language("en")


def test_a_translation_in_the_catalog_reaches_the_screen(tmp_path: object) -> None:
    from pathlib import Path

    path = Path(str(tmp_path)) / "de.mo"
    path.write_bytes(i18n.mo_bytes({"Refused": "Abgelehnt"}))
    with path.open("rb") as mo:
        translation = gettext.GNUTranslations(mo)
    assert translation.gettext("Refused") == "Abgelehnt"
    assert translation.gettext("Granted") == "Granted"  # untranslated: the source string


def test_the_package_data_globs_ship_the_catalog() -> None:
    import tomllib
    from pathlib import Path

    project = tomllib.loads((Path(i18n.__file__).parents[2] / "pyproject.toml").read_text())
    globs = project["tool"]["setuptools"]["package-data"]["*"]
    assert "*.po" in globs and "*.mo" in globs
    assert i18n.PO_PATH.parent == Path(i18n.__file__).parent  # beside a package's modules


def test_the_catalog_has_every_formation_name_of_both_editions() -> None:
    from companion.rules.formations import GMT_FORMATION_NAMES, MEDIEVAL_FORMATION_NAMES
    from companion.ui.screens import FORMATION_WORDS

    names = {*GMT_FORMATION_NAMES.values(), *MEDIEVAL_FORMATION_NAMES.values()}
    assert set(FORMATION_WORDS) == names
    from companion.status import TO_GO

    assert names | {TO_GO} <= set(i18n.read_po(i18n.PO_PATH))  # "Wedge 27", "2 to go"


def test_the_trackers_messages_reach_the_screen_through_the_catalog(tmp_path: object) -> None:
    import io
    from pathlib import Path

    from companion.messages import Message
    from companion.ui.pygame_view import LANDSCAPE, PygameView
    from companion.ui.screens import said
    from companion.ui.shots import demo_companion, unread_card

    view = PygameView(LANDSCAPE)
    companion = demo_companion(Path(str(tmp_path)), view)
    try:
        unread_card(companion, "flag3.south")
        [message] = companion.messages()
        assert isinstance(message, Message)
        assert message.template in i18n.read_po(i18n.PO_PATH)  # collected from the tracker
        translated = "Flagge: " + message.template
        i18n._translation = gettext.GNUTranslations(io.BytesIO(
            i18n.mo_bytes({message.template: translated})))
        assert said(message) == translated.format(**{
            k: str(v) for k, v in message.params.items()})
        # On the screen the players' names stand for "north"/"south", and a line
        # starts with a capital; a string never marked is otherwise left as it is.
        from companion.rules.position import Player
        named = said(message, {Player.NORTH: "Ada", Player.SOUTH: "Bo"})
        assert "Bo's side of flag 3" in named and "south" not in named
        assert said("plain words") == "Plain words"
    finally:
        i18n.set_language("en")
        companion.journal.close()
