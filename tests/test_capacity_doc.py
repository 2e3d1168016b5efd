"""docs/CAPACITY.md's measured tables are what tools/capacity.py makes of the committed
results in benchmarks/capacity/, never edited by hand."""

from __future__ import annotations

from pathlib import Path

import capacity  # tools/capacity.py (pytest puts tools/ on the path)

ROOT = Path(__file__).parents[1]


def test_the_measured_tables_are_up_to_date() -> None:
    assert capacity.DOC.read_text(encoding="utf-8") == capacity.output(), (
        "docs/CAPACITY.md is not what tools/capacity.py makes of benchmarks/capacity/: "
        "run python tools/capacity.py")


def test_every_result_file_has_a_table() -> None:
    files = sorted(capacity.RESULTS.glob("*.json"))
    assert files
    text = capacity.section()
    for path in files:
        assert f"benchmarks/capacity/{path.name}" in text


def test_a_load_run_row() -> None:
    doc = {"title": "t", "codes": {"A": "before"}, "runs": [{
        "label": "200 tables", "code": "A", "command": "python tools/load.py --tables 200",
        "load_before": 0.5, "load_after": 1.5,
        "report": {"actions_per_s": 400.0, "server_cpu_pct": 60.0, "errors": 0,
                   "memory_per_table_kb": 250.4,
                   "latency_ms": {"p50": 3.14, "p99": 38.3, "max": 1234.5}}}]}
    row = capacity.load_table(doc).splitlines()[4]
    assert row == ("| 200 tables | A | 0.5 → 1.5 | 400 | 60.0 % | 1.50 ms | 3.1 ms | 38.3 ms "
                   "| 1,234 ms | 0 | 250 KB | 1 (–) |")
    doc["runs"][0]["report"].update(load_processes=2, client_loop_lag_ms={"p99": 21.77})
    assert capacity.load_table(doc).splitlines()[4].endswith("| 250 KB | 2 (21.8 ms) |")


def test_a_load_run_row_with_the_box_cpu() -> None:
    """Runs with the box's CPU by process get PostgreSQL's, Redis's and the box's busy
    share; the other runs of the same file show dashes there."""
    report = {"actions_per_s": 1000.0, "server_cpu_pct": 110.0, "errors": 0,
              "latency_ms": {"p50": 20.0, "p99": 150.0, "max": 300.0}}
    doc = {"title": "t", "codes": {"A": "before"}, "runs": [
        {"label": "600 tables", "code": "A", "command": "c", "load_before": 1, "load_after": 5,
         "report": {**report, "box_cpu_pct": {"busy": 198.4, "cores": 2, "postgres": 20.3,
                                              "redis": 4.8}}},
        {"label": "600 tables", "code": "A", "command": "c", "load_before": 1, "load_after": 5,
         "report": report}]}
    lines = capacity.load_table(doc).splitlines()
    assert lines[2].endswith("| PostgreSQL / Redis CPU | Box busy |")
    assert lines[4].endswith("| 1 (–) | 20 % / 5 % | 198 % of 200 % |")
    assert lines[5].endswith("| 1 (–) | – | – |")
