"""A class reading cannot decide (its base is looked up at run time), and
which is no thinker (tests/test_referee_reads.py)."""

import importlib

Dynamic = importlib.import_module("json").JSONDecoder


class DynThinker(Dynamic):  # type: ignore[misc, valid-type]
    """Not a thinker: a JSON decoder."""
