"""Data files of csl_game (fonts, GUI theme); shipped as package csl_game.assets."""
