"""A cluster's hub (csl_game.server.cluster) as it routes a client's requests,
without sockets or a database: a relay that keeps what is published and
answers the `owners` table's questions as told. The owners of the others'
games and their join codes are learnt from the others' notes (``O``, ``E``),
so a join or a watch goes to its owner without asking the database; who a
client is goes to an owner once, and again only when it changes."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from csl_game.server import Client, ServerOptions, SqliteStore, cluster
from csl_game.server.cluster import ClusterHub
from csl_game.server.messages import Join, Watch, decode_request

pytestmark = pytest.mark.unit
CODE = "K7QM-4XDT-9BHP"


class Relay:
    """What the hub publishes, kept; the `owners` table's answers, as told."""

    me = 7

    def __init__(self) -> None:
        self.sent: list[tuple[int | None, str]] = []
        self.asked: list[Any] = []
        self.answer: tuple[str, int] | None = None

    def publish(self, to: int | None, payload: str) -> None:
        self.sent.append((to, payload))

    async def owner(self, game: str = "", codes: tuple[str, ...] = ()) -> tuple[str, int] | None:
        self.asked.append(game or codes)
        return self.answer

    def taken(self) -> list[tuple[int | None, str]]:
        sent, self.sent = self.sent, []
        return sent


def hub_and_client() -> tuple[ClusterHub, Relay, Client]:
    hub = ClusterHub(SqliteStore(":memory:"), ServerOptions(), "postgresql://nowhere/csl")
    relay = Relay()
    hub.relay = relay  # type: ignore[assignment]
    client = Client("10.0.0.1", session="s" * 16, name="Ann")
    hub.connected(client)
    return hub, relay, client


def test_a_join_by_a_code_another_process_made_goes_to_it_without_asking() -> None:
    async def run() -> None:
        hub, relay, client = hub_and_client()
        hub._heard(f"O9 g1 {CODE}")
        assert await hub._relayed(client, Join("k7qm4xdt9bhp"))  # as typed: any case, no dashes
        assert relay.asked == []
        (to_who, who), (to_join, join) = relay.taken()
        assert (to_who, to_join) == (9, 9) and who.startswith('W{"from": 7')
        head, text = join[1:].split("\n", 1)
        assert head == f"7 {client.conn}" and decode_request(text) == Join("k7qm4xdt9bhp")
        assert await hub._relayed(client, Watch("g1"))  # told once who it is
        assert [to for to, _ in relay.taken()] == [9] and "g1" in client.rooms
        client.name = "Dee"  # a new name: told again
        assert await hub._relayed(client, Watch("g1"))
        assert [p[0] for _, p in relay.taken()] == ["W", "C"]
        hub._heard(f"Eg1 {CODE}")  # the game ended: its code is free
        assert not await hub._relayed(client, Join(CODE))  # nobody has it: here
        assert relay.asked == [(CODE, CODE)]
    asyncio.run(run())


def test_its_own_notes_teach_a_process_nothing_and_the_oldest_are_forgotten(
        monkeypatch: pytest.MonkeyPatch) -> None:
    async def run() -> None:
        hub, relay, client = hub_and_client()
        hub._heard(f"O7 mine {CODE}")  # its own, heard back
        assert hub.owners == {} and not await hub._relayed(client, Join(CODE))
        assert relay.asked == [(CODE, CODE)]
        monkeypatch.setattr(cluster, "KNOWN", 3)
        for n in range(5):
            hub._heard(f"O9 g{n} ")  # (a ladder game: no code)
        assert list(hub.owners) == ["g2", "g3", "g4"]
        relay.answer = ("g0", 9)  # forgotten: asked, and kept in mind again
        assert await hub._relayed(client, Watch("g0"))
        assert relay.asked[-1] == "g0" and list(hub.owners) == ["g3", "g4", "g0"]
    asyncio.run(run())
