"""The server's logs: plain text, or one JSON object per line (``--log-format json``).

A log line about a table carries its id as ``table`` (``extra={"table": id}``, or the
:class:`TableLog` adapter), and every line of a process names its ``instance``, so the logs
of several instances can be searched together.

>>> import logging
>>> rec = logging.LogRecord("bela.server", logging.INFO, "", 0, "taken over", (), None)
>>> rec.table = "abc"
>>> line = json.loads(JsonFormatter("bela1").format(rec))
>>> line["table"], line["instance"], line["level"], line["message"]
('abc', 'bela1', 'info', 'taken over')
"""

from __future__ import annotations

import json
import logging
from collections.abc import MutableMapping
from datetime import UTC, datetime
from typing import Any

# attributes every LogRecord has: the rest were given as ``extra``
_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {"message", "asctime"}


class JsonFormatter(logging.Formatter):
    """One JSON object per record: ``time``, ``level``, ``logger``, ``message``,
    ``instance``, the record's extras (``table``...), and ``error`` with a traceback."""

    def __init__(self, instance: str) -> None:
        super().__init__()
        self.instance = instance

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(), "logger": record.name,
            "message": record.getMessage(), "instance": self.instance}
        for key, value in vars(record).items():
            if key not in _STANDARD and not key.startswith("_"):
                out[key] = value if isinstance(value, (str, int, float, bool)) else str(value)
        if record.exc_info:
            out["error"] = self.formatException(record.exc_info)
        return json.dumps(out, ensure_ascii=False)


class TableLog(logging.LoggerAdapter[logging.Logger]):
    """A logger whose records name their table (``table``)."""

    def __init__(self, logger: logging.Logger, table_id: str) -> None:
        super().__init__(logger, {"table": table_id})

    def process(self, msg: Any, kwargs: MutableMapping[str, Any]) -> tuple[Any, Any]:
        kwargs["extra"] = {**(kwargs.get("extra") or {}), "table": self.extra["table"]}  # type: ignore[index]
        return msg, kwargs


def setup(fmt: str, level: str, instance: str) -> None:
    """Send every log record (the server's and uvicorn's) to stderr as ``fmt`` (``text`` or
    ``json``) from ``level`` up."""
    handler = logging.StreamHandler()
    if fmt == "json":
        handler.setFormatter(JsonFormatter(instance))
    else:
        handler.setFormatter(logging.Formatter(
            f"%(asctime)s %(levelname)s [{instance}] %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
