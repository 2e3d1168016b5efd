"""The JS type check: ``tsc --noEmit`` over the browser client (issue 40 item 7).

Every module in src/bela/web starts with ``// @ts-check``; ``jsconfig.json`` checks the
pages' modules against the DOM, ``jsconfig.sw.json`` the score pad's service worker against
the worker's scope. TypeScript comes from npm, pinned in package.json and package-lock.json
(``npm ci`` at the repository root; ``.ci/run`` does it); there is no bundler and no build:
the check only reads the files the server serves as they are.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
WEB = ROOT / "src" / "bela" / "web"
TSC = ROOT / "node_modules" / ".bin" / "tsc"
PROJECTS = ["jsconfig.json", "jsconfig.sw.json"]


def _need_tsc() -> str:
    node = shutil.which("node")
    if node is None:
        pytest.skip("no node (Debian: apt-get install nodejs npm; then npm ci)")
    if not TSC.exists():
        pytest.skip(f"no {TSC.relative_to(ROOT)} (run npm ci at the repository root)")
    return node


@pytest.mark.parametrize("project", PROJECTS)
def test_web_modules_type_check(project: str) -> None:
    """``tsc --noEmit -p`` passes; a failure shows tsc's own messages."""
    _need_tsc()
    done = subprocess.run([str(TSC), "--noEmit", "-p", str(WEB / project)], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    said = f"{done.stdout}{done.stderr}"
    assert done.returncode == 0, f"tsc --noEmit -p src/bela/web/{project}:\n{said}"


def test_every_module_is_checked() -> None:
    """Every module opts in with ``// @ts-check`` on its first line, and one of the two
    projects takes it in (the service worker only in its own)."""
    unchecked = [p.name for p in sorted(WEB.glob("*.js"))
                 if p.read_text(encoding="utf-8").splitlines()[0].strip() != "// @ts-check"]
    assert not unchecked, f"no // @ts-check on the first line of {unchecked}"
