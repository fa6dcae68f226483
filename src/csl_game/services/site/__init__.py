"""A tournament's own web site, from the lines of a results file.

`write_site()` writes a self-contained static site into a folder: no network,
no CDN, nothing but HTML, CSS, SVG drawn here and one small script of the
project's own (``site.js``). It works from ``file://`` and from any static
host, on a phone as on a desktop:

- ``index.html``: the title and how far the event is (starting, live, final,
  stopped), the winner once it is over, the matches being played (their board
  as it stands when they are played here), the standings (points, W/D/L,
  score and maximum-likelihood Elo with its 95 % interval), the schedule of
  the matches still to play with the time they should take, the crosstable
  (each game a link to its match), every match with how it ended, the event's
  statistics, two plots (points over the matches, the ratings with their
  error bars) and the data to download;
- ``match-N.html`` per match (N as everywhere: from 1, in the session's
  order): the board drawn as in the game, stepped with buttons, keys, the
  move list or a link (``#move=12``), the thinkers' reported depth and score
  as graphs that mark the move shown, the previous and next match;
- the data behind the pages: ``matches.jsonl`` (the results file: a JSON line
  per match, as ``csl-game report`` reads it), and per match ``match-N.txt``
  (the match as the reference competition's console prints it) and
  ``match-N.json`` (its line);
- ``live.js`` and ``live.json``: how far the event is, written as it goes. A
  live page loads ``live.js`` every POLL_SECONDS and redraws what changed
  (the index its sections, from ``index-live.js`` and the parts it lacks; a
  match page its links to the other matches), so a reader keeps the move, the place and the focus
  they had; a page that is final says so and stops asking.

Every file is written whole to a temporary name and renamed into place, so a
reader never sees half a page (``matches.jsonl`` is appended to, a whole line
at a time, as matches end). `follow()` keeps a session's site live: the
matches' pages as they end, the index within a moment of each, and a last
write, final or stopped, however the session ends (`LiveSite.close`). A site
is made to be published: its files are readable by everyone (FILE_MODE, 0644)
and the folders it makes are open to everyone (FOLDER_MODE, 0755), whatever
the umask, so a web server running as another user serves them.

Its modules: `markup` (the words, file names and HTML tables), `charts` (the
SVG drawings), `pages` (the event, the frame of a page, the index and the
live data), `sections` (the index's sections about the matches, and the pages
a large event moves them to), `parts` (a live page's sections cut into parts,
so an update sends what changed), `match_page` (a match's page), `writer`
(writing the files) and `live` (a session's site kept live by a thread).
"""

from __future__ import annotations

from csl_game.services.site.charts import Series, board_svg, line_chart, nice_ticks, ratings_chart
from csl_game.services.site.live import LiveSite, follow
from csl_game.services.site.markup import (
    DEFAULT_TITLE,
    POLL_SECONDS,
    RESULTS_NAME,
    STATES,
    how_it_ended,
    match_page_name,
    public_detail,
    public_doc,
)
from csl_game.services.site.pages import looks_complete
from csl_game.services.site.writer import FILE_MODE, FOLDER_MODE, SiteWriter, write_site

__all__ = ["write_site", "SiteWriter", "LiveSite", "follow", "match_page_name",
           "how_it_ended", "public_detail", "public_doc", "looks_complete", "board_svg", "line_chart",
           "ratings_chart", "nice_ticks", "Series", "DEFAULT_TITLE", "RESULTS_NAME", "POLL_SECONDS",
           "STATES", "FILE_MODE", "FOLDER_MODE"]
