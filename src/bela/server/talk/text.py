"""Free text as the server keeps it: cleaned, limited in length, with the operator's words
masked.  Text is only ever sent as JSON strings and shown by the web as text (its ``html``
tag escapes): no markup or link is ever made of it.

>>> rules = TalkRules(max_length=20, words=("kreten",))
>>> clean("  Ajde\\u0000 dečki,\\n KRETENU!  ", rules)
'Ajde dečki, ******U!'
>>> clean("\\u200b \\t", rules) is None
True
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

MAX_LENGTH = 200


@dataclass(frozen=True)
class TalkRules:
    """What free text may be: at most ``max_length`` characters, the operator's ``words``
    (case-insensitive) masked with asterisks."""

    max_length: int = MAX_LENGTH
    words: tuple[str, ...] = ()


_SPACE = re.compile(r"\s+")


def _shown(ch: str) -> bool:
    """A character kept: no control or format character (zero-width, direction marks)."""
    return unicodedata.category(ch) not in ("Cc", "Cf", "Cs", "Co", "Cn")


def clean(text: str, rules: TalkRules) -> str | None:
    """``text`` on one line without control characters, spaces collapsed, cut at
    ``rules.max_length``, the filtered words masked; ``None`` when nothing is left."""
    kept = "".join(ch if _shown(ch) else (" " if ch in "\n\r\t" else "") for ch in text)
    kept = _SPACE.sub(" ", unicodedata.normalize("NFC", kept)).strip()[:rules.max_length]
    for word in rules.words:
        if word:
            kept = re.sub(re.escape(word), "*" * len(word), kept, flags=re.IGNORECASE)
    return kept or None
