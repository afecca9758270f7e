"""Tracker messages are translatable: a template and parameters behind the English text."""

from __future__ import annotations

import gettext
import io
import json
import pickle

from companion.messages import Message, localized, sources
from companion.rules.position import Player
from companion.snapshot import snapshot_of
from companion.tracker import Tracker
from companion.ui.i18n import extract, mo_bytes

N, S = Player.NORTH, Player.SOUTH

# A small French catalog, compiled by the ui's own .mo writer and read by gettext.
FRENCH = {
    "": "Content-Type: text/plain; charset=UTF-8\n",
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
    return gettext.GNUTranslations(io.BytesIO(mo_bytes(FRENCH)))


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
    assert message.localized(french().gettext) == (
        "deux cartes à la fois : B2 est apparue sur côté nord du drapeau 5 ; "
        "B3 est apparue sur côté nord du drapeau 6 ; reprenez celle qui n'est pas jouée"
    )
    assert pickle.loads(pickle.dumps(message)).localized(french().gettext) == (
        message.localized(french().gettext)
    )
    # A template the catalog lacks stays English; a plain string passes through.
    assert localized(message, gettext.NullTranslations().gettext) == english
    assert localized("camera: frames again", french().gettext) == "camera: frames again"


def test_a_refused_claim_is_translated_with_its_reason_and_player() -> None:
    t = Tracker(first=S)
    t.observe(snapshot_of({"flag1.south": ["R7"]}))
    result = t.claim(0, S)
    assert result.event is None
    assert result.message == "south claims flag 1: refused — formation incomplete"
    assert result.message.localized(french().gettext) == (
        "sud revendique le drapeau 1 : refusé — formation incomplète"
    )


def test_every_template_the_tracker_shows_is_collected_for_the_catalog() -> None:
    collected = set(extract(sources()))
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
