"""A match's page: its board stepped move by move, how it ended, the
thinkers' figures as graphs, its moves, its data, the matches beside it."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from csl_game.services.site.charts import Series, board_svg, line_chart
from csl_game.services.site.markup import (
    RESULTS_NAME,
    Col,
    esc,
    figures_text,
    forfeiter,
    how_it_ended,
    html_table,
    isolate,
    match_page_name,
    name_html,
    public_detail,
    result_text,
    settings_text,
)
from csl_game.services.site.pages import Site

__all__ = ["match_page", "SCORE_CAP"]

SCORE_CAP = 1000.0
"""Scores beyond this (proven wins and losses) are drawn at it."""


def match_page(site: Site, doc: dict[str, Any], text: bool = True) -> str:
    """The page of a match of `site` (`text`: with a link to its text record)."""
    index = int(doc.get("match", 0))
    white, red = doc["white"]["name"], doc["red"]["name"]
    moves = list(doc.get("moves", ()))
    settings = doc.get("settings", {})
    title = f"Match {index + 1}: {isolate(white)} (White) vs {isolate(red)} (Red)"
    final = board_svg(settings, moves, len(moves), doc.get("solution", ()),
                      f"The board after all {len(moves)} moves")
    data = {"settings": settings, "moves": moves, "solution": doc.get("solution", []),
            "white": white, "red": red}
    rows = []
    for i, m in enumerate(moves):
        rows.append([esc(i + 1), esc(f"{m['col']}{m['shape'][0]}"),
                     esc(f"{m['color'].title()} {m['shape']} in column {m['col']}"),
                     esc(f"{m['ms']:.1f}"),
                     esc("-" if m.get("wall_ms") is None else f"{m['wall_ms']:.1f}"),
                     esc(figures_text(m.get("figures") or {}))])
    detail = public_detail(doc.get("detail") or "")
    result = [f'<p class="result"><strong>{result_text(doc)}</strong> &middot; '
              f"{esc(how_it_ended(doc))}</p>"]
    if doc.get("forfeit"):
        who = forfeiter(doc)
        lead = f"{who} forfeited: " if who else ""
        if "\n" in detail:
            result.append(f'<div class="detail"><p>{lead}{esc(how_it_ended(doc))}.</p>'
                          f"<pre>{esc(detail)}</pre></div>")
        else:
            result.append(f'<p class="detail">{lead}{esc(detail or how_it_ended(doc))}'
                          "</p>")
    if moves:
        player = ('<section id="replay" aria-labelledby="replay-h" class="player">'
                  '<h2 id="replay-h" class="sr-only">The board</h2>'
                  f'<div class="boardbox" id="board">{final}</div>'
                  '<div class="controls" role="group" aria-label="Step through the moves" '
                  'hidden>'
                  '<button type="button" data-step="first" aria-label="First position">'
                  '<span aria-hidden="true">|&#x25C0;</span></button>'
                  '<button type="button" data-step="prev" aria-label="Previous move">'
                  '<span aria-hidden="true">&#x25C0;</span></button>'
                  '<button type="button" data-step="play" class="play">'
                  '<span aria-hidden="true">&#x25B6;</span> Play</button>'
                  '<button type="button" data-step="next" aria-label="Next move">'
                  '<span aria-hidden="true">&#x25B6;</span></button>'
                  '<button type="button" data-step="last" aria-label="Final position">'
                  '<span aria-hidden="true">&#x25B6;|</span></button></div>'
                  f'<p class="status" id="status" aria-live="polite">After all '
                  f"{len(moves)} moves.</p></section>")
    else:
        player = ('<section id="replay" aria-labelledby="replay-h" class="player">'
                  '<h2 id="replay-h" class="sr-only">The board</h2>'
                  f'<div class="boardbox">{final}</div><p class="status">No move was '
                  "played.</p></section>")
    stem = match_page_name(index)[:-len(".html")]
    downloads = ('<section id="data" aria-labelledby="data-h"><h2 id="data-h">Data</h2>'
                 "<ul>" + (f'<li><a href="{stem}.txt" download>The match as text '
                           f"({stem}.txt)</a>, as the reference competition's console "
                           "prints it</li>" if text else "")
                 + f'<li><a href="{stem}.json" download>The match as JSON ({stem}.json)'
                 f"</a>, its line of the results file</li>"
                 f'<li><a href="{RESULTS_NAME}" download>Every match ({RESULTS_NAME})</a>'
                 "</li></ul></section>")
    moves_table = ""
    if moves:
        cols = [Col("#", True, "Move"), Col("Move", label=""), Col("Played", label=""),
                Col("ms", True), Col("Wall ms", True),
                Col("Thinker's figures", label="Figures")]
        moves_table = ('<section id="moves" aria-labelledby="moves-h">'
                       '<h2 id="moves-h">Moves</h2>' + html_table(
                           cols, rows, "Every move with its thinking time on the match's "
                           "clock and on the wall clock, and what the thinker reported; "
                           "choose one to show it", row_header=0,
                           ident="moves") + "</section>")
    body = "".join([*result, f'<p class="settings">{esc(settings_text(settings))}</p>',
                    player, _figures_chart(moves), moves_table, downloads,
                    '<script type="application/json" id="match-data">'
                    + json.dumps(data).replace("</", "<\\/") + "</script>"])
    before, after = site.neighbours(index)
    total = f" of {site.event.total}" if site.event.total else ""
    nav = ('<nav class="matchnav" aria-label="Other matches"><ul>'
           '<li><a href="index.html">All matches</a></li>'
           + (f'<li><a rel="prev" href="{match_page_name(before)}" id="prev-match">'
              f"&larr; Match {before + 1}</a></li>" if before is not None else
              '<li><a rel="prev" id="prev-match" hidden>&larr;</a></li>')
           + (f'<li><a rel="next" href="{match_page_name(after)}" id="next-match">'
              f"Match {after + 1} &rarr;</a></li>" if after is not None else
              '<li><a rel="next" id="next-match" hidden>&rarr;</a></li>')
           + "</ul></nav>")
    heading = (f'<p class="crumb"><a href="index.html">{esc(site.event.title)}</a>'
               f" &middot; match {index + 1}{total}</p><h1>Match {index + 1}: "
               f'{name_html(white)} <span class="side">(White)</span> vs {name_html(red)} '
               '<span class="side">(Red)</span></h1>')
    return site.page(f"{title} \u2013 {site.event.title}", body, "match", heading, nav,
                     match=index)

def _figures_chart(moves: Sequence[dict[str, Any]]) -> str:
    """White's advantage by the scores the thinkers reported (each scores from
    the mover's side), and each move's search depth, when any were reported;
    both over the move numbers, with a marker at the move shown."""
    scores, depths = [], []
    for n, m in enumerate(moves, 1):
        figures = m.get("figures") or {}
        if "score" in figures:
            sign = 1 if m["color"] == "white" else -1
            # a proven win is scored near a million: drawn at the chart's edge
            scores.append((float(n), max(-SCORE_CAP, min(SCORE_CAP,
                                                         sign * float(figures["score"])))))
        if "depth" in figures:
            depths.append((float(n), float(figures["depth"])))
    span = (1.0, float(max(2, len(moves))))
    charts = ""
    if scores:
        charts += line_chart([Series("White's advantage", tuple(scores))],
                             "Evaluation over the game: White's advantage by the "
                             f"thinkers' own scores (drawn at most \u00b1{SCORE_CAP:g})",
                             "move", x_range=span, cursor=True)
    if depths:
        charts += line_chart([Series("search depth (plies)", tuple(depths))],
                             "Search depth of each move, in plies", "move",
                             x_range=span, cursor=True, integer_y=True)
    return (f'<section id="graphs" aria-labelledby="graphs-h"><h2 id="graphs-h">Graphs'
            f"</h2>{charts}</section>" if charts else "")
