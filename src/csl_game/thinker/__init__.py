"""The thinker API: the base class thinkers extend, their moves, cancellation,
match settings, and how thinkers are found and made."""

from csl_game.thinker.api import (
                                  AbstractThinker,
                                  CancellationToken,
                                  FutureMove,
                                  MatchConfig,
                                  thinker_display_name,
)
from csl_game.thinker.discovery import ENTRY_POINT_GROUP, ThinkerRegistry, registry
from csl_game.thinker.prototype import ThinkerPrototype

__all__ = ["AbstractThinker", "CancellationToken", "FutureMove", "MatchConfig",
           "thinker_display_name", "ThinkerPrototype", "ThinkerRegistry", "registry",
           "ENTRY_POINT_GROUP"]
