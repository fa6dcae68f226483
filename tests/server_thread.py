"""A game server in a thread of the test process (its own event loop), for
tests that speak to it themselves: raw sockets, WebSockets, hostile clients."""

from __future__ import annotations

import asyncio
import io
import threading
from pathlib import Path
from typing import Any

from csl_game.server import Hub, Served, ServerOptions, SqliteStore, serve


async def _tasks() -> str:
    """What each task of the running loop is waiting on."""
    out = io.StringIO()
    for task in asyncio.all_tasks():
        if task is not asyncio.current_task():
            task.print_stack(limit=12, file=out)
    return out.getvalue()


class ServerThread:
    """`with ServerThread(tmp_path, options) as s:` a server at `s.url`."""

    def __init__(self, folder: Path, options: ServerOptions = ServerOptions()) -> None:
        self.folder = folder
        self.options = options
        self.loop = asyncio.new_event_loop()
        self.served: Served | None = None
        self._ready = threading.Event()
        self._failed: BaseException | None = None
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        try:
            hub = Hub(SqliteStore(self.folder / "games.sqlite3"), self.options)
            self.served = self.loop.run_until_complete(serve(hub, "127.0.0.1", 0))
        except BaseException as e:  # noqa: BLE001 (handed to the test's thread)
            self._failed = e
            self._ready.set()
            return
        self._ready.set()
        self.loop.run_forever()

    def __enter__(self) -> ServerThread:
        self._thread.start()
        self._ready.wait(30)
        if self._failed is not None:
            raise self._failed
        return self

    @property
    def hub(self) -> Hub:
        assert self.served is not None
        return self.served.hub

    @property
    def url(self) -> str:
        assert self.served is not None
        return self.served.url

    @property
    def port(self) -> int:
        assert self.served is not None
        return self.served.port

    def open_connections(self) -> int:
        """Connections the server holds now."""
        assert self.served is not None
        return self.served.guard.total

    def call(self, make: Any, timeout: float = 10) -> Any:
        """Run a coroutine (made by `make()`) on the server's loop; its result."""
        return asyncio.run_coroutine_threadsafe(make(), self.loop).result(timeout)

    def __exit__(self, *exc: object) -> None:
        if self.served is not None:
            try:
                self.call(self.served.close, 30)
            except TimeoutError:
                raise TimeoutError("the server did not close in 30 s; its tasks:\n"
                                   + self.call(_tasks)) from None
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(30)
