"""The window's screens: setup, the match (with its result overlay), and the
screens between tournament matches."""
