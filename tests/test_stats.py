"""The statistics of csl_game.engine.stats, checked against values computed
another way: published examples of the same formulas, closed forms, a slow
brute-force maximization, fishtest's approximations, and simulation."""

from __future__ import annotations

import math
import random
import re

import pytest

from csl_game.engine.stats import (
    ELO_CAP,
    NELO_PER_T,
    SPRT,
    Pentanomial,
    Trinomial,
    elo_of,
    logistic_elo,
    normalized_elo,
    score_of,
)

# (LL, LD+DL, DD+WL+LW, WD+DW, WW) -> (low, Elo, high), as an independent
# implementation of the same pentanomial logistic Elo publishes them.
PUBLISHED = [
    ((485, 1923, 2942, 1937, 594), (1.21, 5.11, 9.02)),
    ((261, 739, 2683, 737, 253), (-5.00, -0.67, 3.66)),
    ((63, 252, 385, 250, 74), (-7.38, 3.39, 14.17)),
    ((527, 1007, 1932, 933, 511), (-9.16, -3.75, 1.66)),
    ((175, 305, 694, 291, 157), (-14.57, -5.36, 3.85)),
]


@pytest.mark.unit
@pytest.mark.parametrize("counts, expected", PUBLISHED)
def test_pentanomial_logistic_elo_matches_published_values(
        counts: tuple[int, int, int, int, int], expected: tuple[float, float, float]) -> None:
    estimate = logistic_elo(Pentanomial(counts))
    low, elo, high = expected
    assert estimate.elo == pytest.approx(elo, abs=0.006)
    assert estimate.ci95[0] == pytest.approx(low, abs=0.006)
    assert estimate.ci95[1] == pytest.approx(high, abs=0.006)


@pytest.mark.unit
def test_trinomial_elo_by_hand() -> None:
    # 60 wins, 20 draws, 20 losses: score 0.7; per-game variance
    # (60*0.09 + 20*0.04 + 20*0.49)/100 = 0.16; se = 0.04
    estimate = logistic_elo(Trinomial(60, 20, 20))
    assert estimate.elo == pytest.approx(-400 * math.log10(1 / 0.7 - 1))
    low, high = (-400 * math.log10(1 / s - 1) for s in (0.7 - 1.959964 * 0.04,
                                                        0.7 + 1.959964 * 0.04))
    assert estimate.ci95 == pytest.approx((low, high), abs=0.05)  # regularized draws aside
    assert estimate.los == pytest.approx(0.5 * (1 + math.erf(0.2 / 0.04 / math.sqrt(2))),
                                         abs=1e-6)
    assert estimate.draw_ratio == 0.2 and estimate.games == 100


@pytest.mark.unit
def test_elo_and_score_are_inverse() -> None:
    for elo in (-600, -35.5, 0, 12, 400, 1200):
        assert elo_of(score_of(elo)) == pytest.approx(elo)
    assert score_of(400) == pytest.approx(10 / 11)
    assert elo_of(0) == -ELO_CAP and elo_of(1) == ELO_CAP


@pytest.mark.unit
@pytest.mark.parametrize("counts", [Trinomial(), Pentanomial(), Trinomial(10, 0, 0),
                                    Trinomial(0, 0, 10), Trinomial(0, 25, 0),
                                    Pentanomial((0, 0, 0, 0, 7)), Pentanomial((0, 0, 9, 0, 0))])
def test_edge_cases_give_finite_documented_numbers(counts: Trinomial | Pentanomial) -> None:
    for estimate in (logistic_elo(counts), normalized_elo(counts)):
        numbers = (estimate.elo, *estimate.ci95, estimate.los, estimate.draw_ratio)
        assert all(math.isfinite(x) for x in numbers), (counts, estimate)
        assert -ELO_CAP <= estimate.ci95[0] <= estimate.elo <= estimate.ci95[1] <= ELO_CAP
        assert 0 <= estimate.los <= 1
    for model in ("logistic", "normalized"):
        assert math.isfinite(SPRT(0, 10, model=model).llr(counts))  # type: ignore[arg-type]
    if counts.games == 0:
        assert logistic_elo(counts).elo == 0 and SPRT(0, 10).llr(counts) == 0
    if counts == Trinomial(10, 0, 0):
        assert logistic_elo(counts).elo > 800 and logistic_elo(counts).los > 0.999
    if counts == Trinomial(0, 25, 0):  # all draws: equal, and no doubt about it
        assert logistic_elo(counts).elo == pytest.approx(0, abs=1e-6)


@pytest.mark.unit
def test_normalized_elo_by_hand() -> None:
    # trinomial: t = (s - 1/2) / sigma_game
    counts = Trinomial(300, 400, 300 - 60)
    n = counts.games
    s = counts.score
    var = (300 * (1 - s) ** 2 + 400 * (0.5 - s) ** 2 + 240 * s ** 2) / n
    assert normalized_elo(counts).elo == pytest.approx((s - 0.5) / math.sqrt(var) * NELO_PER_T,
                                                       rel=1e-4)


# ---------------------------------------------------------------- the SPRT
@pytest.mark.unit
def test_bounds_from_alpha_and_beta() -> None:
    sprt = SPRT(0, 5, alpha=0.05, beta=0.05)
    assert sprt.lower == pytest.approx(math.log(0.05 / 0.95)) == pytest.approx(-2.944, abs=1e-3)
    assert sprt.upper == pytest.approx(2.944, abs=1e-3)
    assert SPRT(0, 5, alpha=0.05, beta=0.1).lower == pytest.approx(math.log(0.1 / 0.95))
    assert sprt.status(3.0) == "H1" and sprt.status(-3.0) == "H0" and sprt.status(0) == "continue"
    for bad in (dict(elo0=5, elo1=0), dict(elo0=0, elo1=5, alpha=0), dict(elo0=0, elo1=5,
                                                                         beta=0.7)):
        with pytest.raises(ValueError):
            SPRT(**bad)  # type: ignore[arg-type]


@pytest.mark.unit
def test_without_draws_the_llr_is_walds_for_a_coin() -> None:
    """Two outcomes: the distribution with a given expectation is unique, and
    the GSPRT is Wald's SPRT of a Bernoulli variable."""
    wins, losses = 140, 110
    s0, s1 = score_of(0), score_of(20)
    wald = wins * math.log(s1 / s0) + losses * math.log((1 - s1) / (1 - s0))
    assert SPRT(0, 20).llr(Trinomial(wins, 0, losses)) == pytest.approx(wald, abs=0.01)


def _brute_force_llr(counts: Trinomial, s0: float, s1: float) -> float:
    """The trinomial GSPRT by a slow, direct maximization: the distributions
    (q_L, q_D, q_W) with q_D/2 + q_W = s form a segment (one free parameter,
    q_W); maximize the log-likelihood along it by golden-section search."""
    weights = [c if c else 1e-3 for c in (counts.losses, counts.draws, counts.wins)]

    def best(s: float) -> float:
        def loglik(q_w: float) -> float:
            q_d = 2 * (s - q_w)
            q_l = 1 - q_d - q_w
            return sum(w * math.log(q) for w, q in zip(weights, (q_l, q_d, q_w)))
        lo, hi = max(0.0, 2 * s - 1) + 1e-12, s - 1e-12  # q_D >= 0 and q_L >= 0
        ratio = (math.sqrt(5) - 1) / 2
        for _ in range(200):
            a, b = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
            if loglik(a) < loglik(b):
                lo = a
            else:
                hi = b
        return loglik((lo + hi) / 2)

    return best(s1) - best(s0)


@pytest.mark.unit
@pytest.mark.parametrize("counts", [Trinomial(120, 200, 80), Trinomial(30, 10, 40),
                                    Trinomial(500, 1500, 470), Trinomial(5, 0, 1)])
def test_the_llr_equals_a_brute_force_maximization(counts: Trinomial) -> None:
    for elo0, elo1 in ((0, 10), (-5, 5), (0, 50)):
        expected = _brute_force_llr(counts, score_of(elo0), score_of(elo1))
        assert SPRT(elo0, elo1).llr(counts) == pytest.approx(expected, abs=1e-6)


@pytest.mark.unit
def test_the_llr_agrees_with_fishtests_approximations() -> None:
    """For many games and close hypotheses the GSPRT nears fishtest's
    closed-form approximations (GSPRT_approximation.pdf and
    normalized_elo_practical.pdf, section 4.2)."""
    counts = Pentanomial((300, 1500, 3000, 1600, 350))
    n = counts.pairs
    scores = [i / 4 for i in range(5)]
    mean = sum(c * a for c, a in zip(counts.counts, scores)) / n
    var = sum(c * (a - mean) ** 2 for c, a in zip(counts.counts, scores)) / n
    s0, s1 = score_of(0), score_of(4)
    approx = n * (s1 - s0) * (2 * mean - s0 - s1) / var / 2
    assert SPRT(0, 4).llr(counts) == pytest.approx(approx, rel=0.02)
    sigma_pg = math.sqrt(2 * var)
    t = (mean - 0.5) / sigma_pg
    t0, t1 = 0.0, 3 / NELO_PER_T
    practical = counts.games / 2 * math.log((1 + (t - t0) ** 2) / (1 + (t - t1) ** 2))
    assert SPRT(0, 3, model="normalized").llr(counts) == pytest.approx(practical, rel=0.05)


def _pair(rng: random.Random, elo: float, draw_rate: float) -> float:
    """NEW's points in a pair of independent games at a true Elo difference
    and draw rate: P(win) = s - d/2, P(draw) = d, P(loss) = 1 - s - d/2."""
    s = score_of(elo)
    points = 0.0
    for _ in range(2):
        u = rng.random()
        points += 1.0 if u < s - draw_rate / 2 else 0.5 if u < s + draw_rate / 2 else 0.0
    return points


def _accepts_h1(rng: random.Random, sprt: SPRT, elo: float, draw_rate: float) -> bool:
    counts = Pentanomial()
    while True:
        for _ in range(4):  # the LLR is looked at every 4 pairs, as results come in batches
            counts = counts.add(_pair(rng, elo, draw_rate))
        status = sprt.status(sprt.llr(counts))
        if status != "continue":
            return status == "H1"


def test_simulated_sprts_keep_their_error_rates() -> None:
    """1,000 SPRTs at the true Elo of H0 accept H1 at most alpha of the time,
    and 1,000 at that of H1 at least 1 - beta, each up to three standard
    errors of a proportion over 1,000 trials (3 * sqrt(0.05 * 0.95 / 1000) =
    0.021). No game is played: pairs are drawn from the model."""
    rng = random.Random(20261124)
    sprt = SPRT(0, 40, alpha=0.05, beta=0.05)
    trials, slack = 1000, 3 * math.sqrt(0.05 * 0.95 / 1000)
    false_h1 = sum(_accepts_h1(rng, sprt, 0, 0.3) for _ in range(trials)) / trials
    power = sum(_accepts_h1(rng, sprt, 40, 0.3) for _ in range(trials)) / trials
    assert false_h1 <= 0.05 + slack, false_h1
    assert power >= 0.95 - slack, power


def _brute_t_value_mle(pdf: list[tuple[float, float]], t: float) -> list[float]:
    """The maximum-likelihood distribution on {0, 1/2, 1} with t-value `t`,
    found another way: for each share q1 of the middle score, the share of
    the top score that gives the t-value (bisection: the t-value grows with
    it), and the q1 of the greatest likelihood (a fine grid, then refined)."""
    def t_of(q: list[float]) -> float:
        mean = sum(p * a for (a, _), p in zip(pdf, q))
        return (mean - 0.5) / math.sqrt(sum(p * (a - mean) ** 2 for (a, _), p in zip(pdf, q)))

    def given(q1: float) -> list[float] | None:
        lo, hi = 1e-15, 1 - q1 - 1e-15
        if lo >= hi:
            return None
        while lo < (mid := (lo + hi) / 2) < hi:  # to the last bit: ~55 halvings
            if t_of([1 - q1 - mid, q1, mid]) < t:
                lo = mid
            else:
                hi = mid
        q = [1 - q1 - lo, q1, lo]
        return q if abs(t_of(q) - t) < 1e-9 else None

    def loglik(q1: float) -> float:
        q = given(q1)
        return -math.inf if q is None else sum(p * math.log(x) for (_, p), x in zip(pdf, q))

    best = max((i / 2000 for i in range(1, 2000)), key=loglik)
    lo, hi = max(best - 1 / 2000, 1e-9), min(best + 1 / 2000, 1 - 1e-9)
    for _ in range(100):  # golden-section search around the best grid point
        a, b = lo + (hi - lo) * 0.382, lo + (hi - lo) * 0.618
        if loglik(a) < loglik(b):
            lo = a
        else:
            hi = b
    q = given((lo + hi) / 2)
    assert q is not None
    return q


@pytest.mark.parametrize("counts, t", [((3, 1, 10), 0.4), ((3, 1, 10), 1.2),
                                       ((0, 0, 12), 1.5), ((8, 2, 2), 0.9)])
def test_the_t_value_mle_agrees_with_a_brute_force_search(counts: tuple[int, int, int],
                                                          t: float) -> None:
    """Large t-values (normalized Elo bounds of 250 and more) used to raise:
    the iteration now follows a path of t-values from 0."""
    from csl_game.engine.stats import _mle_t_value, _pdf
    _, pdf = _pdf(Trinomial(losses=counts[0], draws=counts[1], wins=counts[2]))
    got = _mle_t_value(pdf, 0.5, t)
    assert got == pytest.approx(_brute_t_value_mle(pdf, t), abs=2e-4)


@pytest.mark.unit
@pytest.mark.parametrize("elo1", [250, 300, 1000])
def test_a_large_normalized_bound_gives_an_llr(elo1: float) -> None:
    llr = SPRT(0, elo1, model="normalized").llr(Pentanomial((0, 0, 0, 1, 9)))
    assert math.isfinite(llr) and llr > 0


@pytest.mark.unit
def test_no_verdict_on_zero_games_and_no_collapsed_bounds() -> None:
    with pytest.raises(ValueError):
        SPRT(0, 50, alpha=0.5, beta=0.5)
    assert SPRT(0, 50).status(10.0, games=0) == "continue"


@pytest.mark.unit
def test_the_sprt_line_shows_a_lopsided_interval_by_its_ends() -> None:
    """Near a 100 % score the logistic interval reaches the cap on one side only:
    its half width jumped as pairs came in (games 22 to 28: ± 770, 762, 755,
    748), though the lower end moved little. The line shows both ends there,
    and ± where the interval is symmetric."""
    from csl_game.services.sprt import SprtState

    test = SPRT(0, 10)

    def line(counts: tuple[int, int, int, int, int]) -> str:
        penta = Pentanomial(counts)
        wins = 2 * counts[4] + counts[3]
        tri = Trinomial(wins, counts[3] + counts[2], 2 * penta.pairs - wins - counts[3] - counts[2])
        llr = test.llr(penta)
        return SprtState(test, tri, penta, llr, test.status(llr, penta.games),
                         logistic_elo(penta)).line()

    ends = [re.search(r"Elo (\S+) \[(\S+), (\S+)\] \(logistic\)", line((0, 0, 0, 1, n)))
            for n in (10, 11, 12, 13)]
    assert all(ends) and "\u00b1" not in line((0, 0, 0, 1, 10))
    lows = [float(m[2]) for m in ends if m]
    assert [m[3] for m in ends if m] == ["+2000.0"] * 4 and lows == sorted(lows)
    assert re.search(r"Elo \+0\.0 \u00b1 \d+\.\d \(logistic\)", line((3, 10, 20, 10, 3)))
