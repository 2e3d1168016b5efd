"""The test tiers (conftest.py): each test module has one tier, the unit tier needs no
service, and under CI=true a skip fails instead of passing silently."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[1]
# the repository's root conftest.py, by its path ("conftest" may name another one here)
_spec = importlib.util.spec_from_file_location("root_conftest", ROOT / "conftest.py")
assert _spec is not None and _spec.loader is not None
conftest = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(conftest)


def test_every_test_module_has_a_tier() -> None:
    tiers = {p.relative_to(ROOT).as_posix(): conftest.tier_of(p)
             for p in (ROOT / "tests").rglob("test_*.py")}
    assert all(t in conftest.TIERS for t in tiers.values())
    # nothing that needs a browser, a database server or Redis is in the unit tier
    for path, tier in tiers.items():
        if path.startswith(("tests/web/", "tests/server/", "tests/storage/")):
            assert tier != "unit", path
    assert tiers["tests/web/test_web_game.py"] == "browser"
    assert tiers["tests/server/test_server_postgres.py"] == "postgres"
    assert tiers["tests/server/test_server_cluster.py"] == "cluster"
    assert tiers["tests/engine/test_rules_play.py"] == "unit"
    assert conftest.tier_of(ROOT / "src" / "bela" / "server" / "app.py") == "server"
    assert conftest.tier_of(ROOT / "src" / "bela" / "engine" / "state.py") == "unit"


def _run(tmp_path: Path, body: str, ci: bool) -> subprocess.CompletedProcess[str]:
    shutil.copy(ROOT / "conftest.py", tmp_path / "conftest.py")
    (tmp_path / "test_x.py").write_text(body)
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    if ci:
        env["CI"] = "true"
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-p", "no:randomly", str(tmp_path)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)


def test_a_skip_fails_under_ci(tmp_path: Path) -> None:
    body = ("import pytest\n\ndef test_needs_redis():\n"
            "    pytest.skip('redis-server is not installed')\n")
    assert _run(tmp_path, body, ci=False).returncode == 0
    r = _run(tmp_path, body, ci=True)
    assert r.returncode == 1 and "skipped under CI=true" in r.stdout, r.stdout


def test_a_module_skip_fails_under_ci(tmp_path: Path) -> None:
    body = "import pytest\npytest.importorskip('no_such_package_here')\n\ndef test_a():\n    pass\n"
    quiet = _run(tmp_path, body, ci=False)
    assert "1 skipped" in quiet.stdout, quiet.stdout
    r = _run(tmp_path, body, ci=True)  # a collection error: the run fails
    assert r.returncode != 0 and "skipped under CI=true" in r.stdout, r.stdout


def test_a_test_may_say_it_does_not_apply(tmp_path: Path) -> None:
    body = ("import pytest\n\ndef test_case():\n"
            "    pytest.skip('not applicable: this seat has no partner')\n")
    r = _run(tmp_path, body, ci=True)
    assert r.returncode == 0 and "1 skipped" in r.stdout, r.stdout
