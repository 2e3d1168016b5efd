"""Exceptions of the engine: each is a ``ValueError`` subclass that says what is allowed."""

from __future__ import annotations

from collections.abc import Sequence


class BelaError(ValueError):
    """Base class of the engine's errors."""


class IllegalAction(BelaError):
    """An action the rules do not allow now; the state is left unchanged.

    ``rule`` is the RULES.md id, ``legal`` the tokens of the actions that are allowed.
    """

    def __init__(self, reason: str, rule: str | None = None, legal: Sequence[str] = ()) -> None:
        self.reason = reason
        self.rule = rule
        self.legal = tuple(legal)
        text = reason + (f" ({rule})" if rule else "")
        if self.legal:
            text += ": " + _alternatives(self.legal)
        super().__init__(text)


class InvalidDeal(BelaError):
    """Hands that are not a valid deal of the variant."""


class InvalidOptions(BelaError):
    """A table option the variant does not have, or a value it does not allow."""


def _alternatives(tokens: Sequence[str]) -> str:
    if len(tokens) == 1:
        return f"play {tokens[0]}" if _is_card(tokens[0]) else f"allowed: {tokens[0]}"
    if all(_is_card(t) for t in tokens):
        return "play " + ", ".join(tokens[:-1]) + " or " + tokens[-1]
    return "allowed: " + ", ".join(tokens)


def _is_card(token: str) -> bool:
    return len(token) in (2, 3) and token[0] in "789TJQKA" and token[1] in "HDSC♥♦♠♣"
