"""The variants, all on one state machine: ``bela4``, ``bela3``, ``bela2`` and ``belot2``."""

from __future__ import annotations

from ..errors import InvalidOptions
from .base import TARGET_RANGE, Deal, TableOptions, Variant
from .bela2 import BELA2
from .bela3 import BELA3
from .bela4 import BELA4
from .belot2 import BELOT2

VARIANTS: dict[str, Variant] = {v.name: v for v in (BELA4, BELA3, BELA2, BELOT2)}
DEFAULT_VARIANT = BELA4.name  # what a table, a command or a request plays unless told


def get_variant(name: str) -> Variant:
    try:
        return VARIANTS[name]
    except KeyError:
        raise InvalidOptions(f"unknown variant {name!r} (known: {', '.join(VARIANTS)})") from None


__all__ = ["DEFAULT_VARIANT", "TARGET_RANGE", "VARIANTS", "Deal", "TableOptions", "Variant",
           "get_variant"]
