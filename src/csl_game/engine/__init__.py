"""The engine: matches, sessions, results and the runners that run thinkers.

It holds every rule a frontend needs and no user interface.
"""
