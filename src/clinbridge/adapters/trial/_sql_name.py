"""A trial variable's column name in SQL: lower case, runs of other characters as one '_'."""

from __future__ import annotations

import re

__all__ = ["sql_name"]


def sql_name(name: str) -> str:
    s = re.sub(r"[^0-9a-zA-Z]+", "_", name).strip("_").lower() or "col"
    return f"v_{s}" if s[0].isdigit() else s
