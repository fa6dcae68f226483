"""Other platforms, simulated on Linux in every Python process of a test run.

``CSL_SIMULATE=MODE`` (``.ci/run`` sets it; tests/conftest.py applies it to
the test process and puts this folder on PYTHONPATH, so that its
sitecustomize.py applies it to every process started from there: fork
servers, worker processes, the command line run as a subprocess):

- ``spawn``: no fork server, as on Windows: workers are spawned.
- ``no-resource``: the ``resource`` module does not exist, as on Windows.
- ``rlimit-as-fails``: ``setrlimit(RLIMIT_AS, ...)`` raises ValueError, as
  reported on macOS.
"""

from __future__ import annotations

import os
import sys

MODES = ("spawn", "no-resource", "rlimit-as-fails")
mode = os.environ.get("CSL_SIMULATE", "")


def _spawn_only() -> None:
    import multiprocessing

    multiprocessing.get_all_start_methods = lambda: ["spawn"]  # type: ignore[method-assign]


def _no_resource() -> None:
    # psutil's Linux backend needs it; on Windows psutil has a backend of its own
    import psutil  # noqa: F401

    sys.modules["resource"] = None  # type: ignore[assignment]  # import resource: ImportError


def _rlimit_as_fails() -> None:
    import resource

    real = resource.setrlimit

    def setrlimit(which: int, limits: tuple[int, int]) -> None:
        if which == resource.RLIMIT_AS:
            raise ValueError("current limit exceeds maximum limit")
        real(which, limits)

    resource.setrlimit = setrlimit


def apply() -> None:
    """Simulate `mode` in this process (nothing when it is unset).

    Raises:
        ValueError: an unknown mode.
    """
    if not mode:
        return
    if mode not in MODES:
        raise ValueError(f"CSL_SIMULATE={mode!r}: choose from {', '.join(MODES)}")
    {"spawn": _spawn_only, "no-resource": _no_resource,
     "rlimit-as-fails": _rlimit_as_fails}[mode]()
