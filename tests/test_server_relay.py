"""The processes' relay (csl_game.server.relay) on a PostgreSQL of the test's
own: whatever text a message holds (names are anyone's), it arrives as it
was sent and in its turn, batched or not, to one process or to all."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from csl_game.server.relay import MAX_PAYLOAD, Relay, _Listener

WAIT = 30.0
TEXTS = ('plain', 'a "quoted" name', "back\\slash \\n not a newline", "two\nlines",
         "tab\there", "{\"json\": [1, 2]}", "'; DROP TABLE games; --", "\u202eevil\u202c",
         "naïve ☃ 名前 🎲", "%s %(x)s ?", "@42", "12:not a length", "", "x" * 7_900,
         "🎲" * 2_500, "é" * 7_000 + "x" * 30_000)
"""Texts a notification's payload or the query carrying it could mangle:
quotes, backslashes, control characters, JSON, SQL, placeholders, the
relay's own lengths (of the messages that share a notification), nothing,
bidi overrides, any script, one near a notification's length limit, one
over it in bytes but not in characters, and one over it four times, in two
scripts (in pieces, to one process and to all)."""
MANY = [f"{i:03d} " + "y" * 700 for i in range(40)]
"""Messages to one process in one batch, more than one notification holds."""


def test_any_text_arrives_as_sent_and_in_order(pg_url: str) -> None:
    async def run() -> tuple[list[str], list[str]]:
        one, other = Relay(pg_url), Relay(pg_url)
        heard: dict[int, list[str]] = {one.me: [], other.me: []}
        news = asyncio.Event()

        def hearing(me: int) -> Callable[[str], None]:
            def heard_by(text: str) -> None:
                heard[me].append(text)
                news.set()
            return heard_by
        await one.start(hearing(one.me))
        await other.start(hearing(other.me))
        try:
            for text in TEXTS:  # published in one turn of the loop: one batch
                one.publish(other.me, text)
            await asyncio.sleep(0)
            for text in MANY:
                one.publish(other.me, text)
            await asyncio.sleep(0)
            for text in TEXTS:  # one at a time: a batch each
                one.publish(None, text)
                await asyncio.sleep(0)
            while len(heard[other.me]) < 2 * len(TEXTS) + len(MANY) \
                    or len(heard[one.me]) < len(TEXTS):
                await asyncio.wait_for(news.wait(), WAIT)
                news.clear()
            return heard[other.me], heard[one.me]
        finally:
            await one.close()
            await other.close()

    to_other, to_one = asyncio.run(run())
    assert to_other == [*TEXTS, *MANY, *TEXTS]
    assert to_one == list(TEXTS)  # its own messages to all come back to it too


def test_a_message_soon_after_a_batch_waits_for_the_next_with_others(pg_url: str) -> None:
    """One after a quiet spell goes at once; those published within `gather_s`
    of its batch wait until then and go as one batch (one notification)."""
    gather_s = 1.0

    async def run() -> None:
        sender, listener = Relay(pg_url, gather_s=gather_s), Relay(pg_url)
        heard: list[tuple[str, float]] = []
        news = asyncio.Event()
        loop = asyncio.get_running_loop()

        def heard_by(text: str) -> None:
            heard.append((text, loop.time()))
            news.set()

        async def hearing(count: int) -> None:
            while len(heard) < count:
                await asyncio.wait_for(news.wait(), WAIT)
                news.clear()
        await sender.start(lambda text: None)
        await listener.start(heard_by)
        try:
            quiet = loop.time()
            sender.publish(listener.me, "first")
            await hearing(1)
            first_sent, seq = sender._last, sender._seq
            assert first_sent - quiet < gather_s  # not held back
            sender.publish(listener.me, "second")
            await asyncio.sleep(0.05)
            sender.publish(listener.me, "third")
            await hearing(3)
            assert [text for text, _ in heard] == ["first", "second", "third"]
            assert heard[1][1] >= first_sent + gather_s  # held until its time
            assert sender._seq == seq + 1  # the two in one notification
        finally:
            await sender.close()
            await listener.close()

    asyncio.run(run())


LONG = st.builds(lambda head, c, n: head + c * n, st.text(max_size=20), st.characters(),
                 st.integers(0, 20_000))
"""A text of up to 20,000 characters of one character after a short head:
one notification's room and several, in any script."""


@pytest.mark.unit
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(["csl_all", "csl_7"]), st.one_of(st.text(), LONG)),
                max_size=40))
def test_a_batchs_notifications_give_each_listener_its_messages_in_order(
        batch: list[tuple[str, str]]) -> None:
    """However a batch's messages are cut and gathered into notifications,
    each payload is within PostgreSQL's limit, no two are equal (it would
    fold them), and a process listening to one channel, or to both, reads
    the messages sent to it, whole and in order."""
    relay = Relay("postgresql://unused")
    notes = relay._notes(batch)
    assert all(len(payload.encode("utf-8")) <= MAX_PAYLOAD for _, payload in notes)
    assert len({payload for _, payload in notes}) == len(notes)
    for listens in ({"csl_all"}, {"csl_all", "csl_7"}):
        listener = _Listener()
        heard = [text for to, payload in notes if to in listens
                 for text in listener.messages(1234, payload)]
        assert heard == [text for to, text in batch if to in listens]
