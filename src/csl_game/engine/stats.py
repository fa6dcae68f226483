"""Statistics of a match between two thinkers: Elo with error bars, LOS, and
the sequential probability ratio test (SPRT), as chess engine labs use them.

Pure functions of counts, from the tested thinker's ("NEW") point of view:

- `Trinomial`: its wins, draws and losses over games.
- `Pentanomial`: game pairs (one opening, colours swapped) by what NEW scored
  in the pair: 0, 1/2, 1, 3/2 or 2 points (LL, LD+DL, DD+WL+LW, WD+DW, WW).
  A pair's two games share an opening, so their results are correlated; the
  pentanomial variance counts that, and is smaller than the trinomial one
  for balanced openings, which makes the SPRT end sooner (fastchess,
  cutechess-cli and fishtest score pairs this way).

Formulas (cited where they are used):

- Logistic Elo of a score s: ``-400 log10(1/s - 1)``; its 95 % interval maps
  the interval of the mean score, ``s ± 1.96 σ/√n``, through the same curve;
  LOS is ``Φ((s - 1/2) / (σ/√n))`` (fishtest ``stat_util.get_elo``).
- Normalized Elo: ``(s - 1/2) / σ_game · 800/ln 10``, where σ_game is the
  standard deviation of one game's score (for pairs, √2 times that of a
  pair's normalized score); see M. Van den Bergh, "Normalized Elo, a
  practical guide" (the fishtest documents normalized_elo_practical.pdf).
- The SPRT is the generalized SPRT of fishtest (``LLRcalc.LLR_logistic`` and
  ``LLR_normalized``): the log-likelihood ratio of the empirical distribution
  of results under the maximum-likelihood distributions whose expectation
  (logistic) or t-value (normalized) is that of H0 and of H1 (Van den Bergh,
  "Support of the MLE of a multinomial with a given expectation",
  support_MLE_multinomial.pdf, Proposition 1.1), with Wald's bounds
  ``log(β/(1-α))`` and ``log((1-β)/α)``.

Counts of zero are given a weight of 1e-3 before a distribution is formed
(fishtest's ``regularize``), so that all wins, all draws or no games give
finite numbers; Elo is then reported within ±`ELO_CAP`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

__all__ = ["PENTA_NAMES", "ELO_CAP", "Z95", "Trinomial", "Pentanomial", "Counts",
           "EloEstimate", "elo_of", "score_of", "logistic_elo", "normalized_elo",
           "NELO_PER_T", "SPRT", "Model", "Status"]

PENTA_NAMES = ("LL", "LD+DL", "DD+WL+LW", "WD+DW", "WW")
"""The pentanomial buckets, NEW's worst to best."""
ELO_CAP = 2000.0
"""Elo is reported within ±ELO_CAP (a score within about 1e-5 of 0 or 1)."""
Z95 = 1.959963984540054
"""The standard normal quantile of 0.975: a two-sided 95 % interval."""
NELO_PER_T = 800 / math.log(10)
"""Normalized Elo per unit of t-value (fishtest's nelo_divided_by_nt)."""
_EPSILON = 1e-3  # fishtest's regularization of empty buckets

Model = Literal["logistic", "normalized"]
Status = Literal["H0", "H1", "continue"]
Pdf = list[tuple[float, float]]


@dataclass(frozen=True)
class Trinomial:
    """NEW's wins, draws and losses."""

    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        """NEW's points per game, draws half; 0.5 for no games."""
        return (self.wins + self.draws / 2) / self.games if self.games else 0.5

    def add(self, points: float) -> Trinomial:
        """These counts and one more game where NEW scored `points` (1, 0.5 or 0)."""
        if points == 1:
            return Trinomial(self.wins + 1, self.draws, self.losses)
        if points == 0.5:
            return Trinomial(self.wins, self.draws + 1, self.losses)
        if points == 0:
            return Trinomial(self.wins, self.draws, self.losses + 1)
        raise ValueError(f"a game scores 1, 0.5 or 0, not {points}")

    @property
    def counts(self) -> tuple[int, ...]:
        """Losses, draws, wins: the buckets, worst to best."""
        return self.losses, self.draws, self.wins


@dataclass(frozen=True)
class Pentanomial:
    """Game pairs by what NEW scored in the pair, worst to best (`PENTA_NAMES`)."""

    counts: tuple[int, int, int, int, int] = (0, 0, 0, 0, 0)

    @property
    def pairs(self) -> int:
        return sum(self.counts)

    @property
    def games(self) -> int:
        return 2 * self.pairs

    @property
    def score(self) -> float:
        """NEW's points per game over the pairs; 0.5 for none."""
        if not self.pairs:
            return 0.5
        return sum(c * i / 4 for i, c in enumerate(self.counts)) / self.pairs

    def add(self, pair_points: float) -> Pentanomial:
        """These counts and one more pair where NEW scored `pair_points` (0 to 2 by halves)."""
        index = pair_points * 2
        if index not in (0, 1, 2, 3, 4):
            raise ValueError(f"a pair scores 0, 0.5, 1, 1.5 or 2 points, not {pair_points}")
        counts = list(self.counts)
        counts[int(index)] += 1
        return Pentanomial((counts[0], counts[1], counts[2], counts[3], counts[4]))


Counts = Trinomial | Pentanomial


@dataclass(frozen=True)
class EloEstimate:
    """An Elo difference with its 95 % interval, LOS and draw ratio."""

    elo: float
    ci95: tuple[float, float]
    los: float
    """Likelihood of superiority: the probability that NEW is the stronger, 0 to 1."""
    draw_ratio: float
    """Draws per game (trinomial), or pairs scoring exactly one point per pair
    (pentanomial: DD, WL and LW)."""
    games: int


# ------------------------------------------------------------------ distributions
def _pdf(counts: Counts) -> tuple[float, Pdf]:
    """(samples, the empirical distribution of one sample's score in [0, 1]),
    empty buckets given `_EPSILON`: a sample is a game, or a pair."""
    raw = counts.counts
    weights = [c if c else _EPSILON for c in raw]
    total = sum(weights)
    top = len(raw) - 1
    return total, [(i / top, w / total) for i, w in enumerate(weights)]


def _mean_var(pdf: Pdf) -> tuple[float, float]:
    mean = sum(p * a for a, p in pdf)
    return mean, sum(p * (a - mean) ** 2 for a, p in pdf)


def _phi(x: float) -> float:
    """The standard normal distribution function."""
    return 0.5 * (1 + math.erf(x / math.sqrt(2)))


def elo_of(score: float) -> float:
    """The logistic Elo difference that gives expected `score`, within ±ELO_CAP."""
    if score <= 0:
        return -ELO_CAP
    if score >= 1:
        return ELO_CAP
    return max(-ELO_CAP, min(ELO_CAP, -400 * math.log10(1 / score - 1)))


def score_of(elo: float) -> float:
    """The expected score of a logistic Elo difference: 1 / (1 + 10^(-elo/400))."""
    return 1 / (1 + 10 ** (-elo / 400))


def _draw_ratio(counts: Counts) -> float:
    if isinstance(counts, Trinomial):
        return counts.draws / counts.games if counts.games else 0.0
    return counts.counts[2] / counts.pairs if counts.pairs else 0.0


def _sigma_game(counts: Counts, var: float) -> float:
    """One game's score's standard deviation: a pair's normalized score
    varies half as much as a game's when the games are independent."""
    return math.sqrt(var if isinstance(counts, Trinomial) else 2 * var)


def logistic_elo(counts: Counts) -> EloEstimate:
    """Logistic Elo, its 95 % interval and LOS (fishtest ``stat_util.get_elo``)."""
    n, pdf = _pdf(counts)
    mean, var = _mean_var(pdf)
    se = math.sqrt(var / n)
    los = _phi((mean - 0.5) / se) if se > 0 else 0.5
    return EloEstimate(elo_of(mean), (elo_of(mean - Z95 * se), elo_of(mean + Z95 * se)),
                       los, _draw_ratio(counts), counts.games)


def normalized_elo(counts: Counts) -> EloEstimate:
    """Normalized Elo, ``(s - 1/2)/σ_game · 800/ln 10``, its 95 % interval
    (the mean's, scaled the same way) and LOS."""
    n, pdf = _pdf(counts)
    mean, var = _mean_var(pdf)
    sigma = _sigma_game(counts, var)
    se = math.sqrt(var / n)

    def nelo(score: float) -> float:
        return max(-ELO_CAP, min(ELO_CAP, (score - 0.5) / sigma * NELO_PER_T))

    los = _phi((mean - 0.5) / se) if se > 0 else 0.5
    return EloEstimate(nelo(mean), (nelo(mean - Z95 * se), nelo(mean + Z95 * se)), los,
                       _draw_ratio(counts), counts.games)


# ------------------------------------------------------------------ the SPRT
def _secular(pdf: Pdf) -> float:
    """The root x of ``f(x) = Σ p_i a_i / (1 + x a_i) = 0`` where 1 + x a_i > 0
    for every i (the a_i straddle zero). f decreases from +∞ to -∞ on that
    interval, so Newton's steps kept inside a shrinking bracket (bisecting
    when a step would leave it) always converge (fishtest solves the same
    equation with Brent's method)."""
    low_a = min(a for a, _ in pdf)
    high_a = max(a for a, _ in pdf)
    if not low_a < 0 < high_a:
        raise ValueError("the expectation asked for lies outside the results' range")
    lo, hi = -1 / high_a, -1 / low_a
    x = 0.0
    for _ in range(100):
        value = slope = 0.0
        for a, p in pdf:
            d = 1 + x * a
            value += p * a / d
            slope -= p * a * a / (d * d)
        if value > 0:
            lo = x
        else:
            hi = x
        if abs(value) < 1e-14:
            break
        step = x - value / slope if slope < 0 else (lo + hi) / 2
        x = step if lo < step < hi else (lo + hi) / 2
        if hi - lo < 1e-15:
            break
    return x


def _mle_expected(pdf: Pdf, s: float) -> list[float]:
    """The probabilities of the distribution closest (maximum likelihood) to
    `pdf` whose expectation is `s` (Van den Bergh, Proposition 1.1)."""
    x = _secular([(a - s, p) for a, p in pdf])
    return [p / (1 + x * (a - s)) for a, p in pdf]


def _mle_t_value(pdf: Pdf, ref: float, t: float) -> list[float]:
    """The probabilities of the maximum-likelihood distribution on `pdf`'s
    support whose t-value ``(μ - ref)/σ`` is `t` (fishtest ``MLE_t_value``:
    a fixed-point iteration, from the uniform distribution).

    For a large `t` the uniform start is too far from the answer (the shifted
    scores it gives do not straddle zero): the iteration then follows a path
    of t-values from 0 to `t`, each started from the last one's answer.

    Raises:
        ValueError: no distribution on the support has that t-value.
    """
    try:
        return _t_value_from(pdf, ref, t, [1 / len(pdf)] * len(pdf))
    except ValueError:
        pass
    probs = [1 / len(pdf)] * len(pdf)
    steps = 64
    for k in range(1, steps + 1):
        probs = _t_value_from(pdf, ref, t * k / steps, probs)
    return probs


def _t_value_from(pdf: Pdf, ref: float, t: float, probs: list[float]) -> list[float]:
    for _ in range(20):
        mean = sum(p * a for (a, _), p in zip(pdf, probs))
        sigma = math.sqrt(sum(p * (a - mean) ** 2 for (a, _), p in zip(pdf, probs)))
        shifted = [(a - ref - t * sigma * (1 + ((mean - a) / sigma) ** 2) / 2, p)
                   for a, p in pdf]
        x = _secular(shifted)
        new = [p / (1 + x * a) for a, p in shifted]
        done = max(abs(u - v) for u, v in zip(new, probs)) < 1e-10
        probs = new
        if done:
            break
    return probs


@dataclass(frozen=True)
class SPRT:
    """A sequential probability ratio test of H0: Elo = elo0 against H1: Elo = elo1.

    Raises:
        ValueError: alpha or beta outside (0, 1/2], or elo0 not below elo1.
    """

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05
    model: Model = "logistic"

    def __post_init__(self) -> None:
        if not (0 < self.alpha < 0.5 and 0 < self.beta < 0.5):
            # Wald's bounds log(β/(1-α)) and log((1-β)/α) meet at 0 when α = β = 1/2:
            # a verdict before any game.
            raise ValueError(f"alpha and beta must lie in (0, 0.5), got {self.alpha} and "
                             f"{self.beta}")
        if not self.elo0 < self.elo1:
            raise ValueError(f"elo0 must be below elo1, got {self.elo0} and {self.elo1}")
        if self.model not in ("logistic", "normalized"):
            raise ValueError(f"the model is logistic or normalized, not {self.model!r}")

    @property
    def lower(self) -> float:
        """Accept H0 at or below this LLR: log(β / (1 - α))."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        """Accept H1 at or above this LLR: log((1 - β) / α)."""
        return math.log((1 - self.beta) / self.alpha)

    def llr(self, counts: Counts) -> float:
        """The generalized log-likelihood ratio of H1 over H0 for `counts`
        (0 for no games)."""
        if not counts.games:
            return 0.0
        n, pdf = _pdf(counts)
        if self.model == "logistic":
            p0, p1 = (_mle_expected(pdf, score_of(e)) for e in (self.elo0, self.elo1))
        else:
            scale = 1.0 if isinstance(counts, Trinomial) else math.sqrt(2)
            t0, t1 = (e / NELO_PER_T * scale for e in (self.elo0, self.elo1))
            p0, p1 = (_mle_t_value(pdf, 0.5, t) for t in (t0, t1))
        return n * sum(p * (math.log(b) - math.log(a)) for (_, p), a, b in zip(pdf, p0, p1))

    def status(self, llr: float, games: int | None = None) -> Status:
        """H1 at or above the upper bound, H0 at or below the lower, else
        continue (always, with no game played)."""
        if games == 0:
            return "continue"
        if llr >= self.upper:
            return "H1"
        if llr <= self.lower:
            return "H0"
        return "continue"


def pair_points(first: float, second: float) -> float:
    """NEW's points in a pair from its two games' points (1, 0.5 or 0 each)."""
    return first + second


def counts_of(points: Sequence[float]) -> Trinomial:
    """The trinomial counts of NEW's points per game."""
    counts = Trinomial()
    for p in points:
        counts = counts.add(p)
    return counts
