"""The RL environment: PettingZoo's API test, planes, masks, rewards, policies as thinkers."""

from __future__ import annotations

import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("pettingzoo", reason="the rl extra is not installed")

with warnings.catch_warnings():  # pettingzoo.test loads its own classic games the old way
    warnings.simplefilter("ignore", DeprecationWarning)
    from pettingzoo.test import api_test  # noqa: E402

from csl_game import (  # noqa: E402
    Board,
    CancellationToken,
    FutureMove,
    MatchConfig,
    PColor,
    PShape,
    ThinkerPrototype,
    Winner,
)
from csl_game.engine import Match  # noqa: E402
from csl_game.engine.runners.process import ProcessRunner  # noqa: E402
from csl_game.errors import ConfigError, InvalidMoveError  # noqa: E402
from csl_game.rl import (  # noqa: E402
    AGENTS,
    PolicyThinker,
    action_mask,
    action_of,
    env,
    move_of,
    observation,
    policy_thinker,
    raw_env,
)

STANDARD = MatchConfig()
WIDE = MatchConfig(rows=9, cols=37, win_sequence=5, round_pieces=83, square_pieces=84)
# PettingZoo names its own classic games in api_test so that these two advice
# warnings stay quiet for dict observations; ours is not on its list.
ADVICE = {"Observation is not a NumPy array",
          "Observation space for each agent probably should be gymnasium.spaces.box or "
          "gymnasium.spaces.discrete"}


# ------------------------------------------------------------------ api_test
@pytest.mark.unit
@pytest.mark.parametrize("make", [env, raw_env], ids=["env", "raw_env"])
@pytest.mark.parametrize("mc", [STANDARD, WIDE], ids=["6x7", "9x37n5"])
def test_pettingzoo_api_test_passes(mc: MatchConfig, make: object,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(make(mc), num_cycles=1000)  # type: ignore[operator]
    assert "Passed API test" in capsys.readouterr().out
    assert {str(w.message) for w in caught} <= ADVICE


@pytest.mark.unit
def test_spaces_follow_the_board() -> None:
    game = env(WIDE)
    game.reset()
    assert game.action_space("player_0").n == 74
    space = game.observation_space("player_1")
    assert space["observation"].shape == (9, 37, 5) and space["action_mask"].shape == (74,)


# ------------------------------------------------------------ planes and masks
moves = st.lists(st.integers(0, 13), max_size=42)


def _play(actions: list[int], mc: MatchConfig = STANDARD) -> Board:
    board = mc.new_board()
    for action in actions:
        column, shape = move_of(action)
        if board.check_winner() is Winner.NONE and board.move_problem(shape, column) is None:
            board.do_move(shape, column)
    return board


@pytest.mark.unit
@settings(max_examples=60, deadline=None)
@given(moves)
def test_planes_show_every_piece_and_the_turn(actions: list[int]) -> None:
    board = _play(actions)
    planes = observation(board.fast_board())
    assert planes.shape == (6, 7, 5) and planes.dtype == np.int8
    for row in range(board.rows):
        for col in range(board.cols):
            piece = board[row, col]
            expected = [0] * 4
            if piece is not None:
                expected[2 * piece.color + piece.shape] = 1
            assert list(planes[row, col, :4]) == expected
    assert (planes[:, :, 4] == int(board.turn is PColor.WHITE)).all()


@pytest.mark.unit
@settings(max_examples=60, deadline=None)
@given(moves)
def test_the_mask_is_the_legal_moves(actions: list[int]) -> None:
    board = _play(actions)
    mask = action_mask(board.fast_board())
    over = board.check_winner() is not Winner.NONE
    for action in range(14):
        column, shape = move_of(action)
        legal = not over and board.move_problem(shape, column) is None
        assert mask[action] == legal


@pytest.mark.unit
def test_actions_name_a_column_and_a_shape() -> None:
    assert [move_of(a) for a in range(4)] == [(0, PShape.ROUND), (0, PShape.SQUARE),
                                              (1, PShape.ROUND), (1, PShape.SQUARE)]
    assert all(action_of(*move_of(a)) == a for a in range(80))
    with pytest.raises(ValueError, match="got -1"):
        move_of(-1)


# ---------------------------------------------------------------- rewards
TINY = MatchConfig(rows=2, cols=3, win_sequence=3)
R, S = PShape.ROUND, PShape.SQUARE


def _run(game: object, actions: list[int]) -> None:
    for action in actions:
        game.step(action)  # type: ignore[attr-defined]


@pytest.mark.unit
@pytest.mark.parametrize("moves, winner", [
    # RULES.md: Red's last move, a round piece, completes White's round run.
    ([(0, R), (1, S), (1, R), (2, S), (2, R), (0, R)], "player_0"),
    ([(0, R), (1, S), (1, R), (2, S), (2, R), (0, S)], None),
    ([(0, S), (1, S), (2, S)], "player_1"),  # White's square completes Red's square run
])
def test_rewards_go_to_the_winner_whoever_moved(moves: list[tuple[int, PShape]],
                                                winner: str | None) -> None:
    game = env(TINY)
    game.reset()
    _run(game, [action_of(c, s) for c, s in moves])
    expected = {a: 0 if winner is None else (1 if a == winner else -1) for a in AGENTS}
    assert game.rewards == expected
    assert final_rewards(game) == expected


def final_rewards(game: object) -> dict[str, float]:
    """What each agent's last() says once the game is over, as a training loop sees it."""
    seen = {}
    for agent in game.agent_iter():  # type: ignore[attr-defined]
        _, reward, terminated, truncated, _ = game.last()  # type: ignore[attr-defined]
        assert terminated
        seen[agent] = reward
        game.step(None)  # type: ignore[attr-defined]
    assert game.agents == []  # type: ignore[attr-defined]
    return seen


@pytest.mark.unit
def test_an_illegal_action_ends_the_game_with_minus_one_for_its_taker() -> None:
    game = env(TINY)
    game.reset()
    _run(game, [action_of(0, R), action_of(0, S)])  # column 0 is now full
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PettingZoo warns of the illegal move
        game.step(action_of(0, R))
    assert final_rewards(game) == {"player_0": -1, "player_1": 0}


@pytest.mark.unit
def test_the_raw_game_refuses_an_illegal_action() -> None:
    game = raw_env(TINY)
    _run(game, [action_of(0, R), action_of(0, S)])
    with pytest.raises(InvalidMoveError, match="player_0 cannot take action 0"):
        game.step(action_of(0, R))


@pytest.mark.unit
def test_the_board_renders_as_text(capsys: pytest.CaptureFixture[str]) -> None:
    game = raw_env(TINY, render_mode="ansi")
    _run(game, [action_of(1, S), action_of(1, R)])
    text = game.render()
    assert text is not None and text.splitlines()[:3] == [" .  r  .", " .  W  .", " 0  1  2"]
    shown = raw_env(TINY, render_mode="human")
    shown.step(action_of(2, R))
    assert " .  .  w" in capsys.readouterr().out
    with pytest.raises(ConfigError, match="render_mode"):
        raw_env(TINY, render_mode="rgb_array")


# ---------------------------------------------------------- policies as thinkers
def _centre(observation: np.ndarray, action_mask: np.ndarray) -> int:
    legal = np.flatnonzero(action_mask)
    centre = observation.shape[1] // 2
    return int(min(legal, key=lambda a: (abs(a // 2 - centre), a)))


class CentreThinker(PolicyThinker):
    def policy(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return _centre(observation, action_mask)


@pytest.mark.unit
def test_a_policy_thinker_plays_what_its_policy_chooses() -> None:
    thinker = ThinkerPrototype(CentreThinker, "", STANDARD).create()
    board = STANDARD.new_board()
    assert thinker.think(board.copy(), CancellationToken()) == FutureMove(3, R)
    for shape in (R, S, S, R, R, S):  # column 3 full, nobody has won
        board.do_move(shape, 3)
    assert thinker.think(board.copy(), CancellationToken()) == FutureMove(2, R)


@pytest.mark.unit
def test_a_policy_function_becomes_a_named_thinker_class() -> None:
    def greedy_centre(observation: np.ndarray, action_mask: np.ndarray) -> int:
        """Plays nearest the centre."""
        return _centre(observation, action_mask)

    made = policy_thinker(greedy_centre)
    assert made.__name__ == "GreedyCentreThinker" and made.__doc__ == "Plays nearest the centre."
    assert str(ThinkerPrototype(made, "", STANDARD).create()) == "GreedyCentre"
    assert policy_thinker(greedy_centre, "Mid").__name__ == "Mid"


POLICY_FILE = '''
import numpy as np
from csl_game.rl import policy_thinker

def centre(observation, action_mask):
    """The legal move nearest the centre column."""
    legal = np.flatnonzero(action_mask)
    middle = observation.shape[1] // 2
    return int(min(legal, key=lambda a: (abs(a // 2 - middle), a)))

CentreThinker = policy_thinker(centre)
'''


@pytest.mark.parametrize("mc", [STANDARD, WIDE], ids=["6x7", "9x37n5"])
def test_a_policy_plays_a_match_in_a_worker(tmp_path: Path, mc: MatchConfig) -> None:
    path = tmp_path / "my_policy.py"
    path.write_text(textwrap.dedent(POLICY_FILE), encoding="utf-8")
    mc = MatchConfig(mc.rows, mc.cols, mc.win_sequence, mc.round_pieces, mc.square_pieces,
                     time_limit_ms=5000)
    policy = ThinkerPrototype("centre", "", mc, (str(path),))
    match = Match(mc, policy, ThinkerPrototype("random", "5", mc), ProcessRunner)
    try:
        result = match.run()
    finally:
        match.close()
    assert result.forfeit is None, result.detail
    first = result.moves[0].move
    assert (first.col, first.piece.shape) == (mc.cols // 2, R)


# ------------------------------------------------------ the single-agent env
SMALL = MatchConfig(rows=4, cols=5, win_sequence=3, round_pieces=5, square_pieces=5)


@pytest.mark.unit
def test_the_single_agent_env_passes_gymnasiums_checker() -> None:
    from gymnasium.utils.env_checker import check_env

    from csl_game.rl import SingleAgentEnv

    check_env(SingleAgentEnv(SMALL, opponent="sequential"), skip_render_check=True)


@pytest.mark.unit
def test_the_learner_takes_each_seat_in_turn() -> None:
    from csl_game.rl import SingleAgentEnv

    game = SingleAgentEnv(SMALL, opponent="sequential")
    observation, info = game.reset(seed=3)
    assert observation[:, :, :4].sum() == 0 and observation[0, 0, 4] == 1  # White, to move
    observation, info = game.reset()
    assert observation[:, :, :4].sum() == 1 and observation[0, 0, 4] == 0  # Red, after one
    assert info["action_mask"].dtype == bool and info["action_mask"].sum() == 10
    assert (game.action_masks() == info["action_mask"]).all()


@pytest.mark.unit
def test_rewards_follow_the_board_shape_before_colour() -> None:
    """Random games through the env: each final reward is what the board's own
    winner check gives the learner, and every game ends."""
    import random

    from csl_game.rl import SingleAgentEnv

    rng = random.Random(11)

    def opponent(observation: np.ndarray, mask: np.ndarray) -> int:
        return rng.choice(list(np.flatnonzero(mask)))

    game = SingleAgentEnv(SMALL, opponent=opponent)
    seen = set()
    for _ in range(300):
        _, info = game.reset()
        done = False
        while not done:
            action = rng.choice(list(np.flatnonzero(info["action_mask"])))
            _, reward, done, truncated, info = game.step(action)
            assert not truncated
        winner = game.board.check_winner()
        expected = 0.0 if winner is Winner.DRAW else \
            1.0 if winner is game.learner.winner else -1.0
        assert reward == expected
        seen.add(reward)
    assert seen == {-1.0, 0.0, 1.0} or seen == {-1.0, 1.0}


@pytest.mark.unit
def test_illegal_actions_end_the_game_for_whoever_takes_them() -> None:
    from csl_game.rl import SingleAgentEnv

    game = SingleAgentEnv(MatchConfig(rows=2, cols=3, win_sequence=3), opponent="sequential",
                          seat="white")
    game.reset()
    game.step(0)
    game.step(0)  # column 0 is full now (two rows)
    _, reward, done, _, info = game.step(0)
    assert (reward, done, info.get("illegal")) == (-1.0, True, True)
    assert not info["action_mask"].any()
    stubborn = SingleAgentEnv(SMALL, opponent=lambda observation, mask: 2 * 5, seat="white")
    stubborn.reset()  # its action is column 5 of five (0-4): no such column
    _, reward, done, _, info = stubborn.step(4)
    assert (reward, done) == (1.0, True) and "forfeit" in info
