"""Storage of the server: SQLAlchemy 2 models, the database and its repositories, Alembic
migrations."""

from .db import (
    Database,
    LogConflict,
    NameTaken,
    PadQuota,
    PadRefused,
    RateFn,
    data_dir,
    default_db_url,
    make_engine,
    migrate,
)

__all__ = ["Database", "LogConflict", "NameTaken", "PadQuota", "PadRefused", "RateFn",
           "data_dir", "default_db_url", "make_engine", "migrate"]
