"""One exception hierarchy for the rules: every rejected action names the rule it broke."""

from __future__ import annotations


class RulesError(Exception):
    """Base of every error the rules library raises."""


class NotationError(RulesError, ValueError):
    """Text that is not valid notation; ``field`` names where (e.g. ``flags[3].north``)."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"{field}: {problem}")
        self.field = field
        self.problem = problem


class IllegalPosition(RulesError, ValueError):
    """A position no legal play can reach (too many cards at a side, a card twice, ...)."""


class IllegalAction(RulesError):
    """An action the rules forbid. Subclasses name the rule; ``rule`` quotes it."""

    rule = "the rules forbid this action"

    def __init__(self, detail: str = "") -> None:
        super().__init__(f"{self.rule}: {detail}" if detail else self.rule)
        self.detail = detail


class NotYourTurn(IllegalAction):
    rule = "only the player to move may act"


class WrongPhase(IllegalAction):
    rule = "that action does not belong to this step of the turn"


class GameOver(IllegalAction):
    rule = "the game is over"


class CardNotInHand(IllegalAction):
    rule = "a player can only play a card from their own hand"


class NoSuchFlag(IllegalAction):
    rule = "flags are numbered 1 to 9"


class FlagAlreadyClaimed(IllegalAction):
    rule = "no card may be added to, moved from or affected at a claimed flag"


class SideFull(IllegalAction):
    rule = "each side of a flag holds 3 formation cards (4 with Mud)"


class NotAFormationCard(IllegalAction):
    rule = "only troops and morale tactics go into a formation"


class TacticsLimit(IllegalAction):
    rule = "a player may not play a tactic while having played more tactics than the opponent"


class SecondLeader(IllegalAction):
    rule = "each player may play only one leader (Alexander or Darius) per game"


class EnvironmentAlreadyThere(IllegalAction):
    rule = "a flag holds at most one Fog and one Mud"


class InvalidTarget(IllegalAction):
    rule = "that card cannot be chosen as the target of this tactic"


class MustPlayCard(IllegalAction):
    rule = "a player who can play a card must play one; passing is only allowed when none can be"


class MustDraw(IllegalAction):
    rule = "a player draws back up to 7 cards while either deck has cards"


class EmptyDeck(IllegalAction):
    rule = "a player cannot draw from an empty deck"


class ClaimNotAllowed(IllegalAction):
    rule = "flags are claimed on your own turn, before drawing"


class ClaimRefused(IllegalAction):
    """The claim cannot be proved; ``ruling`` carries the reason and counter-example."""

    rule = "a flag is claimed only with a complete formation the opponent provably cannot beat"

    def __init__(self, detail: str = "", ruling: object = None) -> None:
        super().__init__(detail)
        self.ruling = ruling


class TerrainNotInPlay(IllegalAction):
    rule = "terrain effects apply only in the terrain variant"


class InvalidSetup(RulesError, ValueError):
    """Rule options that cannot be played together (the Hundred Years' War without terrain)."""


class NotInDraft(IllegalAction):
    rule = "in the draft each player keeps one of the battlefield cards they are choosing from"


class NotYourBattlefield(IllegalAction):
    rule = (
        "players place the battlefield cards they drafted, in turn;"
        " the card between the decks is placed last"
    )


class BattlefieldTaken(IllegalAction):
    rule = "each place in the line takes one battlefield card"


class MarshesDiscard(IllegalAction):
    rule = "Marshes: the loser discards one of their own troop cards from an unclaimed flag"


class WatchtowerTarget(IllegalAction):
    rule = (
        "Watchtower: the claimant removes one opponent troop from an unclaimed adjacent flag"
        " (the Town is adjacent to none)"
    )


class FieldsReturn(IllegalAction):
    rule = "Fields: the claimant puts troop cards from hand face down on top of the troop deck"


class BattlefieldNotLaid(IllegalAction):
    rule = "with terrain, the nine battlefield cards are laid before the first card is played"


class RulingMismatch(IllegalAction):
    rule = "a claim's recorded ruling must be the one the rules give"


class ResultMismatch(IllegalAction):
    rule = "the record's result must be the one its events lead to"
