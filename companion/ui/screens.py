"""The screens: each draws itself and returns its tap targets.

A target is a rect and an ``Intent``; the view turns a tap into the intent of
the topmost target under it. Screens only read: the ``Scene`` holds what they
show (the app's ``ViewModel`` plus what only the touchscreen needs).
"""

from __future__ import annotations

import pygame

from companion.i18n import N_, _
from companion.rules.cards import Card, Colour, Tactic, parse_card
from companion.rules.claims import Reason
from companion.rules.game import Ending
from companion.rules.position import PLAYERS, Flag, Player
from companion.snapshot import UNKNOWN
from companion.ui import theme
from companion.ui.cards import draw_card, fan
from companion.ui.layout import Layout
from companion.ui.scene import (
    Intent,
    Scene,
    Target,
    card_words,
    formation_label,
    status_words,
)
from companion.words import (
    tactic_name,
    terrain_line,
    terrain_name,
)
from hardware.states import FlagState


# --------------------------------------------------------------------------- frame
def top_bar(surface: pygame.Surface, layout: Layout, scene: Scene, title: str) -> list[Target]:
    bar = layout.top_bar
    pygame.draw.rect(surface, theme.PANEL, bar)
    size = layout.px(30)
    north, south = scene.model.score
    x = 14
    r = theme.draw_text(surface, scene.names[Player.NORTH], (x, bar.centery), size,
                        scene.colour(Player.NORTH), anchor="midleft")
    r = theme.draw_text(surface, f" {north} : {south} ", (r.right, bar.centery), size,
                        theme.TEXT, anchor="midleft")
    r = theme.draw_text(surface, scene.names[Player.SOUTH], (r.right, bar.centery), size,
                        scene.colour(Player.SOUTH), anchor="midleft")
    targets: list[Target] = []
    buttons = [(_("Settings"), Intent("go", value="settings"))]
    if scene.screen == "play":
        buttons = [(_("Teach"), Intent("go", value="teach")), (_("Undo"), Intent("undo")),
                   *buttons]
    elif scene.screen == "enrol":  # the enrolment's own Back steps a card back
        buttons = [(_("Pause"), Intent("go", value="camera"))]
    else:
        back = "settings" if scene.screen in ("keyboard", "camera") else "play"
        buttons = [(_("Back"), Intent("go", value=back))]
    bw = layout.px(104)
    right = bar.right - 8
    for label, intent in reversed(buttons):
        rect = pygame.Rect(right - bw, bar.top + 4, bw, bar.height - 8)
        fill = theme.PANEL_LIGHT if intent.kind != "undo" or scene.can_undo else theme.PANEL
        theme.button(surface, rect, label, fill=fill, size=layout.px(26))
        targets.append((rect, intent))
        right = rect.left - 8
    if right - r.right > 120:  # the title only where it fits legibly, on two lines at most
        room = pygame.Rect(r.right + 10, bar.top, right - r.right - 20, bar.height)
        _label(surface, title, room, layout.px(22), theme.MUTED, align="center")
    return targets


# --------------------------------------------------------------------------- play
def _token(surface: pygame.Surface, scene: Scene, rect: pygame.Rect, index: int,
           flag: Flag, state: FlagState) -> None:
    colour = theme.status_colour(state, scene.colours)
    fill = theme.PANEL_LIGHT
    if colour is not None:
        fill = theme.mix(theme.PANEL, colour, 0.3 if theme.is_dim(state) else 0.85)
    pygame.draw.rect(surface, fill, rect, border_radius=10)
    if colour is not None:
        pygame.draw.rect(surface, colour, rect, width=3, border_radius=10)
    ink = theme.readable_on(fill)
    portrait = rect.height > 80
    number_size = 44 if portrait else 34
    theme.draw_text(surface, str(index + 1), (rect.centerx, rect.centery - (10 if portrait else 4)),
                    number_size, ink, anchor="center")
    extra = [tactic_name(t, medieval=scene.model.medieval) for t in flag.environment]
    if flag.terrain is not None:
        extra.append(terrain_name(flag.terrain))
    if state is FlagState.ATTENTION:
        extra.insert(0, "!")
    elif state is FlagState.UNCERTAIN:
        extra.insert(0, "?")
    if extra:
        theme.draw_text(surface, " ".join(extra), (rect.centerx, rect.bottom - 3),
                        18 if not portrait else 22, ink, anchor="midbottom", width=rect.width - 6)


def _label(surface: pygame.Surface, text: str, rect: pygame.Rect, size: int,
           colour: theme.RGB, *, align: str) -> None:
    lines = theme.wrap(text, size, rect.width)
    if len(lines) > 2:
        theme.did_not_fit(text)
    lines = lines[:2]
    line_h = int(size * 0.85)
    y = rect.centery - line_h * len(lines) // 2
    for line in lines:
        x = {"center": rect.centerx, "left": rect.left, "right": rect.right}[align]
        anchor = {"center": "midtop", "left": "topleft", "right": "topright"}[align]
        theme.draw_text(surface, line, (x, y), size, colour, anchor=anchor, width=rect.width)
        y += line_h


def _as_seen(scene: Scene, index: int, flag: Flag, player: Player,
             ) -> tuple[list[Card | None], list[int]]:
    """A side's cards as recorded; while the camera is unsure of a card there, as it
    reads them instead, the doubtful ones to be marked (unreadable ones drawn as "?")."""
    read = scene.readings.get(f"flag{index + 1}.{player.value}", ())
    doubtful = [k for k, (_t, sure) in enumerate(read) if not sure]
    if not doubtful:
        return list(flag.cards(player)), []
    return [_card_or_none(t) for t, _sure in read], doubtful


def draw_play(surface: pygame.Surface, layout: Layout, scene: Scene) -> list[Target]:
    surface.fill(theme.BACKGROUND)
    game = scene.model.game
    targets = top_bar(surface, layout, scene, scene.said(game) if game else _("Battle Line"))
    model = scene.model
    medieval = model.medieval
    for i, flag in enumerate(model.flags):
        slot = layout.flag_slot(i)
        state = model.statuses[i].light
        if i % 2 == 0:
            pygame.draw.rect(surface, theme.mix(theme.BACKGROUND, theme.PANEL, 0.5), slot.whole)
        colour = theme.status_colour(state, scene.colours)
        if colour is not None and state in (FlagState.CLAIMED_NORTH, FlagState.CLAIMED_SOUTH):
            pygame.draw.rect(surface, theme.mix(theme.BACKGROUND, colour, 0.18), slot.whole)
        vertical = not layout.portrait
        for player, area in ((Player.NORTH, slot.north), (Player.SOUTH, slot.south)):
            cards, doubtful = _as_seen(scene, i, flag, player)
            fan(surface, cards, area, vertical=vertical, card_w=layout.card_w,
                medieval=medieval, reverse=player is Player.NORTH, marked=doubtful,
                mark=theme.player_colour("attention", scene.colours))
        size = 22 if layout.portrait else 17
        align_n, align_s = ("right", "left") if layout.portrait else ("center", "center")
        _label(surface, formation_label(scene, flag, Player.NORTH), slot.north_label, size,
               theme.TEXT, align=align_n)
        _label(surface, formation_label(scene, flag, Player.SOUTH), slot.south_label, size,
               theme.TEXT, align=align_s)
        _token(surface, scene, slot.token, i, flag, state)
        targets.append((slot.whole, Intent("flag", flag=i)))
    _bottom(surface, layout, scene)
    return targets


def _bottom(surface: pygame.Surface, layout: Layout, scene: Scene) -> None:
    bar = layout.bottom_bar
    pygame.draw.rect(surface, theme.PANEL, bar)
    model = scene.model
    area = bar.inflate(-28, -12)
    size = layout.px(24)
    if model.messages:
        text = "! " + scene.said(model.messages[0])
        colour = theme.player_colour("attention", scene.colours)
    elif scene.toast:
        text, colour = scene.toast, theme.TEXT
    elif model.last_ruling:
        text, colour = scene.said(model.last_ruling), theme.TEXT
    else:
        text, colour = _("Tap a flag to claim it or to fix its cards."), theme.MUTED
    theme.draw_wrapped(surface, text, area, size, colour)
    if layout.portrait and len(model.messages) > 1:
        y = area.top + layout.px(24) * 2
        for message in model.messages[1:4]:
            theme.draw_text(surface, "! " + scene.said(message), (area.left, y), layout.px(20),
                            theme.MUTED, width=area.width)
            y += layout.px(22)


# --------------------------------------------------------------------------- flag panel
def _card_or_none(token: str) -> Card | None:
    try:
        return parse_card(token)
    except ValueError:
        return None  # "unknown": the camera could not read it



def _panel(surface: pygame.Surface, rect: pygame.Rect) -> None:
    shade = pygame.Surface(surface.get_size(), pygame.SRCALPHA)
    shade.fill((0, 0, 0, 150))
    surface.blit(shade, (0, 0))
    pygame.draw.rect(surface, theme.PANEL, rect, border_radius=16)
    pygame.draw.rect(surface, theme.LINE, rect, width=2, border_radius=16)


def draw_flag_panel(surface: pygame.Surface, layout: Layout, scene: Scene) -> list[Target]:
    """A flag opened: both sides' cards (tap one to correct it), and claim buttons."""
    targets = draw_play(surface, layout, scene)
    assert scene.flag is not None
    index = scene.flag
    flag = scene.model.flags[index]
    rect = layout.dialog(0.9, 0.5)
    _panel(surface, rect)
    targets = [(surface.get_rect(), Intent("go", value="play"))]  # a tap outside closes
    targets.append((rect, Intent("none")))
    status = scene.model.statuses[index]
    title = theme.draw_text(surface, _("Flag {n}").format(n=index + 1),
                            (rect.left + 20, rect.top + 14), layout.px(34))
    # A card the camera could not name needs the picker, unless it guessed one (which
    # the tracker's message names and confirming takes).
    unreadable = any(token == UNKNOWN and scene.guess(zone, slot) is None
                     for zone, read in scene.readings.items()
                     if zone.startswith(f"flag{index + 1}.")
                     for slot, (token, _sure) in enumerate(read))
    confirm_w = layout.px(200)
    can_confirm = status.light is FlagState.UNCERTAIN and not unreadable
    why = scene.why.get(index, "") if status.light in (FlagState.ATTENTION,
                                                       FlagState.UNCERTAIN) else ""
    if unreadable and status.light is FlagState.UNCERTAIN:
        why = _("Tap the marked card to say which it is.")
    theme.draw_text(surface, status_words(scene, index), (title.right + 16, title.bottom - 2),
                    layout.px(24), theme.MUTED, anchor="bottomleft")
    ok = pygame.Rect(rect.right - 20 - confirm_w, rect.top + 10, confirm_w,
                     max(48, layout.px(50)))
    why_h = 0
    # What is wrong here and what to do, in the tracker's words, under the title (two
    # or three lines); what the terrain does here, which says why a card may not count
    # (three).
    line_h = int(layout.px(21) * 0.9)
    notes = []
    if why:
        # Three lines where it needs them (a guess named in a long language).
        text = scene.said(why)
        lines = len(theme.wrap(text, layout.px(21), rect.width - 40))
        notes.append((text, theme.player_colour("attention", scene.colours),
                      max(layout.px(46), min(3, lines) * line_h + 4)))
    if flag.terrain is not None:
        notes.append((terrain_line(flag, scene.names), theme.MUTED, 3 * line_h + 4))
    top = max(rect.top + 54, ok.bottom + 6) if can_confirm and why else rect.top + 54
    for text, colour, height in notes:
        theme.draw_wrapped(surface, text, pygame.Rect(rect.left + 20, top, rect.width - 40,
                                                      height), layout.px(21), colour)
        top += height
    if notes:
        why_h = top - (rect.top + 54)
    inner = rect.inflate(-40, 0)
    row_h = (rect.height - 60 - why_h - layout.px(64) - 16) // 2
    card_w = min(layout.px(58), int((row_h - 30) / 1.4))
    y = rect.top + 56 + why_h
    for player in PLAYERS:
        name = scene.names[player]
        label = formation_label(scene, flag, player) or _("no cards")
        theme.draw_text(surface, f"{name}: {label}", (inner.left, y), layout.px(22),
                        scene.colour(player), width=inner.width)
        area = pygame.Rect(inner.left, y + 24, inner.width - layout.px(86) - 10, row_h - 28)
        zone = f"flag{index + 1}.{player.value}"
        read = scene.readings.get(zone, ())
        recorded = [c.token for c in flag.cards(player)]
        cards: list[Card | None]
        if (read and [t for t, _sure in read] != recorded) or any(not sure for _t, sure in read):
            # The camera sees something else than the record: show what it reads,
            # the doubtful cards marked, so the right one can be chosen.
            cards = [_card_or_none(t) for t, _sure in read]
            doubtful = [i for i, (_t, sure) in enumerate(read) if not sure]
        else:
            cards, doubtful = list(flag.cards(player)), []
        visible = fan(surface, cards, area, vertical=False, card_w=card_w,
                      medieval=scene.model.medieval, marked=doubtful,
                      mark=theme.player_colour("attention", scene.colours))
        for card_rect, slot in visible:
            targets.append((card_rect, Intent("pick", zone=zone, value=str(slot))))
        add = pygame.Rect(inner.right - layout.px(86), area.top + (area.height - 56) // 2,
                          layout.px(86), 56)
        theme.button(surface, add, _("+ card"), size=layout.px(22))
        targets.append((add, Intent("pick", zone=zone, value=str(len(cards)))))
        y += row_h
    by = rect.bottom - layout.px(64) - 12
    bw = (rect.width - 40 - 2 * 12) // 3
    if can_confirm:
        # The reading is only doubtful: one tap accepts it as read.
        theme.button(surface, ok, _("Confirm reading"), fill=theme.ACCENT, size=layout.px(24))
        targets.append((ok, Intent("confirm", flag=index)))
    for k, player in enumerate(PLAYERS):
        b = pygame.Rect(rect.left + 20 + k * (bw + 12), by, bw, layout.px(64))
        theme.button(surface, b, _("{name} claims").format(name=scene.names[player]),
                     fill=theme.mix(theme.PANEL, scene.colour(player), 0.7), size=layout.px(26))
        targets.append((b, Intent("claim", flag=index, player=player)))
    b = pygame.Rect(rect.left + 20 + 2 * (bw + 12), by, bw, layout.px(64))
    theme.button(surface, b, _("Close"), size=layout.px(26))
    targets.append((b, Intent("go", value="play")))
    return targets


# --------------------------------------------------------------------------- ruling
REASONS: dict[Reason, str] = {
    Reason.STRONGER: N_("{me}'s formation beats {them}'s complete one."),
    Reason.TIE_COMPLETED_FIRST: N_("Equal formations, and {me} completed first."),
    Reason.UNBEATABLE: N_("Nothing {them} can still add beats it."),
    Reason.OPPONENT_CANNOT_COMPLETE: N_("Too few troops remain for {them} to complete."),
    Reason.CLAIMED: N_("This flag is already claimed."),
    Reason.GAME_OVER: N_("The game is already decided."),
    Reason.INCOMPLETE: N_("{me}'s formation is not complete yet."),
    Reason.WEAKER: N_("{them}'s complete formation is stronger."),
    Reason.TIE_COMPLETED_LAST: N_("Equal formations, and {them} completed first."),
    Reason.BEATABLE: N_("{them} could still complete a stronger formation."),
}


def draw_ruling(surface: pygame.Surface, layout: Layout, scene: Scene) -> list[Target]:
    """The ruling: granted or refused, why, and what beats the claim drawn as cards."""
    draw_play(surface, layout, scene)
    result = scene.ruling
    assert result is not None
    rect = layout.dialog(0.84, 0.42)
    _panel(surface, rect)
    ruling = result.ruling
    granted = ruling is not None and ruling.granted
    me, them = scene.names[result.player], scene.names[result.player.other]
    colour = theme.GOOD if granted else theme.BAD
    left, width = rect.left + 24, rect.width - 48
    theme.draw_text(surface, _("Granted") if granted else _("Refused"), (left, rect.top + 14),
                    layout.px(48), colour)
    theme.draw_text(surface, _("{name} claims flag {n}").format(name=me, n=result.flag + 1),
                    (rect.right - 24, rect.top + 26), layout.px(26), scene.colour(result.player),
                    anchor="topright")
    text = scene.said(result.message) if ruling is None else _(REASONS[ruling.reason]).format(me=me, them=them)
    y = theme.draw_wrapped(surface, text, pygame.Rect(left, rect.top + 14 + layout.px(56), width,
                                                      layout.px(64)), layout.px(28))
    names = scene.formation_names()
    flag = scene.model.flags[result.flag]
    if ruling is not None and ruling.strength is not None:
        mine = f"{names[ruling.strength.formation]} {ruling.strength.total}"
        theme.draw_text(surface, f"{me}: {mine}", (left, y + 6), layout.px(24),
                        scene.colour(result.player))
        y += layout.px(30)
    ok_h = layout.px(64)
    if granted:
        card_w = min(layout.px(68), int((rect.bottom - y - ok_h - 36) / 1.4))
        area = pygame.Rect(left, y + 10, width - layout.px(170), int(card_w * 1.4) + 4)
        fan(surface, flag.cards(result.player), area, vertical=False, card_w=card_w,
            medieval=scene.model.medieval)
    elif ruling is not None and ruling.threat is not None:
        threat = f"{names[ruling.threat.formation]} {ruling.threat.total}"
        added = ruling.counterexample or ()
        line = (_("{name} could still add the marked cards: {f}") if added
                else _("{name} has {f}")).format(name=them, f=threat)
        theme.draw_text(surface, line, (left, y + 8), layout.px(24), scene.colour(
            result.player.other), width=width)
        y += layout.px(34) + 8
        shown: list[Card] = [*flag.cards(result.player.other), *added]
        card_w = min(layout.px(68), int((rect.bottom - y - ok_h - 36) / 1.4))
        area = pygame.Rect(left, y, width - layout.px(170), int(card_w * 1.4) + 4)
        visible = fan(surface, shown, area, vertical=False, card_w=card_w,
                      medieval=scene.model.medieval)
        first_added = len(shown) - len(added)
        for card_rect, i in visible:
            if i >= first_added:
                pygame.draw.rect(surface, theme.TEXT, card_rect.inflate(6, 6), width=3,
                                 border_radius=8)
    ok = pygame.Rect(rect.right - 24 - layout.px(150), rect.bottom - ok_h - 16, layout.px(150),
                     ok_h)
    theme.button(surface, ok, _("OK"), fill=theme.ACCENT, size=layout.px(30))
    return [(surface.get_rect(), Intent("go", value="play"))]


# --------------------------------------------------------------------------- card picker
PICK_CARDS: tuple[Card, ...] = (
    *(parse_card(f"{c.letter}{v}") for c in Colour for v in range(1, 11)),
    *Tactic,
)


def draw_picker(surface: pygame.Surface, layout: Layout, scene: Scene) -> list[Target]:
    """Every card of the deck: tap the one that really lies there, or remove it."""
    surface.fill(theme.BACKGROUND)
    targets = top_bar(surface, layout, scene, _("Which card is it?"))
    zone = scene.pick_zone
    flag_no = int(zone.split(".")[0][4:])
    player = Player(zone.split(".")[1])
    tokens = scene.pick_tokens
    current_token = tokens[scene.pick_slot] if scene.pick_slot < len(tokens) else ""
    guess = scene.guess(zone, scene.pick_slot) if current_token == UNKNOWN else None
    board = layout.board.union(layout.bottom_bar)
    cols = 10  # one colour per row, as the deck is sorted
    rows = (len(PICK_CARDS) + cols - 1) // cols
    footer = layout.px(60)
    cell_w = (board.width - 16) // cols
    cell_h = (board.height - footer - 16) // rows
    for k, card in enumerate(PICK_CARDS):
        col, row = k % cols, k // cols
        cell = pygame.Rect(board.left + 8 + col * cell_w, board.top + 6 + row * cell_h,
                           cell_w, cell_h)
        w = min(cell.width - 6, int((cell.height - 4) / 1.4))
        rect = pygame.Rect(0, 0, w, int(w * 1.4))
        rect.center = cell.center
        mark = (theme.TEXT if card.token == current_token
                else theme.ACCENT if card.token == guess else None)
        draw_card(surface, card, rect, medieval=scene.model.medieval, highlight=mark)
        targets.append((cell, Intent("choose", zone=zone, value=card.token)))
    fy = board.bottom - footer + 4
    remove = pygame.Rect(board.right - layout.px(200) - 8, fy, layout.px(200), footer - 8)
    what = _("Flag {n}, {name}, card {k}").format(n=flag_no, name=scene.names[player],
                                                  k=scene.pick_slot + 1)
    room = remove.left - 16 - 16
    if guess is None:
        theme.draw_text(surface, what, (16, fy + footer // 2 - 4), layout.px(24),
                        scene.colour(player), anchor="midleft", width=room)
    else:
        # The camera's guess, marked among the cards: one tap if it is right.
        line = layout.px(26)
        theme.draw_text(surface, what, (16, fy + footer // 2 - 4 - line // 2), layout.px(22),
                        scene.colour(player), anchor="midleft", width=room)
        theme.draw_text(surface, _("Camera's guess: {card}").format(
            card=card_words(parse_card(guess), scene.model.medieval)),
            (16, fy + footer // 2 - 4 + line // 2), layout.px(22), theme.ACCENT,
            anchor="midleft", width=room)
    if scene.pick_slot < len(tokens):
        theme.button(surface, remove, _("Remove card"), fill=theme.BAD, size=layout.px(24))
        targets.append((remove, Intent("choose", zone=zone, value="")))
    return targets


# --------------------------------------------------------------------------- game over
def draw_game_over(surface: pygame.Surface, layout: Layout, scene: Scene) -> list[Target]:
    draw_play(surface, layout, scene)
    outcome = scene.outcome
    assert outcome is not None
    rect = layout.dialog(0.7, 0.42)
    _panel(surface, rect)
    if outcome.winner is None:
        head, colour = _("A draw"), theme.TEXT
    else:
        head = _("{name} wins").format(name=scene.names[outcome.winner])
        colour = scene.colour(outcome.winner)
    how = {Ending.BREAKTHROUGH: _("by breakthrough: three flags side by side"),
           Ending.ENVELOPMENT: _("by envelopment: five flags")}.get(outcome.ending, "")
    theme.draw_text(surface, head, (rect.centerx, rect.top + 24), layout.px(56), colour,
                    anchor="midtop")
    theme.draw_text(surface, how, (rect.centerx, rect.top + 24 + layout.px(60)), layout.px(26),
                    theme.MUTED, anchor="midtop", width=rect.width - 40)
    north, south = scene.model.score
    line = _("Match: {a} {x} – {y} {b}").format(a=scene.names[Player.NORTH], x=north, y=south,
                                                 b=scene.names[Player.SOUTH])
    theme.draw_text(surface, line, (rect.centerx, rect.centery + 20), layout.px(34), theme.TEXT,
                    anchor="center", width=rect.width - 40)
    flags = _("Flags held: {a} {x}, {b} {y}").format(
        a=scene.names[Player.NORTH], x=outcome.flags[0], b=scene.names[Player.SOUTH],
        y=outcome.flags[1])
    theme.draw_text(surface, flags, (rect.centerx, rect.centery + 20 + layout.px(40)),
                    layout.px(24), theme.MUTED, anchor="center")
    buttons = [(_("Show the board"), Intent("go", value="board"), theme.PANEL_LIGHT)]
    if scene.next_game:
        buttons.append((_("Next game"), Intent("next"), theme.ACCENT))
    bw, gap = layout.px(220), 16
    x = rect.centerx - (len(buttons) * bw + (len(buttons) - 1) * gap) // 2
    targets: list[Target] = []
    for label, intent, fill in buttons:
        b = pygame.Rect(x, rect.bottom - 16 - layout.px(64), bw, layout.px(64))
        theme.button(surface, b, label, fill=fill, size=layout.px(26))
        targets.append((b, intent))
        x += bw + gap
    return targets


SCREENS = {
    "play": draw_play,
    "board": draw_play,
    "flag": draw_flag_panel,
    "ruling": draw_ruling,
    "pick": draw_picker,
    "over": draw_game_over,
}
