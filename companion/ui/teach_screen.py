"""The teaching screens: the formations strongest first, and flag by flag what can
still win each flag (what beats each side, the provable flags ringed)."""

from __future__ import annotations

import pygame

from companion.i18n import N_, _
from companion.rules.cards import Card, Troop, parse_card
from companion.rules.claims import adjudicate
from companion.rules.formations import Formation, Strength, evaluate
from companion.rules.position import PLAYERS
from companion.rules.terrain import side_best, side_strength
from companion.ui import theme
from companion.ui.cards import fan
from companion.ui.layout import MIN_TARGET, Layout
from companion.ui.scene import Intent, Scene, Target, formation_label
from companion.ui.screens import top_bar

EXAMPLES: tuple[tuple[Formation, str, str], ...] = (
    (Formation.WEDGE, "R8 R9 R10", N_("Three of one colour in a row.")),
    (Formation.PHALANX, "B7 G7 P7", N_("Three of the same value.")),
    (Formation.BATTALION, "Y2 Y6 Y9", N_("Three of one colour.")),
    (Formation.SKIRMISH, "O4 B5 G6", N_("Three values in a row, any colours.")),
    (Formation.HOST, "P10 R6 G3", N_("Anything else: the sum counts.")),
)


def draw_teach(surface: pygame.Surface, layout: Layout, scene: Scene) -> list[Target]:
    """The formation guide, strongest first, each with an example drawn as cards."""
    surface.fill(theme.BACKGROUND)
    targets = top_bar(surface, layout, scene, _("Formations, strongest first"))
    board = layout.board.union(layout.bottom_bar)
    footer = layout.px(64)
    rows = len(EXAMPLES)
    row_h = (board.height - footer - 16) // rows
    names = scene.formation_names()
    card_w = min(layout.px(76 if layout.portrait else 52), int((row_h - 10) / 1.4))
    for k, (formation, tokens, rule) in enumerate(EXAMPLES):
        row = pygame.Rect(12, board.top + 8 + k * row_h, board.width - 24, row_h - 6)
        pygame.draw.rect(surface, theme.PANEL, row, border_radius=10)
        cards = [parse_card(t) for t in tokens.split()]
        area = pygame.Rect(row.left + 10, row.top + 3, card_w * 3 + 16, row.height - 6)
        fan(surface, cards, area, vertical=False, card_w=card_w, medieval=scene.model.medieval)
        strength: Strength = evaluate(cards)
        x = area.right + 16
        theme.draw_text(surface, f"{k + 1}. {names[formation]}", (x, row.top + 8), layout.px(30))
        top = row.top + 8 + layout.px(34)
        theme.draw_wrapped(surface, _(rule) + " " + _("Sum {n}.").format(n=strength.total),
                           pygame.Rect(x, top, row.right - x - 10, row.bottom - top),
                           layout.px(22), theme.MUTED)
    b = pygame.Rect(board.right - layout.px(260) - 12, board.bottom - footer - 2,
                    layout.px(260), footer - 6)
    theme.button(surface, b, _("Flag by flag"), fill=theme.ACCENT, size=layout.px(26))
    targets.append((b, Intent("go", value="teach_flags")))
    theme.draw_text(surface, _("Ties go to who completed first."),
                    (16, b.centery), layout.px(22), theme.MUTED, anchor="midleft",
                    width=b.left - 30)
    return targets


def draw_teach_flags(surface: pygame.Surface, layout: Layout, scene: Scene) -> list[Target]:
    """Per flag: each side's formation, what could still beat it, and the provable flags."""
    surface.fill(theme.BACKGROUND)
    targets = top_bar(surface, layout, scene, _("What can still win each flag"))
    position = scene.the_position()
    rulings = adjudicate(position)
    board = layout.board.union(layout.bottom_bar)
    # Flag chooser: nine buttons across the top.
    bw = (board.width - 16) // 9
    index = scene.flag if scene.flag is not None else 0
    can = {i: p for p in PLAYERS for i in rulings.claimable(p)}
    for i in range(9):
        b = pygame.Rect(board.left + 8 + i * bw, board.top + 6, bw - 4, max(MIN_TARGET,
                                                                          layout.px(50)))
        ring = scene.colour(can[i]) if i in can else None  # provable: the claimer's colour
        theme.button(surface, b, str(i + 1), fill=theme.ACCENT if i == index else theme.PANEL,
                     size=layout.px(28), outline=ring)
        targets.append((b, Intent("go", value="teach_flags", flag=i)))
    y = board.top + 6 + max(MIN_TARGET, layout.px(50)) + 10
    provable = [f"{i + 1} ({scene.names[p]})" for p in PLAYERS for i in rulings.claimable(p)]
    text = (_("Provable now: flag {list}").format(list=", ".join(provable)) if provable
            else _("No flag can be proved yet."))
    theme.draw_text(surface, text, (16, y), layout.px(24), theme.GOOD if provable else theme.MUTED,
                    width=board.width - 32)
    y += layout.px(34)
    flag = position.flags[index]
    unseen = position.unseen_troops()
    names = scene.formation_names()
    block_h = (board.bottom - y - 8) // 2
    # Portrait stacks a side's cards over what beats them; landscape puts them side by side.
    rows = 2 if layout.portrait else 1
    card_w = min(layout.px(70), int((block_h - 24 - rows * layout.px(34)) / rows / 1.4))
    card_h = int(card_w * 1.4)
    for player in PLAYERS:
        block = pygame.Rect(12, y, board.width - 24, block_h - 8)
        pygame.draw.rect(surface, theme.PANEL, block, border_radius=10)
        mine = side_strength(flag, player)
        label = formation_label(scene, flag, player) or _("no cards yet")
        head = theme.draw_text(surface, f"{scene.names[player]}: {label}",
                               (block.left + 12, block.top + 8), layout.px(26),
                               scene.colour(player), width=block.width - 24)
        half = block.width if layout.portrait else block.width // 2
        own = pygame.Rect(block.left + 12, head.bottom + 6, half - 24, card_h)
        fan(surface, flag.cards(player), own, vertical=False, card_w=card_w,
            medieval=scene.model.medieval)
        other = player.other
        extra: tuple[Troop, ...] = ()
        base: tuple[Card, ...] = ()
        if flag.claimed_by is not None:
            note = _("Claimed by {name}.").format(name=scene.names[flag.claimed_by])
        elif mine is not None:
            threat = side_best(flag, other, unseen, better_than=mine)
            if threat is None:
                note = _("Nothing {name} can still add beats it.").format(name=scene.names[other])
            else:
                note = _("{name} beats it with {f}:").format(
                    name=scene.names[other],
                    f=f"{names[threat.strength.formation]} {threat.strength.total}")
                base, extra = flag.cards(other), threat.added
        else:
            best = side_best(flag, player, unseen)
            if best is None:
                note = _("Cannot be completed any more.")
            else:
                note = _("Best still possible, {f}:").format(
                    f=f"{names[best.strength.formation]} {best.strength.total}")
                base, extra = flag.cards(player), best.added
        at = (block.left + 12, own.bottom + 10) if layout.portrait else (block.left + half,
                                                                         block.top + 12)
        line = theme.draw_text(surface, note, at, layout.px(22), theme.TEXT,
                               width=block.right - at[0] - 12)
        if extra:
            shown: list[Card] = [*base, *extra]
            area = pygame.Rect(at[0], line.bottom + 8, block.right - at[0] - 12, card_h)
            fan(surface, shown, area, vertical=False, card_w=card_w,
                medieval=scene.model.medieval, marked=range(len(base), len(shown)))
        y += block_h
    return targets


SCREENS = {"teach": draw_teach, "teach_flags": draw_teach_flags}
