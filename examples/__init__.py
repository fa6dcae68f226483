"""Examples for participants (engines in Python and C, the C# host and the
script that builds the reference library); shipped as the package
csl_game.examples, so that `csl-game info --examples DIR` copies them out of
an installed csl-game (a wheel, pipx) as a checkout has them."""
