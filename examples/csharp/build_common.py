#!/usr/bin/env python3
"""Build the reference framework's ColorShapeLinks.Common.dll with Mono, and
the csl-game engine host beside it.

The reference library is the `common` branch of
https://github.com/VideojogosLusofona/color-shape-links-ai-competition
(a .NET Standard 2.0 project). Mono's `mcs` speaks C# up to 7.2 but not
local functions, which one file uses (the example minimax's `Dist()` inside
`Heuristic()`); this script copies the sources, lifts each such function to
a private static method of its class (same name, same body: nothing else
changes), and compiles them all into one DLL. Where Roslyn's `csc` is on
the PATH it compiles the sources as they are.

    python3 build_common.py OUT_DIR                      # clones the branch (needs git)
    python3 build_common.py OUT_DIR --source CHECKOUT    # a clone of the repository
    python3 build_common.py OUT_DIR --source FOLDER      # the branch's files

OUT_DIR then holds ColorShapeLinks.Common.dll and CslEngineHost.exe:

    csl-game match -W ref -R random --engine "ref=mono OUT_DIR/CslEngineHost.exe \
        OUT_DIR/ColorShapeLinks.Common.dll ColorShapeLinks.Common.AI.Examples.MinimaxAIThinker"
"""

from __future__ import annotations

import argparse
import io
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

REPOSITORY = "https://github.com/VideojogosLusofona/color-shape-links-ai-competition"
BRANCH = "common"
HOST = Path(__file__).resolve().with_name("CslEngineHost.cs")

# A function's signature on a line of its own, then its braced body, whose
# closing brace is indented like the signature.
FUNCTION = re.compile(
    r"^(?P<indent>[ \t]+)(?P<signature>(?P<first>\w+)[\w<>\[\],.? ]*?\s+(?P<name>\w+)\([^)]*\))"
    r"[ \t]*\n(?P=indent)\{\n(?P<body>(?:.*\n)*?)(?P=indent)\}\n", re.M)
MEMBER = re.compile(r"^(?P<indent>[ \t]*)(?:private|public|protected|internal)\b[^;={]*\)[ \t]*$",
                    re.M)
NOT_TYPES = {"private", "public", "protected", "internal", "override", "virtual", "abstract",
             "else", "return", "new", "await", "case", "static"}


def fail(message: str) -> None:
    print(f"build_common.py: {message}", file=sys.stderr)
    sys.exit(2)


def sources(source: str | None, into: Path) -> None:
    """The `common` branch's files, copied into `into`."""
    if source is None:
        run(["git", "clone", "--quiet", "--depth", "1", "--branch", BRANCH, REPOSITORY,
             str(into / "repo")])
        shutil.copytree(into / "repo", into / "src", ignore=shutil.ignore_patterns(".git"))
        return
    path = Path(source)
    if (path / "Common.csproj").is_file():  # the branch's files themselves
        shutil.copytree(path, into / "src", ignore=shutil.ignore_patterns(".git"))
        return
    archive = None
    for ref in _branch_refs(path):  # a fresh clone has origin/common, not common
        archive = subprocess.run(["git", "-C", str(path), "archive", "--format=tar", ref],
                                 capture_output=True)
        if archive.returncode == 0:
            break
    if archive is None or archive.returncode != 0:
        why = archive.stderr.decode(errors="replace").strip() if archive is not None else \
            f"it has no branch {BRANCH}, local or remote"
        fail(f"{path} is neither the {BRANCH} branch's files nor a clone of the repository: "
             f"{why}")
    assert archive is not None
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(into / "src", filter="data")


def _branch_refs(path: Path) -> list[str]:
    """The names the branch may have in the clone at `path`: its own, then a
    remote's (``origin/common``: what an ordinary clone holds)."""
    found = subprocess.run(["git", "-C", str(path), "for-each-ref", "--format=%(refname:short)",
                            f"refs/heads/{BRANCH}", f"refs/remotes/*/{BRANCH}"],
                           capture_output=True, text=True)
    refs = found.stdout.split() if found.returncode == 0 else []
    return refs or [BRANCH]


def lift_local_functions(text: str) -> tuple[str, int]:
    """Each local function (a function declared inside a method's body), moved
    out before that method as a private static method of the class. C# 7 local
    functions are beyond mcs; one that uses none of the method's variables (as
    the reference's do) means the same as a static method."""
    lifted = 0
    while True:
        position, members = 0, []
        while (found := FUNCTION.search(text, position)) is not None:
            position = found.start() + 1  # functions nest: look inside this one too
            if found["first"] in NOT_TYPES:
                continue
            members = [m for m in MEMBER.finditer(text, 0, found.start())
                       if len(m["indent"]) < len(found["indent"])]
            if members:
                break
        if found is None:
            return text, lifted
        member = members[-1]
        # before the member's documentation comment and attributes, if any
        where = member.start()
        while (previous := text.rfind("\n", 0, where - 1)) >= 0 and \
                text[previous + 1:where].strip().startswith(("///", "[")):
            where = previous + 1
        outer, inner = member["indent"], found["indent"]
        body = "".join(outer + line[len(inner):] + "\n" if line.strip() else "\n"
                       for line in found["body"].splitlines())
        static = f"{outer}private static {found['signature']}\n{outer}{{\n{body}{outer}}}\n\n"
        text = text[:where] + static + text[where:found.start()] + text[found.end():]
        lifted += 1


def run(argv: list[str], cwd: Path | None = None) -> None:
    try:
        done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True)
    except FileNotFoundError:
        fail(f"{argv[0]} is not installed (Mono: apt-get install mono-complete; "
             "or see https://www.mono-project.com/download/)")
    if done.returncode != 0:
        fail(f"{' '.join(argv[:3])} ... failed:\n{done.stdout}{done.stderr}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=" ".join(__doc__.split("\n\n")[0].split()),
        epilog="Then compile a thinker of your own against the DLL: mcs -target:library "
               "-out:MyThinker.dll -r:OUT_DIR/ColorShapeLinks.Common.dll MyThinker.cs "
               "(docs/engines.md)")
    parser.add_argument("out", type=Path, help="folder for the DLL and the host")
    parser.add_argument("--source", help="a clone of the reference repository, or its "
                                         f"{BRANCH} branch's files (default: clone it)")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    compiler = shutil.which("csc") or shutil.which("mcs")
    if compiler is None:
        fail("neither csc nor mcs is on the PATH (Mono: apt-get install mono-complete)")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        sources(args.source, work)
        files = sorted((work / "src").rglob("*.cs"))
        if not files:
            fail("no C# sources found")
        if Path(compiler).name.startswith("mcs"):
            for path in files:
                source = path.read_text(encoding="utf-8-sig").replace("\r\n", "\n")
                text, lifted = lift_local_functions(source)
                if lifted:
                    path.write_text(text, encoding="utf-8")
                    print(f"{path.relative_to(work / 'src')}: {lifted} local function(s) "
                          "lifted to static methods for mcs")
        dll = args.out.resolve() / "ColorShapeLinks.Common.dll"
        run([compiler, "-target:library", "-nologo", "-warn:0", f"-out:{dll}",
             *map(str, files)])
    host = args.out.resolve() / "CslEngineHost.exe"
    run([compiler, "-nologo", f"-out:{host}", f"-r:{dll}", str(HOST)])
    print(f"built {dll}\nbuilt {host}")


if __name__ == "__main__":
    main()
