"""The C# host (examples/csharp/) plays a reference-framework thinker from a DLL.

Needs Mono (mcs and mono on the PATH) and two DLLs named by environment
variables, as a thinker author has them:

- CSL_COMMON_DLL: the reference framework's ColorShapeLinks.Common.dll;
- CSL_THINKER_DLL: a DLL holding the thinker (it may be the Common DLL itself,
  which holds the reference's example thinkers);
- CSL_THINKER_CLASS (optional): the thinker's full class name, by default
  ColorShapeLinks.Common.AI.Examples.RandomAIThinker;
- CSL_THINKER_PARAMS (optional): its parameters, by default 2 (a seed for the
  random thinker, a depth for the reference's minimax).

Without them the tests are skipped, saying which is missing.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from csl_game import MatchConfig, ThinkerPrototype
from csl_game.engine.match import Match
from csl_game.engine.runners.process import ProcessRunner
from csl_game.errors import ThinkerError
from csl_game.thinker.engine_thinker import EngineSpec

HOST = Path(__file__).resolve().parent.parent / "examples" / "csharp" / "CslEngineHost.cs"
DEFAULT_CLASS = "ColorShapeLinks.Common.AI.Examples.RandomAIThinker"


def _missing() -> str:
    for tool in ("mcs", "mono"):
        if shutil.which(tool) is None:
            return f"Mono's {tool} is not on the PATH (apt-get install mono-complete)"
    for variable in ("CSL_COMMON_DLL", "CSL_THINKER_DLL"):
        value = os.environ.get(variable)
        if not value:
            return f"{variable} is not set (see this module's docstring)"
        if not Path(value).is_file():
            return f"{variable} names no file: {value}"
    return ""


pytestmark = pytest.mark.skipif(bool(_missing()), reason=_missing() or "ready")


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The host, compiled as docs/engines.md says, beside a copy of the Common DLL."""
    folder = tmp_path_factory.mktemp("csharp")
    common = folder / "ColorShapeLinks.Common.dll"
    shutil.copy(os.environ["CSL_COMMON_DLL"], common)
    exe = folder / "CslEngineHost.exe"
    subprocess.run(["mcs", f"-out:{exe}", f"-r:{common}", str(HOST)], check=True,
                   capture_output=True, timeout=300)
    return exe


def engine(host: Path, thinker_class: str | None = None) -> str:
    dll = os.environ["CSL_THINKER_DLL"]
    name = thinker_class or os.environ.get("CSL_THINKER_CLASS") or DEFAULT_CLASS
    return EngineSpec.parse(f"csharp=mono {host} {dll} {name}").source


def test_a_reference_thinker_plays_a_match_against_a_builtin(host: Path) -> None:
    mc = MatchConfig(time_limit_ms=3000)
    params = os.environ.get("CSL_THINKER_PARAMS", "2")
    csharp = ThinkerPrototype("csharp", params, mc, (engine(host),))
    assert csharp.display_name not in ("csharp", "CslEngineHost")  # the thinker's ToString()
    for white, red in ((csharp, ThinkerPrototype("random", "1", mc)),
                       (ThinkerPrototype("sequential", "", mc), csharp)):
        match = Match(mc, white, red, ProcessRunner)
        try:
            result = match.run()
        finally:
            match.close()
        assert result.forfeit is None, result.detail
        assert len(result.moves) >= 7


def test_an_unknown_class_is_refused_at_setup(host: Path) -> None:
    proto = ThinkerPrototype("csharp", "", MatchConfig(), (engine(host, "No.Such.Thinker"),))
    with pytest.raises(ThinkerError, match="No Thinker named 'No.Such.Thinker' was found"):
        proto.create()
