"""Run the thinker league: ``python benchmarks/league.py [LEAGUE OPTIONS]``.

A thin wrapper around ``python -m csl_game.console.league_cmd`` (also ``csl-game league``).
The figures of docs/league.md come from, for example:

    python benchmarks/league.py --thinker negamax --thinker "minimax 3" \\
        --thinker mcts --games 10 --markdown
    python benchmarks/league.py --thinker negamax --thinker "minimax 3" \\
        --thinker mcts --games 10 -r 8 -c 9 --markdown
"""

from __future__ import annotations

import sys

from csl_game.console.league_cmd import main

if __name__ == "__main__":
    sys.exit(main())
