"""Accounts: a guest claims his name with a password; logins, logouts, password changes."""

from __future__ import annotations

from fastapi import APIRouter

router = APIRouter()
