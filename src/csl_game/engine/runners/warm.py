"""Imported last by the worker fork server, so every worker starts warm.

The fork server imports this once; each worker process is a fork of it and
inherits what is done here: the thinker registry is already built, and the
objects it holds are frozen out of the garbage collector, so a collection in
a worker does not touch (and copy) every page inherited from the server.
"""

from __future__ import annotations

import gc

from csl_game.thinker.discovery import registry

registry(())
gc.freeze()
