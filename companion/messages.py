"""Messages people read, kept translatable outside the ui package.

A ``Message`` is a ``str`` (the English text, so logs, the journal and the
terminal take it as it is) that also keeps its template and parameters, so
a view can translate the template and then fill it in: ``message.localized(t)``
with ``t`` a gettext translation (``companion.i18n.translation()``).
Parameters may themselves be messages (translated too), or tuples of
messages (joined by "; ", itself translatable).

A template is marked with ``N_`` where it is written, or, where a count is
shown, a singular/plural pair with ``NP_``: its count is the parameter ``n``,
and ``ngettext`` picks the language's form for it (Russian and Czech have
three). ``make catalogs`` (Babel) collects both marks from every module.
``localized(text, t)`` translates a message and leaves any other string as it is.

A parameter may also be ``Cards``: card tokens kept as such, the notation, in the
English text and wherever the translation shown is a plain catalog (the terminal, whose
``correct`` takes tokens); a view whose translation names cards (a ``CardNamer``, the
touchscreen's) shows them in its own words.

The rules library's errors carry their messages the same way (``companion.rules.errors.
Phrase``, of which ``Message`` is a kind): ``describe(error)`` is one in the language shown.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from companion.i18n import N_, NP_, Plural, translation
from companion.rules.errors import Phrase, RulesError

__all__ = ["NP_", "N_", "CardNamer", "Cards", "Message", "Translator", "describe", "localized"]


class Translator(Protocol):
    """What a message needs of a translation: gettext's two lookups."""

    def gettext(self, message: str, /) -> str: ...

    def ngettext(self, singular: str, plural: str, n: int, /) -> str: ...


@runtime_checkable
class CardNamer(Protocol):
    """A translation that also names cards in words, in its language."""

    def gettext(self, message: str, /) -> str: ...

    def ngettext(self, singular: str, plural: str, n: int, /) -> str: ...

    def name_cards(self, tokens: Sequence[str], /) -> str: ...


class Cards(Phrase):
    """Cards a message names: ``tokens``, and as text the tokens, space-separated ("R7
    Y5"); ``localized`` names them in words where the translation can (``CardNamer``)."""

    tokens: tuple[str, ...]

    def __new__(cls, tokens: Sequence[str]) -> Cards:
        cards = super().__new__(cls, " ".join(tokens))
        cards.tokens = tuple(tokens)
        return cards

    def localized(self, translation: Translator) -> str:
        if isinstance(translation, CardNamer):
            return translation.name_cards(self.tokens)
        return " ".join(self.tokens)

    def __reduce__(self) -> tuple[object, ...]:
        return (Cards, (self.tokens,))


def _separator() -> str:
    return N_("; ")  # between the items of a list parameter


class Message(Phrase):
    """English text that remembers its template and parameters for translation."""

    template: str
    plural: str | None  # the plural template of an NP_ pair; its count is param ``n``
    params: dict[str, str | int | Message | tuple[Message, ...]]

    def __new__(cls, template: str | Plural,
                **params: str | int | Message | tuple[Message, ...]) -> Message:
        singular, plural = (template.singular, template.plural) if isinstance(
            template, Plural) else (template, None)
        english = singular
        if plural is not None:
            count = params["n"]
            assert isinstance(count, int), "a plural message's count is the int parameter n"
            english = singular if count == 1 else plural
        text = english.format(**{k: _english(v) for k, v in params.items()})
        message = super().__new__(cls, text)
        message.template = singular
        message.plural = plural
        message.params = dict(params)
        return message

    def localized(self, translation: Translator) -> str:
        """The text in the language of ``translation`` (template and message parameters)."""
        values = {k: _translated(v, translation) for k, v in self.params.items()}
        if self.plural is not None:
            count = self.params["n"]
            assert isinstance(count, int)
            return translation.ngettext(self.template, self.plural, count).format(**values)
        return translation.gettext(self.template).format(**values)

    def __reduce__(self) -> tuple[object, ...]:
        template = self.template if self.plural is None else Plural(self.template, self.plural)
        return (_rebuild, (template, self.params))


def _rebuild(template: str | Plural,
             params: dict[str, str | int | Message | tuple[Message, ...]]) -> Message:
    return Message(template, **params)


def _english(value: str | int | Message | tuple[Message, ...]) -> str | int:
    if isinstance(value, tuple):
        return _separator().join(value)
    return value


def _translated(value: str | int | Message | tuple[Message, ...],
                translation: Translator) -> str | int:
    if isinstance(value, tuple):
        return translation.gettext(_separator()).join(m.localized(translation) for m in value)
    if isinstance(value, Phrase):  # a Message, or a phrase of the rules library
        return value.localized(translation)
    return value


def localized(text: str, translation: Translator) -> str:
    """``text`` translated if it is a Message (or a rules phrase), else as it is (it was
    never marked)."""
    return text.localized(translation) if isinstance(text, Phrase) else text


def describe(error: BaseException, shown: Translator | None = None) -> str:
    """An error as a person reads it: a rules error's message in the language shown (or
    ``shown``'s), any other error's text as it is."""
    if isinstance(error, RulesError):
        return error.phrase.localized(shown or translation())
    return str(error)
