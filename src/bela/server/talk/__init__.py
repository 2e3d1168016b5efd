"""Talk at the tables: fixed phrases while a deal runs, free text between deals, reports of
what was said (docs/SECURITY.md, Talk).  :class:`TableTalk` is the one place that decides
what may be said at a table and tells it to the table's connections."""

from .bots import BotTalk, bot_phrase
from .phrases import PHRASES, offered
from .room import TableTalk, deal_running
from .speaker import Speaker, TalkSession
from .text import TalkRules, clean

__all__ = ["PHRASES", "BotTalk", "Speaker", "TableTalk", "TalkRules", "TalkSession",
           "bot_phrase", "clean", "deal_running", "offered"]
