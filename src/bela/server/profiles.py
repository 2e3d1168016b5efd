"""Profiles and leaderboards: ratings, their history, stats and finished matches."""

from __future__ import annotations

from fastapi import APIRouter

router = APIRouter()
