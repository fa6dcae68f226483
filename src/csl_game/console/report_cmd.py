"""The ``report`` verb: the standings and results of a results file (Markdown,
CSV or JSON), the reference's competition files, the tournament's web site,
or that site served over HTTP."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from csl_game.engine import (
    Points,
    duplicates_note,
    first_lines,
    numbered_results,
    read_results,
    torn_tail,
)
from csl_game.errors import ConfigError, UsageError
from csl_game.services import narration
from csl_game.services.flag_values import points_of

__all__ = ["run_report", "REFERENCE"]

REFERENCE = "reference"
"""The report format that writes the reference framework's competition files."""


def run_report(args: argparse.Namespace) -> int:
    """Print or write the report the arguments ask for (or serve the site until
    Ctrl+C); 0 when done.

    Raises:
        CslError: bad input (an unreadable results file, a bad anchor, ...).
    """
    from csl_game.services.report import load_report

    points = points_of(args)
    assert points is not None
    if args.serve:
        return _serve_site(args, points)
    numbered = numbered_results(args.results_file)
    docs, twice = first_lines([doc for _, doc in numbered])
    line_of = {id(doc): number for number, doc in numbered}
    lines = [line_of[id(doc)] for doc in docs]
    if twice:
        print(f"csl-game: note: {duplicates_note(args.results_file, twice)}", file=sys.stderr)
    if args.ratings or args.anchor:
        if args.format == REFERENCE:
            raise UsageError("--ratings prints md, csv or json, not the reference's files")
        from csl_game.services.report import parse_anchor

        anchor = parse_anchor(args.anchor) if args.anchor else None
        print(narration.terminal_safe(load_report(docs, points, lines, args.results_file)
                                      .render_ratings(args.format, anchor)))
        return 0
    if args.format == REFERENCE:
        from csl_game.services.reference import write_reference

        written = write_reference(docs, args.output, points)
        print(f"wrote {written[0]} and {len(written) - 1} match transcripts in "
              f"{written[0].parent / 'results'}")
        return 0
    if args.format == "html":
        from csl_game.services.site import DEFAULT_TITLE, write_site

        folder = write_site(docs, args.output, points, title=args.title or DEFAULT_TITLE,
                            cut=torn_tail(args.results_file))
        print(f"wrote the site of {len(docs)} matches: {folder / 'index.html'}")
        return 0
    report = load_report(docs, points, lines, args.results_file)
    print(narration.terminal_safe(report.render(args.format, args.table)))
    return 0


def _serve_site(args: argparse.Namespace, points: Points) -> int:
    """Serve a site folder as it is (a live one goes on updating itself), or
    the site of a results file, rebuilt as the file grows: live while it
    changes, final once it has not changed for SERVE_QUIET_S seconds; a folder
    of its own removed on the way out, an -o folder left final."""
    import contextlib
    import shutil
    import tempfile
    import time
    from collections.abc import Callable

    from csl_game.errors import CslError
    from csl_game.services.addresses import lan_address
    from csl_game.services.serve import SiteServer
    from csl_game.services.site import DEFAULT_TITLE, SiteWriter

    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port must be from 0 to 65535, got {args.port}")
    source = Path(args.results_file)
    title = args.title or DEFAULT_TITLE
    rebuild: Callable[[], None] | None = None
    temporary = False
    if not source.exists() and source.absolute().parent.is_dir():
        # started with its session (both typed at once): wait for the session to make it
        print(f"csl-game: note: waiting for {source} to be made (its session has not made it "
              "yet; Ctrl+C stops)", file=sys.stderr, flush=True)
        while not source.exists():
            time.sleep(0.2)
    if not source.exists():
        raise ConfigError(f"{source}: no such results file or site folder")
    if source.is_dir():
        folder = source
        if not (source / "index.html").is_file():
            print(f"csl-game: note: {source} holds no index.html yet: its pages are served "
                  "as they are written", file=sys.stderr, flush=True)
    else:
        read_results(source)  # no such file, or not a results file: one line, exit 2
        temporary = args.output == "."
        folder = Path(tempfile.mkdtemp(prefix="csl-site-")) if temporary else Path(args.output)
        built_from: tuple[int, float, bool] | None = None

        def build(live: bool) -> None:
            docs = first_lines(read_results(source))[0]
            writer = SiteWriter(folder, points, live, title=title)
            writer.docs.extend(docs)
            if live and not docs:
                writer.event.state = "starting"
            if not live:  # a line being written is cut off for a moment, not for good
                writer.event.cut = torn_tail(source)
            writer.write_all()

        def rebuild() -> None:
            nonlocal built_from
            stat = source.stat()
            live = time.time() - stat.st_mtime < SERVE_QUIET_S
            if built_from != (stat.st_size, stat.st_mtime, live):  # only when it changed
                built_from = (stat.st_size, stat.st_mtime, live)
                build(live)

    try:
        if rebuild is not None:
            rebuild()
        try:
            server = SiteServer(folder, args.host, args.port, rebuild=rebuild)
        except OSError as e:
            raise ConfigError(f"cannot listen on {args.host}:{args.port}: {e.strerror or e}") \
                from None
        with server:
            shown = "localhost" if args.host in ("0.0.0.0", "::", "127.0.0.1") else args.host
            print(f"Serving the site of {source} at http://{shown}:{server.port}/", flush=True)
            if args.host in ("0.0.0.0", "::"):
                print(f"  for others on the network: http://{lan_address()}:{server.port}/ "
                      "(Ctrl+C stops)", flush=True)
            server.serve_forever()
    finally:
        if temporary:
            shutil.rmtree(folder, ignore_errors=True)
        elif rebuild is not None and folder.is_dir():
            with contextlib.suppress(CslError):
                build(False)  # the pages left behind are final
    return 0


SERVE_QUIET_S = 60.0
"""Seconds without a change after which a served results file's site is final."""
