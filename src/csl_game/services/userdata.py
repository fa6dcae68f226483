"""What the game remembers for its player: preferences, the last setup, scores.

Everything lives in the user's config folder as platformdirs names it
(``~/.config/csl-game`` on Linux, ``%LOCALAPPDATA%\\csl-game`` on Windows,
``~/Library/Application Support/csl-game`` on macOS), never in the working
directory. ``CSL_GAME_HOME`` names another folder (tests point it at a
temporary one). Reading never fails: a missing or damaged file reads as the
defaults, and a folder that cannot be written only loses what was to be
remembered.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from csl_game.errors import ConfigFileError
from csl_game.services.settings import PlayOptions
from csl_game.services.setup_file import load_config, save_config

__all__ = ["HOME_VARIABLE", "user_dir", "Preferences", "Score", "UserData"]

HOME_VARIABLE = "CSL_GAME_HOME"
PREFERENCES = "preferences.json"
SCORES = "scores.json"
LAST_SETUP = "last-setup.toml"


def user_dir() -> Path:
    """The folder the game remembers things in (not created here)."""
    home = os.environ.get(HOME_VARIABLE)
    if home:
        return Path(home)
    import platformdirs

    return Path(platformdirs.user_config_dir("csl-game", appauthor=False))


@dataclass(frozen=True)
class Preferences:
    """The player's choices that outlive a session."""

    muted: bool = False
    theme: str = "default"
    home_choice: str = ""
    """The key of the home screen's choice last taken ("": none yet)."""
    level: str = "medium"
    """The level last played against from the home screen."""
    colour: str = "white"
    """The colour last played against the computer: 'white' or 'red'."""
    watch_white: str = "Medium"
    """The AI last picked to play White in 'Watch AIs' (a level's or a thinker's label)."""
    watch_red: str = "Hard"
    """The AI last picked to play Red in 'Watch AIs'."""
    online_mode: str = "host"
    """What 'Play online' last did: 'host', 'join', 'watch' or 'server'."""
    online_port: str = ""
    """The port last hosted on ("": the default)."""
    online_host_code: str = ""
    """The join code last given when hosting ("": made up each time)."""
    online_address: str = ""
    """The host's address (HOST:PORT) last joined or watched."""
    online_code: str = ""
    """The join code last typed to join."""
    online_name: str = ""
    """The name last played online under ("": the computer's user name)."""
    online_colour: str = "white"
    """The colour last hosted as: 'white' or 'red'."""
    online_player: str = "human"
    """Who played the hosting side: 'human' or a level's name."""
    online_server: str = ""
    """The game server's URL last played on ("On a server")."""
    online_server_code: str = ""
    """The join code last typed for a game on a server."""


@dataclass(frozen=True)
class Score:
    """A human's record against one opponent (a level or a thinker and parameters)."""

    wins: int = 0
    draws: int = 0
    losses: int = 0

    def __str__(self) -> str:
        return f"{self.wins} won \u00b7 {self.draws} drawn \u00b7 {self.losses} lost"


@dataclass
class UserData:
    """The remembered things of one folder (default: `user_dir()`)."""

    folder: Path = field(default_factory=user_dir)

    # ------------------------------------------------------------- files
    def _read_json(self, name: str) -> dict[str, Any]:
        try:
            data = json.loads((self.folder / name).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def _write(self, name: str, text: str) -> bool:
        """Write a file atomically; False when the folder cannot be written."""
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            part = self.folder / (name + ".part")
            part.write_text(text, encoding="utf-8")
            part.replace(self.folder / name)
        except OSError:
            return False
        return True

    # ------------------------------------------------------------- preferences
    def preferences(self) -> Preferences:
        """The saved preferences; defaults for anything missing or of the wrong kind."""
        data = self._read_json(PREFERENCES)
        default = Preferences()
        kept = {f.name: data[f.name] for f in fields(Preferences)
                if type(data.get(f.name)) is type(getattr(default, f.name))}
        return replace(default, **kept)

    def save_preferences(self, prefs: Preferences) -> bool:
        return self._write(PREFERENCES, json.dumps(asdict(prefs), indent=2) + "\n")

    def update_preferences(self, **changes: Any) -> Preferences:
        """Save the preferences with `changes`; returns them."""
        prefs = replace(self.preferences(), **changes)
        self.save_preferences(prefs)
        return prefs

    # ------------------------------------------------------------- the last setup
    def last_setup(self, base: PlayOptions) -> PlayOptions | None:
        """The setup last started, over `base`; None if there is none or it is no longer valid."""
        path = self.folder / LAST_SETUP
        if not path.is_file():
            return None
        try:
            return load_config(path, base)
        except ConfigFileError:
            return None

    def save_last_setup(self, options: PlayOptions) -> bool:
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            save_config(self.folder / LAST_SETUP, options)
        except (OSError, ConfigFileError):
            return False
        return True

    # ------------------------------------------------------------- scores
    def scores(self) -> dict[str, Score]:
        """Every opponent's score, by opponent."""
        out = {}
        for opponent, value in self._read_json(SCORES).items():
            if isinstance(value, dict):
                counts = [value.get(k, 0) for k in ("wins", "draws", "losses")]
                if all(isinstance(c, int) and c >= 0 for c in counts):
                    out[opponent] = Score(*counts)
        return out

    def score(self, opponent: str) -> Score:
        return self.scores().get(opponent, Score())

    def record(self, opponent: str, won: bool | None) -> Score:
        """Count a human's win (True), loss (False) or draw (None) against `opponent`."""
        scores = self.scores()
        old = scores.get(opponent, Score())
        new = Score(old.wins + (won is True), old.draws + (won is None),
                    old.losses + (won is False))
        scores[opponent] = new
        self._write(SCORES, json.dumps({k: asdict(v) for k, v in sorted(scores.items())},
                                       indent=2) + "\n")
        return new
