"""A PostgreSQL server of the test's own: a cluster made with initdb in a
temporary folder and started with pg_ctl on a free loopback port (as the
unprivileged user `nobody` when the tests run as root, which PostgreSQL
refuses), stopped and removed afterwards. Tests skip, saying why, where
PostgreSQL is not installed (apt-get install postgresql) or cannot start."""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager

import pytest


def _tool(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return candidates[-1] if candidates else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def postgres() -> Iterator[str]:
    """The URL of a fresh PostgreSQL database, or the test skipped with the reason."""
    initdb, pg_ctl = _tool("initdb"), _tool("pg_ctl")
    if initdb is None or pg_ctl is None:
        pytest.skip("no PostgreSQL here (apt-get install postgresql)")
    folder = tempfile.mkdtemp(prefix="csl-pg-")
    prefix: list[str] = []
    if os.geteuid() == 0:  # PostgreSQL will not run as root
        runuser = shutil.which("runuser")
        if runuser is None:
            shutil.rmtree(folder, ignore_errors=True)
            pytest.skip("running as root without runuser: PostgreSQL cannot start")
        os.chown(folder, 65534, 65534)
        prefix = [runuser, "-u", "nobody", "--"]
    data = os.path.join(folder, "data")
    port = _free_port()
    try:
        made = subprocess.run([*prefix, initdb, "-D", data, "-U", "csl", "--auth=trust",
                               "-E", "UTF8", "--no-sync"], capture_output=True, text=True,
                              timeout=120)
        if made.returncode != 0:
            pytest.skip(f"initdb failed: {made.stderr.strip()[-300:]}")
        started = subprocess.run(
            [*prefix, pg_ctl, "-D", data, "-l", os.path.join(folder, "log"), "-w", "-t", "60",
             "-o", f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off",
             "start"], capture_output=True, text=True, timeout=120)
        if started.returncode != 0:
            pytest.skip(f"PostgreSQL did not start: {started.stderr.strip()[-300:]}")
        try:
            yield f"postgresql://csl@127.0.0.1:{port}/postgres"
        finally:
            subprocess.run([*prefix, pg_ctl, "-D", data, "-m", "immediate", "-w", "stop"],
                           capture_output=True, timeout=60)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
