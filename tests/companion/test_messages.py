"""Tracker messages are translatable: a template and parameters behind the English text."""

from __future__ import annotations

import gettext
import io
import json
import pickle
from collections.abc import Sequence

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_file
from babel.messages.mofile import write_mo

from companion.i18n import NP_
from companion.messages import Message, localized
from companion.rules.position import Player
from companion.snapshot import Reading, Snapshot, snapshot_of
from companion.tracker import Tracker

N, S = Player.NORTH, Player.SOUTH

# A small French catalog, compiled by Babel and read by gettext.
FRENCH = {
    "two cards at once: {changes}; take back the one not played":
        "deux cartes à la fois : {changes} ; reprenez celle qui n'est pas jouée",
    "{card} appeared on {zone}": "{card} est apparue sur {zone}",
    "{side}'s side of flag {flag}": "côté {side} du drapeau {flag}",
    "north": "nord",
    "; ": " ; ",
    "south": "sud",
    "{side} claims flag {flag}: refused — {reason}": "{side} revendique le drapeau {flag} : refusé — {reason}",
    "formation incomplete": "formation incomplète",
}


def french() -> gettext.GNUTranslations:
    catalog = Catalog(locale="fr")
    # GNU gettext's French plural rule, as a translator's .po states it; Babel's default
    # for "fr" follows CLDR, which from CLDR 47 adds a third form for millions.
    catalog.mime_headers = [("Plural-Forms", "nplurals=2; plural=(n > 1);")]
    for source, text in FRENCH.items():
        catalog.add(source, text)
    catalog.add(("{n} card to go", "{n} cards to go"), ("il reste {n} carte", "il reste {n} cartes"))
    out = io.BytesIO()
    write_mo(out, catalog)
    out.seek(0)
    return gettext.GNUTranslations(out)


def templates(message: Message) -> set[str]:
    """Every template in a message, its parameters' included."""
    found = {message.template}
    for value in message.params.values():
        for part in value if isinstance(value, tuple) else (value,):
            if isinstance(part, Message):
                found |= templates(part)
    return found


def test_an_attention_message_is_english_text_with_a_translatable_template() -> None:
    t = Tracker(first=S)
    t.observe(snapshot_of({"flag5.north": ["B2"], "flag6.north": ["B3"]}))
    message = t.issues[0].message
    english = ("two cards at once: B2 appeared on north's side of flag 5; B3 appeared on "
               "north's side of flag 6; take back the one not played")
    assert message == english and json.dumps(message) == json.dumps(english)
    assert message.localized(french()) == (
        "deux cartes à la fois : B2 est apparue sur côté nord du drapeau 5 ; "
        "B3 est apparue sur côté nord du drapeau 6 ; reprenez celle qui n'est pas jouée"
    )
    assert pickle.loads(pickle.dumps(message)).localized(french()) == (
        message.localized(french())
    )
    # A template the catalog lacks stays English; a plain string passes through.
    assert localized(message, gettext.NullTranslations()) == english
    assert localized("camera: frames again", french()) == "camera: frames again"


def test_a_refused_claim_is_translated_with_its_reason_and_player() -> None:
    t = Tracker(first=S)
    t.observe(snapshot_of({"flag1.south": ["R7"]}))
    result = t.claim(0, S)
    assert result.event is None
    assert result.message == "south claims flag 1: refused — formation incomplete"
    assert result.message.localized(french()) == (
        "sud revendique le drapeau 1 : refusé — formation incomplète"
    )


def test_the_cards_a_message_names_are_tokens_unless_the_view_names_cards() -> None:
    t = Tracker(first=S)
    t.observe(snapshot_of({"flag3.south": ["R7"]}))
    t.observe(Snapshot({"flag3.south": (Reading("R7"), Reading("unknown", 0.0, guess="Y5"))}))
    message = t.issues[0].message
    assert "the camera guesses R7 Y5;" in message
    # The terminal's translation is a plain catalog: the tokens its correct command takes.
    assert "the camera guesses R7 Y5;" in message.localized(french())

    catalog = french()

    class Naming:  # a view's translation that names cards (the touchscreen's)
        gettext = catalog.gettext
        ngettext = catalog.ngettext

        def name_cards(self, tokens: Sequence[str]) -> str:
            return " and ".join(f"<{t}>" for t in tokens)

    assert "the camera guesses <R7> and <Y5>;" in message.localized(Naming())
    again = pickle.loads(pickle.dumps(message))
    assert again == message and again.localized(Naming()) == message.localized(Naming())


def test_a_count_picks_the_plural_form_in_english_and_in_the_catalogs_language() -> None:
    one, three = (Message(NP_("{n} card to go", "{n} cards to go"), n=n) for n in (1, 3))
    assert (one, three) == ("1 card to go", "3 cards to go")
    assert three.localized(french()) == "il reste 3 cartes"
    assert pickle.loads(pickle.dumps(one)).localized(french()) == "il reste 1 carte"


def test_every_template_the_tracker_shows_is_collected_for_the_catalog() -> None:
    import companion.explain
    import companion.tracker
    import companion.zones

    collected = {
        m[1] if isinstance(m[1], str) else m[1][0]
        for module in (companion.tracker, companion.explain, companion.zones)
        for m in extract_from_file("python", module.__file__, keywords={"N_": None, "NP_": (1, 2)})
    }
    shown: list[Message] = []
    t = Tracker(first=S)
    tables = [
        {"flag5.north": ["B2"]},  # not north's turn
        {"flag5.south": ["B2"], "flag6.south": ["B3"]},  # two at once
        {"flag5.south.env": ["B2"]},  # not Fog or Mud
        {"south.guile": ["REDEPLOY"]},  # waiting for the move
        {"flag2": ["HILLS"]},  # terrain not played
        {"south.discard": ["G1"]},  # a discard without a guile card
    ]
    for zones in tables:
        t.observe(snapshot_of(zones))
        shown += [i.message for i in t.issues]
    t.observe(snapshot_of({"flag1.south": ["R7"]}, confidence=0.2))
    shown += [i.message for i in t.issues]
    shown.append(t.claim(3, N).message)
    assert len(shown) >= 8
    for message in shown:
        assert isinstance(message, Message)
        assert templates(message) <= collected, message
