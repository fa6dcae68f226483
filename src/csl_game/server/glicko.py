"""Glicko-2 ratings, as lichess rates its players, without I/O.

Mark Glickman's "Example of the Glicko-2 system" (Boston University, 2013)
step by step: a rating r, its deviation RD and volatility sigma are moved to
the Glicko-2 scale (mu, phi), the period's games give v (the estimated
variance) and Delta (the estimated improvement), the new volatility is found
by the Illinois algorithm (step 5.1-5.5, epsilon 0.000001), and phi and mu are
updated and moved back. Each finished rated game is a rating period of one
game for each player (as lichess does), with the system constant tau = 0.5.
A player who has played nothing starts at 1500, RD 350, sigma 0.06.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Glicko", "rate", "TAU", "SCALE", "DEFAULT"]

TAU = 0.5
"""The system constant: how much the volatility may change (Glickman: 0.3 to 1.2)."""
SCALE = 173.7178
"""Glicko-2's scale: mu = (r - 1500) / SCALE."""
_EPSILON = 0.000001


@dataclass(frozen=True)
class Glicko:
    """A player's rating, its deviation and its volatility."""

    rating: float = 1500.0
    rd: float = 350.0
    volatility: float = 0.06


DEFAULT = Glicko()


def _g(phi: float) -> float:
    return 1 / math.sqrt(1 + 3 * phi * phi / math.pi ** 2)


def _e(mu: float, mu_j: float, phi_j: float) -> float:
    return 1 / (1 + math.exp(-_g(phi_j) * (mu - mu_j)))


def rate(player: Glicko, games: Sequence[tuple[Glicko, float]], tau: float = TAU) -> Glicko:
    """`player`'s rating after a period of `games` (each: the opponent's
    rating before it, and the score: 1 a win, 0.5 a draw, 0 a loss)."""
    mu, phi, sigma = (player.rating - 1500) / SCALE, player.rd / SCALE, player.volatility
    if not games:  # step 6 alone: the deviation grows with time
        return Glicko(player.rating, math.sqrt(phi * phi + sigma * sigma) * SCALE, sigma)
    v_inv = 0.0
    delta_sum = 0.0
    for opponent, score in games:
        mu_j, phi_j = (opponent.rating - 1500) / SCALE, opponent.rd / SCALE
        e = _e(mu, mu_j, phi_j)
        v_inv += _g(phi_j) ** 2 * e * (1 - e)
        delta_sum += _g(phi_j) * (score - e)
    v = 1 / v_inv
    delta = v * delta_sum
    sigma = _volatility(phi, sigma, v, delta, tau)
    phi_star = math.sqrt(phi * phi + sigma * sigma)
    phi = 1 / math.sqrt(1 / (phi_star * phi_star) + 1 / v)
    mu = mu + phi * phi * delta_sum
    return Glicko(mu * SCALE + 1500, phi * SCALE, sigma)


def _volatility(phi: float, sigma: float, v: float, delta: float, tau: float) -> float:
    """Step 5: the new volatility, the root of f by the Illinois algorithm."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return (ex * (delta * delta - phi * phi - v - ex) / (2 * (phi * phi + v + ex) ** 2)
                - (x - a) / (tau * tau))

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > _EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2)
