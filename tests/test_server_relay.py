"""The processes' relay (csl_game.server.relay) on a PostgreSQL of the test's
own: whatever text a message holds (names are anyone's), it arrives as it
was sent and in its turn, batched or not, to one process or to all."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from csl_game.server.relay import Relay

WAIT = 30.0
TEXTS = ('plain', 'a "quoted" name', "back\\slash \\n not a newline", "two\nlines",
         "tab\there", "{\"json\": [1, 2]}", "'; DROP TABLE games; --", "\u202eevil\u202c",
         "naïve ☃ 名前 🎲", "%s %(x)s ?", "@42", "x" * 7_900)
"""Texts a notification's payload or the query carrying it could mangle:
quotes, backslashes, control characters, JSON, SQL, placeholders, the
relay's own '@' (a long message's row), bidi overrides, any script, and one
near a notification's length limit."""


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
            for text in TEXTS:  # one at a time: a batch each
                one.publish(None, text)
                await asyncio.sleep(0)
            while len(heard[other.me]) < 2 * len(TEXTS) or len(heard[one.me]) < len(TEXTS):
                await asyncio.wait_for(news.wait(), WAIT)
                news.clear()
            return heard[other.me], heard[one.me]
        finally:
            await one.close()
            await other.close()

    to_other, to_one = asyncio.run(run())
    assert to_other == [*TEXTS, *TEXTS]
    assert to_one == list(TEXTS)  # its own messages to all come back to it too
