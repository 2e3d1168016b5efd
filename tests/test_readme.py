"""The README works in a fresh clone: every file it names is in the repository, it sends
nobody outside it, and its examples (console output, the engine in five lines) run as shown."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bela.cli.main import app

ROOT = Path(__file__).parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")),
        *sorted((ROOT / "examples").glob("*.md"))]


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README, re.S)


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_docs_stand_alone(doc: Path) -> None:
    """A clone has no ../shared/: the docs never send a reader there."""
    assert "../shared" not in doc.read_text(encoding="utf-8")


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_linked_file_exists(doc: Path) -> None:
    """Markdown links and `path` mentions of docs/ and examples/ files resolve."""
    text = doc.read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)#:]+)\)", text)
    paths = re.findall(r"`((?:docs|examples)/[\w./-]+)`", text)
    for target in links:
        assert (doc.parent / target).exists(), f"{doc.name} links to missing {target}"
    for target in paths:
        assert (ROOT / target).exists(), f"{doc.name} names missing {target}"


def test_rules_cover_every_rule_id() -> None:
    """docs/RULES.md says every rule the messages cite (R1-R39)."""
    text = (ROOT / "docs" / "RULES.md").read_text(encoding="utf-8")
    missing = [n for n in range(1, 40) if not re.search(rf"\bR{n}\b", text)]
    assert not missing


def console_examples() -> list[tuple[str, str]]:
    """(command, first line of its output) for each `$ bela ...` line of a console block."""
    found = []
    for block in blocks("console"):
        lines = block.splitlines()
        for i, line in enumerate(lines):
            if line.startswith("$ bela "):
                found.append((line[2:], lines[i + 1]))
    return found


@pytest.mark.parametrize("command, shown", console_examples())
def test_console_examples_print_what_the_readme_shows(command: str, shown: str,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    args = shlex.split(command.split(";")[0])[1:]
    result = CliRunner().invoke(app, args)
    out = json.loads(result.stdout)
    pattern = re.escape(shown).replace(re.escape(", ..."), ".*")
    assert re.fullmatch(pattern, json.dumps(out, ensure_ascii=False)), result.stdout
    if "exit $?" in command:
        assert result.exit_code == 1


def test_engine_example_runs() -> None:
    """The README's "engine in five lines" runs as written."""
    (code,) = [b for b in blocks("python") if "seat_view" in b]
    exec(compile(code, "README.md", "exec"), {})


def shell_commands() -> list[str]:
    """Every `bela ...` line of the README's bash blocks, in order, without its comment."""
    found = []
    for block in blocks("bash"):
        for line in block.splitlines():
            if line.startswith("bela "):
                found.append(line.split("  #")[0].strip())
    return found


def test_every_readme_command_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each `bela` command the README shows runs as written, in the README's order (a
    record saved by one is scored by the next); an interactive game is left with `q`."""
    commands = shell_commands()
    assert any(c.startswith("bela play") for c in commands)
    assert any(c.startswith("bela arena") for c in commands)
    monkeypatch.chdir(tmp_path)
    for command in commands:
        args = shlex.split(command)[1:]
        result = CliRunner().invoke(app, args, input="q\n")
        assert result.exit_code == 0, (command, result.output[-2000:])
    assert (tmp_path / "match.json").exists()


def test_the_learning_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    """The README's learning environment example runs and prints each seat's points."""
    pytest.importorskip("pettingzoo")
    (code,) = [b for b in blocks("python") if "agent_iter" in b]
    exec(compile(code, "README.md", "exec"), {})
    printed = capsys.readouterr().out
    assert printed.startswith("{") and "player_0" in printed


def test_the_vector_environment_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    """The README's vector environment example steps 4,096 bela4 matches and prints the
    shapes of what a step returns."""
    pytest.importorskip("numba")
    (code,) = [b for b in blocks("python") if "VecGames" in b]
    exec(compile(code, "README.md", "exec"), {})
    assert capsys.readouterr().out.strip() == "(4096, 806) (4096, 61) (4096, 4)"
