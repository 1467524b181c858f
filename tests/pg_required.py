"""What a test does when the PostgreSQL server does not answer: skip locally, FAIL on CI.

On CI (the ``CI`` environment variable is set, as every CI service does) a missing server is a
broken environment, not a reason to pass: the PostgreSQL tests fail with the reason instead of
skipping.
"""

from __future__ import annotations

import os
from typing import NoReturn

import pytest


def on_ci() -> bool:
    """Whether the ``CI`` variable is set (to anything but '', '0' or 'false')."""
    return os.environ.get("CI", "").strip().lower() not in {"", "0", "false"}


def pg_unavailable(reason: str) -> NoReturn:
    """Skip with ``reason``, or fail with it when running on CI."""
    if on_ci():
        pytest.fail(f"{reason} (CI is set, so PostgreSQL tests fail instead of skipping)")
    pytest.skip(reason)
