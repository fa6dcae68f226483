"""The server's HTML pages, rendered from its data with every value escaped.

Each page works without its script (tables of the ladder, the games, the
moves and the result) and comes alive with it (csl_game/server/static/play.js:
the lobby kept up to date, the board played and watched over the WebSocket).
The look is the project's site's: its own style sheet is served beside the
server's few additions, and a finished game's board is drawn by the site's
`board_svg`. Every name is isolated as the site's are (`name_html`: a <bdi>;
`isolate` in the title), so a name written right to left, or holding a
direction override, cannot reorder the words around it.
"""

from __future__ import annotations

import json
from html import escape
from importlib import resources
from typing import Any

from csl_game.engine import ForfeitReason
from csl_game.services.site import board_svg, how_it_ended
from csl_game.services.site.markup import isolate, name_html

__all__ = ["lobby_page", "game_page", "player_page", "message_page", "static_file", "STATIC",
           "CLOCKS"]

STATIC = {
    "play.js": ("csl_game.server", "static/play.js", "text/javascript"),
    "server.css": ("csl_game.server", "static/server.css", "text/css"),
    "site.css": ("csl_game.assets", "site/style.css", "text/css"),
}
"""The files under /static/: a fixed list of names, never a path from a request."""
_CACHE: dict[str, bytes] = {}


def static_file(name: str) -> tuple[bytes, str] | None:
    """A static file's bytes and content type, or None when `name` is not one."""
    found = STATIC.get(name)
    if found is None:
        return None
    package, path, content_type = found
    if name not in _CACHE:
        _CACHE[name] = resources.files(package).joinpath(path).read_bytes()
    return _CACHE[name], content_type


def _e(value: object) -> str:
    return escape(str(value), quote=True)


def _page(title: str, body: str, data: dict[str, Any], refresh: int = 0,
          heading: str = "") -> str:
    """A page titled `title` (plain text), its heading `heading` (markup; the
    title escaped if none)."""
    return (
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        f"<title>{_e(title)}</title>"
        # without the script the page reloads itself; with it, it reads the part that changes
        + (f"<noscript><meta http-equiv=\"refresh\" content=\"{refresh}\"></noscript>"
           if refresh else "")
        + "<link rel=\"icon\" href=\"data:,\"><link rel=\"stylesheet\" href=\"/static/site.css\">"
        "<link rel=\"stylesheet\" href=\"/static/server.css\">"
        "<script src=\"/static/play.js\" defer></script></head>"
        f"<body data-page=\"{_e(data.get('page', ''))}\" "
        f"data-doc=\"{_e(json.dumps(data, separators=(',', ':')))}\">"
        "<header><p class=\"crumb\"><a href=\"/\">ColorShapeLinks server</a></p>"
        f"<h1>{heading or _e(title)}</h1></header><main id=\"main\">{body}</main></body></html>\n")


def _table(caption: str, table_id: str, head: list[str], rows: list[list[str]],
           empty: str = "") -> str:
    ths = "".join(f"<th scope=\"col\">{_e(h)}</th>" for h in head)
    trs = "".join("<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>"
                  for row in rows)
    if not rows and empty:  # a table with nothing in it says so
        trs = f"<tr><td class=\"empty\" colspan=\"{len(head)}\">{_e(empty)}</td></tr>"
    # a box that may scroll (a phone) is a labelled region reached by the keyboard
    return (f"<div class=\"scroll\" tabindex=\"0\" role=\"region\" "
            f"aria-label=\"{_e(caption)}\"><table id=\"{table_id}\"><caption>{_e(caption)}"
            f"</caption><thead><tr>{ths}</tr></thead><tbody>{trs}</tbody></table></div>")


def _rating(row: dict[str, Any]) -> str:
    if row.get("rating") is None:
        return "-"
    low, high = row["ci95"]
    return f"{row['rating']:.0f} &plusmn; {(high - low) / 2:.0f}"


def _you(you: tuple[str, float] | None) -> str:
    """Who this browser is signed in as (and a way out), or the forms to sign up and in."""
    if you is not None:
        name, rating = you
        return (f"<p id=\"you\" data-account=\"{_e(name)}\">Signed in as <a href=\"/@/"
                f"{_e(name)}\">{name_html(name)}</a> (rating {rating:.0f}). "
                "<label class=\"js-only\" hidden>Rated <input type=\"checkbox\" id=\"rated\">"
                "</label></p><form method=\"post\" action=\"/api/logout\">"
                "<button type=\"submit\" id=\"logout\">Log out</button></form>")
    return ("<details id=\"account\"><summary>Sign up or log in (rated games, your name "
            "kept for you)</summary><form method=\"post\" action=\"/api/login\" id=\"sign\">"
            "<label>Name <input name=\"name\" id=\"account-name\" maxlength=\"40\" required "
            "autocomplete=\"username\"></label> <label>Password <input type=\"password\" "
            "name=\"password\" id=\"account-password\" minlength=\"8\" maxlength=\"128\" "
            "required autocomplete=\"current-password\"></label> <button type=\"submit\" "
            "id=\"login\">Log in</button> <button type=\"submit\" id=\"signup\" "
            "formaction=\"/api/signup\">Sign up</button></form></details>")


def message_page(title: str, text: str) -> str:
    """A short page that says one thing, with the way back to the lobby."""
    return _page(title, f"<p id=\"message\">{_e(text)}</p><p><a href=\"/\">Back to the "
                 "lobby</a></p>", {"page": "message"})


def player_page(doc: dict[str, Any]) -> str:
    """A player's page (/@/NAME): its rating, the rating each rated game gave, its games."""
    history = [[f"<a href=\"/game/{_e(h['game'])}\">{_e(h['game'])}</a>",
                f"{h['rating']:.0f}", f"{h['rd']:.0f}"] for h in doc["history"]]
    games = [[f"<a href=\"/game/{_e(g)}\">{_e(g)}</a>"] for g in reversed(doc["games"])]
    body = (f"<p id=\"rating\">Rating {doc['rating']:.0f} &plusmn; {doc['rd']:.0f} "
            "(Glicko-2)</p>"
            + _table("The rating after each rated game, oldest first", "history",
                     ["Game", "Rating", "Deviation"], history, "No rated game yet.")
            + _table("Every game, newest first", "player-games", ["Game"], games,
                     "No game yet."))
    return _page(isolate(doc["name"]), body, {"page": "player"}, heading=name_html(doc["name"]))


def lobby_page(lobby: dict[str, Any], you: tuple[str, float] | None = None) -> str:
    """The lobby: make or accept a game, the games being played, the ladder;
    who this browser is signed in as (`you`: name and rating), or how to sign in."""
    ladder = [[str(i + 1), name_html(r["name"]), _rating(r), str(r["games"]),
               "yes" if r.get("online") else "no"]
              for i, r in enumerate(lobby["ladder"])]
    games = [[f"<a href=\"/game/{_e(g['game'])}\">{name_html(g['white'])} - "
              f"{name_html(g['red'])}</a>",
              _e(g["kind"]), str(g["ply"]), str(g.get("watchers", 0))] for g in lobby["games"]]
    challenges = [[name_html(c["name"]), _e(c["free"]),
                   _e((c.get("clock") or "none") + (", rated" if c.get("rated") else "")),
                   f"<a href=\"/game/{_e(c['game'])}?code={_e(c['code'])}\">Accept</a>"]
                  for c in lobby["challenges"]]
    body = (
        "<section id=\"new\" aria-labelledby=\"new-h\"><h2 id=\"new-h\">Play</h2>"
        + _you(you) +
        "<p class=\"needs-js\">Playing needs JavaScript; the tables below work without it.</p>"
        "<form id=\"create\" class=\"js-only\" hidden>"
        "<label>Your name <input id=\"name\" name=\"name\" maxlength=\"40\" "
        "autocomplete=\"nickname\" required></label> "
        "<label>Colour <select id=\"color\"><option value=\"random\">random</option>"
        "<option value=\"white\">White</option><option value=\"red\">Red</option></select>"
        "</label> <label>Clock <select id=\"clock\"><option value=\"\">none</option>"
        + "".join(f"<option value=\"{base}+{inc}\">{label}</option>" for base, inc, label in CLOCKS)
        + "</select></label><div class=\"buttons\">"
        "<button type=\"button\" id=\"friend\">Play a friend (a link to share)</button> "
        "<button type=\"button\" id=\"open\">Open a challenge</button> "
        "<label>AI <select id=\"level\"><option>easy</option>"
        "<option selected>medium</option><option>hard</option></select></label> "
        "<button type=\"button\" id=\"ai\">Play the AI</button></div>"
        "<p id=\"status\" role=\"status\"></p></form></section>"
        "<h2>Open challenges</h2>"
        + _table("Games waiting for an opponent", "challenges",
                 ["Player", "Your colour", "Clock", "Accept"], challenges,
                 "No open challenge right now: open one above.")
        + "<h2>Games being played</h2>"
        + "<p><a href=\"/tv\" id=\"tv\">TV: the best-rated game being played</a></p>"
        + _table("Click a game to watch it", "games", ["Game", "Kind", "Moves", "Watching"],
                 games,
                 "No game is being played right now.")
        + "<h2>Ladder</h2>"
        + _table("Bots' Bradley-Terry ratings with 95 % intervals, best first", "ladder",
                 ["#", "Bot", "Rating", "Games", "Online"], ladder,
                 "No bot has joined the ladder yet.")
        + "<p class=\"js-only\" id=\"ladder-note\" hidden>A bot that is online takes a "
          "game against you: its Play button.</p>"
        + "<p>The best bots are shown; <a href=\"/api/ladder\">the whole ladder</a> "
          "(JSON).</p>")
    return _page("Lobby", body, {"page": "lobby"})


def _analysis(doc: dict[str, Any], analysis: dict[str, Any] | None) -> str:
    """A finished game's analysis: each side's accuracy and every move graded."""
    state = doc.get("analysis")
    if analysis is None:
        if state == "queued":
            return ("<h2>Analysis</h2><p id=\"analysis\" class=\"state\">The server is "
                    "analysing this game's moves; this page shows them when it is done.</p>")
        return ("<h2>Analysis</h2><p id=\"analysis\" class=\"state\">The server is busy "
                "analysing other games; open this page again later for this one's.</p>")
    acc = analysis.get("accuracy", {})
    said = ", ".join(f"{side.title()} {acc[side]:.0f} %" for side in ("white", "red")
                     if acc.get(side) is not None)
    rows = [[str(m["ply"] + 1), _e(m["color"].title()), _e(m["move"]), _e(m["grade"]),
             _e(m["best"]), _e(m["best_value"]), f"{m['accuracy']:.0f}"]
            for m in analysis.get("moves", [])]
    return ("<h2>Analysis</h2>"
            f"<p id=\"accuracy\">Accuracy: {_e(said or 'no moves')}</p>"
            + _table("Each move against the best one in its position (the server's review)",
                     "analysis", ["#", "Side", "Played", "Grade", "Best", "Its value",
                                  "Accuracy"], rows))


_AFTER = ("<div id=\"after\" class=\"buttons\"><button type=\"button\" id=\"rematch\" "
          "class=\"js-only\" hidden>Rematch</button> <button type=\"button\" "
          "id=\"decline-rematch\" class=\"js-only\" hidden>Decline the rematch</button> "
          "<a href=\"/#new\">New game</a> "
          "<a href=\"/\">Back to the lobby</a></div>")
"""What a finished game offers: a rematch (to its players, with the script; the
other's asked for is accepted or declined), a new game, the lobby."""
CLOCKS = ((60, 1, "1+1"), (180, 2, "3+2"), (300, 3, "5+3"), (600, 5, "10+5"),
          (1800, 20, "30+20"))
"""The lobby's time controls: minutes and seconds a move, as lichess writes them."""


_CLOCKS = ("<div id=\"clocks\" class=\"clocks\" hidden><span id=\"clock-white\" "
           "class=\"clock\" role=\"timer\"></span><span id=\"clock-red\" class=\"clock\" "
           "role=\"timer\"></span></div>")
"""Both sides' clocks (a game with clocks; the script shows them ticking)."""
_REPLAY = ("<div id=\"replay\" class=\"buttons js-only\" hidden>"
           + "".join(f"<button type=\"button\" id=\"{key}\" aria-label=\"{label}\">"
                     f"<svg viewBox=\"0 0 16 16\" aria-hidden=\"true\" focusable=\"false\">"
                     f"<path d=\"{path}\"/></svg></button>"
                     + ("<span id=\"step\" aria-live=\"polite\"></span>" if key == "prev" else "")
                     for key, label, path in (
                         ("first", "The first move", "M3 2h2v12H3zM13 2v12L6 8z"),
                         ("prev", "The move before", "M12 2v12L4 8z"),
                         ("next", "The next move", "M4 2v12l8-6z"),
                         ("last", "The last move", "M11 2h2v12h-2zM3 2v12l7-6z")))
           + "</div>")
"""A finished game's steps through its moves (the script's; also &larr; &rarr; Home End),
drawn as shapes, not characters: the first and last (U+23EE, U+23ED) are in
few fonts, and showed as empty boxes where they were not."""


def result_words(doc: dict[str, Any], html: bool = False) -> str:
    """A finished game's result in words: 'White (Ann) won by sequence', 'Red
    (Bob) won: White (Ann) raised an exception', 'Draw by draw'; with `html`,
    escaped and each name isolated (`name_html`)."""
    text, name = (_e, name_html) if html else (str, str)
    winner = doc.get("winner")
    if winner == "draw":
        return text(f"Draw: {doc['detail']}" if doc.get("detail")
                    else f"Draw by {how_it_ended(doc)}")
    said = f"{text(str(winner).title())} ({name(doc.get('winner_name'))}) won"
    forfeit = doc.get("forfeit")
    reason = next((r for r in ForfeitReason if r.name.lower() == forfeit), None)
    if reason is not None:
        loser = "red" if winner == "white" else "white"
        side = doc.get(loser)
        who = side.get("name") if isinstance(side, dict) else side
        return f"{said}: {loser.title()} ({name(who)}) {text(reason.value)}"
    return f"{said} by {text(how_it_ended(doc))}"


REASON_WORDS = {r.name.lower(): r.value for r in ForfeitReason}
"""How a forfeit reads (the results files' names to the words every report
uses), for the game page's script: a game that ends while watched says what
its finished page will."""


def game_page(doc: dict[str, Any], analysis: dict[str, Any] | None = None) -> str:
    """A game: live (played or watched through the script), or finished (its
    board, result, moves and, once made, their analysis)."""
    over = doc.get("state") == "over"
    white, red = doc["white"], doc["red"]
    moves = doc.get("moves", [])
    rows = [[str(i + 1), "White" if i % 2 == 0 else "Red", _e(m["col"]), _e(m["shape"]),
             f"{float(m['ms']):.0f}"] for i, m in enumerate(moves)]
    if over:
        board = board_svg(doc["settings"], moves, len(moves), doc.get("solution", ()),
                          "the final position")
        detail = f" <span class=\"side\">{_e(doc['detail'])}</span>" \
            if doc.get("detail") and doc.get("winner") != "draw" else ""
        top = (f"<p class=\"result\" id=\"result\">{result_words(doc, html=True)}"
               f"{detail}</p><div class=\"boardbox\" id=\"board\">{board}</div>" + _REPLAY
               + _AFTER + (f"<p><a href=\"/api/games/{_e(doc['id'])}.pgn\" id=\"pgn\">"
                           "The game as PGN</a></p>" if doc.get("id") else ""))
    else:
        top = ("<p class=\"result\" id=\"result\">Being played</p>" + _CLOCKS
               + "<div class=\"boardbox\" id=\"board\"></div>")
    body = (
        f"{top}<p id=\"watchers\" class=\"state\" hidden></p><div id=\"share\" hidden><p>Send this link to your opponent: <code id=\"share-link\"></code> "
        "<button type=\"button\" id=\"copy-link\" hidden>Copy link</button> "
        "<span id=\"copied\" role=\"status\"></span></p><p>Or tell them the join code: "
        "<strong id=\"share-code\"></strong></p></div><p id=\"away\" role=\"status\" hidden></p>"
        "<p id=\"offer\" role=\"status\" hidden></p>"
        "<form id=\"join\" class=\"js-only\" hidden><label>Your name <input id=\"name\" "
        "name=\"name\" maxlength=\"40\" autocomplete=\"nickname\"></label> "
        "<button type=\"button\" id=\"take\">Take the seat</button></form>"
        + ("" if over else _AFTER.replace("<div id=\"after\"", "<div id=\"after\" hidden"))
        + "<div id=\"controls\" class=\"js-only\" hidden>"
        "<button type=\"button\" id=\"round\" aria-pressed=\"true\">Round (R)</button> "
        "<button type=\"button\" id=\"square\" aria-pressed=\"false\">Square (S)</button> "
        "<button type=\"button\" id=\"draw\">Offer a draw</button> "
        "<button type=\"button\" id=\"decline-draw\" hidden>Decline the draw</button> "
        "<button type=\"button\" id=\"takeback\">Take back</button> "
        "<button type=\"button\" id=\"decline-takeback\" hidden>Decline the takeback"
        "</button> "
        "<button type=\"button\" id=\"resign\">Resign</button> "
        "<button type=\"button\" id=\"claim\" hidden>Claim the win</button>"
        "<button type=\"button\" id=\"cancel\" hidden>Cancel the challenge</button>"
        "<p class=\"state\">Click or tap a column, or choose one with &larr; &rarr; and "
        "play it with Enter.</p></div><p id=\"status\" role=\"status\"></p>"
        "<h2>Moves</h2>"
        + _table("Column, shape and the time each took", "moves",
                 ["#", "Side", "Column", "Shape", "ms"], rows)
        + (f"<section id=\"review\">{_analysis(doc, analysis)}</section>" if over else ""))
    refresh = 5 if over and analysis is None and doc.get("analysis") == "queued" else 0
    names = [white or "?", red or "?"]
    return _page(" - ".join(map(isolate, names)), body,
                 {"page": "game", **doc, "reasons": REASON_WORDS}, refresh,
                 " - ".join(map(name_html, names)))
