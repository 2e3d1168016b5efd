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
