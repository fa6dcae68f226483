"""'Play online' from the home screen: host a game, join a friend's, watch one,
or play on a game server.

A picker of four modes (Host, Join, Watch, On a server), each a few captioned
rows: the port and an optional join code, the colour and who plays it (you
or an AI level) to host; the host's address and code to join; the address to
watch; a game server's URL, a game's join code (none: a challenge in the
server's lobby, for anyone there to accept) and the challenge's clock
(minutes and seconds a move, as lichess writes them: 3+2; none for a game
without clocks) to play on a server. Keys as in the other pickers: Up and Down move between rows, Left,
Right and Tab along them, Enter goes; typing goes into the focused entry.
What was typed is remembered. Going starts the `Host` (or connects) and
shows the waiting screen (gui/scenes/online_wait.py).
"""

from __future__ import annotations

import getpass
import re
from collections.abc import Callable
from typing import TYPE_CHECKING

import pygame
from pygame import Rect
from pygame_gui.core import ObjectID, UIContainer
from pygame_gui.elements import UITextBox, UITextEntryLine

from csl_game.engine import Human, Player, ThreadRunner
from csl_game.errors import CslError, ProtocolError
from csl_game.gui.context import GuiContext
from csl_game.gui.game_clocks import control_text
from csl_game.gui.keys import SCREEN_KEYS
from csl_game.gui.lobby_look import LobbyLook
from csl_game.gui.online_table import HostTable, JoinedTable, Table
from csl_game.gui.scenes.online_wait import OnlineWaitScene, invitation
from csl_game.gui.scenes.pickers import PickerScene, option_buttons
from csl_game.gui.tourney_table import WatchTable
from csl_game.gui.widgets import HintedEntry, Metrics, button, label
from csl_game.model.board import PColor
from csl_game.online.door import HostLimits
from csl_game.online.host import Host
from csl_game.online.protocol import (
    MAX_CODE,
    MAX_NAME,
    MIN_CODE,
    PROTOCOL_VERSION,
    Hello,
    code_problem,
)
from csl_game.services.addresses import parse_address
from csl_game.services.presets import LEVELS, level
from csl_game.services.quick_games import board_options
from csl_game.services.settings import PlayOptions
from csl_game.thinker.prototype import ThinkerPrototype

if TYPE_CHECKING:
    from csl_game.server.clock import TimeControl

__all__ = ["OnlineScene", "DEFAULT_PORT", "online_layout", "default_name"]

DEFAULT_PORT = 5907
HOST_LIMITS = HostLimits()
"""The bounds a hosted game holds connections to (the reconnect time-out, ...)."""
MODES = {"host": "Host", "join": "Join", "watch": "Watch", "server": "On a server"}
_GO = {"host": "Host", "join": "Join", "watch": "Watch", "server": "Play"}
_NOTES = {
    "host": "Your friend picks Play online, then Join, and types the address "
            "and code the next screen shows. The board is the one in Settings.",
    "join": "Type the address (HOST:PORT) and the code your friend's window shows.",
    "watch": "Follow a hosted game, read-only: the host's address is enough.",
    "server": "A game server (csl-game server): with a friend's join code, take that game's "
              "seat; without one, your challenge waits in the server's lobby.",
}


def default_name() -> str:
    """The computer's user name, capitalised (else 'Player')."""
    try:
        name = getpass.getuser()
    except (OSError, KeyError, ImportError):  # no user name known on this system
        name = ""
    name = "".join(ch for ch in name if ch.isprintable()).strip()[:MAX_NAME]
    return name.capitalize() if name else "Player"


def online_layout(size: tuple[int, int], count: int) -> tuple[Rect, list[tuple[Rect, Rect]],
                                                              Rect, Rect, Rect]:
    """Title, `count` rows (caption, field), the note, Back and Go, centred."""
    m = Metrics(size)
    w, h = size
    width = min(w - 2 * m.margin, round(700 * m.scale))
    title_h, big, small = round(m.title * 1.3), m.row + 10, m.row + 6
    note_h = 2 * m.row
    total = title_h + count * (big + m.gap) + m.gap + note_h + 2 * m.gap + small
    x, y = (w - width) // 2, max(m.margin, (h - total) // 2)
    title = Rect(x, y, width, title_h)
    caption_w = round(width * 0.3)
    rows = []
    y = title.bottom
    for _ in range(count):
        rows.append((Rect(x, y, caption_w, big),
                     Rect(x + caption_w + m.gap, y, width - caption_w - m.gap, big)))
        y += big + m.gap
    note = Rect(x, y + m.gap, width, note_h)
    half = min(round(200 * m.scale), (width - m.gap) // 2)
    back = Rect(x, note.bottom + 2 * m.gap, half, small)
    go = Rect(x + width - half, back.y, half, small)
    return title, rows, note, back, go


class OnlineScene(PickerScene):
    """Host, join or watch a game on another computer."""

    title = "Play online"
    enter_goes = False
    """Enter on another mode shows that mode's rows, as a click does (on the chosen one, goes)."""

    def __init__(self, ctx: GuiContext, base: PlayOptions, error: str = "",
                 typed: dict[str, str] | None = None) -> None:
        """`typed`: the fields as the last try left them (back from a failure)."""
        super().__init__(ctx, base)
        p = ctx.user.preferences()
        self.mode = p.online_mode if p.online_mode in MODES else "host"
        # A server's join code names one game: once it is played the server
        # refuses it, so it is kept only for another try, never remembered.
        self.values = {"port": p.online_port or str(DEFAULT_PORT),
                       "host_code": p.online_host_code, "address": p.online_address,
                       "code": p.online_code, "name": p.online_name or default_name(),
                       "server": p.online_server, "server_code": "", "clock": "",
                       **(typed or {})}
        self.colour = p.online_colour if p.online_colour in ("white", "red") else "white"
        names = [lv.name for lv in LEVELS]
        self.player = p.online_player if p.online_player in names else "human"
        self.error = error
        self.lobby = LobbyLook()
        self.focus.key = f"mode.{self.mode}"

    # ------------------------------------------------------------- widgets
    def rows(self) -> list[tuple[str, str]]:
        """(key, caption) of the mode's rows, after the row of modes."""
        if self.mode == "host":
            return [("port", "Port"), ("host_code", "Join code"), ("colour", "You play"),
                    ("player", "Played by"), ("name", "Your name")]
        if self.mode == "join":
            return [("address", "Host's address"), ("code", "Join code"),
                    ("name", "Your name")]
        if self.mode == "server":
            return [("server", "Server"), ("server_code", "Join code"), ("clock", "Clock"),
                    ("challenges", "Lobby"), ("name", "Your name")]
        return [("address", "Host's address")]

    def build(self, root: UIContainer, m: Metrics) -> None:
        rows = self.rows()
        title, rects, note, back, go = online_layout(m.size, len(rows) + 1)
        label(title, self.title, root, "#home_title")
        self.widgets, self.grid = {}, []
        label(rects[0][0], "Online", root, "#heading")
        self.grid.append(self._options(rects[0][1], m, root, [
            (f"mode.{k}", text, k == self.mode, self._setter("mode", k))
            for k, text in MODES.items()]))
        for (key, caption), (left, right) in zip(rows, rects[1:]):
            label(left, caption, root, "#heading")
            self.grid.append(self._field(key, right, m, root))
        text = (f"<font color='#FF7A85'><b>{_escape(self.error)}</b></font>" if self.error
                else _NOTES[self.mode])
        self.note = UITextBox(text, note, root.ui_manager, container=root,
                              object_id=ObjectID("#home_note", "@text_box"))
        self.widgets["back"] = self.on(button(back, "Back", root), lambda _e: self.back())
        self.widgets["go"] = self.on(button(go, _GO[self.mode], root, "#primary"),
                                     lambda _e: self.go())
        self.grid.append(["back", "go"])

    def _field(self, key: str, rect: Rect, m: Metrics, root: UIContainer) -> list[str]:
        if key == "challenges":
            items = [("challenges.look", "Look" if self.lobby.challenges is None else "Again",
                      False, lambda _e: self._look())]
            for i, c in enumerate(self.lobby.challenges or []):
                items.append((f"challenges.{i}", f"{c.name} {_clock_shown(c.clock)} "
                              f"(you: {c.free})", False, self._accept(c.code)))
            return self._options(rect, m, root, items)
        if key == "colour":
            return self._options(rect, m, root, [
                (f"colour.{c}", text, c == self.colour, self._setter("colour", c))
                for c, text in (("white", "White (moves first)"), ("red", "Red"))])
        if key == "player":
            choices = [("human", "You"), *((lv.name, f"{lv.label} AI" if m.scale > 0.9
                                            else lv.label) for lv in LEVELS)]
            return self._options(rect, m, root, [
                (f"player.{k}", text, k == self.player, self._setter("player", k))
                for k, text in choices])
        holder = {"host_code": "leave empty: one is made up", "code": "from your friend's screen",
                  "address": "e.g. 192.168.1.5:5907", "server": "e.g. https://csl.example.org",
                  "server_code": "leave empty: a challenge in the lobby",
                  "clock": "none; or minutes+seconds a move, as 3+2"}.get(key)
        entry = HintedEntry(Rect(rect.x, rect.y + 2, rect.w, rect.h - 4), root.ui_manager,
                            container=root, initial_text=self.values[key],
                            placeholder_text=holder,
                            object_id=ObjectID(f"#online_{key}", "@entry"))
        entry.set_text_length_limit(MAX_NAME if key == "name" else
                                    200 if key == "server" else MAX_CODE)
        self.widgets[key] = self.on(entry, self._typed(key))
        return [key]

    def _options(self, rect: Rect, m: Metrics, root: UIContainer,
                 items: list[tuple[str, str, bool, Callable[[pygame.event.Event], None]]]
                 ) -> list[str]:
        made = option_buttons(rect, items, m, root, self.on)
        self.widgets.update(made)
        return list(made)

    def _look(self) -> None:
        """Ask the server for its open challenges (in the background)."""
        self._read_entries()
        try:
            self.lobby.look(self.values["server"])
        except ValueError as e:
            self.error = str(e)
        self.rebuild()

    def _accept(self, code: str) -> Callable[[pygame.event.Event], None]:
        def accept(_event: pygame.event.Event) -> None:
            entry = self.widgets.get("server_code")
            if isinstance(entry, UITextEntryLine):
                entry.set_text(code)  # go() reads the entries
            self.go()
        return accept

    def update(self, dt: float) -> None:
        super().update(dt)
        if self.lobby.take_news():
            self.error = self.lobby.problem or (
                "" if self.lobby.challenges else "No open challenges there just now: "
                "leave the code empty to open one")
            self.rebuild()

    def _setter(self, what: str, value: str) -> Callable[[pygame.event.Event], None]:
        def pick(_event: pygame.event.Event) -> None:
            setattr(self, what, value)
            self.error = ""
            self.focus.key = f"{what}.{value}"
            self.rebuild()
        return pick

    def _typed(self, key: str) -> Callable[[pygame.event.Event], None]:
        def typed(event: pygame.event.Event) -> None:
            if getattr(event, "text", None) is not None:
                self.values[key] = event.text
        return typed

    def handle_event(self, event: pygame.event.Event) -> None:
        if event.type == pygame.MOUSEBUTTONUP:
            self.focus.follow_mouse()
        if SCREEN_KEYS.binding("go").matches(event) and \
                self.focus.key in self._chosen():
            self.go()  # Enter on what is chosen already goes
            return
        if (SCREEN_KEYS.binding("go").matches(event)
                and isinstance(self.focus.widget(), UITextEntryLine)
                and self.focus.key not in self.grid[-2]):
            self._jump(1)  # the next field; Enter in the last one goes, as a form does
            self._changed = True
            return
        super().handle_event(event)

    def _chosen(self) -> set[str]:
        return {f"mode.{self.mode}", f"colour.{self.colour}", f"player.{self.player}"}

    # ------------------------------------------------------------- going
    def _read_entries(self) -> None:
        for key, widget in self.widgets.items():
            if isinstance(widget, UITextEntryLine):
                self.values[key] = widget.get_text().strip()

    def go(self) -> None:
        self._read_entries()
        try:
            table, where, lines = self._start()
        except (CslError, ValueError) as e:
            self.error = str(e)
            self.rebuild()
            return
        self.ctx.user.update_preferences(
            online_mode=self.mode, online_port=self.values["port"],
            online_host_code=self.values["host_code"], online_address=self.values["address"],
            online_code=self.values["code"], online_name=self.values["name"],
            online_colour=self.colour, online_player=self.player,
            online_server=self.values["server"], online_server_code="")
        self.ctx.nav.show(OnlineWaitScene(self.ctx, self._again, table, where, lines))

    def _again(self, error: str) -> None:
        self.ctx.nav.show(OnlineScene(self.ctx, self.base, error, dict(self.values)))

    def _start(self) -> tuple[Table, str, list[tuple[str, str]]]:
        """The game to wait for, a line saying where it is, the screen's lines.

        Raises:
            CslError: the address cannot be listened on or looked up.
            ValueError: what was typed is not an address, a code or a name.
        """
        if self.mode == "host":
            return self._host()
        if self.mode == "server":
            return self._server()
        address = _address(self.values["address"])
        shown = f"{address[0]}:{address[1]}"
        if self.mode == "watch":
            watch = WatchTable(address)  # a tournament broadcast, or a hosted match
            return watch, f"Watching {shown}", [("Watching", shown)]
        hello = Hello(PROTOCOL_VERSION, "player", _code(self.values["code"], "the join code"),
                      self._name(), "human")
        table = JoinedTable(address, hello)
        return table, f"Playing online with {shown}", [("Joining", shown)]

    def _host(self) -> tuple[Table, str, list[tuple[str, str]]]:
        try:
            address = parse_address(self.values["port"] or str(DEFAULT_PORT), bare=True)
        except ValueError as e:
            raise ValueError(f"Port: {e}") from None
        code = self.values["host_code"]
        name = self._name()
        mc = board_options(self.base, self.ctx.user.last_setup(self.base)).match
        local: Player = Human()
        if self.player != "human":
            lv = level(self.player)
            local = ThinkerPrototype(lv.thinker, lv.params, mc, self.base.thinker_paths)
            name = f"{lv.label} AI"
        colour = PColor.RED if self.colour == "red" else PColor.WHITE
        host = Host(mc, local, name, colour, address,
                    code=_code(code, "the join code") if code else None,
                    runner_factory=self.ctx.runner_factory or ThreadRunner, limits=HOST_LIMITS)
        table = HostTable(host, local, self.base.results_file)
        where = f"Hosting on port {host.port} \u00b7 code {host.code}"
        return table, where, invitation(host)

    def _server(self) -> tuple[Table, str, list[tuple[str, str]]]:
        url = self.values["server"]
        if not url.startswith(("http://", "https://")):
            raise ValueError("Server: its address, http://HOST:PORT or https://HOST")
        code = "".join(self.values["server_code"].split()) or None  # as read out: "K7QM 4XDT…"
        if code is not None and not all(c.isalnum() or c in "-_" for c in code):
            raise ValueError("Join code: letters, digits, - and _, as the server gave it")
        name = self._name()
        if not all(c.isalnum() or c in " _.+-" for c in name):
            raise ValueError("Your name: letters, digits, spaces and _.+- on a server")
        try:  # the server's client (aiohttp) loads only when a server is played on
            from csl_game.gui.server_table import ServerTable
            from csl_game.server import BotError
        except ImportError:
            raise ValueError("Playing on a server needs csl-game[server] "
                             "(pip install 'csl-game[server]')") from None
        try:
            table = ServerTable(url, name, code, clock=None if code else
                                _time_control(self.values["clock"]))
        except BotError as e:
            raise ValueError(f"Server: {e}") from None
        return table, f"Playing on {url}", list(table.waiting().lines)

    def _name(self) -> str:
        name = self.values["name"] or default_name()
        if not name.isprintable() or len(name) > MAX_NAME:
            raise ValueError(f"Your name: at most {MAX_NAME} printable characters")
        return name


def _address(text: str) -> tuple[str, int]:
    if not text:
        raise ValueError("Type the host's address: HOST:PORT, as the host's screen shows it")
    try:
        return parse_address(text)
    except ValueError as e:
        raise ValueError(f"Host's address: {e}") from None


def _code(code: str, what: str) -> str:
    if code_problem(code) is not None:
        raise ValueError(f"{what.capitalize()}: {MIN_CODE} to {MAX_CODE} letters and digits, "
                         "no spaces")
    return code


_CLOCK = re.compile(r"(\d+(?:\.\d+)?)\s*(s?)\s*\+\s*(\d+(?:\.\d+)?)\s*s?")
"""A time control as typed: minutes (or seconds, with s) + seconds a move."""


def _time_control(text: str) -> TimeControl | None:
    """The clock typed ('3+2': minutes + seconds a move, '30s+0'; '' or none: no clock).

    Raises:
        ValueError: it is none of those, or out of the server's range.
    """
    text = text.strip().lower()
    if text in ("", "none", "no clock", "-"):
        return None
    from csl_game.server.clock import TimeControl  # with the server's client, when played

    found = _CLOCK.fullmatch(text)
    if found is None:
        raise ValueError("Clock: minutes+seconds a move, as 3+2 (30s+0 for seconds), "
                         "or none")
    base = float(found[1]) * (1 if found[2] else 60)
    try:
        return TimeControl.from_doc({"base": base, "increment": float(found[3])})
    except ProtocolError as e:
        raise ValueError(f"Clock: {e}") from None


def _clock_shown(tc: str) -> str:
    """A lobby's time control ('180+2', seconds) as typed here and on lichess: '3+2'
    (a base of seconds not whole minutes: '30s+0'); '' is 'no clock'."""
    if not tc:
        return "no clock"
    base, inc = (float(part) for part in tc.split("+"))
    return control_text(base, inc)


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
