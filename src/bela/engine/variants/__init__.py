"""The variants: ``bela4`` (and, on the same machinery, the others as they are added)."""

from __future__ import annotations

from ..errors import InvalidOptions
from .base import Deal, TableOptions, Variant
from .bela4 import BELA4

VARIANTS: dict[str, Variant] = {v.name: v for v in (BELA4,)}


def get_variant(name: str) -> Variant:
    try:
        return VARIANTS[name]
    except KeyError:
        raise InvalidOptions(f"unknown variant {name!r} (known: {', '.join(VARIANTS)})") from None


__all__ = ["VARIANTS", "Variant", "Deal", "TableOptions", "get_variant"]
