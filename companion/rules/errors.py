"""One exception hierarchy for the rules: every rejected action names the rule it broke.

Every message is an English template with named parameters (a ``Phrase``), as
python-chess-style libraries keep theirs structured: ``str(error)`` is the English
text; ``error.phrase.localized(t)``, with ``t`` a gettext translation, is the same in
its language. The library translates nothing and imports no gettext: its templates are
only marked with ``N_`` (Babel's default keyword) for a program's catalog to collect.
Parameters are shown as they are (card tokens, numbers, notation fields, JSON), except
phrases, translated too: a side, a deck, a reason (``term``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol, Self


def N_(message: str) -> str:
    """Marks a template for a program's catalog; the library shows it in English."""
    return message


class Translator(Protocol):
    """What a phrase needs of a translation: gettext's lookups."""

    def gettext(self, message: str, /) -> str: ...

    def ngettext(self, singular: str, plural: str, n: int, /) -> str: ...


class Phrase(str):
    """English text that keeps its template and named parameters for translation.
    Without parameters the template is the text itself (no braces to escape)."""

    template: str
    params: Mapping[str, object]

    def __new__(cls, template: str, /, **params: str | int) -> Self:
        phrase = super().__new__(cls, template.format(**params) if params else template)
        phrase.template = template
        phrase.params = params
        return phrase

    def localized(self, translation: Translator) -> str:
        """The text in the language of ``translation``; phrase parameters translated too."""
        text = translation.gettext(self.template)
        if not self.params:
            return text
        return text.format(**{k: v.localized(translation) if isinstance(v, Phrase) else v
                              for k, v in self.params.items()})


# The words a message may carry as a parameter, marked here for the catalog.
TERMS = (N_("north"), N_("south"), N_("troop"), N_("tactic"), N_("standard"), N_("advanced"),
         N_("layout"), N_("draft"), N_("place"), N_("deal"), N_("play"), N_("draw"),
         N_("terrain"), N_("card"), N_("action"), N_("(file)"),
         N_("(position)"))


def term(word: object) -> Phrase:
    """A word (a side, a deck, a step of the turn, a claim's reason) shown translated."""
    return word if isinstance(word, Phrase) else Phrase(str(word))


def _phrase(text: str, params: Mapping[str, str | int]) -> Phrase:
    return text if isinstance(text, Phrase) and not params else Phrase(text, **params)


class RulesError(Exception):
    """Base of every error the rules library raises; ``phrase`` is its message."""

    def __init__(self, message: str = "", /, **params: str | int) -> None:
        self.phrase = _phrase(message, params)
        super().__init__(str(self.phrase))


class NotationError(RulesError, ValueError):
    """Text that is not valid notation; ``field`` names where (e.g. ``flags[3].north``),
    ``problem`` what is wrong (a template with ``params``)."""

    def __init__(self, field: str, problem: str, /, **params: str | int) -> None:
        self.field = field
        self.problem = _phrase(problem, params)
        super().__init__(N_("{field}: {problem}"), field=field, problem=self.problem)

    @property
    def problem_template(self) -> str:
        return self.problem.template

    @property
    def params(self) -> Mapping[str, object]:
        return self.problem.params


class IllegalPosition(RulesError, ValueError):
    """A position no legal play can reach (too many cards at a side, a card twice, ...)."""


class IllegalAction(RulesError):
    """An action the rules forbid. Subclasses name the rule; ``rule`` quotes it, ``detail``
    (a template with ``params``) says what broke it."""

    rule = N_("the rules forbid this action")

    def __init__(self, detail: str = "", /, **params: str | int) -> None:
        self.detail = _phrase(detail, params)
        if detail:
            super().__init__(N_("{rule}: {detail}"), rule=term(self.rule), detail=self.detail)
        else:
            super().__init__(term(self.rule))

    @property
    def params(self) -> Mapping[str, object]:
        return self.detail.params


class NotYourTurn(IllegalAction):
    rule = N_("only the player to move may act")


class WrongPhase(IllegalAction):
    rule = N_("that action does not belong to this step of the turn")


class GameOver(IllegalAction):
    rule = N_("the game is over")


class CardNotInHand(IllegalAction):
    rule = N_("a player can only play a card from their own hand")


class NoSuchFlag(IllegalAction):
    rule = N_("flags are numbered 1 to 9")


class FlagAlreadyClaimed(IllegalAction):
    rule = N_("no card may be added to, moved from or affected at a claimed flag")


class SideFull(IllegalAction):
    rule = N_("each side of a flag holds 3 formation cards (4 with Mud)")


class NotAFormationCard(IllegalAction):
    rule = N_("only troops and morale tactics go into a formation")


class TacticsLimit(IllegalAction):
    rule = N_(
        "a player may not play a tactic while having played more tactics than the opponent")


class SecondLeader(IllegalAction):
    rule = N_("each player may play only one leader (Alexander or Darius) per game")


class EnvironmentAlreadyThere(IllegalAction):
    rule = N_("a flag holds at most one Fog and one Mud")


class InvalidTarget(IllegalAction):
    rule = N_("that card cannot be chosen as the target of this tactic")


class MustPlayCard(IllegalAction):
    rule = N_(
        "a player who can play a card must play one; passing is only allowed when none can be")


class MustDraw(IllegalAction):
    rule = N_("a player draws back up to 7 cards while either deck has cards")


class EmptyDeck(IllegalAction):
    rule = N_("a player cannot draw from an empty deck")


class ClaimNotAllowed(IllegalAction):
    rule = N_("flags are claimed on your own turn, before drawing")


class ClaimRefused(IllegalAction):
    """The claim cannot be proved; ``ruling`` carries the reason and counter-example."""

    rule = N_(
        "a flag is claimed only with a complete formation the opponent provably cannot beat")

    def __init__(self, detail: str = "", /, ruling: object = None, **params: str | int) -> None:
        super().__init__(detail, **params)
        self.ruling = ruling


class TerrainNotInPlay(IllegalAction):
    rule = N_("terrain effects apply only in the terrain variant")


class InvalidSetup(RulesError, ValueError):
    """Rule options that cannot be played together (the Hundred Years' War without terrain)."""


class NotInDraft(IllegalAction):
    rule = N_(
        "in the draft each player keeps one of the battlefield cards they are choosing from")


class NotYourBattlefield(IllegalAction):
    rule = N_(
        "players place the battlefield cards they drafted, in turn;"
        " the card between the decks is placed last"
    )


class BattlefieldTaken(IllegalAction):
    rule = N_("each place in the line takes one battlefield card")


class MarshesDiscard(IllegalAction):
    rule = N_(
        "Marshes: the loser discards one of their own troop cards from an unclaimed flag")


class WatchtowerTarget(IllegalAction):
    rule = N_(
        "Watchtower: the claimant removes one opponent troop from an unclaimed adjacent flag"
        " (the Town is adjacent to none)"
    )


class FieldsReturn(IllegalAction):
    rule = N_(
        "Fields: the claimant puts troop cards from hand face down on top of the troop deck")


class BattlefieldNotLaid(IllegalAction):
    rule = N_(
        "with terrain, the nine battlefield cards are laid before the first card is played")


class RulingMismatch(IllegalAction):
    rule = N_("a claim's recorded ruling must be the one the rules give")


class ResultMismatch(IllegalAction):
    rule = N_("the record's result must be the one its events lead to")
