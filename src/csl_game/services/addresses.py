"""Network addresses as the program reads and counts them.

`parse_address` reads HOST:PORT as the command line and the setup give it,
`address_of` says whom a peer counts as when its connections are limited (the
online host and the site server both bound what one address may do), and
`lan_address` is this machine's address on its network, to tell others.
"""

from __future__ import annotations

import ipaddress
import socket

__all__ = ["parse_address", "address_of", "lan_address"]


def parse_address(text: str, bare: bool = False) -> tuple[str, int]:
    """'HOST:PORT' (or '[v6]:PORT'), or with `bare` also 'PORT' and ':PORT'
    (host '': every interface): (host, port).

    Raises:
        ValueError: not such an address, or a port beyond 0-65535 (message in words).
    """
    host, sep, port = text.strip().rpartition(":")
    if not sep:
        if not bare:
            raise ValueError(f"'{text}' is not HOST:PORT")
        port = text.strip()
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if not port.isdigit() or len(port) > 5:
        raise ValueError(f"'{text}': the port must be a number from 0 to 65535")
    if not 0 <= int(port) <= 65535:
        raise ValueError(f"'{text}': the port must be from 0 to 65535, not {int(port)}")
    if not host and not bare:
        raise ValueError(f"'{text}' names no host (HOST:PORT)")
    return host, int(port)


def address_of(peer: object) -> str:
    """Whom a peer's limits count it as: its IPv4 address, or for IPv6 its /64
    network (a single machine is commonly given a whole /64); an IPv4 address
    mapped into IPv6 counts as itself. `peer` is what accept() gives."""
    host = peer[0] if isinstance(peer, tuple) and peer else peer
    text = str(host).split("%", 1)[0]  # an IPv6 scope: the same machine
    try:
        ip = ipaddress.ip_address(text)
    except ValueError:
        return text
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


def lan_address() -> str:
    """This machine's address on its network (no packet is sent), else its name."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # TEST-NET-1: picks the outgoing interface
            return str(probe.getsockname()[0])
        except OSError:
            return socket.gethostname()
