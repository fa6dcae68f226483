"""Run the thinker league: ``python benchmarks/league.py [LEAGUE OPTIONS]``.

A thin wrapper around ``csl-game league``.
The figures of docs/league.md come from, for example:

    python benchmarks/league.py --thinker negamax --thinker "minimax 3" \\
        --thinker mcts --games 10 --markdown
    python benchmarks/league.py --thinker negamax --thinker "minimax 3" \\
        --thinker mcts --games 10 -r 8 -c 9 --markdown
"""

from __future__ import annotations

import sys

from csl_game.cli import main

if __name__ == "__main__":
    sys.exit(main(["league", *sys.argv[1:]]))
