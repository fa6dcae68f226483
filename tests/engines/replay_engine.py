"""An engine that plays back a transcript (a JSON list of ["host" | "engine", line]).

It checks each line csl-game sends against the transcript's next csl-game line
and answers with the engine lines that follow it. A line that differs gets an
``error`` answer naming both; a transcript played to its end leaves the word
``done`` in the file named by the second argument.
"""

import json
import re
import sys

script = json.load(open(sys.argv[1], encoding="utf-8"))
done_file = sys.argv[2]


def same(expected, got):
    """Lines are equal, except that `go N` allows a few ms already spent."""
    if expected.startswith("go ") and re.fullmatch(r"go \d+", got):
        return 0 <= int(expected[3:]) - int(got[3:]) <= 100
    return expected == got


position = 0
for line in sys.stdin:
    line = line.rstrip("\n")
    who, expected = script[position]
    if who != "host" or not same(expected, line):
        print(f"error transcript line {position + 1}: expected '{expected}', got '{line}'",
              flush=True)
        continue
    position += 1
    while position < len(script) and script[position][0] == "engine":
        print(script[position][1], flush=True)
        position += 1
    if position == len(script):
        with open(done_file, "w", encoding="utf-8") as f:
            f.write("done")
        break
