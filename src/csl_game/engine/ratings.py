"""Ratings for many players from one results file: maximum-likelihood Elo
(the Bradley–Terry model, as Ordo fits it), with 95 % intervals.

Model: player i scores against j an expected ``E_ij = 1 / (1 + 10^((r_j -
r_i)/400))`` per game, a draw counting as half a point for each (Ordo's
treatment of draws). The ratings maximize ``Σ s log E + (1 - s) log(1 - E)``
over the games (s: the points of the game's first player), found with the
MM iteration of D. R. Hunter, "MM algorithms for generalized Bradley–Terry
models", Ann. Statist. 32 (2004), eq. (3): ``γ_i ← W_i / Σ_j n_ij / (γ_i +
γ_j)``, where γ = 10^(r/400) and W_i is player i's points.

Ratings average 0, or are shifted so that an anchor player has its given
rating. The intervals are ``r ± 1.96 σ``, σ from the observed Fisher
information of the log-likelihood scaled by the dispersion of the results:
a draw is half a point, so a game's score varies less than a coin's, and
the quasi-likelihood covariance is ``φ I⁻¹`` with Pearson's estimate ``φ =
Σ (s - E)² / Σ E (1 - E)`` over the games (McCullagh and Nelder,
"Generalized Linear Models", 2nd ed., §9.2). For two players this is the
usual trinomial error of their Elo difference. I is singular along the
common shift, so the covariance is taken with one rating held and then
moved to the constraint asked for: the mean, or the anchor held at its value.

When a player scored everything or nothing against the rest (the likelihood
then has no maximum: that rating would go to infinity), every player gets
one virtual draw against a player rated at the pool's average, BayesElo's
kind of prior, which keeps every rating finite; `Rating.prior` says so. Its
intervals are then the log-likelihood's own curvature (φ = 1, BayesElo's
Laplace approximation): games that all went one way cannot show their spread.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from csl_game.engine.scoring import MatchRecord
from csl_game.engine.stats import ELO_CAP
from csl_game.model.board import PColor

__all__ = ["Rating", "bradley_terry", "ELO_SCALE", "rate_records", "plus_minus",
           "interval_text", "SYMMETRIC"]

ELO_SCALE = 400 / math.log(10)
"""Elo per natural-log unit of strength."""
_Z95 = 1.959963984540054
_VIRTUAL = "\0virtual"


@dataclass(frozen=True)
class Rating:
    name: str
    elo: float
    ci95: tuple[float, float]
    games: int
    score: float
    """Points per game, draws half."""
    prior: bool = False
    """Virtual draws were added (someone scored all or nothing): see the module."""


Tally = tuple[list[str], dict[tuple[int, int], float], dict[tuple[int, int], float],
              dict[tuple[int, int], int]]


def _tally(games: Iterable[tuple[str, str, float]]) -> Tally:
    """Players (in order of appearance); points of i against j, and the sum of
    their squares (game by game); games of each pair."""
    names: dict[str, int] = {}
    points: dict[tuple[int, int], float] = {}
    squares: dict[tuple[int, int], float] = {}
    count: dict[tuple[int, int], int] = {}
    for white, red, white_points in games:
        if white_points not in (0, 0.5, 1):
            raise ValueError(f"a game scores 1, 0.5 or 0 for white, not {white_points}")
        if white == red:
            continue
        i, j = (names.setdefault(n, len(names)) for n in (white, red))
        points[i, j] = points.get((i, j), 0.0) + white_points
        points[j, i] = points.get((j, i), 0.0) + 1 - white_points
        squares[i, j] = squares.get((i, j), 0.0) + white_points ** 2
        squares[j, i] = squares.get((j, i), 0.0) + (1 - white_points) ** 2
        for pair in ((i, j), (j, i)):
            count[pair] = count.get(pair, 0) + 1
    return list(names), points, squares, count


def _connected(k: int, points: dict[tuple[int, int], float]) -> bool:
    """Whether every player can be reached from every other along 'scored
    something against' edges: the condition for a finite maximum (Hunter 2004,
    assumption 1)."""
    for start in range(k):
        seen, todo = {start}, [start]
        while todo:
            i = todo.pop()
            for j in range(k):
                if j not in seen and points.get((i, j), 0) > 0:
                    seen.add(j)
                    todo.append(j)
        if len(seen) < k:
            return False
    return True


def _fit(k: int, points: dict[tuple[int, int], float],
         count: dict[tuple[int, int], int]) -> list[float]:
    """Strengths (natural log units) maximizing the likelihood, by MM iterations."""
    wins = [sum(points.get((i, j), 0.0) for j in range(k)) for i in range(k)]
    met: list[list[tuple[int, int]]] = [[] for _ in range(k)]  # (opponent, games) per player
    for (i, j), n in count.items():
        met[i].append((j, n))
    gamma = [1.0] * k
    for _ in range(10_000):
        new = []
        for i in range(k):
            g = gamma[i]
            denominator = sum(n / (g + gamma[j]) for j, n in met[i])
            new.append(wins[i] / denominator if denominator else g)
        mean_log = sum(math.log(g) for g in new) / k
        new = [g / math.exp(mean_log) for g in new]
        change = max(abs(math.log(a) - math.log(b)) for a, b in zip(new, gamma))
        gamma = new
        if change < 1e-12:
            break
    return [math.log(g) for g in gamma]


def _inverse(matrix: list[list[float]]) -> list[list[float]]:
    """The inverse of a small symmetric positive definite matrix (Gauss–Jordan)."""
    n = len(matrix)
    a = [row[:] + [1.0 if i == j else 0.0 for j in range(n)] for i, row in enumerate(matrix)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        a[col], a[pivot] = a[pivot], a[col]
        p = a[col][col]
        a[col] = [v / p for v in a[col]]
        for r in range(n):
            if r != col and a[r][col]:
                f = a[r][col]
                a[r] = [v - f * w for v, w in zip(a[r], a[col])]
    return [row[n:] for row in a]


def _covariance(theta: Sequence[float], count: dict[tuple[int, int], int],
                held: int) -> list[list[float]]:
    """Covariance of the strengths: the inverse observed Fisher information
    with player `held` fixed (the information is singular along a common shift)."""
    k = len(theta)
    info = [[0.0] * k for _ in range(k)]
    for (i, j), n in count.items():
        p = 1 / (1 + math.exp(theta[j] - theta[i]))
        w = n * p * (1 - p)
        info[i][i] += w
        info[i][j] -= w
    free = [i for i in range(k) if i != held]
    reduced = _inverse([[info[i][j] for j in free] for i in free])
    cov = [[0.0] * k for _ in range(k)]
    for a, i in enumerate(free):
        for b, j in enumerate(free):
            cov[i][j] = reduced[a][b]
    return cov


def _dispersion(theta: Sequence[float], points: dict[tuple[int, int], float],
                squares: dict[tuple[int, int], float],
                count: dict[tuple[int, int], int]) -> float:
    """Pearson's dispersion estimate Σ (s - E)² / Σ E (1 - E) over the games
    (1 for coin flips; less when draws make scores vary less)."""
    residual = expected = 0.0
    for (i, j), n in count.items():
        if i > j:
            continue  # each pair once
        e = 1 / (1 + math.exp(theta[j] - theta[i]))
        s = points.get((i, j), 0.0)  # i's points over the pair's n games
        residual += squares.get((i, j), 0.0) - 2 * e * s + n * e * e  # Σ (s_g - e)²
        expected += n * e * (1 - e)
    return residual / expected if expected > 0 else 1.0


def bradley_terry(games: Iterable[tuple[str, str, float]],
                  anchor: tuple[str, float] | None = None) -> list[Rating]:
    """Every player's maximum-likelihood Elo with its 95 % interval, best first.

    `games` are (white, red, white's points: 1, 0.5 or 0). Ratings average 0
    unless `anchor` (name, Elo) fixes one player's.

    Raises:
        ValueError: a game's points are not 1, 0.5 or 0, or the anchor did not play.
    """
    names, points, squares, count = _tally(games)
    k = len(names)
    if anchor is not None and anchor[0] not in names:
        raise ValueError(f"the anchor {anchor[0]!r} played no game here")
    if k == 0:
        return []
    played = [sum(n for (i, _), n in count.items() if i == p) for p in range(k)]
    scored = [sum(v for (i, _), v in points.items() if i == p) for p in range(k)]
    prior = k > 1 and not _connected(k, points)
    fit_points, fit_count, size = dict(points), dict(count), k
    if prior:  # one virtual draw each against an average player, index k
        size = k + 1
        for i in range(k):
            for pair in ((i, k), (k, i)):
                fit_points[pair] = fit_points.get(pair, 0.0) + 0.5
                fit_count[pair] = fit_count.get(pair, 0) + 1
    theta = _fit(size, fit_points, fit_count) if k > 1 else [0.0]
    held = k if prior else 0  # one strength is held (the virtual average player's if any)
    full = _covariance(theta, fit_count, held) if k > 1 else [[0.0]]
    # With the prior, some player's games all went one way and tell nothing of
    # their own spread (Pearson's estimate would be near 0, and the interval
    # of an 8-0 as narrow as that of hundreds of games): the interval is then
    # the curvature of the log-likelihood with its virtual draws as it is
    # (BayesElo's Laplace approximation), the spread of a game that ends one
    # way or the other.
    phi = _dispersion(theta[:k], points, squares, count) if k > 1 and not prior else 1.0
    cov = [[phi * v for v in row[:k]] for row in full[:k]]
    if anchor is None:  # the mean held: theta' = C theta with C = I - 11^T/k; cov' = C cov C
        row_mean = [sum(row) / k for row in cov]
        total = sum(row_mean) / k
        cov = [[cov[i][j] - row_mean[i] - row_mean[j] + total for j in range(k)]
               for i in range(k)]
    else:  # the anchor held: the covariance of differences from it
        a = names.index(anchor[0])
        cov = [[cov[i][j] - cov[i][a] - cov[a][j] + cov[a][a] for j in range(k)]
               for i in range(k)]
    theta = theta[:k]
    shift = (sum(theta) / k) if anchor is None else theta[names.index(anchor[0])]
    base = 0.0 if anchor is None else anchor[1]
    out = []
    for i, name in enumerate(names):
        elo = base + (theta[i] - shift) * ELO_SCALE
        sigma = math.sqrt(max(0.0, cov[i][i])) * ELO_SCALE
        out.append(Rating(name, elo, (elo - _Z95 * sigma, elo + _Z95 * sigma), played[i],
                          scored[i] / played[i] if played[i] else 0.0, prior))
    return sorted(out, key=lambda r: -r.elo)


def rate_records(names: Sequence[str], records: Iterable[MatchRecord],
                 anchor: tuple[str, float] | None = None) -> list[Rating]:
    """`bradley_terry` of a session's records (forfeits count as the results they are)."""
    games = []
    for record in records:
        color = record.result.winner.color
        white_points = 0.5 if color is None else 1.0 if color is PColor.WHITE else 0.0
        games.append((names[record.white], names[record.red], white_points))
    return bradley_terry(games, anchor)


SYMMETRIC = 0.1
"""An interval is shown as ± half its width when its two sides (value to each
end) differ by at most this share of that half: each end is then off by at
most 5 % of it."""


def interval_text(value: float, ci: tuple[float, float], digits: int = 0) -> str:
    """'+35 ± 41' where the interval is about symmetric round `value` (SYMMETRIC),
    else its two ends, '+412 [+185, +2000]': a '±' would hide that one side is
    far longer, as near a score of 0 % or 100 %, or where an end is at ±ELO_CAP
    (a side that has no end, cut short)."""
    below, above = value - ci[0], ci[1] - value
    half = (ci[1] - ci[0]) / 2
    capped = max(abs(ci[0]), abs(ci[1])) >= ELO_CAP
    if not capped and (abs(above - below) <= SYMMETRIC * half
                       or f"{below:.{digits}f}" == f"{above:.{digits}f}"):
        return f"{_signed(value, digits)} \u00b1 {half:.{digits}f}"
    return f"{_signed(value, digits)} [{_signed(ci[0], digits)}, {_signed(ci[1], digits)}]"


def _signed(value: float, digits: int) -> str:
    """'+35', '-7', and '+0' for what rounds to zero (never '-0')."""
    text = f"{value:+.{digits}f}"
    return f"{0.0:+.{digits}f}" if float(text) == 0 else text


def plus_minus(rating: Rating) -> str:
    """'+35 ± 41': the rating and its interval, in whole Elo (`interval_text`)."""
    return interval_text(rating.elo, rating.ci95)
