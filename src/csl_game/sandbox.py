"""The sandbox of a thinker's worker on Linux: the kernel's own namespaces.

A worker enters its sandbox before any thinker code runs (before it even
starts a thread), straight after the fork server made it:

- ``unshare(2)`` gives it a new user namespace (so no privilege is needed,
  and none is kept), mount, PID, IPC and, unless its player asked for the
  network, network namespace;
- it forks twice: its child is process 1 of the new PID namespace (the
  sandbox's init: it reaps every orphan, and no signal from inside the
  namespace reaches it), whose child, process 2, runs the worker. The
  thinker cannot see or signal any process outside its own namespace (the
  kernel resolves every process id inside it), and when the worker ends,
  init exits as it did and the kernel kills every process of the namespace:
  whatever the thinker started, double forks and ``setsid`` included, goes
  with its worker. The first process stays outside as the sandbox's keeper:
  it only waits and exits as the worker did, so the parent sees one worker
  process whose exit status is its thinker's. Each dies with its parent
  (``PR_SET_PDEATHSIG``);
- in the new mount namespace every mount is made read-only (recursively,
  ``mount_setattr``; one by one on kernels before 5.12), a fresh ``/proc``
  shows only the namespace's own processes, and ``/dev/shm`` is a small
  memory file system of its own, its temporary folder (``TMPDIR``);
- then every capability is dropped, for good (bounding set, ambient set,
  ``no_new_privs``) and the namespace may make no user namespaces of its
  own: the thinker cannot undo any of it.

The same mechanism as bubblewrap's (what Flatpak runs apps in), without an
``exec``: a worker still starts in milliseconds from the fork server, with
the engine already imported. Where the kernel refuses (not Linux, a
container without user namespaces, ``CSL_GAME_SANDBOX=off``), `status()`
says why in one line and workers run as before.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import functools
import os
import select
import signal
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from typing import NoReturn

__all__ = ["SandboxStatus", "SandboxError", "status", "enter", "checked", "in_own_namespace", "child_pids", "sandboxed_processes", "ENV_SWITCH", "TMP_SIZE_MB", "in_sandbox"]

ENV_SWITCH = "CSL_GAME_SANDBOX"
"""Set to ``off`` to run workers without a sandbox (debugging a thinker)."""
TMP_SIZE_MB = 256
"""Size of a sandbox's own /tmp (memory: it counts against the machine, not the cap)."""

_LINUX = sys.platform.startswith("linux")

CLONE_NEWNS = 0x00020000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000

MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_NOEXEC = 8
MS_REMOUNT = 32
MS_BIND = 4096
MS_REC = 16384
MS_PRIVATE = 1 << 18

_AT_FDCWD = -100
_AT_RECURSIVE = 0x8000
_MOUNT_ATTR_RDONLY = 0x1
_SYS_MOUNT_SETATTR = 442  # the same number on every architecture (kernel 5.12+)

_PR_SET_PDEATHSIG = 1
_PR_CAPBSET_DROP = 24
_PR_SET_NO_NEW_PRIVS = 38
_PR_CAP_AMBIENT = 47
_PR_CAP_AMBIENT_CLEAR_ALL = 4
_LINUX_CAPABILITY_VERSION_3 = 0x20080522


class SandboxError(OSError):
    """The kernel refused a step of making the sandbox."""


@dataclass(frozen=True)
class SandboxStatus:
    """Whether workers run in a sandbox here, and if not, why in one line."""

    active: bool
    reason: str = ""

    def line(self) -> str:
        """The one line a session starts with where there is no sandbox ('' where there is)."""
        if self.active:
            return ""
        return (f"note: thinkers run without a sandbox ({self.reason}): a thinker can reach "
                "other processes and files of this user; see docs/thinkers.md, Isolation")


@functools.cache
def _libc() -> ctypes.CDLL:
    """The C library this process already runs on (no search for it: that
    starts a program of its own, some 5 ms of every worker's start)."""
    return ctypes.CDLL(None, use_errno=True)


def _check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise SandboxError(err, f"{what}: {os.strerror(err)}")


def _switched_off() -> str:
    value = os.environ.get(ENV_SWITCH, "").strip().lower()
    return "CSL_GAME_SANDBOX=off" if value in ("0", "off", "no", "false") else ""


_status: SandboxStatus | None = None
_status_lock = threading.Lock()



def status() -> SandboxStatus:
    """Whether a worker's sandbox can be made on this machine (asked once, in
    a short-lived process of its own: the kernel may refuse user namespaces)."""
    global _status
    with _status_lock:
        if _status is None:
            _status = _find_status()
        return _status


def checked() -> SandboxStatus | None:
    """`status()` if it was asked already, else None (asking nothing)."""
    return _status


def _find_status() -> SandboxStatus:
    if not _LINUX:
        return SandboxStatus(False, f"the kernel namespaces it is made of are Linux's, "
                                    f"not {sys.platform}'s")
    if off := _switched_off():
        return SandboxStatus(False, off)
    try:
        # This file alone, run by path with no site packages: the check costs
        # an interpreter's start (some 20 ms), not the engine's imports.
        done = subprocess.run([sys.executable, "-I", "-S", os.path.abspath(__file__)],
                              capture_output=True, text=True,
                              timeout=20, check=False, env={**os.environ, ENV_SWITCH: ""})
    except (OSError, subprocess.SubprocessError) as e:
        return SandboxStatus(False, f"its check could not run: {e}")
    answer = done.stdout.strip().splitlines()[-1:] or [done.stderr.strip()[-200:]]
    return SandboxStatus(answer[0] == "ok", "" if answer[0] == "ok" else answer[0])


def _probe_here() -> str:
    """Make a sandbox in a child of this process and say 'ok' or why not."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child's words come through the pipe
        os.close(read)
        try:
            enter(network=False)
            message = "ok" if os.getpid() == 2 else "no process namespace"
        except BaseException as e:  # noqa: BLE001 - every refusal is an answer
            message = str(e) or type(e).__name__
        os.write(write, message.encode()[:500])
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as f:
        text = f.read().decode(errors="replace")
    os.waitpid(pid, 0)
    return text or "the check's process ended without an answer"


def in_own_namespace(pid: int) -> bool:
    """Whether process `pid` (as this process sees it) is process 1 of a PID
    namespace below this one: a worker's sandboxed process, as the kernel tells."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("NSpid:"):
                    ids = line.split()[1:]
                    return len(ids) >= 2 and ids[-1] == "1"
    except OSError:
        return False
    return False


def child_pids(pid: int) -> list[int]:
    """The children of `pid`, as /proc/PID/task/TID/children tells (Linux;
    [] elsewhere, or for a process gone)."""
    found: list[int] = []
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for tid in tids:
        with contextlib.suppress(OSError, ValueError):
            with open(f"/proc/{pid}/task/{tid}/children", "rb") as f:
                found.extend(int(w) for w in f.read().split())
    return found


def sandboxed_processes(keeper: int) -> tuple[int, int] | None:
    """The init and the worker of the sandbox that `keeper` keeps, as this
    process sees them, once both exist; None if `keeper` keeps no sandbox."""
    inits = child_pids(keeper)
    if len(inits) != 1 or not in_own_namespace(inits[0]):
        return None
    workers = child_pids(inits[0])
    return (inits[0], workers[0]) if workers else None


def in_sandbox() -> bool:
    """Whether this process runs in a worker's sandbox."""
    return bool(os.environ.get("CSL_GAME_IN_SANDBOX"))


def enter(network: bool = False, tmp_size_mb: int = TMP_SIZE_MB, failed_exit: int = 1) -> None:
    """Make this process's sandbox; returns in the sandboxed process.

    Three processes come of this one: this one, the sandbox's keeper outside
    it, waits for the sandbox's first process and exits as it did; that one
    is process 1 of the new PID namespace (its init: it adopts and reaps every
    orphan, and signals sent from inside the namespace do not reach it); its
    child, process 2, returns from here and runs the worker. A thinker's own
    signal (``os.kill(os.getpid(), signal.SIGSEGV)``) ends it as it would
    anywhere, and when it ends, init exits as it did and the kernel ends
    everything else in the namespace.

    Must be called while this process has a single thread.

    Raises:
        SandboxError: the kernel refused to make the namespaces (nothing has
            changed then but this process's user namespace; the caller may go
            on without a sandbox). A refusal after that ends the sandbox's
            processes with status `failed_exit`, saying why on standard error.
    """
    libc = _libc()
    uid, gid = os.getuid(), os.getgid()
    flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC
    if not network:
        flags |= CLONE_NEWNET
    _check(libc.unshare(flags), "unshare")
    _write("/proc/self/setgroups", "deny")
    _write("/proc/self/uid_map", f"{uid} {uid} 1")
    _write("/proc/self/gid_map", f"{gid} {gid} 1")
    alive_r, alive_w = os.pipe()  # readable (at its end) once the keeper is gone
    told, tell = os.pipe()  # how the worker ended, from init to the keeper
    init = os.fork()
    if init:
        os.close(alive_r)
        os.close(tell)
        _keep(init, keep=(alive_w,), told=told)
    try:
        os.close(alive_w)
        os.close(told)
        _prctl(libc, _PR_SET_PDEATHSIG, int(signal.SIGKILL))
        if select.select([alive_r], [], [], 0)[0]:  # the keeper died before the line above
            os._exit(0)
        os.close(alive_r)
        own_tmp = _mounts(libc, tmp_size_mb)
        with contextlib.suppress(OSError):
            _write("/proc/sys/user/max_user_namespaces", "0")
        _drop_capabilities(libc)
    except SandboxError as e:
        with contextlib.suppress(OSError):
            os.write(2, f"csl-game: the worker's sandbox could not be made: {e}\n".encode())
        os._exit(failed_exit)
    for name in ("TMPDIR", "TEMP", "TMP"):
        os.environ[name] = own_tmp
    tempfile.tempdir = None  # asked anew, from TMPDIR
    os.environ["CSL_GAME_IN_SANDBOX"] = "1"
    worker = os.fork()
    if worker:
        _keep(worker, reap_all=True, tell=tell)
    os.close(tell)
    _prctl(libc, _PR_SET_PDEATHSIG, int(signal.SIGKILL))


def _write(path: str, text: str) -> None:
    try:
        with open(path, "w", encoding="ascii") as f:
            f.write(text)
    except OSError as e:
        raise SandboxError(e.errno or errno.EPERM, f"writing {path}: {e.strerror}") from e


def _prctl(libc: ctypes.CDLL, option: int, value: int, arg3: int = 0) -> None:
    _check(libc.prctl(option, ctypes.c_ulong(value), ctypes.c_ulong(arg3), 0, 0),
           f"prctl {option}")


def _keep(child: int, keep: tuple[int, ...] = (), reap_all: bool = False,
          told: int = -1, tell: int = -1) -> NoReturn:
    """Wait for `child` and exit as it did, holding nothing meanwhile (every
    file descriptor but `keep` closed, so the worker's pipes end with it).

    The keeper reads from `told` how the worker itself ended, as init wrote
    it on `tell`: init, as process 1, cannot end by a signal of its own, so
    the worker's death by a signal reaches the parent as that signal. With
    `reap_all` (init), every other process that ends meanwhile is reaped too.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    low = 3
    for fd in sorted({*keep, told, tell} - {-1}):
        with contextlib.suppress(OSError):
            os.closerange(low, fd)
        low = fd + 1
    with contextlib.suppress(OSError):
        os.closerange(low, 1 << 16)
    while True:
        try:
            pid, status_ = os.waitpid(-1 if reap_all else child, 0)
        except ChildProcessError:
            os._exit(1)
        except InterruptedError:
            continue
        if pid == child:
            break
    if tell >= 0:
        with contextlib.suppress(OSError):
            os.write(tell, status_.to_bytes(4, "little"))
    if told >= 0:
        with contextlib.suppress(OSError):
            data = os.read(told, 4)
            if len(data) == 4:
                status_ = int.from_bytes(data, "little")
    if os.WIFSIGNALED(status_):
        sig = os.WTERMSIG(status_)
        with contextlib.suppress(OSError, ValueError):
            signal.signal(sig, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_UNBLOCK, [sig])
            os.kill(os.getpid(), sig)
        os._exit(128 + sig)
    os._exit(os.WEXITSTATUS(status_) if os.WIFEXITED(status_) else 1)


def _mounts(libc: ctypes.CDLL, tmp_size_mb: int) -> str:
    """Every mount read-only, a /proc of the namespace, and a temporary folder
    of its own, a memory file system of `tmp_size_mb` at most: /dev/shm
    (where POSIX shared memory and semaphores live too), else /tmp. Returns
    that folder's path."""
    libc.mount.argtypes = (ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong,
                           ctypes.c_void_p)
    _check(libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None), "making mounts private")
    _read_only(libc)
    _check(libc.mount(b"proc", b"/proc", b"proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, None),
           "mounting /proc")
    own_tmp = "/dev/shm" if os.path.isdir("/dev/shm") else "/tmp"
    options = f"size={max(1, tmp_size_mb)}m,mode=1777".encode()
    _check(libc.mount(b"tmpfs", own_tmp.encode(), b"tmpfs", MS_NOSUID | MS_NODEV, options),
           f"mounting {own_tmp}")
    return own_tmp


class _MountAttr(ctypes.Structure):
    _fields_ = [("attr_set", ctypes.c_uint64), ("attr_clr", ctypes.c_uint64),
                ("propagation", ctypes.c_uint64), ("userns_fd", ctypes.c_uint64)]


def _read_only(libc: ctypes.CDLL) -> None:
    """Every mount read-only: at once where the kernel has mount_setattr
    (5.12+), else one by one as /proc/self/mountinfo lists them."""
    attr = _MountAttr(_MOUNT_ATTR_RDONLY, 0, 0, 0)
    libc.syscall.restype = ctypes.c_long
    done = libc.syscall(ctypes.c_long(_SYS_MOUNT_SETATTR), ctypes.c_int(_AT_FDCWD), b"/",
                        ctypes.c_uint(_AT_RECURSIVE), ctypes.byref(attr),
                        ctypes.c_size_t(ctypes.sizeof(attr)))
    if done == 0:
        return
    if ctypes.get_errno() not in (errno.ENOSYS, errno.EINVAL):
        _check(-1, "making mounts read-only")
    with open("/proc/self/mountinfo", encoding="utf-8", errors="surrogateescape") as f:
        lines = f.read().splitlines()
    for line in lines:
        fields = line.split()
        target = fields[4].encode("utf-8", "surrogateescape").decode("unicode_escape")
        kept = _mount_flags(fields[5])
        libc.mount(None, target.encode("utf-8", "surrogateescape"), None,
                   MS_BIND | MS_REMOUNT | MS_RDONLY | kept, None)
    # Mounts the kernel would not remount (locked flags) stay as they were.


def _mount_flags(options: str) -> int:
    """The per-mount flags a remount must keep (a user namespace may not clear them)."""
    words = set(options.split(","))
    flags = 0
    for word, flag in (("nosuid", MS_NOSUID), ("nodev", MS_NODEV), ("noexec", MS_NOEXEC)):
        if word in words:
            flags |= flag
    return flags


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32),
                ("inheritable", ctypes.c_uint32)]


def _drop_capabilities(libc: ctypes.CDLL) -> None:
    """No capability now or after any exec: the thinker can mount, unmount or
    remount nothing, even as root of its namespace."""
    try:
        with open("/proc/sys/kernel/cap_last_cap", encoding="ascii") as f:
            last = int(f.read())
    except (OSError, ValueError):
        last = 40
    for cap in range(last + 1):
        libc.prctl(_PR_CAPBSET_DROP, ctypes.c_ulong(cap), 0, 0, 0)
    libc.prctl(_PR_CAP_AMBIENT, ctypes.c_ulong(_PR_CAP_AMBIENT_CLEAR_ALL), 0, 0, 0)
    header = _CapHeader(_LINUX_CAPABILITY_VERSION_3, 0)
    data = (_CapData * 2)()
    _check(libc.capset(ctypes.byref(header), ctypes.byref(data)), "dropping capabilities")
    _prctl(libc, _PR_SET_NO_NEW_PRIVS, 1)


if __name__ == "__main__":
    print(_probe_here())
