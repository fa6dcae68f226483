"""Serve a tournament site to people on the network, safely.

A small HTTP server of the standard library's, made to withstand what a
network sends: it serves only the site's own files (one flat folder, names of
letters, digits, ``.``, ``-`` and ``_``; nothing from a request is ever used as
a path otherwise), answers only GET and HEAD, closes each connection after one
response, bounds the time a client may take (each read, and the whole
connection) and the number of clients at once (the rest are closed at once),
and leaves request lines and headers to the standard library's own bounds.
With a `rebuild` function, the site is rebuilt (at most once a second) when a
page is asked for, so a site served from a growing results file stays live.
"""

from __future__ import annotations

import re
import socket
import threading
import time
from collections.abc import Callable
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

__all__ = ["SiteServer", "MAX_CLIENTS", "READ_TIMEOUT", "CONNECTION_TIMEOUT"]

MAX_CLIENTS = 32
"""Connections served at once; more are closed as they come."""
READ_TIMEOUT = 5.0
"""Seconds a client may stay silent in the middle of its request."""
CONNECTION_TIMEOUT = 15.0
"""Seconds a connection may last in all (a client trickling bytes is cut off)."""
_NAME = re.compile(r"^[A-Za-z0-9_-][A-Za-z0-9._-]{0,99}$")
_TYPES = {".html": "text/html; charset=utf-8", ".css": "text/css; charset=utf-8",
          ".js": "text/javascript; charset=utf-8", ".json": "application/json",
          ".svg": "image/svg+xml", ".png": "image/png", ".md": "text/markdown; charset=utf-8"}
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
        self.send_error(HTTPStatus.METHOD_NOT_ALLOWED, "only GET and HEAD")

    do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = do_CONNECT = do_TRACE = _refuse

    def _serve(self, body: bool) -> None:
        path = self.server.file_for(self.path)
        if path is None:
            self.send_error(HTTPStatus.NOT_FOUND, "no such page")
            return
        try:
            data = path.read_bytes()
        except OSError:
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
                 read_timeout: float = READ_TIMEOUT,
                 connection_timeout: float = CONNECTION_TIMEOUT,
                 log: Callable[[str], None] | None = None) -> None:
        self.folder = Path(folder).resolve()
        self.rebuild = rebuild
        self.read_timeout, self.connection_timeout = read_timeout, connection_timeout
        self.log = log
        self._slots = threading.BoundedSemaphore(max_clients)
        self._rebuilt_at = 0.0
        self._rebuild_lock = threading.Lock()
        super().__init__((host, port), _Handler)

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    def file_for(self, target: str) -> Path | None:
        """The site file a request target names, or None: only a plain name of
        this folder (no sub-folders, no dot files), '/' being index.html."""
        path = unquote(urlsplit(target).path)
        name = path[1:] if path.startswith("/") else ""
        if path == "/":
            name = "index.html"
        if not _NAME.match(name) or ".." in name:
            return None
        if name.endswith(".html"):
            self._maybe_rebuild()
        candidate = self.folder / name
        return candidate if candidate.is_file() else None

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
        if not self._slots.acquire(blocking=False):
            self.shutdown_request(request)  # too many at once: this one is dropped
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        watchdog = threading.Timer(self.connection_timeout, _cut, (request,))
        watchdog.daemon = True
        watchdog.start()
        try:
            super().process_request_thread(request, client_address)
        finally:
            watchdog.cancel()
            self._slots.release()


def _cut(request: socket.socket) -> None:
    """End a connection that has lasted too long (its thread then sees an error)."""
    try:
        request.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
