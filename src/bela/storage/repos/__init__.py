"""The queries of the server's storage, one repository per concern, all on one engine
(:class:`bela.storage.Database` hands them out)."""

from .accounts import Accounts
from .base import Repo
from .pads import Pads
from .players import Players
from .ratings import Ratings
from .social import Avatars, Blocks, Friends
from .tables import Tables
from .talk import Talk
from .tournaments import Tournaments

__all__ = ["Accounts", "Avatars", "Blocks", "Friends", "Pads", "Players", "Ratings", "Repo",
           "Tables", "Talk", "Tournaments"]
