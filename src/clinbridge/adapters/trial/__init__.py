"""Harmonised clinical-trial spreadsheets: wide workbooks with a data dictionary.

* :func:`load_trial` reads an .xlsx/.csv trial table and its dictionary (found in the workbook,
  given as a file or sheet, or inferred and said so), checks every cell, and writes
  ``trial_data`` (wide), ``trial_long`` (subject, variable, time point, value) and the dictionary.
* :class:`TrialAdapter` (registered as ``"trial"``) describes a loaded table as a Catalog.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from clinbridge.adapters.trial.adapter import TrialAdapter

if TYPE_CHECKING:
    from clinbridge.adapters.trial.loader import TrialLoadReport, load_trial, read_trial

_LAZY = {"TrialLoadReport", "load_trial", "read_trial"}


def __getattr__(name: str) -> Any:
    # The loader needs pandas and python-calamine; describing a loaded table does not.
    if name in _LAZY:
        from clinbridge.adapters.trial import loader

        return getattr(loader, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["TrialAdapter", "TrialLoadReport", "load_trial", "read_trial"]
