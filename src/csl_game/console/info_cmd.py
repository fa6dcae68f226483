"""The ``info`` verb: the known thinkers, or the shipped examples copied out."""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

from csl_game.errors import ConfigError
from csl_game.services import narration
from csl_game.thinker.discovery import catalog

__all__ = ["run_info"]


def run_info(args: argparse.Namespace) -> int:
    """List the known thinkers (and, on standard error, the problems of those
    that are not), or with --examples copy the examples out; 0 when done.

    Raises:
        ConfigError: the examples cannot be copied there.
    """
    if args.examples is not None:
        return _copy_examples(Path(args.examples))
    reg = catalog(tuple(args.thinkers))  # the files are read, not run
    print("Known thinkers:")
    for fqn in reg.listed():
        summary = f"  {reg.summary(fqn)}" if reg.summary(fqn) else ""
        print(narration.terminal_safe(f"  {reg.short_name(fqn):<14} {fqn}{summary}"))
    for problem in reg.problems:
        print(narration.terminal_safe(f"warning: {problem}"), file=sys.stderr)
    for why in reg.near_misses():
        print(narration.terminal_safe(f"not listed: {why}"), file=sys.stderr)
    for ref in reg.refs.values():
        if not ref.checked:
            print(narration.terminal_safe(
                f"not listed: {ref.fqn} may be a thinker: it comes from {ref.unread}, which "
                "csl-game does not read (name it to play it; its worker checks it)"),
                file=sys.stderr)
    return 0


def _copy_examples(into: Path) -> int:
    """Copy the shipped examples into `into` (made if need be, never overwriting).

    Raises:
        ConfigError: a file of the same name is there, or `into` cannot be written.
    """
    from importlib.resources import as_file, files

    with as_file(files("csl_game.examples")) as root:
        shipped = [p for p in sorted(Path(root).rglob("*")) if p.is_file()
                   and p.suffix in (".py", ".c", ".cs") and p.name != "__init__.py"
                   and "__pycache__" not in p.parts]
        taken = [into / p.relative_to(root) for p in shipped if (into / p.relative_to(root)).exists()]
        if taken:
            raise ConfigError(f"--examples: {taken[0]} is there already; name a new folder")
        try:
            for path in shipped:
                target = into / path.relative_to(root)
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(path, target)
        except OSError as e:
            raise ConfigError(f"--examples: cannot write into {into}: {e.strerror or e}") from None
    print(f"Copied {len(shipped)} example files into {into}:")
    for path in shipped:
        print(f"  {(into / path.relative_to(root)).as_posix()}")
    return 0
