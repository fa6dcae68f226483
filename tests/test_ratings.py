"""Maximum-likelihood ratings (csl_game.engine.ratings) against a closed form
for two players, a second, slow computation for more, and simulation."""

from __future__ import annotations

import math
import random

import pytest

from csl_game.engine.ratings import ELO_SCALE, bradley_terry
from csl_game.engine.stats import elo_of, score_of


def _games(a: str, b: str, wins: int, draws: int, losses: int) -> list[tuple[str, str, float]]:
    """a's wins, draws and losses against b, colours alternating."""
    out: list[tuple[str, str, float]] = []
    for i, points in enumerate([1.0] * wins + [0.5] * draws + [0.0] * losses):
        out.append((a, b, points) if i % 2 == 0 else (b, a, 1 - points))
    return out


@pytest.mark.unit
def test_two_players_closed_form() -> None:
    ratings = {r.name: r for r in bradley_terry(_games("A", "B", 30, 20, 10))}
    s, n = 40 / 60, 60
    gap = elo_of(s)
    assert ratings["A"].elo == pytest.approx(gap / 2, abs=1e-6)
    assert ratings["B"].elo == pytest.approx(-gap / 2, abs=1e-6)
    # the trinomial error of the gap by the delta method: the score's variance
    # per game over n games, times d(Elo)/ds = ELO_SCALE / (s (1 - s)); each
    # rating is half the gap
    var = (30 * (1 - s) ** 2 + 20 * (0.5 - s) ** 2 + 10 * s ** 2) / n
    sigma = ELO_SCALE / (s * (1 - s)) * math.sqrt(var / n) / 2
    low, high = ratings["A"].ci95
    assert (high - low) / 2 == pytest.approx(1.959964 * sigma, rel=1e-4)
    assert ratings["A"].games == 60 and ratings["A"].score == pytest.approx(s)
    assert not ratings["A"].prior


def _slow_fit(games: list[tuple[str, str, float]], names: list[str]) -> dict[str, float]:
    """The same maximum by plain gradient ascent on the log-likelihood (no MM).
    The games of one (white, red) pairing share their expected score, so the
    gradient sums their points and subtracts that score once per game."""
    pairings: dict[tuple[str, str], list[float]] = {}
    for white, red, points in games:
        total = pairings.setdefault((white, red), [0.0, 0.0])
        total[0] += points
        total[1] += 1
    r = dict.fromkeys(names, 0.0)
    for _ in range(20_000):
        grad = dict.fromkeys(names, 0.0)
        for (white, red), (points, count) in pairings.items():
            e = score_of(r[white] - r[red])
            grad[white] += points - count * e
            grad[red] -= points - count * e
        for name in names:
            r[name] += 2.0 * grad[name]
        mean = sum(r.values()) / len(r)
        r = {k: v - mean for k, v in r.items()}
    return r


def test_more_players_match_a_second_computation() -> None:
    games = (_games("A", "B", 6, 4, 2) + _games("B", "C", 5, 5, 3) + _games("A", "C", 8, 2, 1)
             + _games("C", "D", 4, 6, 4) + _games("A", "D", 3, 1, 3))
    ratings = {r.name: r.elo for r in bradley_terry(games)}
    slow = _slow_fit(games, list(ratings))
    for name, elo in ratings.items():
        assert elo == pytest.approx(slow[name], abs=0.01), name
    assert sum(ratings.values()) == pytest.approx(0, abs=1e-6)
    assert list(ratings) == sorted(ratings, key=lambda n: -ratings[n])


@pytest.mark.unit
def test_an_anchor_shifts_every_rating_alike() -> None:
    games = _games("A", "B", 6, 4, 2) + _games("B", "C", 5, 5, 3) + _games("A", "C", 3, 2, 1)
    free = {r.name: r for r in bradley_terry(games)}
    held = {r.name: r for r in bradley_terry(games, anchor=("B", 1500))}
    assert held["B"].elo == 1500 and held["B"].ci95 == (1500, 1500)
    for name in "AC":
        assert held[name].elo - 1500 == pytest.approx(free[name].elo - free["B"].elo, abs=1e-6)
    with pytest.raises(ValueError, match="played no game"):
        bradley_terry(games, anchor=("Z", 0))


@pytest.mark.unit
def test_a_perfect_score_stays_finite_with_the_prior() -> None:
    ratings = {r.name: r for r in bradley_terry(_games("A", "B", 10, 0, 0)
                                                + _games("B", "C", 3, 3, 3))}
    assert all(r.prior for r in ratings.values())
    assert all(math.isfinite(x) for r in ratings.values() for x in (r.elo, *r.ci95))
    assert ratings["A"].elo > ratings["B"].elo
    assert bradley_terry([]) == []


@pytest.mark.unit
def test_with_the_prior_the_interval_is_the_curvature_of_the_likelihood() -> None:
    """8-0: the games all went one way and cannot show their spread, so the
    interval is the curvature of the log-likelihood with the virtual draws
    (BayesElo's Laplace approximation), here by finite differences: about
    ±275 Elo, not the ±57 that Pearson's dispersion of these games gives."""
    (a_rating, b_rating) = bradley_terry(_games("A", "B", 8, 0, 0))
    assert a_rating.prior and a_rating.name == "A"
    a, b = a_rating.elo / ELO_SCALE, b_rating.elo / ELO_SCALE  # the virtual player at 0

    def loglik(x: float, y: float) -> float:
        def log_e(d: float) -> float:
            return -math.log1p(math.exp(-d))

        return (8 * log_e(x - y) + 0.5 * (log_e(x) + log_e(-x))
                + 0.5 * (log_e(y) + log_e(-y)))

    h = 1e-4
    haa = (loglik(a + h, b) - 2 * loglik(a, b) + loglik(a - h, b)) / h ** 2
    hbb = (loglik(a, b + h) - 2 * loglik(a, b) + loglik(a, b - h)) / h ** 2
    hab = (loglik(a + h, b + h) - loglik(a + h, b - h) - loglik(a - h, b + h)
           + loglik(a - h, b - h)) / (4 * h * h)
    det = haa * hbb - hab * hab
    vaa, vbb, vab = -hbb / det, -haa / det, hab / det  # the inverse of minus the Hessian
    sigma = math.sqrt((vaa - 2 * vab + vbb) / 4) * ELO_SCALE  # of A less the mean, (a - b) / 2
    low, high = a_rating.ci95
    assert (high - low) / 2 == pytest.approx(1.959964 * sigma, rel=1e-3)
    assert 250 < (high - low) / 2 < 300


@pytest.mark.unit
def test_intervals_cover_the_true_ratings_about_95_percent_of_the_time() -> None:
    """Simulated round robins of four players of known strength: the true
    rating (centred) lies in its interval for about 95 % of 4 x 150 intervals
    (within three standard errors of a proportion: 0.95 ± 0.027)."""
    rng = random.Random(11)
    true = {"A": 120.0, "B": 40.0, "C": -30.0, "D": -130.0}
    inside = total = 0
    for _ in range(150):
        games: list[tuple[str, str, float]] = []
        for a in true:
            for b in true:
                if a == b:
                    continue
                for _ in range(10):
                    s = score_of(true[a] - true[b])
                    u = rng.random()
                    games.append((a, b, 1.0 if u < s - 0.15 else 0.5 if u < s + 0.15 else 0.0))
        for r in bradley_terry(games):
            inside += r.ci95[0] <= true[r.name] <= r.ci95[1]
            total += 1
    assert abs(inside / total - 0.95) <= 3 * math.sqrt(0.05 * 0.95 / total), inside / total


@pytest.mark.unit
def test_report_ratings_of_a_results_file(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    import json

    from csl_game.cli import main

    games = tmp_path / "g.txt"
    games.write_text("sequential\nrandom 1\nminimax 1\n", encoding="utf-8")
    results = tmp_path / "r.jsonl"
    assert main(["session", "-g", str(games), "--results", str(results), "-q", "-r", "4",
                 "-c", "4", "-w", "3", "--in-process"]) == 0
    final = capsys.readouterr().out
    assert "Elo (\u00b195%)" in final  # the session's final table has a ratings column
    docs = [json.loads(line) for line in results.read_text().splitlines()]
    expected = bradley_terry(
        (d["white"]["name"], d["red"]["name"],
         {"white": 1.0, "red": 0.0, "draw": 0.5}[d["winner"]]) for d in docs)
    assert main(["report", str(results), "--ratings", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)["ratings"]
    assert [r["name"] for r in rows] == [r.name for r in expected]
    assert [r["elo"] for r in rows] == [round(r.elo, 1) for r in expected]
    assert main(["report", str(results), "--ratings", "--anchor", "Sequential=1000"]) == 0
    md = capsys.readouterr().out
    assert "## Ratings" in md and "Sequential at 1000" in md and "| +1000.0 |" in md
    assert main(["report", str(results), "--ratings", "--anchor", "Nobody=5"]) == 2
    assert "played no game" in capsys.readouterr().err
    assert main(["report", str(results), "--ratings", "--anchor", "oops"]) == 2


@pytest.mark.unit
def test_the_ratings_header_reads_as_one_sentence() -> None:
    """The method, where the scale is anchored and why there is a prior, with
    no two parentheses in a row."""
    from csl_game.services.report import load_report

    def doc(index: int, white: str, red: str, winner: str) -> dict[str, object]:
        return {"match": index, "white": {"thinker": white.lower(), "params": "", "name": white},
                "red": {"thinker": red.lower(), "params": "", "name": red}, "winner": winner,
                "winner_name": None, "solution": [], "forfeit": None, "detail": "", "moves": []}

    perfect = load_report([doc(0, "A", "B", "white"), doc(1, "B", "A", "red")])
    header = perfect.render_ratings("md").splitlines()[2]
    assert ") (" not in header and header.count("(") == 1, header
    assert header.startswith("Elo with a prior of one virtual draw each against an average "
                             "player (the average at 0), with 95 % intervals: the games alone")
    even = load_report([doc(0, "A", "B", "white"), doc(1, "B", "A", "white")])
    assert even.render_ratings("md", ("A", 1500)).splitlines()[2] == \
        "Maximum-likelihood Elo (A at 1500), with 95 % intervals."


@pytest.mark.unit
@pytest.mark.parametrize(("value", "ci", "digits", "text"), [
    (35.2, (-5.6, 76.0), 0, "+35 \u00b1 41"),  # sides 40.8 and 40.8
    (12.0, (-30.0, 58.0), 1, "+12.0 \u00b1 44.0"),  # sides 42 and 46: within a tenth of 44
    (-0.04, (-49.44, 49.36), 1, "+0.0 \u00b1 49.4"),  # never '-0.0'
    (65.9, (-24.6, 166.5), 1, "+65.9 [-24.6, +166.5]"),  # sides 90.5 and 100.6
    (651.8, (460.3, 2000.0), 1, "+651.8 [+460.3, +2000.0]"),  # one end at the cap
    (1320.5, (700.2, 2000.0), 0, "+1320 [+700, +2000]"),  # about symmetric, but capped
])
def test_an_interval_is_shown_as_its_ends_where_it_is_lopsided(
        value: float, ci: tuple[float, float], digits: int, text: str) -> None:
    from csl_game.engine.ratings import interval_text

    assert interval_text(value, ci, digits) == text
