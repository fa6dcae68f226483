"""csl-game processes loaded ahead for the online tests: the interpreter and
the modules of a csl-game are loaded while the test before runs (or before
the test knows its host's port), and the command line is told when it is
wanted. What the process does then is what ``python -m csl_game ARGS`` does,
without the start-up a loaded machine can stretch to seconds."""

from __future__ import annotations

import json
import subprocess
import sys
import threading

from online_procs import CODE, Proc
from procs import INTERRUPTIBLE

LOADED = ("import json, sys\n"
          "import csl_game.launch, csl_game.cli, csl_game.console.online_cmd\n"
          "print('primed', file=sys.stderr, flush=True)\n"
          "sys.argv[1:] = json.loads(sys.stdin.readline())\n"
          "sys.exit(csl_game.launch.main())\n")
"""A csl-game loaded, waiting for its command line (one JSON list on standard
input), then run as ``python -m csl_game`` runs it (csl_game.launch: Ctrl+C
held till the command can answer it); what follows that line on standard
input is the command's own."""


class Loaded(Proc):
    """A csl-game process loaded and waiting to be told its command (`run`);
    its output is collected as a Proc's is."""

    def __init__(self) -> None:  # Proc's start, with LOADED for the command
        self.proc = subprocess.Popen([sys.executable, "-c", LOADED],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, bufsize=1,
                                     **INTERRUPTIBLE)
        self.out: list[str] = []
        self.err: list[str] = []
        self._news = threading.Condition()
        self._readers = [threading.Thread(target=self._collect, args=(stream, into), daemon=True)
                         for stream, into in ((self.proc.stdout, self.out),
                                              (self.proc.stderr, self.err))]
        for reader in self._readers:
            reader.start()

    def run(self, *args: str, stdin: str | None = None) -> Loaded:
        """Run ``csl-game ARGS`` (with `stdin` typed after); the process itself."""
        self.write(json.dumps(list(args)) + "\n" + (stdin or ""))
        return self


class Warm:
    """Loaded csl-game processes handed out one at a time, each replaced at
    once by one that loads while the test goes on."""

    def __init__(self, spares: int = 2) -> None:
        self._spares = [Loaded() for _ in range(spares)]
        self.taken: list[Loaded] = []

    def take(self) -> Loaded:
        proc = self._spares.pop(0)
        self._spares.append(Loaded())
        self.taken.append(proc)
        return proc

    def run(self, *args: str, stdin: str | None = None) -> Loaded:
        """``csl-game ARGS`` in a loaded process."""
        return self.take().run(*args, stdin=stdin)

    def host(self, *args: str, stdin: str | None = None) -> tuple[Loaded, int]:
        """online_procs.host, loaded ahead: a host on loopback, code CODE; and its port."""
        proc = self.run("match", "--listen", "127.0.0.1:0", "--code", CODE, "--in-process",
                        *args, stdin=stdin)
        return proc, int(proc.wait_for(r"on port (\d+)")[1])

    def join(self, port: int, *args: str, stdin: str | None = None) -> Loaded:
        """online_procs.join, loaded ahead."""
        return self.run("match", "--connect", f"127.0.0.1:{port}", "--code", CODE,
                        "--in-process", *args, stdin=stdin)

    def close(self) -> None:
        """Kill every process handed out and every spare."""
        for proc in (*self.taken, *self._spares):
            proc.kill()
        self.taken.clear()
