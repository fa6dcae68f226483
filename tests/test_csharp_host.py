"""The C# host (examples/csharp/) plays a reference-framework thinker from a DLL.

Needs Mono (mcs and mono on the PATH) and the reference framework's
ColorShapeLinks.Common.dll, which holds the reference's example thinkers.
The DLL is built as docs/engines.md says, by examples/csharp/build_common.py,
from the reference repository: a clone named by CSL_REFERENCE_REPO, else a
fresh clone (network). Or name DLLs of your own, as a thinker author has them:

- CSL_COMMON_DLL: a ColorShapeLinks.Common.dll;
- CSL_THINKER_DLL: a DLL holding the thinker (by default the Common DLL);
- CSL_THINKER_CLASS (optional): the thinker's full class name, by default
  ColorShapeLinks.Common.AI.Examples.RandomAIThinker;
- CSL_THINKER_PARAMS (optional): its parameters, by default 2 (a seed for the
  random thinker, a depth for the reference's minimax).

Without Mono, or without a way to the reference's sources, the tests are
skipped, saying which is missing.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from csl_game import MatchConfig, ThinkerPrototype
from csl_game.engine import Match, probe_all
from csl_game.engine.runners.process import ProcessRunner
from csl_game.errors import ThinkerError
from csl_game.thinker.engine_thinker import EngineSpec

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "csharp"
HOST = EXAMPLES / "CslEngineHost.cs"
DEFAULT_CLASS = "ColorShapeLinks.Common.AI.Examples.RandomAIThinker"
MINIMAX = "ColorShapeLinks.Common.AI.Examples.MinimaxAIThinker"


def _missing() -> str:
    for tool in ("mcs", "mono"):
        if shutil.which(tool) is None:
            return f"Mono's {tool} is not on the PATH (apt-get install mono-complete)"
    value = os.environ.get("CSL_COMMON_DLL")
    if value and not Path(value).is_file():
        return f"CSL_COMMON_DLL names no file: {value}"
    return ""


pytestmark = pytest.mark.skipif(bool(_missing()), reason=_missing() or "ready")


@pytest.fixture(scope="module")
def common(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with ColorShapeLinks.Common.dll and the host compiled beside it."""
    folder = tmp_path_factory.mktemp("csharp")
    given = os.environ.get("CSL_COMMON_DLL")
    if given:
        shutil.copy(given, folder / "ColorShapeLinks.Common.dll")
        subprocess.run(["mcs", f"-out:{folder / 'CslEngineHost.exe'}",
                        f"-r:{folder / 'ColorShapeLinks.Common.dll'}", str(HOST)],
                       check=True, capture_output=True, timeout=300)
        return folder
    source = os.environ.get("CSL_REFERENCE_REPO")
    try:
        built = subprocess.run([sys.executable, str(EXAMPLES / "build_common.py"), str(folder),
                                *(["--source", source] if source else [])],
                               capture_output=True, text=True, timeout=180)
    except subprocess.TimeoutExpired:
        pytest.skip("no CSL_REFERENCE_REPO, and cloning the reference repository took too long")
    if built.returncode != 0:
        if source:
            pytest.fail(f"build_common.py failed on {source}: {built.stderr}")
        pytest.skip("no CSL_REFERENCE_REPO, and the reference repository could not be "
                    f"cloned: {built.stderr.strip().splitlines()[-1:]}")
    return folder


@pytest.fixture(scope="module")
def host(common: Path) -> Path:
    return common / "CslEngineHost.exe"


def engine(host: Path, thinker_class: str | None = None) -> str:
    dll = os.environ.get("CSL_THINKER_DLL") or host.with_name("ColorShapeLinks.Common.dll")
    name = thinker_class or os.environ.get("CSL_THINKER_CLASS") or DEFAULT_CLASS
    return EngineSpec.parse(f"csharp=mono {host} {dll} {name}").source


def test_a_reference_thinker_plays_a_match_against_a_builtin(host: Path) -> None:
    mc = MatchConfig(time_limit_ms=3000)
    params = os.environ.get("CSL_THINKER_PARAMS", "2")
    csharp = ThinkerPrototype("csharp", params, mc, (engine(host),))
    name = probe_all([csharp])[0].name
    assert name not in ("csharp", "CslEngineHost"), "the thinker's ToString() names it"
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


def test_the_reference_minimax_plays_built_with_mono(host: Path) -> None:
    """The reference's own minimax (the file with the local function that
    build_common.py lifts for mcs) plays whole matches, named as in the reference."""
    mc = MatchConfig(time_limit_ms=3000)
    minimax = ThinkerPrototype("csharp", "2", mc, (engine(host, MINIMAX),))
    assert probe_all([minimax])[0].name == "MinimaxD2"
    match = Match(mc, minimax, ThinkerPrototype("random", "4", mc), ProcessRunner)
    try:
        result = match.run()
    finally:
        match.close()
    assert result.forfeit is None and len(result.moves) >= 5, result
