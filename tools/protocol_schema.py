"""Generate the JSON Schema of the server's WebSocket messages.

``docs/protocol.schema.json`` is what :func:`bela.server.messages.schema` makes of the
message models (the server's messages in :mod:`bela.server.messages`, the client's in
:mod:`bela.server.protocol`): never edited by hand.  Change a model and run
``python tools/protocol_schema.py``; ``--check`` writes nothing and exits 1 when the file
differs from what it would write (tests/server/test_server_schema.py checks it too).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from bela.server.messages import schema  # noqa: E402

SCHEMA = ROOT / "docs" / "protocol.schema.json"


def output() -> str:
    """The text the schema file must hold."""
    return json.dumps(schema(), indent=2, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 if the schema file is out of date")
    args = parser.parse_args(argv)
    text = output()
    old = SCHEMA.read_text(encoding="utf-8") if SCHEMA.exists() else None
    if old == text:
        return 0
    if args.check:
        print(f"{SCHEMA.relative_to(ROOT)} is out of date: run python tools/protocol_schema.py",
              file=sys.stderr)
        return 1
    SCHEMA.write_text(text, encoding="utf-8")
    print(f"wrote {SCHEMA.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
