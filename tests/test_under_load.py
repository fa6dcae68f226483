"""benchmarks/under_load.py: burners run beside the command and end with it."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

import psutil
import pytest

pytestmark = [pytest.mark.slow, pytest.mark.timing]

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "under_load.py"

# The command counts its parent's children that are burners, and exits with that
# number (a child another test left a zombie has no command line: it is none).
COUNT_BURNERS = ("import os, sys, psutil\n"
                 "def burning(k):\n"
                 "    try:\n"
                 "        return k.cmdline()[-1:] == ['while True: pass']\n"
                 "    except psutil.Error:\n"
                 "        return False\n"
                 "sys.exit(sum(map(burning, psutil.Process(os.getppid()).children())))")


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("under_load", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _burners() -> list[psutil.Process]:
    return [k for k in psutil.Process(os.getpid()).children() if _burning(k)]


def _burning(kid: psutil.Process) -> bool:
    try:
        return kid.cmdline()[-1:] == ["while True: pass"]
    except psutil.Error:  # a zombie another test left in this process
        return False


def test_the_command_runs_beside_the_burners_which_end_with_it() -> None:
    under_load = _load()
    code = under_load.run_loaded([sys.executable, "-c", COUNT_BURNERS], 2, warmup=0.0)
    assert code == 2
    assert _burners() == []


def test_the_command_line_passes_the_exit_code_on() -> None:
    under_load = _load()
    assert under_load.main(["--burners", "1", "--", sys.executable, "-c",
                            "raise SystemExit(7)"]) == 7
    assert _burners() == []
