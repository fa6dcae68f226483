"""Serve a tournament site to people on the network, safely.

A small HTTP server of the standard library's, made to withstand what a
network sends: it serves only the site's own files (one flat folder, names of
letters, digits, ``.``, ``-`` and ``_``; nothing from a request is ever used as
a path otherwise) and only regular files right in that folder, never through a
link (`read_site_file`: a symbolic link planted in the folder, to a file or a
folder, is no page of the site), answers only GET and HEAD, closes each
connection after one response, bounds the time a client may take (each read,
and the whole connection) and the number of clients at once, in all and from
one address (the rest are closed at once, so one address trickling requests
cannot keep the others out), and leaves request lines and headers to the standard library's own bounds.
With a `rebuild` function, the site is rebuilt (at most once a second) when a
page or its live data is asked for, so a site served from a growing results
file stays live. A refused method is answered 405 with the methods allowed.
"""

from __future__ import annotations

import os
import re
import socket
import stat
import sys
import threading
import time
from collections.abc import Callable
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from csl_game.services.addresses import address_of

__all__ = ["SiteServer", "MAX_CLIENTS", "MAX_PER_ADDRESS", "READ_TIMEOUT", "CONNECTION_TIMEOUT", "MAX_FILE",
           "read_site_file"]

MAX_CLIENTS = 32
"""Connections served at once; more are closed as they come."""
MAX_PER_ADDRESS = 8
"""Connections of one address (`addresses.address_of`) served at once; more from it
are closed as they come."""
READ_TIMEOUT = 5.0
"""Seconds a client may stay silent in the middle of its request."""
CONNECTION_TIMEOUT = 15.0
"""Seconds a connection may last in all (a client trickling bytes is cut off)."""
MAX_FILE = 64 << 20
"""Bytes of the largest file served (a site's pages are far smaller)."""
_NAME = re.compile(r"^[A-Za-z0-9_-][A-Za-z0-9._-]{0,99}$")
_TYPES = {".html": "text/html; charset=utf-8", ".css": "text/css; charset=utf-8",
          ".js": "text/javascript; charset=utf-8", ".json": "application/json",
          ".jsonl": "text/plain; charset=utf-8", ".txt": "text/plain; charset=utf-8",
          ".svg": "image/svg+xml", ".png": "image/png", ".md": "text/markdown; charset=utf-8"}
_ALLOWED = "GET, HEAD"
_REBUILT_BY = (".html", "live.js", "live.json")
"""Requests that rebuild a site served from a results file: a page, and what a
live page asks for to learn that the site changed."""
_NO_LINKS = hasattr(os, "O_NOFOLLOW") and os.open in os.supports_dir_fd
"""Whether a file can be opened relative to its folder without following a
link (POSIX); elsewhere (Windows) it is looked at first, then checked once open."""
_FILE_FLAGS = (os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
               | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0))
_FOLDER_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0)
_REPARSE_POINT = getattr(stat, "FILE_ATTRIBUTE_REPARSE_POINT", 0x400)
_POLICY = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
           "base-uri 'none'; form-action 'none'; frame-ancestors 'none'")


class _Handler(BaseHTTPRequestHandler):
    server: SiteServer
    protocol_version = "HTTP/1.0"  # one request a connection
    server_version = "csl-game"
    sys_version = ""

    def setup(self) -> None:
        super().setup()
        self.connection.settimeout(self.server.read_timeout)

    def do_GET(self) -> None:  # noqa: N802 (the standard library's name)
        self._serve(body=True)

    def do_HEAD(self) -> None:  # noqa: N802
        self._serve(body=False)

    def _refuse(self) -> None:
        """405, saying which methods are (Allow), as HTTP asks of it."""
        body = b"405: only GET and HEAD\n"
        self.send_response(HTTPStatus.METHOD_NOT_ALLOWED)
        self.send_header("Allow", _ALLOWED)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("X-Content-Type-Options", "nosniff")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = do_CONNECT = do_TRACE = _refuse

    def _serve(self, body: bool) -> None:
        path = self.server.file_for(self.path)
        data = None if path is None else read_site_file(self.server.folder, path.name)
        if path is None or data is None:
            self.send_error(HTTPStatus.NOT_FOUND, "no such page")
            return
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", _TYPES.get(path.suffix, "application/octet-stream"))
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-cache")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Content-Security-Policy", _POLICY)
        self.end_headers()
        if body:
            self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        if self.server.log is not None:
            self.server.log(f"{self.address_string()} {format % args}")


class SiteServer(ThreadingHTTPServer):
    """Serves the site in `folder` on (host, port); port 0 picks a free one."""

    daemon_threads = True
    request_queue_size = 64

    def __init__(self, folder: str | Path, host: str = "127.0.0.1", port: int = 8000, *,
                 rebuild: Callable[[], None] | None = None, max_clients: int = MAX_CLIENTS,
                 max_per_address: int = MAX_PER_ADDRESS, read_timeout: float = READ_TIMEOUT,
                 connection_timeout: float = CONNECTION_TIMEOUT,
                 log: Callable[[str], None] | None = None) -> None:
        self.folder = Path(folder).resolve()
        self.rebuild = rebuild
        self.read_timeout, self.connection_timeout = read_timeout, connection_timeout
        self.log = log
        self.max_clients, self.max_per_address = max_clients, max_per_address
        self._serving: dict[str, int] = {}
        """Connections being served, by address."""
        self._serving_lock = threading.Lock()
        self._rebuilt_at = 0.0
        self._rebuild_lock = threading.Lock()
        super().__init__((host, port), _Handler)

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    def file_for(self, target: str) -> Path | None:
        """The site file a request target names, or None: only a plain name of
        this folder (no sub-folders, no dot files), '/' being index.html. (It
        is read with `read_site_file`, which takes only a regular file.)"""
        path = unquote(urlsplit(target).path)
        name = path[1:] if path.startswith("/") else ""
        if path == "/":
            name = "index.html"
        if not _NAME.match(name) or ".." in name:
            return None
        if name.endswith(_REBUILT_BY):
            self._maybe_rebuild()
        return self.folder / name

    def _maybe_rebuild(self) -> None:
        if self.rebuild is None:
            return
        with self._rebuild_lock:
            if time.monotonic() - self._rebuilt_at < 1.0:
                return
            self._rebuilt_at = time.monotonic()
            try:
                self.rebuild()
            except Exception as e:  # a bad line appearing must not stop the server
                if self.log is not None:
                    self.log(f"could not rebuild the site: {e}")

    # ------------------------------------------------------ bounded clients
    def process_request(self, request: Any, client_address: Any) -> None:
        address = address_of(client_address)
        with self._serving_lock:
            full = (sum(self._serving.values()) >= self.max_clients
                    or self._serving.get(address, 0) >= self.max_per_address)
            if not full:
                self._serving[address] = self._serving.get(address, 0) + 1
        if full:
            self.shutdown_request(request)  # too many at once: this one is dropped
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._release(address)
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        watchdog = threading.Timer(self.connection_timeout, _cut, (request,))
        watchdog.daemon = True
        watchdog.start()
        try:
            super().process_request_thread(request, client_address)
        finally:
            watchdog.cancel()
            self._release(address_of(client_address))

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that went away or was cut off (a reset, a broken pipe, a
        time-out) is no error to print: only anything else is (the standard
        library's traceback)."""
        if not isinstance(sys.exc_info()[1], OSError):
            super().handle_error(request, client_address)

    def _release(self, address: str) -> None:
        with self._serving_lock:
            left = self._serving.get(address, 0) - 1
            if left > 0:
                self._serving[address] = left
            else:
                self._serving.pop(address, None)


def read_site_file(folder: Path, name: str) -> bytes | None:
    """The bytes of `name`, a regular file right in `folder`, or None: no such
    file, a symbolic link (to anything), a folder, a device or a pipe, a file
    with another name elsewhere (a hard link), or one over MAX_FILE bytes.

    Where the system can (POSIX), the folder and then the file are opened
    without following a link, so a link swapped in meanwhile is refused too;
    elsewhere the name is looked at first (no link, no reparse point, inside
    `folder`), and the file opened must be the one looked at.
    """
    try:
        fd = _open_no_link(folder, name)
    except OSError:
        return None
    if fd is None:
        return None
    with os.fdopen(fd, "rb") as f:
        try:
            info = os.fstat(f.fileno())
            if not stat.S_ISREG(info.st_mode) or info.st_nlink != 1:
                return None
            data = f.read(MAX_FILE + 1)
        except OSError:
            return None
    return data if len(data) <= MAX_FILE else None


def _open_no_link(folder: Path, name: str) -> int | None:
    """A descriptor of `folder`/`name` opened without going through a link, or
    None when a link (or something not inside `folder`) is in the way.

    Raises:
        OSError: it cannot be opened (no such file, a link where O_NOFOLLOW refuses it).
    """
    if _NO_LINKS:
        folder_fd = os.open(folder, _FOLDER_FLAGS)
        try:
            return os.open(name, _FILE_FLAGS, dir_fd=folder_fd)
        finally:
            os.close(folder_fd)
    path = folder / name
    seen = os.lstat(path)
    if (not stat.S_ISREG(seen.st_mode) or getattr(seen, "st_file_attributes", 0) & _REPARSE_POINT
            or Path(os.path.realpath(path)).parent != folder):
        return None
    fd = os.open(path, _FILE_FLAGS)
    opened = os.fstat(fd)
    if (opened.st_dev, opened.st_ino) != (seen.st_dev, seen.st_ino):
        os.close(fd)  # swapped between the look and the open
        return None
    return fd


def _cut(request: socket.socket) -> None:
    """End a connection that has lasted too long (its thread then sees an error)."""
    try:
        request.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
