"""The drawn avatars a player may choose (the web draws them: ``src/bela/web/avatars.js``);
no uploads.  The bots' faces are the web's, by their level."""

from __future__ import annotations

AVATARS: tuple[str, ...] = ("fox", "owl", "bear", "cat", "hare", "hedgehog", "dolphin",
                            "goat", "donkey", "seagull", "tuna", "lynx")
