"""Imported last by the worker fork server, so every worker starts warm.

The fork server imports this once; each worker process is a fork of it and
inherits what is done here: the program's main script has run (see
`csl_game.forkserver._main_for_server`), the thinker registry is
already built, and the objects it holds are frozen out of the garbage
collector, so a collection in a worker does not touch (and copy) every page
inherited from the server.
"""

from __future__ import annotations

import gc
import json
import os
import sys


def _run_main() -> None:
    """Run the parent's main script here as multiprocessing would in each worker
    (as ``__mp_main__``, with the parent's argv and path), so that no worker
    has to. A script that fails here is left to each worker, as before."""
    text = os.environ.pop("CSL_GAME_PRELOAD_MAIN", None)  # csl_game.forkserver.PRELOAD_MAIN
    if not text:
        return
    from multiprocessing import process, spawn

    main = json.loads(text)
    argv, path = sys.argv, sys.path
    current = process.current_process()
    current._inheriting = True  # type: ignore[attr-defined]  # as multiprocessing's own preload
    try:
        sys.argv, sys.path = list(main["argv"]), list(main["sys_path"])
        spawn.import_main_path(main["path"])
    except BaseException:  # noqa: BLE001 - the script's own failure: each worker meets it anew
        pass
    finally:
        sys.argv, sys.path = argv, path
        del current._inheriting  # type: ignore[attr-defined]


_run_main()

from csl_game.thinker.discovery import registry  # noqa: E402 - after the main script's imports

registry(())
gc.freeze()
