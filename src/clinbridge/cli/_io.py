"""What every command shares: exit codes, the ``error:`` line, and leaving no debris.

Exit codes (README "Exit codes"): 0 answered / done, 2 refused or abstained (and click's usage
errors), 1 error. A failed command leaves nothing behind: output files are written to a
temporary name and moved into place on success, and a database file the command created is
removed when the command fails.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any, NoReturn

import click

__all__ = [
    "EXIT_ERROR",
    "EXIT_OK",
    "EXIT_REFUSED",
    "atomic_output",
    "bank_option",
    "fail",
    "new_database_file",
    "on_error_option",
    "patients_option",
    "plain_validation_message",
    "seed_option",
]

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_REFUSED = 2


def fail(message: str, code: int = EXIT_ERROR) -> NoReturn:
    """Print ``error: message`` on stderr and exit with ``code``."""
    click.echo(f"error: {message}", err=True)
    sys.exit(code)


def plain_validation_message(exc: Exception) -> str:
    """A pydantic ValidationError as ``loc: message; ...`` without its web links."""
    errors = getattr(exc, "errors", None)
    if not callable(errors):
        return str(exc)
    try:
        items = errors(include_url=False)
    except TypeError:
        return str(exc)
    parts = []
    for e in items:
        loc = ".".join(str(x) for x in e.get("loc", ()))
        parts.append(f"{loc}: {e.get('msg', '')}" if loc else str(e.get("msg", "")))
    return "; ".join(parts) or str(exc)


@contextlib.contextmanager
def atomic_output(path: str | Path, mode: str = "w") -> Iterator[IO[Any]]:
    """Write ``path`` through a temporary file in the same folder, moved into place on success."""
    target = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent or ".")
    os.close(fd)
    try:
        with open(tmp, mode, encoding=None if "b" in mode else "utf-8") as fh:
            yield fh
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _file_of(url: str) -> Path | None:
    for prefix in ("duckdb:///", "sqlite:///"):
        if url.startswith(prefix):
            rest = url[len(prefix) :].split("?", 1)[0]
            return None if rest in {"", ":memory:"} else Path(rest)
    return None


@contextlib.contextmanager
def new_database_file(url: str) -> Iterator[None]:
    """Remove the DuckDB/SQLite file ``url`` names if it did not exist and the command fails."""
    path = _file_of(url)
    created = path is not None and not path.exists()
    try:
        yield
    except BaseException as exc:
        if created and path is not None and not (isinstance(exc, SystemExit) and not exc.code):
            for p in (path, Path(f"{path}.wal"), Path(f"{path}-journal"), Path(f"{path}-wal")):
                with contextlib.suppress(OSError):
                    p.unlink()
        raise


patients_option = click.option(
    "--patients",
    type=click.IntRange(1, 1_000_000),
    default=1000,
    show_default=True,
    help="Number of patients (the same default for synth fhir and synth omop).",
)
"""The synthetic generators' ``--patients`` option (one default for all of them)."""

seed_option = click.option(
    "--seed",
    type=int,
    default=0,
    show_default=True,
    help="Random seed (same data for the same seed).",
)
"""The synthetic OMOP and FHIR generators' ``--seed`` option."""

on_error_option = click.option(
    "--on-error",
    type=click.Choice(["quarantine", "raise"]),
    default="quarantine",
    show_default=True,
    help="Stop at the first bad value, or keep bad rows in clinbridge_rejected.",
)
"""The loaders' ``--on-error`` option: stop at the first bad value, or quarantine bad rows."""

bank_option = click.option(
    "--bank",
    "bank_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Example bank file (default: $CLINBRIDGE_EXAMPLES or ~/.clinbridge/examples.jsonl).",
)
"""The example bank file option of ``serve`` and ``feedback approve|edit``."""
