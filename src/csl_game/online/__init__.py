"""Online play: one side hosts a match, the other joins, spectators watch.

The host runs the ordinary match engine (`csl_game.engine.match`); the
joined player is one more kind of player in it (`Remote`), whose moves
arrive over the network and are judged like any thinker's. `protocol` is the
line protocol without I/O; `hosting` and `joiner` the two ends' rules, as
state machines without I/O (messages and the clock in, messages to send
out); `wire` the bounded, non-blocking connections; `host` and `client` the
thin socket drivers of the two ends, each advanced by a `poll()` that never
blocks (a window calls it every frame; the console loops over it).
"""
