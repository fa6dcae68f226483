"""How a hosted match is recorded: the results file's line, from the host's side.

Both frontends (the console's ``match --listen --results`` and the window's
hosted game) write the same record: the local player as it was made (a
human, or a thinker and its parameters), the joined player as `remote`.
"""

from __future__ import annotations

from csl_game.engine import MatchResult, Player, PlayerInfo, ResultsWriter, record_to_json
from csl_game.model.board import PColor
from csl_game.online.host import Host
from csl_game.thinker.prototype import ThinkerPrototype

__all__ = ["REMOTE_THINKER", "player_infos", "write_result"]

REMOTE_THINKER = "remote"
"""What a results file names as the thinker of the player who joined."""


def player_infos(host: Host, local: Player) -> tuple[PlayerInfo, PlayerInfo]:
    """White's and Red's entries of the record, once a player has joined."""
    assert host.names is not None
    mine = PlayerInfo("human", "", host.names[host.local_color])
    if isinstance(local, ThinkerPrototype):
        mine = PlayerInfo(local.requested_name, local.params, host.names[host.local_color])
    theirs = PlayerInfo(REMOTE_THINKER, "", host.names[host.remote_color])
    return (mine, theirs) if host.local_color is PColor.WHITE else (theirs, mine)


def write_result(path: str, host: Host, local: Player, result: MatchResult) -> None:
    """Append the hosted match's result to the results file at `path`.

    Raises:
        ResultsError: the file cannot be written.
    """
    writer = ResultsWriter(path)
    try:
        writer.write(record_to_json(0, *player_infos(host, local), result, host.config))
    finally:
        writer.close()
