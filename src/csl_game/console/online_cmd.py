"""Online matches in the terminal: ``match --listen``, ``match --connect`` and ``watch``.

Each loops over its end's non-blocking `poll()` (csl_game.online), printing
the match as the match verb prints it, and reads the terminal on a thread of
its own (so the network is served while a human thinks, on every OS).
"""

from __future__ import annotations

import argparse
import json
import queue
import re
import sys
import threading
from typing import TextIO

from csl_game.console.human import move_prompt, try_move
from csl_game.console.playing import check_thinkers, memory_limit_of, setup_limit_of
from csl_game.console.render import ConsoleListener
from csl_game.engine import (
    Human,
    Match,
    MatchEvent,
    MatchResult,
    MatchStarted,
    Player,
    ResultsWriter,
    record_to_json,
    result_to_json,
    runner_factory,
)
from csl_game.errors import InputEnded, NetworkError, UsageError
from csl_game.model.board import PColor
from csl_game.online.client import Back, Failed, GoingOn, Joined, Lost, OnlineEvent, Waiting
from csl_game.online.door import HostLimits, TurnedAway
from csl_game.online.host import (
    ClaimOffered,
    Host,
    HostEvent,
    PlayerBack,
    PlayerJoined,
    PlayerLeft,
)
from csl_game.online.protocol import PROTOCOL_VERSION, Hello, code_problem
from csl_game.online.records import player_infos
from csl_game.services.addresses import lan_address, parse_address
from csl_game.services.flag_values import match_config
from csl_game.services.narration import terminal_safe
from csl_game.services.options import MATCH_KEYS
from csl_game.thinker.api import MatchConfig
from csl_game.thinker.prototype import ThinkerPrototype

__all__ = ["run_online", "run_watch"]

_STEP = 0.05
_HANG_UP_S = 2.0
"""How long a joiner that has the result may take to hang up before the host says it waits."""
_SETTING_OF = {"time_limit": "time_limit_ms", "min_move_time": "min_move_time_ms"}


class _Lines:
    """The terminal's lines, read on a daemon thread; None once input ended."""

    def __init__(self) -> None:
        self._queue: queue.SimpleQueue[str | None] = queue.SimpleQueue()
        self.ended = False
        threading.Thread(target=self._read, daemon=True, name="csl-stdin").start()

    def _read(self) -> None:
        for line in sys.stdin:
            self._queue.put(line)
        self._queue.put(None)

    def get(self) -> str | None:
        """A line typed, or None when none is waiting (or input ended: `ended`)."""
        try:
            line = self._queue.get_nowait()
        except queue.Empty:
            return None
        if line is None:
            self.ended = True
        return line


def _side(args: argparse.Namespace) -> tuple[PColor | None, str | None, str]:
    """The colour -W/-R chose (None: neither), the thinker named and its parameters."""
    if args.white is not None and args.red is not None:
        raise UsageError("online, this side plays one colour: give -W or -R, not both")
    if args.red is not None:
        return PColor.RED, args.red, args.red_params
    if args.white is not None:
        return PColor.WHITE, args.white, args.white_params
    return None, None, ""


def _player(args: argparse.Namespace, thinker: str | None, params: str,
            mc: MatchConfig) -> tuple[Player, str]:
    """This side's player and its display name (a thinker set up once, to check it)."""
    if thinker is None or thinker.lower() == "human":
        return Human(), Human().name
    proto = ThinkerPrototype(thinker, params, mc, tuple(args.thinkers))
    report = check_thinkers([proto], ["-W/-R"], args.in_process, setup_limit_of(args),
                            memory_limit_of(args))[0]
    name = terminal_safe(report.name if report is not None else proto.default_name)
    return proto, "".join(c if c.isprintable() else "?" for c in name)[:40]  # as the wire takes


def _code(args: argparse.Namespace) -> str | None:
    code = args.code
    if code is not None and (problem := code_problem(code)) is not None:
        raise UsageError(f"--code must be {problem}")
    return code


def run_online(args: argparse.Namespace) -> int:
    """``match --listen`` or ``match --connect``."""
    if args.listen is not None and args.connect is not None:
        raise UsageError("--listen hosts and --connect joins: give one of them")
    if args.listen is not None:
        return _host(args)
    return _join(args)


# ---------------------------------------------------------------------- hosting
def _host(args: argparse.Namespace) -> int:
    try:
        address = parse_address(args.listen, bare=True)
    except ValueError as e:
        raise UsageError(f"--listen {e}") from None
    if args.spectators < 0 or args.handshake_timeout <= 0 or args.reconnect_timeout <= 0:
        raise UsageError("--spectators must be 0 or more, the time-outs more than 0")
    mc = match_config(args)
    color, thinker, params = _side(args)
    local, name = _player(args, thinker, params, mc)
    results = ResultsWriter(args.results) if args.results else None
    limits = HostLimits(handshake_timeout=args.handshake_timeout,
                        reconnect_timeout=args.reconnect_timeout, spectators=args.spectators)
    host = Host(mc, local, name, color or PColor.WHITE, address,
                code=_code(args), runner_factory=runner_factory(
                    args.in_process, None, setup_limit_of(args), memory_limit_of(args)),
                limits=limits)
    out = sys.stderr if args.json else sys.stdout
    try:
        _announce(host, out)
        host.subscribe(ConsoleListener(out).on_match_event)
        result = _host_loop(host, out)
        if results is not None:
            results.write(record_to_json(0, *player_infos(host, local), result, mc))
        if args.json:
            print(json.dumps(result_to_json(result, mc)), flush=True)
        _tell_result(host, out)
    finally:
        host.close()
        if results is not None:
            results.close()
    return 0


def _announce(host: Host, out: TextIO) -> None:
    where = host.bound_host
    shown = f"[{where}]" if ":" in where else where
    if not where:
        shown = lan_address()
    networks = "every network of this machine" if not where else f"address {where}"
    print(f"Hosting a match on port {host.port} ({networks}); you play {host.local_color}",
          file=out, flush=True)
    print(f"  the other player joins with: csl-game match --connect {shown}:{host.port} "
          f"--code {host.code}", file=out)
    if host.limits.spectators:
        print(f"  spectators watch with:       csl-game watch {shown}:{host.port}", file=out)
    print("Waiting for a player to join (Ctrl+C stops)...", file=out, flush=True)


def _host_loop(host: Host, out: TextIO) -> MatchResult:
    lines = _Lines()
    asked = -1
    while True:
        for event in host.poll():
            _say_host_event(event, out)
        match = host.match
        if match is not None and match.is_over:
            assert match.result is not None
            return match.result
        line = lines.get()
        if line is not None and line.strip().lower() == "claim" and host.claimable:
            host.claim()
            continue
        if match is not None and match.awaiting_human and not host.paused:
            asked = _human_turn(match, line, asked, lines.ended, out)
        elif line is not None and host.paused:
            print(f"The game is paused: {_claim_hint(host)}", file=out, flush=True)
        host.wait(_STEP)


def _tell_result(host: Host, out: TextIO) -> None:
    """Stay until the joined player has the result: a joiner hangs up once it
    has it, at once; one whose connection went silent connects again and is
    told (at most `limits.result_wait` seconds)."""
    def say(event: HostEvent) -> None:
        _say_host_event(event, out)

    if host.finish(say, timeout=_HANG_UP_S) or host.seat is None:
        return
    name, wait = host.seat.name, host.limits.result_wait
    print(terminal_safe(f"Waiting up to {wait:g} s for {name} to be told the result "
                        "(its connection is silent)"), file=out, flush=True)
    if not host.finish(say):
        print(terminal_safe(f"{name} did not come back for the result"), file=out, flush=True)


def _claim_hint(host: Host) -> str:
    assert host.seat is not None
    if host.claimable:
        return f"type claim to win by {host.seat.name}'s forfeit, or keep waiting"
    return f"waiting for {host.seat.name} to reconnect"


def _human_turn(taker: Match | Joined, line: str | None, asked: int, ended: bool,
                out: TextIO) -> int:
    """Ask once a turn, take a typed line; returns the move number asked for."""
    board = taker.board
    assert board is not None
    ply = board.move_count
    prompt, default = move_prompt(taker)
    if asked != ply:
        print(prompt, end="", file=out, flush=True)
    if line is None:
        if ended:
            raise InputEnded("input ended before the match did")
        return ply
    refusal = try_move(taker, line, default)
    if refusal is not None:
        print(refusal, file=out)
        print(prompt, end="", file=out, flush=True)
    return ply


def _say_host_event(event: HostEvent, out: TextIO) -> None:
    if isinstance(event, PlayerJoined):
        text = f"{event.name} joined, playing {event.color}"
    elif isinstance(event, PlayerLeft):
        text = f"The connection to {event.name} dropped: waiting for {event.name} to reconnect"
    elif isinstance(event, PlayerBack):
        text = f"{event.name} is back: the game goes on"
    elif isinstance(event, ClaimOffered):
        text = (f"{event.name} has been away {event.seconds:.0f} s: type claim (and Enter) to "
                "win by their forfeit, or keep waiting")
    elif isinstance(event, TurnedAway):
        print(terminal_safe(f"csl-game: {event.text}"), file=sys.stderr, flush=True)
        return
    print(terminal_safe(text), file=out, flush=True)


# ---------------------------------------------------------------------- joining
def _join(args: argparse.Namespace) -> int:
    if args.connect.startswith(("http://", "https://")):  # a game server (docs/server.md)
        return _server_game(args)
    address = _address(args.connect, "--connect")
    if args.results:
        raise UsageError("--results: the host writes the result (drop it with --connect)")
    if args.code is None:
        raise UsageError("--connect needs the host's join code: --code CODE")
    color, thinker, params = _side(args)
    given = {_SETTING_OF.get(k, k): getattr(args, k) for k in MATCH_KEYS
             if getattr(args, k) is not None}
    local, name = _player(args, thinker, params, match_config(args))
    hello = Hello(PROTOCOL_VERSION, "player", _code(args) or "", name,
                  "human" if isinstance(local, Human) else "ai", color, given or None)

    def make_player(config: MatchConfig) -> Player:
        if isinstance(local, ThinkerPrototype):
            return ThinkerPrototype(local.requested_name, local.params, config,
                                    local.paths)
        return local

    factory = runner_factory(args.in_process, None, setup_limit_of(args), memory_limit_of(args))
    joined = Joined(address, hello, make_player, factory, retry_for=args.reconnect_timeout)
    return _follow(joined, args)


def _server_game(args: argparse.Namespace) -> int:
    from csl_game.console.server_match import run_server_match  # aiohttp only when needed
    from csl_game.server import BotError, ws_url

    try:
        ws_url(args.connect)
    except BotError as e:
        raise UsageError(f"--connect: {e}") from None
    color, thinker, params = _side(args)
    if thinker is not None and thinker.lower() == "human":
        thinker = None
    if thinker is not None:
        ThinkerPrototype(thinker, params, paths=tuple(args.thinkers))  # unknown: exit 2
    if args.code is not None and not re.fullmatch(r"[A-Za-z0-9_-]{8,32}", args.code):
        raise UsageError("--code: a server's join code is 8 to 32 letters, digits, - or _")
    return run_server_match(args.connect, args.code, color, thinker, params,
                            tuple(args.thinkers), args.json, args.in_process)


def run_watch(args: argparse.Namespace) -> int:
    """``watch HOST:PORT``: a tournament broadcast or a hosted match, read-only,
    from where it stands."""
    address = _address(args.address, "watch")
    from csl_game.console.tourney_cmd import follow_tournament
    from csl_game.online.tourney_client import Watched

    done = follow_tournament(Watched(address), args)
    if done is not None:
        return done
    joined = Joined(address, Hello(PROTOCOL_VERSION, "spectator"),
                    retry_for=args.reconnect_timeout)
    return _follow(joined, args)


def _address(text: str, where: str) -> tuple[str, int]:
    try:
        return parse_address(text)
    except ValueError as e:
        raise UsageError(f"{where} {e}") from None


def _follow(joined: Joined, args: argparse.Namespace) -> int:
    out = sys.stderr if args.json else sys.stdout
    listener = ConsoleListener(out)
    lines: _Lines | None = None
    asked = -1
    try:
        while joined.outcome is None:
            for event in joined.poll():
                _say_joined_event(event, joined, listener, out)
            if joined.awaiting_human:
                lines = lines or _Lines()
                asked = _human_turn(joined, lines.get(), asked, lines.ended, out)
            joined.wait(_STEP)
        outcome = joined.outcome
        if args.json:
            print(json.dumps(result_to_json(outcome.result, outcome.config)), flush=True)
    finally:
        joined.close()
    return 0


def _say_joined_event(event: MatchEvent | OnlineEvent, joined: Joined,
                      listener: ConsoleListener, out: TextIO) -> None:
    if isinstance(event, Failed):
        raise NetworkError(event.message)
    if isinstance(event, MatchStarted):
        mine = f"; you play {joined.color}" if joined.color is not None else " (watching)"
        print(f"The host's game: {_settings_text(event.config)}{mine}", file=out)
    if isinstance(event, MatchEvent):
        listener.on_match_event(event)
        return
    texts = {Waiting: lambda e: f"The game is paused: waiting for {e.name} to reconnect",
             GoingOn: lambda e: "The game goes on", Back: lambda e: "Connected again",
             Lost: lambda e: f"Connection lost ({e.why}): reconnecting..."}
    print(terminal_safe(texts[type(event)](event)), file=out, flush=True)


def _settings_text(mc: MatchConfig) -> str:
    return (f"{mc.rows} x {mc.cols} board, {mc.win_sequence} in a row, {mc.round_pieces} round "
            f"and {mc.square_pieces} square pieces each, AIs {mc.time_limit_ms} ms a move")
