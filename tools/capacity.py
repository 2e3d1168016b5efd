"""Generate docs/CAPACITY.md's measured tables from the committed benchmark results.

``benchmarks/capacity/*-load.json`` hold load runs (``tools/load.py --json`` reports under
``runs``, each with its ``label``, the ``code`` it ran (a key of the file's ``codes``,
which say what each is) and the ``command``); ``*-state.json`` hold
``tools/state_bench.py`` reports and ``*-soak.json`` ``tools/soak.py`` reports; and
``benchmarks/tournaments/*.json`` of ``tools/tournament_bench.py --under-load``.  This
script writes their tables into docs/CAPACITY.md
between ``<!-- capacity:begin -->`` and ``<!-- capacity:end -->``: nothing there is
edited by hand.  ``--check`` writes nothing and exits 1 when the file differs from what it
would write (the test suite runs it: tests/test_capacity_doc.py).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "capacity"
TOURNAMENTS = ROOT / "benchmarks" / "tournaments"  # tournament_bench.py --under-load
DOC = ROOT / "docs" / "CAPACITY.md"
BEGIN, END = "<!-- capacity:begin -->", "<!-- capacity:end -->"


def cpu_per_action_ms(report: dict[str, Any]) -> float | None:
    """The servers' CPU per action (ms): their CPU (% of a core, summed over instances)
    over the actions a second.

    >>> cpu_per_action_ms({"server_cpu_pct": 50.0, "actions_per_s": 500.0})
    1.0
    >>> cpu_per_action_ms({"server_cpu_pct": None, "actions_per_s": 500.0}) is None
    True
    """
    cpu, rate = report.get("server_cpu_pct"), report.get("actions_per_s")
    if cpu is None or not rate:
        return None
    return round(10 * float(cpu) / float(rate), 2)


def _ms(x: float | None) -> str:
    return "–" if x is None else f"{x:,.0f}" if x >= 100 else f"{x:,.1f}"


def load_table(doc: dict[str, Any]) -> str:
    """The Markdown table of one file's load runs, with what each code is; where a report
    has ``box_cpu_pct`` (``tools/load.py``'s whole box during play: ``busy``, and the CPU
    of ``postgres`` and ``redis``, % of a core), two more columns: PostgreSQL's and Redis's
    CPU and how busy the box was."""
    boxed = any(run["report"].get("box_cpu_pct") for run in doc["runs"])
    out = [f"- **{k}**: {v}" for k, v in doc["codes"].items()]
    out += ["", "| Run | Code | Load avg before → after | Actions/s | Server CPU (% of a core) "
            "| CPU per action | p50 | p99 | max | Errors | Memory per table "
            "| Load processes (their loop's lag, p99) |"
            + (" PostgreSQL / Redis CPU | Box busy |" if boxed else ""),
            "|---|---|---|---|---|---|---|---|---|---|---|---|" + ("---|---|" if boxed else "")]
    for run in doc["runs"]:
        r = run["report"]
        lat = r["latency_ms"]
        cpa = cpu_per_action_ms(r)
        mem = r.get("memory_per_table_kb")
        lag = r.get("client_loop_lag_ms", {}).get("p99")
        row = (f"| {run['label']} | {run['code']} | {run['load_before']} → {run['load_after']} "
               f"| {r['actions_per_s']:,.0f} | {r['server_cpu_pct']} % | "
               f"{'–' if cpa is None else f'{cpa:.2f} ms'} | {_ms(lat['p50'])} ms | "
               f"{_ms(lat['p99'])} ms | {_ms(lat['max'])} ms | {r['errors']} | "
               f"{'–' if mem is None else f'{mem:,.0f} KB'} "
               f"| {r.get('load_processes', 1)} ({_ms(lag)}{'' if lag is None else ' ms'}) |")
        if boxed:
            box = r.get("box_cpu_pct")
            row += (" – | – |" if box is None else
                    f" {box['postgres']:.0f} % / {box['redis']:.0f} % | {box['busy']:.0f} % of "
                    f"{100 * box['cores']} % |")
        out.append(row)
    out += ["", "Commands:", "", "```console"]
    out += sorted({run["command"] for run in doc["runs"]})
    out.append("```")
    return "\n".join(out)


def state_table(doc: dict[str, Any]) -> str:
    """The Markdown table of a ``tools/state_bench.py`` report."""
    names = list(next(iter(doc["variants"].values()))["us_a_state"])
    out = ["| Variant | States | Bytes a message | " + " | ".join(
        f"{n} (µs a state)" for n in names) + " |",
        "|---|---|---|" + "---|" * len(names)]
    for v, row in doc["variants"].items():
        out.append(f"| {v} | {row['states']} | {row['mean_bytes_a_message']:,} | "
                   + " | ".join(f"{row['us_a_state'][n]:,.1f}" for n in names) + " |")
    out.append(f"\n({doc['deals']} random rounds a variant, each state timed "
               f"{doc['repeat']} times, the best kept; load average {doc['load_before']} → "
               f"{doc['load_after']}; `{doc['command']}`)")
    return "\n".join(out)


def soak_table(doc: dict[str, Any]) -> str:
    """The Markdown table of a ``tools/soak.py`` report: the first and last windows."""
    sm, st = doc["summary"], doc["settings"]

    def span(w: list[float]) -> str:
        return f"{w[0]:,.0f}–{w[1]:,.0f} s"

    def n(x: float) -> str:
        return f"{x:,.0f}" if float(x).is_integer() else f"{x:,.1f}"

    def row(name: str, first: dict[str, float], last: dict[str, float], unit: str) -> str:
        return (f"| {name} | {n(first['mean'])} ({n(first['min'])}–{n(first['max'])}) "
                f"| {n(last['mean'])} ({n(last['min'])}–{n(last['max'])}) | {unit} |")

    return "\n".join([
        f"| | First window ({span(sm['first_window'])}) | Last window "
        f"({span(sm['last_window'])}) | |",
        "|---|---|---|---|",
        row("RSS, mean (min–max)", sm["rss_mb_first"], sm["rss_mb_last"], "MB"),
        row("Open file descriptors, mean (min–max)", sm["fds_first"], sm["fds_last"], ""),
        "",
        f"{st['tables']} {st['variant']} tables kept in play for {st['duration_s']:,.0f} s "
        f"(think {st['think_s']} s, matches to {st['target']}): {sm['tables_created']:,} "
        f"tables created, {sm['tables_finished']:,} finished, {sm['actions']:,} actions, "
        f"{sm['errors']} errors; p50 {sm['latency_ms']['p50']} ms, p99 "
        f"{sm['latency_ms']['p99']} ms; RSS slope after the warm-up "
        f"{sm['rss_slope_mb_per_10min']:+.2f} MB per 10 minutes; **flat: "
        f"{'yes' if sm['flat'] else 'no'}** (the criterion: {sm['criterion']})."])


def round_table(files: list[Path]) -> str:
    """The Markdown table of ``tools/tournament_bench.py --under-load`` reports: the load
    script's latency alone and during a round of bot tables, one run a row."""
    out = ["| Run | Code | Load script alone: p99 | During the round: p50 / p99 / max "
           "| Server CPU | Bot workers' CPU | Round |",
           "|---|---|---|---|---|---|---|"]
    for path in files:
        doc = json.loads(path.read_text(encoding="utf-8"))
        alone, during = doc["load_alone"]["latency_ms"], doc["load"]["latency_ms"]
        workers = doc["load"].get("workers_cpu_pct")
        out.append(
            f"| `{path.name}` | {doc.get('code', '–')} | {_ms(alone['p99'])} ms | "
            f"{_ms(during['p50'])} / {_ms(during['p99'])} / {_ms(during['max'])} ms | "
            f"{doc['load']['server_cpu_pct']} % | "
            f"{'–' if workers is None else f'{workers} %'} | {doc['round_s']:.0f} s |")
    return "\n".join(out)


def section() -> str:
    """What goes between the markers: every result file's table, newest first."""
    parts = []
    kinds = ("-load", "-state", "-soak")  # in this order; within a kind, newest first

    def kind(path: Path) -> int:
        return next((i for i, k in enumerate(kinds) if path.stem.endswith(k)), len(kinds))

    newest = sorted(RESULTS.glob("*.json"), reverse=True)
    for path in sorted(newest, key=kind):  # a stable sort: newest first within a kind
        doc = json.loads(path.read_text(encoding="utf-8"))
        if path.stem.endswith("-load"):
            parts.append(f"#### {doc['title']} (`benchmarks/capacity/{path.name}`)\n\n"
                         + load_table(doc))
        elif path.stem.endswith("-soak"):
            parts.append(f"#### Soak (`benchmarks/capacity/{path.name}`)\n\n"
                         + soak_table(doc))
        elif path.stem.endswith("-state"):
            label = f": {doc['label']}" if doc.get("label") else ""
            parts.append(f"#### One state's messages{label} "
                         f"(`benchmarks/capacity/{path.name}`)\n\n" + state_table(doc))
    rounds = sorted(p for p in TOURNAMENTS.glob("*.json")
                    if "load" in json.loads(p.read_text(encoding="utf-8")))
    if rounds:
        parts.append("#### A round of 64 bot tables beside the load script "
                     "(`benchmarks/tournaments/`, in the order run)\n\n" + round_table(rounds))
    return "\n\n".join(parts)


def output() -> str:
    """docs/CAPACITY.md as it must be."""
    text = DOC.read_text(encoding="utf-8")
    head, sep, rest = text.partition(BEGIN)
    _, sep2, tail = rest.partition(END)
    if not sep or not sep2:
        raise SystemExit(f"docs/CAPACITY.md needs the markers {BEGIN} and {END}")
    return f"{head}{BEGIN}\n{section()}\n{END}{tail}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 if docs/CAPACITY.md is out of date")
    args = parser.parse_args(argv)
    text = output()
    if DOC.read_text(encoding="utf-8") == text:
        return 0
    if args.check:
        print("out of date (run python tools/capacity.py): docs/CAPACITY.md", file=sys.stderr)
        return 1
    DOC.write_text(text, encoding="utf-8")
    print("wrote docs/CAPACITY.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
