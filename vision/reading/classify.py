"""Naming a placed band: every token ranked, then the leaders compared (``confidence``).

Every token is ranked by grey normalised cross-correlation with the band's views
over small shifts, minus a colour distance above a noise floor (glare pales a
colour toward grey, so a token's chroma may be scaled down to the band's; a
troop's colour is its suit's median, as one photo's white balance says nothing
between two cards of a suit). A good match whose leaders are too alike gets a
second look, band and templates with their contrast stretched locally: a pale
numeral (yellow on yellow, or under glare) then counts as much as black print.
Given a deck's own learnt model (``vision.models.band_model``), the model names the
card instead, as far as ``trust`` says such reads are right: the templates' first
look (no second) and their pairwise verdict on the model's winner and runner-up
are only evidence for that trust.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Final

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.rules.cards import Troop, parse_token
from companion.rules.errors import NotationError
from vision.mat import ZoneKind, holds
from vision.models.band_model import SEARCH_PX, BandModel, as_trained
from vision.position import UNKNOWN
from vision.profile import BLUR, TPL_PX, DeckProfile, sample_signatures
from vision.reading.confidence import (
    INDEX_FIT,
    MAX_RANK_GAP,
    MIN_MARGIN,
    MIN_SCORE,
    TOP_K,
    likeness,
    named,
    pair_winners,
    pairwise,
    sureness,
)
from vision.reading.light import scaled, unveil
from vision.reading.placement import SHIFT_PX, Placed
from vision.reading.templates import IX, IY, Templates, local_contrast, ncc_rows
from vision.reading.trust import NAME_AT, NARROW_FROM, Rivals, troop_mark, trust
from vision.types import FloatImage

COLOUR_WEIGHT: Final = 1 / 100.0  # ranking penalty per Lab unit of colour difference
COLOUR_FLOOR: Final = 8.0  # Lab units of colour difference that are only noise
GLARE_PALEST: Final = 0.35  # least share of a card's chroma glare may leave
SHAPE_ALIKE: Final = 0.05  # grey fits this close do not tell two troops of one value apart
LOCAL_MARGIN: Final = 0.4  # MIN_MARGIN of the second look
LOCAL_FIT: Final = 0.82  # INDEX_FIT of the second look (a yellow 8 the profile lacks
# looks like its yellow 5 up to about 0.8 there)

Named = tuple[str, float, float, list[tuple[str, float]]]  # token, confidence, score, leaders


@dataclass(frozen=True, eq=False)
class Judged:
    """A band as the deck's model judged it, kept to judge it again among fewer cards
    later in its frame (``Classifier.without``) without looking at it again."""

    placed: Placed
    hv: int
    told: Named  # the templates' judgement
    colours: FloatImage  # each token's colour distance from the band
    allowed: NDArray[np.bool_] | None  # the tokens its zone may hold
    height: float  # the model's visible height that judged it
    distances: FloatImage  # from each token (``BandModel.distances``)
    named: Named  # the model's judgement, before its zone's
    soft_mm: float = float("nan")  # how soft its frame is (NaN: not known)


class Classifier:
    """Names bands of a deck (``profile``, cut as ``templates``), by the templates or
    by the deck's learnt ``model`` where given."""

    def __init__(self, profile: DeckProfile, templates: Templates,
                 model: BandModel | None = None) -> None:
        self.tokens = profile.tokens
        self.band_mm = profile.band_mm
        self.templates = templates
        self.model = model
        self._chroma = suit_chroma(profile.tokens, profile.chroma)
        self._index = {t: i for i, t in enumerate(profile.tokens)}
        self._holds: dict[ZoneKind, NDArray[np.bool_]] = {}
        self._other_suits = other_suits(profile.tokens)

    def classify(self, crop: FloatImage, visible_mm: float) -> Named:
        """Token, confidence, best score and the top candidates for a band crop.

        ``crop`` is the band with SHIFT_PX pixels of slack on every side, in true
        colours (BGR, 0..1); only its top ``visible_mm`` is trusted. Every token
        is compared.
        """
        tp = self.templates
        gray = cv2.GaussianBlur(cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY), (0, 0), BLUR)
        hv = tp.visible_px(min(visible_mm, self.band_mm))
        views = tp.views(gray, SHIFT_PX, SHIFT_PX, hv, SHIFT_PX, 2)
        corr = ncc_rows(views, tp.normalised(hv, 2)[1])
        return self.decide_many([Placed(0.0, crop, np.ones(3, np.float32), gray, SHIFT_PX,
                                        SHIFT_PX, views, corr)], [hv], [None])[0]

    def holding(self, kind: ZoneKind) -> NDArray[np.bool_]:
        """Which of the deck's tokens a zone of ``kind`` may hold (``mat.holds``)."""
        if kind not in self._holds:
            self._holds[kind] = np.array([holds(kind, t) for t in self.tokens])
        return self._holds[kind]

    def decide_many(self, placed: list[Placed], hvs: list[int],
                    veils: list[FloatImage | None], glares: list[float] | None = None,
                    kinds: Sequence[ZoneKind] | None = None,
                    soft_mm: float | None = None) -> list[Named]:
        """Name each placed band (visible ``hvs`` high), or ``unknown``; bands of one
        visible height are judged together. ``veils``: one over the light's gain
        over each band, to take glare off its colours (``None``: leave them);
        ``glares``: the glare the mat around each band shows, the least taken off;
        ``kinds``: the kind of zone each band lies in, whose cards alone it may be
        (a Mud is not taken for Darius in an environment slot); ``soft_mm``: how soft
        the bands' frame is (``vision.sharpness``; ``None``: not known)."""
        return self.judge_many(placed, hvs, veils, glares, kinds, soft_mm)[0]

    def judge_many(self, placed: list[Placed], hvs: list[int],
                   veils: list[FloatImage | None], glares: list[float] | None = None,
                   kinds: Sequence[ZoneKind] | None = None,
                   soft_mm: float | None = None,
                   ) -> tuple[list[Named], list[Judged | None]]:
        """``decide_many``, with what the model weighed for each band (``None``: no
        model), to judge it again among fewer cards (``without``)."""
        w = self.templates.tw
        cut = []
        groups: dict[tuple[int, tuple[int, ...], bool], list[int]] = {}
        for i, (pl, hv) in enumerate(zip(placed, hvs, strict=True)):
            cut.append(colour_cut(pl, hv, w))  # in true colours below
            groups.setdefault((hv, cut[-1].shape, veils[i] is None), []).append(i)
        out: list[Named] = [(UNKNOWN, 0.0, 0.0, [])] * len(placed)
        colours: list[FloatImage] = [np.zeros(0)] * len(placed)
        for (hv, _, bare), idx in groups.items():
            veil = None if bare else np.stack([veils[i] for i in idx])  # type: ignore[misc]
            least = np.array([glares[i] if glares else 0.0 for i in idx])
            samples = (np.stack([cut[i] for i in idx])
                       * np.stack([placed[i].scale for i in idx])[:, None, None, :])
            got, cdist = self._decide_group(hv, [placed[i] for i in idx],
                                            samples.astype(np.float32, copy=False), veil, least)
            for k, (i, d) in enumerate(zip(idx, got, strict=True)):
                out[i], colours[i] = d, cdist[k]
        allowed = None if kinds is None else np.array(
            [self.holding(k) for k in kinds], bool).reshape(len(kinds), len(self.tokens))
        judged: list[Judged | None] = [None] * len(placed)
        if self.model is not None:
            out, judged = self._learnt(placed, hvs, out, colours, allowed,
                                       np.nan if soft_mm is None else soft_mm)
        if allowed is None:
            return out, judged
        # A card the zone may not hold is asked about, whatever named it.
        return [(UNKNOWN, 0.0, score, cands)
                if token != UNKNOWN and not allowed[i, self._index[token]]
                else (token, conf, score, cands)
                for i, (token, conf, score, cands) in enumerate(out)], judged

    def _learnt(self, placed: list[Placed], hvs: list[int], decided: list[Named],
                colours: list[FloatImage], allowed: NDArray[np.bool_] | None,
                soft: float) -> tuple[list[Named], list[Judged | None]]:
        """The deck's own model names each placed band (``vision.models.band_model``); the
        templates' ranking stays as the candidates (whether a band looks like an
        index at all). ``colours``: per band, each token's colour distance from it;
        ``allowed``: per band, the tokens its zone may hold; ``soft``: how soft their
        frame is (NaN: not known)."""
        assert self.model is not None
        s = SEARCH_PX
        rows, w = self.templates.th + 2 * s, self.templates.tw + 2 * s
        out = list(decided)
        judged: list[Judged | None] = [None] * len(placed)
        groups: dict[float, list[int]] = {}
        for i, hv in enumerate(hvs):
            groups.setdefault(self.model.height_for(hv / TPL_PX), []).append(i)
        for h, idx in groups.items():
            bands = []
            for i in idx:
                pl = placed[i]
                # The band and SEARCH_PX around it; what lies beyond the crop repeats.
                y0, x0 = pl.ty - s, pl.tx - s
                pad = max(0, -y0, -x0, y0 + rows - pl.crop.shape[0],
                          x0 + w - pl.crop.shape[1])
                crop = pl.crop if not pad else cv2.copyMakeBorder(
                    pl.crop, pad, pad, pad, pad, cv2.BORDER_REPLICATE)
                bands.append(scaled(crop[y0 + pad:y0 + pad + rows, x0 + pad:x0 + pad + w],
                                    pl.scale))
            shown, as_soft = as_trained(np.stack(bands), soft)
            d2 = self.model.distances(shown, h)
            zone = None if allowed is None else allowed[idx]
            named = self._trusted(h, [placed[i] for i in idx], [hvs[i] for i in idx],
                                  [decided[i] for i in idx], [colours[i] for i in idx],
                                  d2, zone, np.full(len(idx), as_soft))
            for k, i in enumerate(idx):
                out[i] = named[k]
                judged[i] = Judged(placed[i], hvs[i], decided[i], colours[i],
                                   None if zone is None else zone[k], h, d2[k], named[k],
                                   as_soft)
        return out, judged

    def _trusted(self, h: float, placed: list[Placed], hvs: list[int], told: list[Named],
                 colours: list[FloatImage], d2: FloatImage,
                 allowed: NDArray[np.bool_] | None, soft: FloatImage) -> list[Named]:
        """Bands the model of height ``h`` holds at squared distances ``d2`` from its
        tokens, named where the trust reaches NAME_AT among the tokens ``allowed``
        (``soft``: how soft each band's frame is)."""
        assert self.model is not None
        look = self.model.nearest(d2, h, allowed)
        names = [self.model.tokens[b] for b in look.best.tolist()]
        # How much further the named card's colour lies than the nearest colour.
        off = np.array([c[self._index[n]] - c.min()
                        for c, n in zip(colours, names, strict=True)])
        sure = trust(look.nearest, look.runner_up,
                     np.array([t[0] == n for t, n in zip(told, names, strict=True)], float),
                     np.array([t[1] for t in told]), np.array([t[2] for t in told]),
                     np.full(len(names), h), off,
                     self.pair_margins(placed, hvs, np.stack([look.best, look.second], axis=1),
                                       colours),
                     self.model.typical_gap, soft,
                     Rivals.of(self.model.tokens, look.best, look.second,
                               self.model.apart(h, look.best, look.second)))
        # Below NAME_AT such reads were wrong now and then: the band asks.
        return [(token if c >= NAME_AT else UNKNOWN, float(c), score, cands)
                for token, c, (_, _, score, cands) in zip(names, sure.tolist(), told,
                                                          strict=True)]

    def without(self, taken: Collection[str], judged: Sequence[Judged]) -> list[Named]:
        """The bands ``judged`` judged again without the ``taken`` cards (named
        elsewhere on the table: a card lies once), where the model left them unknown
        at a trust of NARROW_FROM or more: a card the trust now names stands where the
        model's guess is the same with them and without (they were only its rivals).
        A guess that is itself taken stays unknown: its runner-up was never weighed
        as a winner."""
        out = [j.named for j in judged]
        cols = [self._index[t] for t in taken if t in self._index]
        if self.model is None or not cols:
            return out
        groups: dict[float, list[int]] = {}
        for k, j in enumerate(judged):
            if j.named[0] == UNKNOWN and j.named[1] >= NARROW_FROM:
                groups.setdefault(j.height, []).append(k)
        everything = np.ones(len(self.tokens), bool)
        for h, ks in groups.items():
            js = [judged[k] for k in ks]
            d2 = np.stack([j.distances for j in js])
            zone = np.stack([everything if j.allowed is None else j.allowed for j in js])
            narrowed = zone.copy()
            # A zone that leaves one token (or none) is not choosing: nothing to take.
            narrowed[np.ix_(zone.sum(axis=1) >= 2, cols)] = False
            guess = self.model.nearest(d2, h, zone).best.tolist()
            again = self._trusted(h, [j.placed for j in js], [j.hv for j in js],
                                  [j.told for j in js], [j.colours for j in js], d2, narrowed,
                                  np.array([j.soft_mm for j in js]))
            for k, g, a in zip(ks, guess, again, strict=True):
                if a[0] != UNKNOWN and a[0] == self.model.tokens[g]:
                    out[k] = a
        return out

    def guess(self, judged: Judged) -> tuple[str, float] | None:
        """The card the model holds a band nearest among those its zone may hold, and
        the trust in it, named or not (``None``: no model judged it). A guess is
        never a read: ``vision.vote`` names one only where frames agree on it."""
        if self.model is None:
            return None
        zone = None if judged.allowed is None else judged.allowed[None]
        best = int(self.model.nearest(judged.distances[None], judged.height, zone).best[0])
        return self.model.tokens[best], judged.named[1]

    def pair_margins(self, placed: list[Placed], hvs: list[int], pairs: NDArray[np.intp],
                     colours: list[FloatImage]) -> FloatImage:
        """Per band, how much better the templates explain it as the first of its
        ``pairs`` (the model's winner) than as the second (its runner-up): compared
        where the two differ and by colour, each at its best fit (negative: the
        runner-up explains it better).

        The model weighs the whole band at 1 px/mm; the templates see the index at
        full detail, so they are a second opinion on just the pair the model
        hesitated between (a 6 and an 8 of one suit).
        """
        out = np.zeros(len(placed))
        by_height: dict[int, list[int]] = {}
        for k, hv in enumerate(hvs):
            by_height.setdefault(hv, []).append(k)
        for hv, ks in by_height.items():
            raw, rows = self.templates.normalised(hv, 2)[0], self.templates.rows(hv, 2)
            order = pairs[ks]
            bi = np.arange(len(ks))[:, None]
            corr = np.stack([placed[k].corr for k in ks])
            cpen = np.maximum(np.stack([colours[k] for k in ks]) - COLOUR_FLOOR, 0.0)
            wins, margins = pair_winners(np.stack([placed[k].views for k in ks]),
                                         corr.argmax(axis=1)[bi, order], raw[order],
                                         rows[order], cpen[bi, order])
            out[ks] = np.where(wins == 0, margins, -margins)
        return out

    def _decide_group(self, hv: int, placed: list[Placed], samples: FloatImage,
                      veils: FloatImage | None, least: FloatImage,
                      ) -> tuple[list[Named], FloatImage]:
        """Name bands of one visible height ``hv`` (``samples``: of each one's colours;
        ``veils`` and ``least`` as ``light.unveil`` takes them); and each band's colour
        distance from every token.

        Each band's ``corr`` holds every token's correlations with its views over
        small shifts. A first pass ranks the tokens by their best correlation minus
        colour distance; the leaders are then compared pairwise (``confidence``).
        """
        tokens = self.tokens
        raw = self.templates.normalised(hv, 2)[0]
        rows = self.templates.rows(hv, 2)
        views = np.stack([pl.views for pl in placed])
        corr = np.stack([pl.corr for pl in placed])
        best_shift = corr.argmax(axis=1)
        ncc = corr.max(axis=1)
        bi = np.arange(len(placed))[:, None]  # (fancy indexing: take_along_axis is slower)
        if veils is not None:
            like = ncc.argmax(axis=1)
            samples = unveil(samples, views[:, views.shape[1] // 2],
                             self.templates.dark(hv)[like], veils, least)
        cdist = colour_distance(np.broadcast_to(self._chroma,
                                                (len(placed), *self._chroma.shape)),
                                sample_signatures(samples))
        # Colour differences below the noise floor (white balance, one photo per
        # card) say nothing: two cards of one suit are the same colour.
        cpen = np.maximum(cdist - COLOUR_FLOOR, 0.0)
        score = ncc - COLOUR_WEIGHT * cpen
        # The leaders, best ranked first. A deck enrolled in part may hold no more
        # cards than the leaders counted.
        if score.shape[1] > TOP_K:
            top = np.argpartition(-score, TOP_K, axis=1)[:, :TOP_K]
        else:
            top = np.broadcast_to(np.arange(score.shape[1]), score.shape)
        order = top[bi, np.argsort(-score[bi, top], axis=1)]
        shift = best_shift[bi, order]
        cpen_order = cpen[bi, order]
        winners, margins, owns = pairwise(views, shift, raw[order], rows[order], cpen_order)
        out: list[Named] = []
        again: list[int] = []  # given a second look, all together
        for i, (win, margin, own) in enumerate(zip(winners.tolist(), margins.tolist(),
                                                   owns.tolist(), strict=True)):
            sc, nc = score[i], ncc[i]
            first, winner = int(order[i, 0]), int(order[i, win])
            cands = [(tokens[j], float(sc[j])) for j in order[i, :3]]
            conf = sureness(margin, own, MIN_MARGIN, INDEX_FIT)
            if named(sc, nc, cpen[i], first, winner, win, own, margin):
                out.append((tokens[winner], 0.5 + conf * 0.5, float(nc[winner]), cands))
                continue
            # Given a learnt model, the first look is only evidence for its trust.
            if float(sc[first]) >= MIN_SCORE and self.model is None:
                again.append(i)
            out.append((UNKNOWN, conf * 0.5, float(nc[winner]), cands))
        if again:
            for i, named_again in zip(again, self._second_look(
                    hv, [placed[i] for i in again], views[again], shift[again], order[again],
                    cpen_order[again], score[again], ncc[again]), strict=True):
                if named_again is not None:
                    token, conf, nc_won = named_again
                    out[i] = (token, conf, nc_won, out[i][3])
        if self.model is None:
            for i, (token, conf, nc_won, cands) in enumerate(out):
                if token != UNKNOWN and self._suit_unsure(self._index[token], ncc[i], cdist[i]):
                    out[i] = (UNKNOWN, conf - 0.5, nc_won, cands)
        return out, cdist

    def _suit_unsure(self, j: int, ncc: FloatImage, cdist: FloatImage) -> bool:
        """Whether the troop ``j`` named by the templates alone is only as sure of its
        suit as colour noise allows: a troop of its value in another suit fits the grey
        as well (within SHAPE_ALIKE) and lies less than COLOUR_FLOOR further in colour.
        Such cards differ by colour alone, and the ranking's colour penalty may have
        left the other out of the leaders compared pairwise: an orange 2 under a
        magenta cast, lying between orange and red, was read a red 2 at 1.0."""
        rivals = self._other_suits[j]
        alike = rivals[ncc[rivals] >= ncc[j] - SHAPE_ALIKE]
        return bool(len(alike)) and float(cdist[alike].min() - cdist[j]) < COLOUR_FLOOR

    def _second_look(self, hv: int, placed: list[Placed], views: FloatImage,
                     shift: NDArray[np.intp], order: NDArray[np.intp], cpen: FloatImage,
                     score: FloatImage, ncc: FloatImage) -> list[tuple[str, float, float] | None]:
        """Bands' leaders (``order``, a row each) again, every neighbourhood's contrast
        stretched to one: per band, the token named, its confidence and correlation,
        or ``None`` where that names none of them.

        A pale numeral (a yellow one, or any under glare) differs from its
        neighbours' by little grey next to the black print of the name. All bands
        at once (a band's result does not depend on the others').
        """
        tp = self.templates
        raw, rows = tp.normalised(hv, 2)[0], tp.rows(hv, 2)
        shape = tp.view_shape(hv)
        full = np.stack([tp.views(pl.gray, pl.tx, pl.ty, hv, SHIFT_PX) for pl in placed])
        stretched = np.zeros_like(full)
        for b, ks in enumerate(shift.tolist()):
            for k in set(ks):
                stretched[b, k] = local_contrast(full[b, k].reshape(shape)).ravel()
        wins, margins, owns = pairwise(stretched, shift, *tp.local(hv, order), cpen)
        ar = np.arange(len(placed))
        likes = likeness(views[ar, shift[ar, wins]], raw[order], rows[order], wins)
        out: list[tuple[str, float, float] | None] = []
        for b, (w2, m2, o2, like) in enumerate(zip(wins.tolist(), margins.tolist(),
                                                   owns.tolist(), likes.tolist(), strict=True)):
            sc, first, second = score[b], int(order[b, 0]), int(order[b, w2])
            # Only the margin may fail in grey: what else the first look asks of a
            # winner, the second look's winner must meet too.
            if (float(sc[second]) >= MIN_SCORE and m2 >= LOCAL_MARGIN
                    and float(sc[second]) >= float(sc[first]) - MAX_RANK_GAP
                    and o2 >= LOCAL_FIT and like >= INDEX_FIT):
                conf = sureness(m2, o2, LOCAL_MARGIN, LOCAL_FIT)
                out.append((self.tokens[second], 0.5 + conf * 0.5, float(ncc[b, second])))
            else:
                out.append(None)
        return out


def colour_cut(placed: Placed, hv: int, width: int) -> FloatImage:
    """The pixels a placed band's colour is taken from, as the frame shows them (its
    ``scale`` not applied): every fourth pixel each way of the index's ``hv`` rows and
    ``width`` columns, inside its edges (some 200, for two means: the colour noise
    floor is far above what more would add)."""
    y0, x0 = max(placed.ty, 0), max(placed.tx, 0)
    band = placed.crop[y0:y0 + hv, x0:x0 + width]
    return np.asarray(band[IY::4, IX:band.shape[1] - IX:4])


def other_suits(tokens: list[str]) -> list[NDArray[np.intp]]:
    """Per token, the troops of its value in the deck's other suits (none for any other
    card)."""
    marks = [troop_mark(t) for t in tokens]
    return [np.array([k for k, (c, v) in enumerate(marks) if v == value and c != colour],
                     np.intp) if colour >= 0 else np.zeros(0, np.intp)
            for colour, value in marks]


def colour_distance(chroma: FloatImage, sig: FloatImage) -> FloatImage:
    """Per band, each token's colour signature's (``chroma[band]``) distance from the
    band's (``sig[band]``), glare allowed for.

    Glare is white light added over the card: it pales every colour toward grey
    by one factor, keeping its hue. So each token's chroma may be scaled down
    (not up) to the band's before the distance is taken.
    """
    k = np.clip((chroma @ sig[:, :, None])[:, :, 0]
                / (np.einsum("bij,bij->bi", chroma, chroma) + 1e-3), GLARE_PALEST, 1.0)
    d = chroma * k[:, :, None] - sig[:, None]
    return np.sqrt(np.einsum("bij,bij->bi", d, d))


def suit_chroma(tokens: list[str], chroma: FloatImage) -> FloatImage:
    """Each troop's colour signature as the median of its colour's enrolled troops.

    Cards of one colour are printed alike: their signatures differ only by each
    enrolment photo's white balance, which would otherwise count as a colour
    difference between two cards of one suit (and put a card's own suit off).
    """
    suits: dict[object, list[int]] = {}
    for i, token in enumerate(tokens):
        try:
            card = parse_token(token)
        except NotationError:
            continue  # a deck's own extra card: its photo alone says its colour
        if isinstance(card, Troop):
            suits.setdefault(card.colour, []).append(i)
    out = chroma.astype(np.float32, copy=True)
    for idx in suits.values():
        out[idx] = np.median(chroma[idx], axis=0)
    return out
