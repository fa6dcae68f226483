"""What the server believes of a request, without I/O: its session cookie,
whether it came over TLS, its client's address, and the names it is reached by.

- A **session cookie** is a random value and its HMAC under the server's key
  (kept in the database, so it survives a restart and is shared by every
  process of one database): a value the server never issued is no session.
- **TLS**: behind a TLS proxy the request reaches the server in clear; the
  proxy says it came over TLS in `X-Forwarded-Proto` or `Forwarded`. Only the
  cookie's `Secure` flag is decided by it, which a client can only make
  stricter for itself.
- **The client's address**: the socket's, except that a connection from
  loopback (a proxy on the same machine) is counted by the last address of
  its `X-Forwarded-For` (what that proxy saw), if it gives one.
- **Names** (DNS rebinding): a browser's WebSocket must come from a page of
  the host it names (`Origin` and `Host`), and that host must be an IP
  address, `localhost`, the name the server listens on, one of
  `ServerOptions.public_hosts`, or have come through a proxy on this machine
  (a loopback peer that says `X-Forwarded-For` or `Forwarded`, which a page's
  WebSocket cannot set): the proxy chose this server by that name.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import ipaddress
import re
import secrets
from collections.abc import Iterable, Mapping
from urllib.parse import urlsplit

__all__ = ["new_token", "hash_token", "new_session", "session_of", "came_over_tls", "client_address", "host_allowed",
           "origin_allowed", "new_key", "proxied"]

_SESSION = re.compile(r"([A-Za-z0-9_-]{32})\.([A-Za-z0-9_-]{22})")


def new_token() -> str:
    """A bot's token: 24 random bytes."""
    return secrets.token_urlsafe(24)


def hash_token(token: str) -> str:
    """A token as the database keeps it (SHA-256: tokens are random, so no salt is needed)."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_key() -> str:
    """A server's key for its session cookies."""
    return secrets.token_urlsafe(32)


def _mac(key: str, value: str) -> str:
    digest = hmac.new(key.encode("utf-8"), value.encode("ascii"), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest[:16]).decode("ascii").rstrip("=")


def new_session(key: str) -> str:
    """A new session cookie's value: 24 random bytes and their HMAC under `key`."""
    value = secrets.token_urlsafe(24)
    return f"{value}.{_mac(key, value)}"


def session_of(cookie: str, key: str) -> str:
    """The session `cookie` is, if the server issued it under `key` ('' if not)."""
    found = _SESSION.fullmatch(cookie)
    if found is None or not hmac.compare_digest(found.group(2), _mac(key, found.group(1))):
        return ""
    return cookie


def came_over_tls(secure: bool, headers: Mapping[str, str]) -> bool:
    """Whether the request came over TLS: to this server, or to the proxy in
    front of it (`X-Forwarded-Proto: https`, `Forwarded: proto=https`)."""
    if secure:
        return True
    forwarded_proto = headers.get("X-Forwarded-Proto", "").split(",")[0].strip().lower()
    if forwarded_proto == "https":
        return True
    first = headers.get("Forwarded", "").split(",")[0]
    for part in first.split(";"):
        key, _, value = part.strip().partition("=")
        if key.lower() == "proto" and value.strip('"').lower() == "https":
            return True
    return False


def _is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def proxied(peer: str, headers: Mapping[str, str]) -> bool:
    """Whether the request came through a proxy on this machine."""
    try:
        loopback = ipaddress.ip_address(peer).is_loopback
    except ValueError:
        return False
    return loopback and ("X-Forwarded-For" in headers or "Forwarded" in headers)


def client_address(peer: str, headers: Mapping[str, str]) -> str:
    """The address a connection is counted by: `peer`, or for a loopback peer
    (a proxy on this machine) the last address its `X-Forwarded-For` names."""
    try:
        loopback = ipaddress.ip_address(peer).is_loopback
    except ValueError:
        return peer
    if loopback:
        last = headers.get("X-Forwarded-For", "").split(",")[-1].strip()
        if _is_ip(last):
            return last
    return peer


def _host_name(host: str) -> str:
    """The name of a `Host` header (without its port; an IPv6 address without brackets)."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1:].split("]")[0]
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def host_allowed(host: str, names: Iterable[str]) -> bool:
    """Whether `host` (a `Host` header) is an IP address, `localhost`, or one of `names`."""
    name = _host_name(host)
    if not name:
        return False
    return _is_ip(name) or name == "localhost" or name.endswith(".localhost") \
        or name in {n.lower() for n in names}


def origin_allowed(origin: str | None, host: str, names: Iterable[str],
                   through_proxy: bool = False) -> bool:
    """A WebSocket's `Origin` and `Host`: none (no browser: a bot, the app), or
    a page of this same host, which is a name the server answers to (any name
    a proxy on this machine passed on)."""
    if origin is None:
        return True
    return urlsplit(origin).netloc.lower() == host.lower() and \
        (through_proxy or host_allowed(host, names))
