"""The ``report`` verb: the standings and results of a results file (Markdown,
CSV or JSON), the reference's competition files, the tournament's web site,
or that site served over HTTP."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from csl_game.engine import Points, duplicates_note, first_lines, read_results
from csl_game.errors import ConfigError, UsageError
from csl_game.services import narration
from csl_game.services.options import points_of

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
    docs, twice = first_lines(read_results(args.results_file))
    if twice:
        print(f"csl-game: note: {duplicates_note(args.results_file, twice)}", file=sys.stderr)
    if args.ratings or args.anchor:
        if args.format == REFERENCE:
            raise UsageError("--ratings prints md, csv or json, not the reference's files")
        from csl_game.services.report import parse_anchor

        anchor = parse_anchor(args.anchor) if args.anchor else None
        print(narration.terminal_safe(load_report(docs, points).render_ratings(args.format,
                                                                                anchor)))
        return 0
    if args.format == REFERENCE:
        from csl_game.services.reference import write_reference

        written = write_reference(docs, args.output, points)
        print(f"wrote {written[0]} and {len(written) - 1} match transcripts in "
              f"{written[0].parent / 'results'}")
        return 0
    if args.format == "html":
        from csl_game.services.site import write_site

        folder = write_site(docs, args.output, points)
        print(f"wrote the site of {len(docs)} matches: {folder / 'index.html'}")
        return 0
    report = load_report(docs, points)
    print(narration.terminal_safe(report.render(args.format, args.table)))
    return 0


def _serve_site(args: argparse.Namespace, points: Points) -> int:
    """Serve a site folder as it is, or the site of a results file, rebuilt as it grows."""
    import tempfile

    from csl_game.services.addresses import lan_address
    from csl_game.services.serve import SiteServer
    from csl_game.services.site import write_site

    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port must be from 0 to 65535, got {args.port}")
    source = Path(args.results_file)
    rebuild = None
    if source.is_dir():
        if not (source / "index.html").is_file():
            raise ConfigError(f"{source} holds no site (no index.html)")
        folder = source
    else:
        folder = Path(args.output) if args.output != "." else \
            Path(tempfile.mkdtemp(prefix="csl-site-"))
        built_from: tuple[int, float] | None = None

        def rebuild() -> None:
            nonlocal built_from
            stat = source.stat()
            if built_from != (stat.st_size, stat.st_mtime):  # only when the file changed
                built_from = (stat.st_size, stat.st_mtime)
                write_site(first_lines(read_results(source))[0], folder, points, live=True)

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
    return 0
