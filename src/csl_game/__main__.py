"""``python -m csl_game``: the same as the ``csl-game`` command."""

import sys

from csl_game.launch import main

sys.exit(main())
