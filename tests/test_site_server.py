"""`report --serve` withstands what a network sends: hostile clients on
loopback only (127.0.0.1), bounded in number and time. The server serves the
site's own files and nothing else, refuses other methods, survives garbage,
oversized requests, silent and trickling clients and more clients than it
serves at once, and goes on serving honest ones."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest

from csl_game.services import serve
from csl_game.services.serve import SiteServer
from csl_game.services.site import write_site
from online_procs import answered, connect_from, other_loopback_works
from procs import INTERRUPTIBLE
from waiting import until

DOC = {"white": {"thinker": "a", "params": "", "name": "Alice"},
       "red": {"thinker": "b", "params": "", "name": "Bob"}, "winner": "white",
       "winner_name": "Alice", "solution": [[0, 0], [0, 1], [0, 2]], "forfeit": None,
       "detail": "", "match": 0,
       "settings": {"rows": 3, "cols": 3, "win_sequence": 3, "round_pieces": 5,
                    "square_pieces": 5, "time_limit_ms": 100},
       "moves": [{"row": 0, "col": c, "color": color, "shape": "round", "ms": 1.0}
                 for c, color in ((0, "white"), (0, "red"), (1, "white"), (1, "red"),
                                  (2, "white"))]}
MAX_CLIENTS, READ_S, CONNECTION_S = 4, 0.5, 2.0


@pytest.fixture
def server(tmp_path: Path) -> Iterator[SiteServer]:
    write_site([DOC], tmp_path / "site")
    (tmp_path / "secret.txt").write_text("root:x:0:0")
    srv = SiteServer(tmp_path / "site", "127.0.0.1", 0, max_clients=MAX_CLIENTS,
                     read_timeout=READ_S, connection_timeout=CONNECTION_S)
    thread = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05},
                              daemon=True)
    thread.start()
    try:
        yield srv
    finally:
        srv.shutdown()
        srv.server_close()
        thread.join(5)


def _connect(srv: SiteServer) -> socket.socket:
    return socket.create_connection(("127.0.0.1", srv.port), timeout=5)


def _exchange(srv: SiteServer, raw: bytes) -> bytes:
    """Send `raw` and read the whole answer (the server closes after one)."""
    with _connect(srv) as s:
        s.sendall(raw)
        chunks = []
        while chunk := s.recv(65536):
            chunks.append(chunk)
        return b"".join(chunks)


def _held(srv: SiteServer, address: str | None = None) -> int:
    """Connections the server is serving now (of `address`, or in all): its own
    count, by which it turns more away."""
    with srv._serving_lock:
        serving = dict(srv._serving)
    return serving.get(address, 0) if address is not None else sum(serving.values())


def _get(srv: SiteServer, target: str, method: str = "GET") -> tuple[int, bytes]:
    answer = _exchange(srv, f"{method} {target} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    status = int(answer.split(b" ", 2)[1]) if answer.startswith(b"HTTP/") else 0
    return status, answer


def test_it_serves_the_site(server: SiteServer) -> None:
    status, answer = _get(server, "/")
    assert status == 200 and b"<h1>Tournament</h1>" in answer
    assert b"Content-Security-Policy: default-src 'none'" in answer
    assert _get(server, "/match-1.html")[0] == 200
    status, answer = _get(server, "/style.css", "HEAD")
    assert status == 200 and b"text/css" in answer and answer.endswith(b"\r\n\r\n")


@pytest.mark.parametrize("target", [
    "/../secret.txt", "/%2e%2e/secret.txt", "/..%2fsecret.txt", "//secret.txt",
    "/../../../../etc/passwd", "/%2e%2e%2f%2e%2e%2fetc%2fpasswd", "/.index.html.tmp",
    "/sub/index.html", "/C:%5cWindows%5cwin.ini", "/index.html%00.css", "/" + "a" * 300,
    "http://evil/../secret.txt", "*"])
def test_nothing_but_the_sites_own_files(server: SiteServer, target: str) -> None:
    status, answer = _get(server, target)
    assert status in (400, 404), (target, answer[:200])
    assert b"root:" not in answer


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "OPTIONS", "TRACE", "BREW"])
def test_only_get_and_head(server: SiteServer, method: str) -> None:
    status, answer = _get(server, "/", method)
    assert status in (405, 501)
    if status == 405:  # a method HTTP knows: the answer says which are allowed
        assert b"\r\nAllow: GET, HEAD\r\n" in answer


def test_the_data_is_served_as_text(server: SiteServer) -> None:
    status, answer = _get(server, "/matches.jsonl")
    assert status == 200 and b"Content-Type: text/plain; charset=utf-8" in answer
    assert b'"winner_name": "Alice"' in answer
    for name, kind in (("/match-1.txt", b"text/plain"), ("/match-1.json", b"application/json"),
                       ("/live.js", b"text/javascript")):
        status, answer = _get(server, name)
        assert status == 200 and b"Content-Type: " + kind in answer, name


@pytest.mark.parametrize("raw", [
    b"\x00\xff\xfe garbage\r\n\r\n", b"GET\r\n\r\n", b"GET / HTTP/9.9\r\n\r\n",
    b"GET " + b"/" * 70_000 + b" HTTP/1.1\r\n\r\n",
    b"GET / HTTP/1.1\r\n" + b"X-A: b\r\n" * 200 + b"\r\n",
    b"GET / HTTP/1.1\r\nX-Long: " + b"x" * 70_000 + b"\r\n\r\n"])
def test_garbage_gets_an_error_and_the_server_goes_on(server: SiteServer, raw: bytes) -> None:
    answer = _exchange(server, raw)
    assert answer == b"" or answer.startswith((b"HTTP/1.0 4", b"HTTP/1.0 5", b"<!DOCTYPE")), \
        answer[:100]
    assert _get(server, "/")[0] == 200


def test_silent_and_trickling_clients_are_cut_off(server: SiteServer) -> None:
    started = time.monotonic()
    silent = _connect(server)
    trickle = _connect(server)
    trickle.sendall(b"GET / HTTP/1.1\r\n")
    ended = {}

    def drip() -> None:  # a header byte well within each read's timeout, for ever
        try:
            while time.monotonic() - started < 10:
                trickle.sendall(b"X")
                time.sleep(READ_S / 3)
        except OSError:
            ended["trickle"] = time.monotonic() - started

    dripper = threading.Thread(target=drip, daemon=True)
    dripper.start()
    silent.settimeout(5)
    try:
        said = silent.recv(100)
    except ConnectionResetError:
        said = b""
    ended["silent"] = time.monotonic() - started
    assert said == b"", said  # closed without an answer
    dripper.join(12)
    assert ended["silent"] < READ_S + 1.5, ended
    assert "trickle" in ended and ended["trickle"] < CONNECTION_S + 1.5, ended
    silent.close()
    trickle.close()
    assert _get(server, "/")[0] == 200


def test_more_clients_than_it_serves_are_turned_away(server: SiteServer) -> None:
    hogs = [_connect(server) for _ in range(MAX_CLIENTS)]
    until(lambda: _held(server) == MAX_CLIENTS, 5)  # each holds a slot, sending nothing
    extra = _connect(server)
    extra.settimeout(2)
    started = time.monotonic()
    try:
        assert extra.recv(100) == b""  # closed at once, not served, not queued
    except ConnectionResetError:
        pass
    assert time.monotonic() - started < 1.0
    for hog in hogs:
        hog.close()
    deadline = time.monotonic() + READ_S + 2
    while time.monotonic() < deadline:  # the slots come back once the hogs are gone
        if _get(server, "/")[0] == 200:
            break
        time.sleep(0.1)
    else:
        pytest.fail("the server did not recover its slots")
    assert threading.active_count() < 30


@pytest.mark.skipif(not other_loopback_works(), reason="127.0.0.2 is not loopback here")
def test_one_address_trickling_requests_keeps_nobody_else_out(
        tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    """Slowloris: 32 connections from 127.0.0.2 (as many as the server serves in
    all) each begin a request and say no more; 40 page requests from 127.0.0.1
    meanwhile are all answered, since one address gets only its share. The
    hogs hanging up print no traceback."""
    write_site([DOC], tmp_path / "site")
    srv = SiteServer(tmp_path / "site", "127.0.0.1", 0, read_timeout=5, connection_timeout=15)
    thread = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05},
                              daemon=True)
    thread.start()
    hogs: list[socket.socket] = []
    try:
        for _ in range(serve.MAX_CLIENTS):
            hog = connect_from("127.0.0.2", srv.port)
            hogs.append(hog)
            with contextlib.suppress(OSError):  # closed at once: more than its share
                hog.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
        # each of its share holds a slot, waiting for the rest; the others are closed
        until(lambda: _held(srv, "127.0.0.2") == serve.MAX_PER_ADDRESS
              and sum(map(answered, hogs)) == len(hogs) - serve.MAX_PER_ADDRESS, 5,
              lambda: f"{_held(srv, '127.0.0.2')} held, {sum(map(answered, hogs))} closed")
        started = time.monotonic()
        statuses = [_get(srv, "/")[0] for _ in range(40)]
        assert statuses == [200] * 40
        assert time.monotonic() - started < 4  # before the hogs' reads time out
        for hog in hogs:
            hog.close()
        until(lambda: _held(srv, "127.0.0.2") == 0, 5)  # their threads saw them hang up
        assert "Traceback" not in capfd.readouterr().err
    finally:
        for hog in hogs:
            hog.close()
        srv.shutdown()
        srv.server_close()
        thread.join(5)


def test_report_serves_a_growing_results_file(tmp_path: Path) -> None:
    """`report FILE --serve`: the site of the file as it is when asked, rebuilt
    when it grows; bad ports are bad input."""
    import json
    import re
    import subprocess
    import sys
    import urllib.request

    results = tmp_path / "r.jsonl"
    results.write_text(json.dumps(DOC) + "\n")
    bad = subprocess.Popen([sys.executable, "-m", "csl_game", "report", str(results), "--serve",
                            "--port", "70000"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)  # (refused meanwhile, without serving)
    proc = subprocess.Popen([sys.executable, "-m", "csl_game", "report", str(results),
                             "--serve", "--port", "0", "--host", "127.0.0.1"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        url = re.search(r"http://\S+/", first)
        assert url, first
        with urllib.request.urlopen(url[0], timeout=10) as answer:
            assert b"Live: 1 match played" in answer.read()  # the file is growing
        second = {**DOC, "match": 1, "winner": "red", "winner_name": "Bob"}
        with results.open("a") as f:
            f.write(json.dumps(second) + "\n")
        deadline = time.monotonic() + 10  # rebuilt at most once a second: asked till it is
        while True:
            with urllib.request.urlopen(url[0], timeout=10) as answer:
                page = answer.read()
            if b"Live: 2 matches played" in page or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        assert b"Live: 2 matches played" in page, page[-2000:]
        with urllib.request.urlopen(url[0] + "match-2.html", timeout=10) as answer:
            assert answer.status == 200
    finally:
        proc.terminate()
        proc.wait(10)
        _, bad_err = bad.communicate(timeout=60)
    assert bad.returncode == 2 and "--port must be from 0 to 65535" in bad_err


class _Serving:
    """`report TARGET --serve` on a free port of loopback, started at once; its
    address once it says it (so that several start together)."""

    def __init__(self, target: Path, *extra: str, env: dict[str, str] | None = None) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "csl_game", "report", str(target), "--serve", "--port", "0",
             "--host", "127.0.0.1", *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, env={**os.environ, **(env or {})}, **INTERRUPTIBLE)
        self._url = ""

    @property
    def url(self) -> str:
        if not self._url:
            assert self.proc.stdout is not None
            first = self.proc.stdout.readline()
            found = re.search(r"http://\S+/", first)
            if not found:
                self.proc.kill()
                pytest.fail(f"{first}{self.proc.communicate()[1]}")
            self._url = found[0]
        return self._url

    def stop(self) -> str:
        """Ctrl+C; what it said on stderr."""
        self.proc.send_signal(signal.SIGINT)
        return self.proc.communicate(timeout=30)[1]


def _serve(target: Path, *extra: str, env: dict[str, str] | None = None
           ) -> tuple[subprocess.Popen[str], str]:
    """`report TARGET --serve` on a free port of loopback, and its address."""
    serving = _Serving(target, *extra, env=env)
    return serving.proc, serving.url


def _read(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=10) as answer:
        data: bytes = answer.read()
        return data


def test_serving_no_such_file_or_folder_is_one_line() -> None:
    done = subprocess.run([sys.executable, "-m", "csl_game", "report", "/no/such", "--serve",
                           "--port", "0"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "csl-game: error: /no/such: no such results file or site folder"], done.stderr


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a process: POSIX")
def test_serving_starts_with_the_session(tmp_path: Path) -> None:
    """A site folder served before its pages are written (the session has just
    made it): served as they come."""
    folder = tmp_path / "site"
    folder.mkdir()
    proc, url = _serve(folder)
    try:
        with pytest.raises(urllib.error.HTTPError):
            _read(url)
        write_site([DOC], folder)
        assert b"<h1>Tournament</h1>" in _read(url)
    finally:
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    assert "holds no index.html yet" in err and "Traceback" not in err


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a process: POSIX")
def test_a_finished_results_file_is_served_final_and_leaves_nothing(tmp_path: Path) -> None:
    """A results file that stopped changing is served as final pages (they do
    not ask for changes); Ctrl+C removes the folder the site was built in, and
    leaves an -o folder final."""
    results = tmp_path / "r.jsonl"
    results.write_text(json.dumps(DOC) + "\n")
    old = time.time() - 3600
    os.utime(results, (old, old))
    growing = tmp_path / "growing.jsonl"
    growing.write_text(json.dumps(DOC) + "\n")  # changed just now: live
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    out = tmp_path / "out"
    with ExitStack() as stack:  # the two served at once
        for proc in (final := _Serving(results, env={"TMPDIR": str(scratch)}),
                     live := _Serving(growing, "-o", str(out))):
            stack.callback(proc.stop)
        page = _read(final.url).decode()
        assert "data-live" not in page and "Final: the results of 1 match." in page
        assert [p.name.startswith("csl-site-") for p in scratch.iterdir()] == [True]
        assert "data-live" in _read(live.url).decode()
    assert list(scratch.iterdir()) == [], "the site's own folder is removed"
    assert "data-live" not in (out / "index.html").read_text()


needs_links = pytest.mark.skipif(not hasattr(os, "symlink") or sys.platform == "win32",
                                 reason="symbolic links as a plain user: POSIX")


@pytest.fixture(params=["no-follow", "look-first"])
def opening(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Both ways of opening a file: without following links (POSIX), and the
    look-then-check of systems without O_NOFOLLOW (Windows), run here too."""
    if request.param == "look-first":
        monkeypatch.setattr(serve, "_NO_LINKS", False)


@needs_links
@pytest.mark.usefixtures("opening")
def test_a_link_planted_in_the_folder_is_not_served(server: SiteServer, tmp_path: Path) -> None:
    """A thinker runs as the same user and may plant links in the site's folder:
    to a file outside it, to a folder, to a page of the site itself, or a hard
    link; none of them is served (a link is no page of the site)."""
    site = server.folder
    outside = tmp_path / "secret.txt"
    (site / "evil.html").symlink_to("/etc/passwd")
    (site / "leak.txt").symlink_to(outside)
    (site / "etc").symlink_to("/etc", target_is_directory=True)
    (site / "alias.html").symlink_to(site / "index.html")
    os.link(outside, site / "hard.txt")
    for target in ("/evil.html", "/leak.txt", "/etc", "/etc/passwd", "/alias.html",
                   "/hard.txt"):
        status, answer = _get(server, target)
        assert status == 404, (target, answer[:200])
        assert b"root:" not in answer
    assert _get(server, "/")[0] == 200  # the site's own files still are


@needs_links
@pytest.mark.usefixtures("opening")
def test_a_folder_swapped_for_a_link_is_not_followed(server: SiteServer, tmp_path: Path) -> None:
    """The served folder renamed away and a link to /etc put in its place: the
    server does not follow it (no link anywhere on the path from the folder)."""
    site = server.folder
    assert _get(server, "/")[0] == 200
    site.rename(tmp_path / "moved")
    site.symlink_to("/etc", target_is_directory=True)
    status, answer = _get(server, "/passwd")
    assert status == 404 and b"root:" not in answer


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes: POSIX")
@pytest.mark.usefixtures("opening")
def test_a_named_pipe_is_no_page(server: SiteServer) -> None:
    os.mkfifo(server.folder / "pipe.html")
    started = time.monotonic()
    assert _get(server, "/pipe.html")[0] == 404
    assert time.monotonic() - started < 2  # not left waiting for a writer


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX file modes")
def test_the_sites_files_are_readable_by_a_web_server_of_another_user(tmp_path: Path) -> None:
    """Every file of a site is 0644 and every folder it makes 0755, whatever the
    umask (a strict one included): a web server running as another user serves
    them. A folder that was there already keeps its own mode."""
    import stat

    from csl_game.services.site import SiteWriter

    old = os.umask(0o077)
    try:
        write_site([DOC], tmp_path / "a" / "b" / "site")
        (tmp_path / "mine").mkdir(mode=0o700)
        writer = SiteWriter(tmp_path / "mine")
        writer.add(DOC)
        writer.add({**DOC, "match": 1})
    finally:
        os.umask(old)
    for site in (tmp_path / "a" / "b" / "site", tmp_path / "mine"):
        files = sorted(site.iterdir())
        assert {"index.html", "style.css", "site.js", "match-1.html"} <= {f.name for f in files}
        for f in files:
            assert stat.S_IMODE(f.stat().st_mode) == 0o644, f
    for folder in (tmp_path / "a", tmp_path / "a" / "b", tmp_path / "a" / "b" / "site"):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o755, folder
    assert stat.S_IMODE((tmp_path / "mine").stat().st_mode) == 0o700
