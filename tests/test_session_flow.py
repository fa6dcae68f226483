"""The session's screens and choices: what a frontend shows, offers and times."""

from __future__ import annotations

import pytest

from csl_game import ConfigError, MatchConfig, PColor, ThinkerPrototype
from csl_game.engine import Choice, Human, Screen, ScreenPolicy, Session, SessionState, mode_text
from csl_game.engine.screens import Mode
from csl_game.errors import SessionStateError
from csl_game.services.settings import AIEntry, PlayOptions

MC = MatchConfig(rows=4, cols=4, win_sequence=3, round_pieces=4, square_pieces=4,
                 time_limit_ms=5000)


def ais(*names: str) -> list[ThinkerPrototype]:
    return [ThinkerPrototype(n, "", MC) for n in names]


def named(session: Session) -> Session:
    """`session` once its AI players are set up and named in their worker processes."""
    session.wait_for_names()
    return session


def play_current(session: Session) -> None:
    match = session.match
    assert match is not None
    while session.state is SessionState.IN_MATCH:
        session.update()
        match.wait(0.01)


@pytest.mark.unit
@pytest.mark.parametrize("n, text", [(0, "Human vs human"), (1, "Human vs AI"),
                                     (2, "AI vs AI"), (3, "Tournament of 3 AIs (6 matches)"),
                                     (5, "Tournament of 5 AIs (20 matches)")])
def test_mode_text(n: int, text: str) -> None:
    assert mode_text(n) == text


@pytest.mark.parametrize("entries, mode, names", [
    ((), Mode.HUMAN_VS_HUMAN, ("Player 1", "Player 2")),
    ((AIEntry("random"),), Mode.HUMAN_VS_AI, ("Human", "Random")),
    ((AIEntry("random"), AIEntry("sequential", active=False), AIEntry("minimax", "2")),
     Mode.AI_VS_AI, ("Random", "MinimaxD2")),
    ((AIEntry("random"), AIEntry("sequential"), AIEntry("minimax", "2")),
     Mode.TOURNAMENT, ("Random", "Sequential", "MinimaxD2")),
])
def test_options_make_the_session_of_their_active_players(
        entries: tuple[AIEntry, ...], mode: Mode, names: tuple[str, ...]) -> None:
    session = named(PlayOptions(ais=entries, match=MC).new_session())
    assert session.mode is mode and session.names == names


def test_a_single_match_with_an_ai_asks_who_plays_first() -> None:
    session = named(Session([Human(), *ais("sequential")], MC))
    assert session.presenter.screen is Screen.PRE_MATCH and session.state is SessionState.BEGIN
    assert session.presenter.choices() == (Choice.SWAP, Choice.START)
    assert session.presenter.choose(Choice.SWAP) is Screen.PRE_MATCH
    assert session.next_pairing == ("Sequential", "Human")
    assert session.presenter.choose(Choice.START) is Screen.MATCH
    assert session.state is SessionState.IN_MATCH and session.presenter.choices() == ()
    assert session.match is not None and session.match.is_human(PColor.RED)
    with pytest.raises(SessionStateError):
        session.presenter.choose(Choice.OK)
    session.abort()


@pytest.mark.unit
def test_two_humans_start_without_a_swap() -> None:
    session = Session([Human("A"), Human("B")], MC)
    assert session.presenter.choices() == (Choice.START,)
    with pytest.raises(SessionStateError, match="not a choice"):
        session.presenter.choose(Choice.SWAP)


def test_a_single_match_ends_on_its_final_screen() -> None:
    session = named(Session(ais("sequential", "random"), MC))
    session.presenter.choose(Choice.START)
    play_current(session)
    assert session.state is SessionState.POST_MATCH and session.presenter.screen is None
    assert session.presenter.settle() is Screen.FINAL and session.state is SessionState.END
    assert session.presenter.choices() == (Choice.PLAY_AGAIN, Choice.PLAY_AGAIN_SWAPPED, Choice.REVIEW,
                                 Choice.SETUP, Choice.QUIT)
    assert session.presenter.default_choice is Choice.QUIT
    with pytest.raises(SessionStateError):
        session.presenter.choose(Choice.PLAY_AGAIN)  # the frontend's to act on
    again = session.again()
    assert again.names == session.names and again.state is SessionState.BEGIN
    assert session.again(swapped=True).names == ("Random", "Sequential")


def test_a_tournament_shows_every_screen_in_order() -> None:
    session = named(Session(ais("sequential", "random", "minimax"), MC))
    screens = [session.presenter.settle()]
    assert session.state is SessionState.PRE_MATCH, "a tournament starts by itself"
    while screens[-1] is not Screen.FINAL:
        if screens[-1] is Screen.MATCH:
            play_current(session)
            screens.append(session.presenter.settle())
        else:
            screens.append(session.presenter.choose(session.presenter.default_choice))  # type: ignore[arg-type]
    assert screens == [Screen.PRE_MATCH, Screen.MATCH, Screen.POST_MATCH] * 6 + [Screen.FINAL]
    assert session.presenter.choices() == (Choice.QUIT, Choice.PLAY_AGAIN, Choice.SETUP)
    with pytest.raises(ConfigError):
        session.again(swapped=True)
    assert session.again().total_matches == 6


@pytest.mark.parametrize("policy, pre, post", [
    (ScreenPolicy(), None, None),
    (ScreenPolicy(wait_before_match=False, unblocked_s=2.0), 2.0, None),
    (ScreenPolicy(wait_after_match=False, unblocked_s=0.5), None, 0.5),
    (ScreenPolicy(auto=True, unblocked_s=1.5), 1.5, 1.5),
])
def test_tournament_screens_wait_as_the_policy_says(policy: ScreenPolicy, pre: float | None,
                                                    post: float | None) -> None:
    session = named(Session(ais("sequential", "random", "minimax"), MC))
    session.presenter.settle()
    assert session.presenter.timeout(policy) == pre
    session.presenter.choose(Choice.START)
    assert session.presenter.timeout(policy) is None, "a match is not an info screen"
    play_current(session)
    session.presenter.settle()
    assert session.presenter.timeout(policy) == post
    session.abort()


@pytest.mark.parametrize("policy, expected", [
    (ScreenPolicy(wait_before_match=False, wait_after_match=False), None),
    (ScreenPolicy(auto=True, unblocked_s=0.25), 0.25),
])
def test_a_single_match_always_waits_unless_auto(policy: ScreenPolicy,
                                                 expected: float | None) -> None:
    session = named(Session(ais("sequential", "random"), MC))
    assert session.presenter.timeout(policy) == expected
    session.presenter.choose(Choice.START)
    play_current(session)
    session.presenter.settle()
    assert session.presenter.timeout(policy) == expected, "the final screen too"
