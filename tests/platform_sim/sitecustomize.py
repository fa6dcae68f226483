"""Applies CSL_SIMULATE in each Python process started with this folder on PYTHONPATH."""

import csl_platform_sim

csl_platform_sim.apply()
