"""Messages people read, kept translatable outside the ui package.

A ``Message`` is a ``str`` (the English text, so logs, the journal and the
terminal take it as it is) that also keeps its template and parameters, so
a view can translate the template and then fill it in: ``message.localized(_)``.
Parameters may themselves be messages (translated too), or tuples of
messages (joined by "; ", itself translatable).

Templates are marked with ``N_`` where they are written; the catalog tool
(``companion.ui.i18n.extract``) collects every ``N_("...")`` literal of the
modules ``sources()`` lists, as it does the ui's own. ``localized(text, _)``
translates a message and leaves any other string as it is.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Final

# Modules outside companion/ui whose N_ templates belong in the catalog.
_SOURCES: Final = ("messages.py", "tracker.py")


def N_(template: str) -> str:
    """Marks a template for the catalog; ``Message.localized`` translates it where shown."""
    return template


def _separator() -> str:
    return N_("; ")  # between the items of a list parameter


class Message(str):
    """English text that remembers its template and parameters for translation."""

    template: str
    params: dict[str, str | int | Message | tuple[Message, ...]]

    def __new__(cls, template: str, **params: str | int | Message | tuple[Message, ...]) -> Message:
        text = template.format(**{k: _english(v) for k, v in params.items()})
        message = super().__new__(cls, text)
        message.template = template
        message.params = dict(params)
        return message

    def localized(self, gettext: Callable[[str], str]) -> str:
        """The text in the language of ``gettext`` (template and message parameters)."""
        values = {k: _translated(v, gettext) for k, v in self.params.items()}
        return gettext(self.template).format(**values)

    def __reduce__(self) -> tuple[object, ...]:
        return (_rebuild, (self.template, self.params))


def _rebuild(template: str, params: dict[str, str | int | Message | tuple[Message, ...]]) -> Message:
    return Message(template, **params)


def _english(value: str | int | Message | tuple[Message, ...]) -> str | int:
    if isinstance(value, tuple):
        return _separator().join(value)
    return value


def _translated(
    value: str | int | Message | tuple[Message, ...], gettext: Callable[[str], str]
) -> str | int:
    if isinstance(value, tuple):
        return gettext(_separator()).join(m.localized(gettext) for m in value)
    if isinstance(value, Message):
        return value.localized(gettext)
    return value


def localized(text: str, gettext: Callable[[str], str]) -> str:
    """``text`` translated if it is a Message, else as it is (it was never marked)."""
    return text.localized(gettext) if isinstance(text, Message) else text


def sources() -> list[Path]:
    """The modules outside the ui whose ``N_`` templates the catalog collects."""
    here = Path(__file__).parent
    return [here / name for name in _SOURCES]
