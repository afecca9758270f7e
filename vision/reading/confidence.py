"""How sure a read is: the leaders compared pairwise where they differ.

Tokens of one colour share most of their band, so a ranking over the whole band
leaves the numeral, the pips or the name to little weight. The leaders are
compared pairwise just where their templates differ, and by colour, each where
it fits best (a covered band may look more like a 3 where the 3 fits and more
like a 7 where the 7 fits: no margin then). The winner's smallest margin is
the confidence, lowered where the band is unlike the winner just where the
winner differs from the other leaders (a card the profile lacks is more like
one of its suit than like the rest, yet unlike it there). The thresholds below
make a read ``unknown`` rather than a guess.
"""

from __future__ import annotations

import functools
from typing import Final

import numpy as np
from numpy.typing import NDArray

from vision.types import FloatImage

TOP_K: Final = 4  # leaders compared pairwise
PAIR_COLOUR_SCALE: Final = 60.0  # Lab units worth a whole correlation point between two leaders
MIN_SCORE: Final = 0.85  # below: the band matches nothing in the profile well enough
MAX_RANK_GAP: Final = 0.06  # how far below the best ranked a pairwise winner may start
INDEX_FIT: Final = 0.72  # below: the band is unlike the winner where its index differs
INDEX_GOOD: Final = 0.88  # from here on that likeness leaves the confidence whole
MIN_MARGIN: Final = 0.12  # below: two tokens are too alike to choose -> unknown
SHAPE_SURE: Final = 0.95  # grey correlation that lets a card's colour be off by more
SHAPE_SURE_SCORE: Final = 0.75  # than the noise floor, down to this score


def sureness(margin: float, own: float, least_margin: float, fit: float) -> float:
    """0..1: how far a winner's smallest ``margin`` lies above ``least_margin`` and its
    likeness to itself where it differs (``own``) above ``fit``, the lesser of the two."""
    return min(1.0, max(0.0, margin / (2 * least_margin)),
               max(0.0, (own - fit) / (INDEX_GOOD - fit)))


def named(score: FloatImage, ncc: FloatImage, cpen: FloatImage, first: int, winner: int,
          win: int, own: float, margin: float) -> bool:
    """Whether the first look names the pairwise ``winner`` (rank ``win`` among the
    leaders, ``first`` ranked best; per token its ``score``, grey ``ncc`` and colour
    penalty ``cpen``).

    Never a guess: the winner must explain the band well with its colour too, and
    the pairwise look may only settle near-ties of the ranking. Its colour may be
    further off (the light misjudged) only when the grey is all but exact and no
    card's colour is nearer. A winner the ranking put behind another must be
    clearly like itself where it differs: a covered band whose numeral lies a
    little off the template's can favour another numeral pairwise (a P5 read P1,
    ranked third, only 0.8 like it there).
    """
    well = float(score[winner]) >= MIN_SCORE or (
        float(ncc[winner]) >= SHAPE_SURE and float(score[winner]) >= SHAPE_SURE_SCORE
        and float(cpen[winner]) <= float(cpen.min()))
    plausible = (well and own >= INDEX_FIT
                 and float(score[winner]) >= float(score[first]) - MAX_RANK_GAP
                 and (win == 0 or own >= INDEX_GOOD))
    return plausible and margin >= MIN_MARGIN


@functools.cache
def _rivals(k: int) -> NDArray[np.intp]:
    """For each of ``k`` leaders, the others (in rank order), one row each (shared: not
    to be written to)."""
    return np.array([[c for c in range(k) if c != a] for a in range(k)], np.intp).reshape(k, -1)


def pairwise(views: FloatImage, shift: NDArray[np.intp], raw: FloatImage, rows: FloatImage,
             cpen: FloatImage) -> tuple[NDArray[np.intp], FloatImage, FloatImage]:
    """Per band, the leader that explains it best pairwise, its smallest margin, and
    how like it the band is where it differs from the other leaders.

    ``views[b, s]``: band ``b`` at shift ``s``; per band and leader (best ranked
    first): ``shift`` where it fits best, ``raw`` its template and ``rows`` the
    same zero-mean unit-norm, ``cpen`` its colour penalty.
    """
    winner, margins, seen = _pairwise(views, shift, raw, rows, cpen)
    ar = np.arange(len(winner))
    return winner, margins, likeness(seen[ar, winner], raw, rows, winner)


def pair_winners(views: FloatImage, shift: NDArray[np.intp], raw: FloatImage,
                 rows: FloatImage, cpen: FloatImage) -> tuple[NDArray[np.intp], FloatImage]:
    """``pairwise`` without the likeness (where only the margins are asked)."""
    winner, margins, _ = _pairwise(views, shift, raw, rows, cpen)
    return winner, margins


def _pairwise(views: FloatImage, shift: NDArray[np.intp], raw: FloatImage, rows: FloatImage,
              cpen: FloatImage) -> tuple[NDArray[np.intp], FloatImage, FloatImage]:
    """``pairwise``'s winners and margins, and each leader's view where it fits best."""
    n, k = shift.shape
    ar = np.arange(n)
    seen = views[ar[:, None], shift]  # each leader's view where it fits best
    others = _rivals(k)

    def margins_of(idx: NDArray[np.intp] | None, a: NDArray[np.intp], vs: NDArray[np.intp],
                   ) -> FloatImage:
        """How much better leader ``a`` explains band ``idx`` than each of ``vs`` (``idx``
        none: every band's first leader than the others, taken as slices, not gathered:
        the same values).

        Correlation weighted by how much the two templates differ there (on
        normalised templates, so two photos' exposure is no difference; squared,
        so the numeral outweighs slight blur), plus colour.
        """
        if idx is None:
            ra, rv, sa, ta, to, ca, cv = (rows[:, 0], rows[:, 1:], seen[:, 0], raw[:, 0],
                                          raw[:, 1:], cpen[:, 0], cpen[:, 1:])
        else:
            ra, rv, sa, ta, to, ca, cv = (rows[idx, a], rows[idx[:, None], vs], seen[idx, a],
                                          raw[idx, a], raw[idx[:, None], vs], cpen[idx, a],
                                          cpen[idx[:, None], vs])
        shape = _wncc_pair(sa, ta, to, np.square(ra[:, None] - rv))
        return shape + (cv - ca[:, None]) / PAIR_COLOUR_SCALE

    winner = np.zeros(n, np.intp)
    rivals = others[winner]
    margins = np.zeros(rivals.shape, np.float32)
    open_ = ar
    for step in range(TOP_K):
        vs = others[winner[open_]]
        m = margins_of(None if step == 0 else open_, winner[open_], vs)
        rivals[open_], margins[open_] = vs, m
        worst = m.argmin(axis=1)
        lost = m[np.arange(len(open_)), worst] < 0
        winner[open_[lost]] = vs[lost, worst[lost]]
        open_ = open_[lost]
        if not len(open_):
            break
    # Where a rival fits best the band may look more like the rival: each is then
    # surest where it fits, and the band is no more one than the other (a covered
    # band showing only the tops of two numerals).
    bi, ri = np.nonzero(shift[ar[:, None], rivals] != shift[ar, winner][:, None])
    if len(bi):
        back = margins_of(bi, rivals[bi, ri], winner[bi][:, None])[:, 0]
        margins[bi, ri] = np.minimum(margins[bi, ri], -back)
    return winner, margins.min(axis=1), seen


def likeness(view: FloatImage, raw: FloatImage, rows: FloatImage, a: NDArray[np.intp],
             ) -> FloatImage:
    """Per band, how like its leader ``a`` it is (``view``) where ``a`` differs from
    the other leaders (``raw``, ``rows``: the leaders' templates per band).

    Where the winner differs from the others (its numeral, its name) the band
    must look like the winner itself, not merely more like it than like them:
    a card the profile lacks (or a band half out of place) is closer to one of
    its suit than to the rest, yet unlike it just there.
    """
    ar = np.arange(len(a))
    rest = (rows.sum(axis=1) - rows[ar, a]) / (rows.shape[1] - 1)  # the others' mean
    return _wncc(view, raw[ar, a], np.square(rows[ar, a] - rest))


def _wncc(v: FloatImage, t: FloatImage, w: FloatImage) -> FloatImage:
    """Per row, the weighted normalised cross-correlation of ``v`` with ``t`` (weights ``w``)."""
    sw = w.sum(axis=1) + 1e-9
    dt = t - (np.einsum("ij,ij->i", w, t) / sw)[:, None]
    wt = w * dt
    var_t = np.einsum("ij,ij->i", wt, dt)
    wv = np.einsum("ij,ij->i", v, w)
    cross = np.einsum("ij,ij->i", v, wt)  # sum w (v - mv)(t - mt): dt sums to zero under w
    var_v = np.maximum(np.einsum("ij,ij->i", v * v, w) - wv * wv / sw, 1e-12)
    return np.asarray(cross / np.sqrt(var_v * var_t + 1e-12), np.float32)


def _wncc_pair(v: FloatImage, ta: FloatImage, to: FloatImage, w: FloatImage) -> FloatImage:
    """Per band (row of ``v``) and rival: the weighted NCC of the band with ``ta`` minus
    that with the rival's template ``to``, weighted by that pair's ``w``.

    Weighted sums expanded (sum w(v-mv)(t-mt) = sum wvt - sum wv sum wt / sum w) so
    each term is one product, and all of a kind in one call (a call costs more than
    its arithmetic here).
    """
    n, px = v.shape
    terms = np.empty((n, 6, px), np.float32)
    terms[:, 0], terms[:, 1], terms[:, 3] = 1.0, v, ta
    np.multiply(v, v, out=terms[:, 2])
    np.multiply(ta, ta, out=terms[:, 4])
    np.multiply(v, ta, out=terms[:, 5])
    sw, wv, wvv, wa, waa, wva = np.einsum("btx,brx->tbr", terms, w)
    sw += 1e-9
    wt = w * to
    wo, wvo = np.einsum("brx,btx->tbr", wt, terms[:, :2])
    woo = np.einsum("brx,brx->br", wt, to)
    var_v = np.maximum(wvv - wv * wv / sw, 1e-12)
    own = (wva - wv * wa / sw) / np.sqrt(var_v * np.maximum(waa - wa * wa / sw, 1e-12))
    other = (wvo - wv * wo / sw) / np.sqrt(var_v * np.maximum(woo - wo * wo / sw, 1e-12))
    return np.asarray(own - other, np.float32)
