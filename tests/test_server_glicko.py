"""Glicko-2 as Glickman's worked example computes it ("Example of the
Glicko-2 system", 2013): a player at 1500, RD 200, volatility 0.06 beats a
1400 (RD 30) and loses to a 1550 (RD 100) and a 1700 (RD 300), tau 0.5."""

from __future__ import annotations

import pytest

from csl_game.server.glicko import DEFAULT, SCALE, Glicko, rate

pytestmark = pytest.mark.unit

PERIOD = [(Glicko(1400, 30), 1.0), (Glicko(1550, 100), 0.0), (Glicko(1700, 300), 0.0)]


def test_glickmans_worked_example() -> None:
    after = rate(Glicko(1500, 200, 0.06), PERIOD, tau=0.5)
    # the paper's own figures: mu' = -0.2069, phi' = 0.8722, sigma' = 0.05999 ...
    assert round((after.rating - 1500) / SCALE, 4) == -0.2069
    assert round(after.rd / SCALE, 4) == 0.8722
    assert after.volatility == pytest.approx(0.05999, abs=0.00001)  # 0.059996
    # ... which it gives back as r' = 1464.06 and RD' = 151.52 (from mu' rounded to
    # four places: unrounded, r' is 1464.0507)
    assert round(-0.2069 * SCALE + 1500, 2) == 1464.06
    assert after.rating == pytest.approx(1464.06, abs=0.01)
    assert round(after.rd, 2) == 151.52


def test_a_win_raises_a_loss_lowers_and_both_narrow_the_deviation() -> None:
    won = rate(DEFAULT, [(DEFAULT, 1.0)])
    lost = rate(DEFAULT, [(DEFAULT, 0.0)])
    drawn = rate(DEFAULT, [(DEFAULT, 0.5)])
    assert won.rating > 1500 > lost.rating and drawn.rating == pytest.approx(1500)
    assert won.rating - 1500 == pytest.approx(1500 - lost.rating)
    assert won.rd < 350 and lost.rd < 350
    idle = rate(Glicko(1600, 50, 0.06), [])
    assert idle.rating == 1600 and idle.rd > 50  # no game: only the deviation grows
