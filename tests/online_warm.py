"""csl-game processes started from a loaded one for the online tests: a zygote
process imports the command line and the online modules once per test module,
and each csl-game a test asks for is a fork of it, told its command line then.
What the fork does is what ``python -m csl_game ARGS`` does (csl_game.launch,
in a process of its own, with its own pipes and exit status), without the
interpreter's start-up and the imports, a few tenths of a second of CPU each
that a loaded machine stretches to seconds."""

from __future__ import annotations

import json
import os
import queue
import signal
import socket
import subprocess
import sys
import threading

from online_procs import CODE, Proc
from procs import INTERRUPTIBLE

ZYGOTE = """\
import json, os, select, signal, socket, sys
import csl_game.launch, csl_game.cli, csl_game.console.online_cmd
ctl = socket.socket(fileno=int(sys.argv[1]))
children = set()
while True:
    ready, _, _ = select.select([ctl], [], [], 0.02)
    while children:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if pid == 0:
            break
        children.discard(pid)
        ctl.send(json.dumps(["exit", pid, os.waitstatus_to_exitcode(status)]).encode())
    if not ready:
        continue
    msg, fds, _, _ = socket.recv_fds(ctl, 65536, 3)
    if not msg:
        break
    pid = os.fork()
    if pid == 0:
        ctl.close()
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        sys.argv[1:] = json.loads(msg)
        sys.exit(csl_game.launch.main())
    for fd in fds:
        os.close(fd)
    children.add(pid)
    ctl.send(json.dumps(["pid", pid]).encode())
"""
"""The loaded process: it reads a command line and three descriptors (standard
input, output and error) from its control socket, forks, and the fork runs
the command as ``python -m csl_game`` would; it reaps its forks and tells
their exit status (as Popen's returncode: -N for a signal)."""


class Zygote:
    """The test's end of a ZYGOTE process."""

    def __init__(self) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.proc = subprocess.Popen([sys.executable, "-c", ZYGOTE, str(theirs.fileno())],
                                     stdin=subprocess.DEVNULL, pass_fds=(theirs.fileno(),),
                                     **INTERRUPTIBLE)
        theirs.close()
        self._sock = ours
        self._lock = threading.Lock()
        self._pids: queue.Queue[int] = queue.Queue()
        self.exits: dict[int, int] = {}
        self.news = threading.Condition()
        threading.Thread(target=self._listen, daemon=True).start()

    def _listen(self) -> None:
        while True:
            try:
                packet = self._sock.recv(65536)
            except OSError:
                packet = b""
            if not packet:  # the zygote is gone: so are its forks' reports
                with self.news:
                    self.news.notify_all()
                return
            kind, pid, *code = json.loads(packet)
            if kind == "pid":
                self._pids.put(pid)
            else:
                with self.news:
                    self.exits[pid] = code[0]
                    self.news.notify_all()

    def spawn(self, args: list[str]) -> Forked:
        """A fork running ``csl-game ARGS``, its standard streams piped to the test."""
        with self._lock:
            (in_r, in_w), (out_r, out_w), (err_r, err_w) = os.pipe(), os.pipe(), os.pipe()
            socket.send_fds(self._sock, [json.dumps(args).encode()], [in_r, out_w, err_w])
            for fd in (in_r, out_w, err_w):
                os.close(fd)
            pid = self._pids.get(timeout=60)
        return Forked(self, pid, in_w, out_r, err_r)

    def close(self) -> None:
        """End the zygote: its control socket says end of file (shut down first,
        as the listening thread is blocked in a read of it)."""
        try:
            self._sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self._sock.close()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)


class Forked:
    """A fork of the zygote, seen as a subprocess.Popen is (what Proc uses)."""

    def __init__(self, zygote: Zygote, pid: int, stdin: int, stdout: int, stderr: int) -> None:
        self._zygote = zygote
        self.pid = pid
        self.stdin = open(stdin, "w", buffering=1)  # noqa: SIM115 (closed with the process)
        self.stdout = open(stdout)  # noqa: SIM115
        self.stderr = open(stderr)  # noqa: SIM115
        self.args = ["csl-game (forked)"]

    @property
    def returncode(self) -> int | None:
        with self._zygote.news:
            return self._zygote.exits.get(self.pid)

    def poll(self) -> int | None:
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        with self._zygote.news:
            if not self._zygote.news.wait_for(lambda: self.pid in self._zygote.exits or
                                              self._zygote.proc.poll() is not None, timeout):
                raise subprocess.TimeoutExpired(self.args, timeout or 0)
            if self.pid not in self._zygote.exits:
                raise AssertionError(f"the zygote ended before its fork {self.pid}")
            return self._zygote.exits[self.pid]

    def send_signal(self, sig: int) -> None:
        if self.poll() is None:
            try:
                os.kill(self.pid, sig)
            except ProcessLookupError:  # ended meanwhile
                pass

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


class Loaded(Proc):
    """A csl-game to be forked from the zygote when told its command (`run`);
    once run, its output is collected as a Proc's is."""

    def __init__(self, zygote: Zygote) -> None:  # Proc's start comes with run()
        self._zygote = zygote
        self.proc = None  # type: ignore[assignment]
        self.out: list[str] = []
        self.err: list[str] = []
        self._news = threading.Condition()
        self._readers: list[threading.Thread] = []

    def run(self, *args: str, stdin: str | None = None) -> Loaded:
        """Run ``csl-game ARGS`` (with `stdin` typed after); the process itself."""
        self.proc = self._zygote.spawn(list(args))  # type: ignore[assignment]
        self._follow(stdin)
        return self

    def kill(self) -> None:
        if self.proc is not None:
            super().kill()


class Warm:
    """The test module's zygote: csl-game processes that start in milliseconds."""

    def __init__(self) -> None:
        self._zygote = Zygote()
        self.taken: list[Loaded] = []

    def take(self) -> Loaded:
        """A process to be told its command later (`Loaded.run`)."""
        proc = Loaded(self._zygote)
        self.taken.append(proc)
        return proc

    def run(self, *args: str, stdin: str | None = None) -> Loaded:
        """``csl-game ARGS`` in a fork of the loaded process."""
        return self.take().run(*args, stdin=stdin)

    def host(self, *args: str, stdin: str | None = None) -> tuple[Loaded, int]:
        """online_procs.host, forked: a host on loopback, code CODE; and its port."""
        proc = self.run("match", "--listen", "127.0.0.1:0", "--code", CODE, "--in-process",
                        *args, stdin=stdin)
        return proc, int(proc.wait_for(r"on port (\d+)")[1])

    def join(self, port: int, *args: str, stdin: str | None = None) -> Loaded:
        """online_procs.join, forked."""
        return self.run("match", "--connect", f"127.0.0.1:{port}", "--code", CODE,
                        "--in-process", *args, stdin=stdin)

    def close(self) -> None:
        """Kill every process handed out, then end the zygote."""
        for proc in self.taken:
            proc.kill()
        self.taken.clear()
        self._zygote.close()
