"""The fixed phrases a seat may say while a deal runs.

The set is one constant: the same phrases for every seat, at every table, in every state of
every deal.  Nothing here reads a table, a view or a card, so a phrase cannot be chosen by
the server to fit a hand, and :func:`offered` takes no argument that could make it differ
(docs/SECURITY.md, Talk).  The words a player sees are the web's (``talk_phrase_<id>`` in
``src/bela/web/i18n/{hr,en}.json``); the wire carries only the id.

>>> offered()[:3]
('bravo', 'ajde', 'sretno')
>>> len(set(offered())) == len(offered())
True
"""

from __future__ import annotations

PHRASES: tuple[str, ...] = (
    "bravo", "ajde", "sretno", "hvala", "oprosti", "dobro", "joj",
    "smile", "laugh", "wow", "sad", "thumbs",
)


def offered() -> tuple[str, ...]:
    """The phrases offered to every seat: always :data:`PHRASES`."""
    return PHRASES
