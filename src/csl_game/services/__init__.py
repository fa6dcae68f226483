"""The application's services, above the engine: what the window and the
console offer around matches and sessions, with no user interface.

Settings and the TOML setup file, the user's remembered things, difficulty
presets, hints, the texts of the log, reports and the reference's
competition files, replays of recorded matches, the thinker league. Each
service uses the engine through its front door (`csl_game.engine`), never
one of its modules; so do online play and the frontends.
"""
