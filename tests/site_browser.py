"""Headless Chromium driven over the DevTools protocol, for the site's tests.

The browser is the system's (`apt-get install chromium`), started as the
site tests start it (--headless, no sandbox, a profile of its own), with
--remote-debugging-pipe: the protocol's JSON messages go over two pipes
(file descriptors 3 and 4 of the browser), so nothing listens on a port and
nothing beyond the standard library is needed. A `Person` is a browser
context of its own (cookies and storage apart, as another browser's), so
one browser serves several players. A `Tab` loads a page at a
size (a phone's 390 x 844, a desktop's 1280 x 900) and colour scheme, runs
JavaScript in it, presses keys, takes screenshots, runs axe-core
(tests/vendor/axe.min.js) and keeps what the page logged as errors.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
AXE = Path(__file__).parent / "vendor" / "axe.min.js"
PHONE = (390, 844)
DESKTOP = (1280, 900)
_KEYS = {"ArrowLeft": 37, "ArrowRight": 39, "Home": 36, "End": 35, "Tab": 9, " ": 32,
         "Enter": 13}


def browser_path() -> str | None:
    return next((found for name in BROWSERS if (found := shutil.which(name))), None)


class BrowserError(RuntimeError):
    """The browser answered a command with an error, or went away."""


class Browser:
    """One headless browser; `tab()` opens pages in it."""

    def __init__(self, executable: str, timeout: float = 30.0) -> None:
        self.timeout = timeout
        self._profile = tempfile.mkdtemp(prefix="csl-chromium-")
        to_browser, self._to_browser = os.pipe()
        self._from_browser, from_browser = os.pipe()

        def pipes() -> None:  # in the child: the protocol's descriptors 3 and 4
            read, write = os.dup(to_browser), os.dup(from_browser)
            os.dup2(read, 3)
            os.dup2(write, 4)

        self.process = subprocess.Popen(
            [executable, "--headless", "--no-sandbox", "--disable-gpu",
             "--remote-debugging-pipe", "--no-first-run", "--no-default-browser-check",
             "--hide-scrollbars", "--force-color-profile=srgb",
             f"--user-data-dir={self._profile}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            close_fds=False, preexec_fn=pipes, env={**os.environ, "HOME": self._profile})
        os.close(to_browser)
        os.close(from_browser)
        self._next = 0
        self._lock = threading.Lock()
        self._answers: dict[int, dict[str, Any]] = {}
        self._arrived = threading.Condition()
        self.events: dict[str, list[dict[str, Any]]] = {}
        """Events by session, as they came."""
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        buffered = b""
        while True:
            try:
                chunk = os.read(self._from_browser, 1 << 16)
            except OSError:
                chunk = b""
            if not chunk:
                with self._arrived:
                    self._answers[-1] = {"error": {"message": "the browser went away"}}
                    self._arrived.notify_all()
                return
            buffered += chunk
            while b"\0" in buffered:
                raw, buffered = buffered.split(b"\0", 1)
                message = json.loads(raw)
                with self._arrived:
                    if "id" in message:
                        self._answers[message["id"]] = message
                    else:
                        self.events.setdefault(message.get("sessionId", ""), []).append(
                            message)
                    self._arrived.notify_all()

    def send(self, method: str, params: dict[str, Any] | None = None,
             session: str | None = None, timeout: float | None = None) -> dict[str, Any]:
        with self._lock:
            self._next += 1
            ident = self._next
        message: dict[str, Any] = {"id": ident, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + (timeout or self.timeout)
        with self._arrived:
            while ident not in self._answers:
                if -1 in self._answers:
                    raise BrowserError(f"{method}: the browser went away")
                left = deadline - time.monotonic()
                if left <= 0:
                    raise BrowserError(f"{method}: no answer in time")
                self._arrived.wait(left)
            answer = self._answers.pop(ident)
        if "error" in answer:
            raise BrowserError(f"{method}: {answer['error']}")
        result: dict[str, Any] = answer.get("result", {})
        return result

    def tab(self, url: str, size: tuple[int, int] = DESKTOP, dark: bool = False,
            scale: float = 1.0, context: str | None = None) -> Tab:
        made: dict[str, Any] = {"url": "about:blank"}
        if context is not None:
            made["browserContextId"] = context
        target = self.send("Target.createTarget", made)["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target,
                                                      "flatten": True})["sessionId"]
        tab = Tab(self, session, target)
        for domain in ("Page", "Runtime", "Log"):
            tab.send(f"{domain}.enable")
        tab.resize(size, scale)
        tab.send("Emulation.setEmulatedMedia", {"features": [
            {"name": "prefers-color-scheme", "value": "dark" if dark else "light"},
            {"name": "prefers-reduced-motion", "value": "reduce"}]})
        tab.send("Emulation.setFocusEmulationEnabled", {"enabled": True})
        tab.goto(url)
        return tab

    def person(self) -> Person:
        """Someone else at the browser: a context of their own (`with` closes it)."""
        return Person(self)

    def close(self) -> None:
        try:
            self.send("Browser.close", timeout=5)
        except (BrowserError, OSError):
            pass
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)
        for fd in (self._to_browser, self._from_browser):
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(self._profile, ignore_errors=True)


class Person:
    """A browser context: its own cookies, storage and cache, as if in a browser
    of its own (an incognito window's), its tabs closed with it."""

    def __init__(self, browser: Browser) -> None:
        self.browser = browser
        self.context = str(browser.send("Target.createBrowserContext")["browserContextId"])

    def tab(self, url: str, size: tuple[int, int] = DESKTOP, dark: bool = False,
            scale: float = 1.0) -> Tab:
        return self.browser.tab(url, size, dark, scale, self.context)

    def __enter__(self) -> Person:
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            self.browser.send("Target.disposeBrowserContext",
                              {"browserContextId": self.context})
        except BrowserError:
            pass


class Tab:
    """A page of the browser."""

    def __init__(self, browser: Browser, session: str, target: str) -> None:
        self.browser, self.session, self.target = browser, session, target

    def send(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        return self.browser.send(method, params, self.session)

    def resize(self, size: tuple[int, int], scale: float = 1.0) -> None:
        width, height = size
        self.send("Emulation.setDeviceMetricsOverride", {
            "width": width, "height": height, "deviceScaleFactor": scale,
            "mobile": width < 600})

    def goto(self, url: str) -> None:
        self.send("Page.navigate", {"url": url})
        self.wait_for("document.readyState === 'complete' && "
                      "document.documentElement.hasAttribute('data-ready')")

    def eval(self, expression: str) -> Any:
        """The value of a JavaScript expression (a promise's, once it settles)."""
        answer = self.send("Runtime.evaluate", {"expression": expression,
                                                "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in answer:
            raise BrowserError(f"{expression[:80]}: {answer['exceptionDetails']}")
        return answer["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 20.0) -> Any:
        """The first true value of `expression`, asked every 0.1 s for up to
        `timeout` s. An expression that throws is asked again: a page that is
        navigating has no body for a moment (the last error is in the message)."""
        deadline = time.monotonic() + timeout
        failed: BrowserError | None = None
        while True:
            try:
                value = self.eval(expression)
            except BrowserError as e:
                failed, value = e, None
            if value:
                return value
            if time.monotonic() > deadline:
                why = f" (last: {failed})" if failed is not None else ""
                raise BrowserError(f"waited {timeout:g} s for {expression}{why}")
            time.sleep(0.1)

    def key(self, key: str) -> None:
        code = _KEYS.get(key, 0)
        base = {"key": key, "code": "Space" if key == " " else key,
                "windowsVirtualKeyCode": code, "nativeVirtualKeyCode": code}
        if key == " ":
            base["text"] = " "
        self.send("Input.dispatchKeyEvent", {"type": "keyDown", **base})
        self.send("Input.dispatchKeyEvent", {"type": "keyUp", **base})

    def click(self, selector: str) -> None:
        """A real mouse click in the middle of the element."""
        box = self.eval(f"(() => {{ const e = document.querySelector({json.dumps(selector)});"
                        "e.scrollIntoView({block: 'center'}); const r = "
                        "e.getBoundingClientRect(); return [r.x + r.width / 2, "
                        "r.y + r.height / 2]; })()")
        for kind in ("mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", {"type": kind, "x": box[0], "y": box[1],
                                                   "button": "left", "clickCount": 1})

    def screenshot(self, path: Path) -> Path:
        """The whole page, as a PNG."""
        metrics = self.send("Page.getLayoutMetrics")
        size = metrics["cssContentSize"]
        width = metrics["cssLayoutViewport"]["clientWidth"]
        shot = self.send("Page.captureScreenshot", {
            "format": "png", "captureBeyondViewport": True,
            "clip": {"x": 0, "y": 0, "width": width, "height": size["height"], "scale": 1}})
        path.write_bytes(base64.b64decode(shot["data"]))
        return path

    def axe(self) -> list[dict[str, Any]]:
        """axe-core's violations on the page as it is (every rule it runs by default)."""
        if not self.eval("typeof axe !== 'undefined'"):
            self.eval(AXE.read_text(encoding="utf-8") + "; true")
        result = self.eval("axe.run(document, {resultTypes: ['violations'], preload: false})"
                           ".then(r => r.violations.map(v => ({id: v.id, impact: v.impact, "
                           "help: v.help, nodes: v.nodes.map(n => n.target.join(' ') + ': ' "
                           "+ n.failureSummary)})))")
        return list(result)

    def errors(self) -> list[str]:
        """What the page logged as errors, and what it threw."""
        found = []
        for event in self.browser.events.get(self.session, []):
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.exceptionThrown":
                found.append(str(params["exceptionDetails"].get("exception", {})
                                 .get("description") or params["exceptionDetails"]))
            elif method == "Runtime.consoleAPICalled" and params.get("type") == "error":
                found.append(" ".join(str(a.get("value", a.get("description")))
                                      for a in params.get("args", [])))
            elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
                found.append(params["entry"].get("text", ""))
        return found

    def close(self) -> None:
        try:
            self.browser.send("Target.closeTarget", {"targetId": self.target})
        except BrowserError:
            pass


@contextmanager
def browser() -> Iterator[Browser]:
    """A headless Chromium, or the test skipped when there is none."""
    import pytest

    executable = browser_path()
    if executable is None:
        pytest.skip("no Chromium here (apt-get install chromium)")
    if sys.platform == "win32":
        pytest.skip("the DevTools pipe is passed as descriptors 3 and 4: POSIX")
    started = Browser(executable)
    try:
        yield started
    finally:
        started.close()
