"""The package stays typed (``mypy --strict``) and the code lint-clean (ruff)."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from collections.abc import Collection
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]


def test_package_passes_mypy_strict() -> None:
    """The whole package, as ``mypy`` with no arguments checks it (``[tool.mypy]``), and the
    tools beside it (tools/)."""
    api = pytest.importorskip("mypy.api")
    limit = sys.getrecursionlimit()
    try:
        out, err, status = api.run(["--config-file", str(ROOT / "pyproject.toml"), "--strict",
                                    str(ROOT / "src" / "bela"), str(ROOT / "tools")])
    finally:
        # mypy raises the interpreter's recursion limit for good; the tests after this one
        # in the process (tests/server/test_server_headers.py's deep JSON) need the default
        sys.setrecursionlimit(limit)
    assert status == 0, out + err


def test_package_is_marked_typed() -> None:
    """``py.typed`` (PEP 561) ships with the package, so users' type checkers read it."""
    import tomllib

    assert (ROOT / "src" / "bela" / "py.typed").is_file()
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "py.typed" in config["tool"]["setuptools"]["package-data"]["bela"]


def test_ruff_is_clean() -> None:
    proc = subprocess.run([sys.executable, "-m", "ruff", "check", "src", "tests", "tools",
                           "conftest.py"], cwd=ROOT,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


ROUND_WRITE = re.compile(r"\b(rnd|round)\.[a-z_]+(\[[^]]*\])? *([-+|&^]?=)(?!=)")


def test_only_the_round_changes_a_round() -> None:
    """Variants, bots, the solver and front ends ask the round to act (``apply``, ``undo``,
    ``set_options``); none writes its fields (a hook says what should happen, a
    ``BidEffect``, and the round applies it)."""
    found = []
    for path in sorted((ROOT / "src" / "bela").rglob("*.py")):
        if path.name == "state.py" and path.parent.name == "engine":
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if ROUND_WRITE.search(line):
                found.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert not found, "\n".join(found)
    assert ROUND_WRITE.search("rnd.phase = 'discard'") and ROUND_WRITE.search("rnd.hidden[s] = 0")
    assert not ROUND_WRITE.search("if rnd.phase == 'play':")



# -- layers ----------------------------------------------------------------------------------
# What each package of bela may import (docs/ARCHITECTURE.md, "Layers"): nothing upward, the
# server and the storage never the CLI, nothing that serves users the tools (bela.training,
# tools/). The package itself (bela/__init__.py) may be imported by all.
LAYERS = {
    "engine": set(),
    "solver": {"engine"},
    "bots": {"engine", "solver"},
    "analysis": {"engine", "solver", "bots"},
    "rl": {"engine", "solver", "bots"},
    "training": {"engine", "solver", "bots", "rl"},  # the vector env's games (train --source)
    "storage": {"engine"},
    "tournament": {"engine"},
    "server": {"engine", "solver", "bots", "analysis", "storage", "tournament"},
    "cli": {"engine", "solver", "bots", "analysis", "rl", "training", "server"},
}
TOOLS = {"tools"} | {p.stem for p in (ROOT / "tools").glob("*.py")}


def imported(text: str, module: str, package: bool) -> list[tuple[int, str]]:
    """Every module or name an import statement of ``module`` names, anywhere in its text
    (functions and ``if TYPE_CHECKING`` blocks included), relative imports made absolute;
    each with its line."""
    here = module.split(".") if package else module.split(".")[:-1]
    out = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(here[:len(here) - node.level + 1] + ([base] if base else []))
            out += [(node.lineno, f"{base}.{a.name}") for a in node.names]
    return out


def layer_breaks(text: str, module: str, package: bool, where: str) -> list[str]:
    """The imports of ``module`` (read from ``where``) that its layer may not make."""
    layer = module.split(".")[1] if module.count(".") else ""
    allowed = LAYERS.get(layer, set()) | {layer}
    found = []
    for line, name in imported(text, module, package):
        parts = name.split(".")
        if parts[0] in TOOLS:
            found.append(f"{where}:{line}: {module} imports {name} (the package never imports "
                         "tools/)")
        elif layer and parts[0] == "bela" and len(parts) > 2 and parts[1] in LAYERS \
                and parts[1] not in allowed:
            found.append(f"{where}:{line}: {module} imports {name} ({layer} may import "
                         f"{', '.join(sorted(allowed - {layer})) or 'no other package'})")
    return found


def test_the_layers_import_downward_only() -> None:
    """No package of bela imports one above it: the server and the storage never import the
    CLI; engine, solver, bots, server and storage never the tools (``bela.training``,
    tools/); imports inside functions count (issue 40, item 4)."""
    found = []
    for path in sorted((ROOT / "src" / "bela").rglob("*.py")):
        if "migrations" in path.parts:
            continue
        parts = list(path.relative_to(ROOT / "src").with_suffix("").parts)
        package = parts[-1] == "__init__"
        module = ".".join(parts[:-1] if package else parts)
        if module.count(".") and module.split(".")[1] not in LAYERS:
            found.append(f"{module}: a package LAYERS does not name")
        found += layer_breaks(path.read_text(encoding="utf-8"), module, package,
                              str(path.relative_to(ROOT)))
    assert not found, "\n".join(found)


def test_the_layer_check_sees_every_kind_of_import() -> None:
    text = ("import json\nfrom . import app\n\ndef f():\n    from ..cli.analysis import solve\n"
            "    import bela.training.fit\n    import load\n")
    assert [n for _, n in imported(text, "bela.server.mod", False)] == [
        "json", "bela.server.app", "bela.cli.analysis.solve", "bela.training.fit", "load"]
    breaks = layer_breaks(text, "bela.server.mod", False, "mod.py")
    assert [b.split(": ")[0] for b in breaks] == ["mod.py:5", "mod.py:6", "mod.py:7"], breaks
    assert layer_breaks("from ..training import fit\n", "bela.cli.train", False, "x") == []
    assert layer_breaks("from ..cli import text\n", "bela.storage", True, "x") != []

# Where a variant's name may key knowledge: the engine's variants (the rules), the bots'
# profiles (everything else a bot or a level knows of a variant) and the front ends' text
# catalogues (per-variant prose is presentation; facts are the Variant's).
VARIANT_KEYED = ("src/bela/engine/variants/", "src/bela/bots/profiles.py",
                 "src/bela/cli/play/texts.py")


def variant_keyed(source: str, names: Collection[str]) -> list[tuple[int, str]]:
    """The lines of ``source`` that compare with a variant's name literal (``==``, ``!=``,
    ``in`` a literal collection, ``case``), key a dictionary on one (a key, a tuple key's
    part, ``dict(NAME=...)``) or list variants by name (a tuple, list or set of two or more,
    a ``Literal`` type's too), with what they do."""
    def named(node: ast.AST | None) -> bool:
        if isinstance(node, ast.Constant):
            return node.value in names
        if isinstance(node, ast.Tuple | ast.List | ast.Set):
            return any(named(e) for e in node.elts)
        return False

    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare) and any(
                named(x) for x in (node.left, *node.comparators)):
            found.append((node.lineno, "compares with a variant's name"))
        elif isinstance(node, ast.Dict) and any(named(k) for k in node.keys):
            found.append((node.lineno, "keys a dictionary on a variant's name"))
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
              and node.func.id == "dict" and any(k.arg in names for k in node.keywords)):
            found.append((node.lineno, "keys a dictionary on a variant's name"))
        elif isinstance(node, ast.MatchValue) and named(node.value):
            found.append((node.lineno, "matches a variant's name"))
        elif isinstance(node, ast.Tuple | ast.List | ast.Set) and sum(
                isinstance(e, ast.Constant) and e.value in names for e in node.elts) > 1:
            found.append((node.lineno, "lists variants by name (the engine's VARIANTS does)"))
    return found


def test_no_variant_name_keys_knowledge_outside_the_engine_and_the_profiles() -> None:
    """Issue 40: per-variant knowledge outside the engine lives in the variant's profile
    (:mod:`bela.bots.profiles`), facts in its :class:`~bela.engine.variants.Variant`;
    nothing else compares with a variant's name or keys a dictionary on one (docstrings,
    a name passed to a function and a default in a signature are not knowledge)."""
    from bela.engine.variants import VARIANTS

    found = []
    for path in sorted((ROOT / "src" / "bela").rglob("*.py")):
        where = path.relative_to(ROOT).as_posix()
        if where.startswith(VARIANT_KEYED):
            continue
        found += [f"{where}:{n}: {what}"
                  for n, what in variant_keyed(path.read_text(encoding="utf-8"), VARIANTS)]
    assert not found, "\n".join(found)
    names = {"bela4", "belot2"}
    for keyed in ('if variant == "bela4": pass', 'x = v in ("bela3", "belot2")',
                  'W = {"belot2": 1}', 'W = {("belot2", "VC"): 1}', 'W = dict(bela4=1)',
                  'match v:\n    case "belot2": pass', 'ALL = ("bela4", "belot2")',
                  'variant: Literal["bela4", "belot2"] = "bela4"'):
        assert variant_keyed(keyed, names), keyed
    for plain in ('"""bela4 == belot2"""', 'm = Match("bela4")', 'def f(v: str = "bela4"): ...',
                  'if v.name == name: pass', 'W = {"suit": 1}'):
        assert not variant_keyed(plain, names), plain


MAX_CLASS_LINES = 300  # issue 40: the server split along its concerns, no god class


def long_classes(folders: Collection[Path], most: int = MAX_CLASS_LINES) -> list[str]:
    """``path:line Name (N lines)`` for each class in the Python files under ``folders``
    longer than ``most`` lines, from its ``class`` line to its last."""
    found = []
    for folder in folders:
        for path in sorted(folder.rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.ClassDef):
                    lines = (node.end_lineno or node.lineno) - node.lineno + 1
                    if lines > most:
                        where = f"{folder.name}/{path.relative_to(folder).as_posix()}"
                        found.append(f"{where}:{node.lineno} {node.name} ({lines} lines)")
    return found


# issue 40 item 5: one concern per class (lila's Env wires them)
def test_no_class_of_the_server_or_the_storage_is_over_300_lines() -> None:
    found = long_classes([ROOT / "src" / "bela" / "server", ROOT / "src" / "bela" / "storage"])
    assert not found, "\n".join(found)


def test_the_class_length_check_counts_a_class_to_its_last_line(tmp_path: Path) -> None:
    body = "".join(f"    x{i} = {i}\n" for i in range(4))
    (tmp_path / "m.py").write_text(f"class Long:\n{body}\n\nclass Short:\n    pass\n")
    assert [f.split(" ", 1)[1] for f in long_classes([tmp_path], most=4)] == ["Long (5 lines)"]
