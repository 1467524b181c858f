"""Run a guarded statement: read-only, under the row limit and the statement timeout.

``execute()`` only accepts a :class:`~clinbridge.engine.guard.GuardedSQL`, so nothing reaches a
database without passing the guard. It runs the statement in the database's sandbox
(``Database.execute(..., sandbox=True)``: one SELECT, in a read-only or rolled-back transaction,
under an authorizer on SQLite), stops it after ``settings.sql_timeout_ms`` — less the time the
guard spent checking it (``GuardedSQL.guard_ms``), so that guard and run together stay inside
the one timeout — and returns at most
``guarded.max_rows`` rows, flagging truncation. Driver errors arrive already translated into
:class:`~clinbridge.errors.ExecutionError` / :class:`~clinbridge.errors.QueryTimeoutError`.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from clinbridge.db import QueryResult
from clinbridge.engine.guard import GuardedSQL
from clinbridge.errors import ConfigError, ExecutionError, QueryTimeoutError

if TYPE_CHECKING:
    from clinbridge.db import Database
    from clinbridge.settings import Settings

__all__ = ["QueryResult", "execute"]

logger = logging.getLogger(__name__)


def execute(db: Database, guarded: GuardedSQL, *, settings: Settings) -> QueryResult:
    """Execute a guarded statement and return its rows.

    Args:
        db: An open database; its dialect must be the one the statement was guarded for.
        guarded: The guard's output.
        settings: ``sql_timeout_ms`` bounds the guard's time plus the run time; the row limit
            is ``guarded.max_rows`` (never more than ``settings.max_rows``).

    Returns:
        Columns, at most ``max_rows`` rows, ``truncated`` when more were available, the SQL that
        ran, its dialect and the elapsed time.

    Raises:
        QueryTimeoutError: Guard and statement together ran longer than
            ``settings.sql_timeout_ms``.
        ExecutionError: The database failed the statement.
        ConfigError: ``guarded`` is not a GuardedSQL or was guarded for another dialect.
    """
    if not isinstance(guarded, GuardedSQL):
        raise ConfigError(
            f"execute() runs only statements that passed guard(); got {type(guarded).__name__}"
        )
    if guarded.dialect != db.dialect:
        raise ConfigError(
            f"statement was guarded for {guarded.dialect!r} but the database is {db.dialect!r}",
            guarded_dialect=guarded.dialect,
            dialect=db.dialect,
        )
    max_rows = min(guarded.max_rows, settings.max_rows)
    remaining = int(settings.sql_timeout_ms - guarded.guard_ms)
    if remaining < 1:
        raise QueryTimeoutError(
            f"checking the statement took {guarded.guard_ms:.0f} ms, the whole "
            f"{settings.sql_timeout_ms} ms timeout",
            timeout_ms=settings.sql_timeout_ms,
            backend=db.backend,
        )
    if not db.read_only:
        logger.debug("guarded statement on a writable connection; relying on the sandbox")
    try:
        result = db.execute(
            guarded.sql,
            timeout_ms=remaining,
            max_rows=max_rows,
            sandbox=True,
        )
    except QueryTimeoutError as exc:
        raise QueryTimeoutError(
            f"query ran longer than {settings.sql_timeout_ms} ms and was stopped "
            f"({db.backend}; checking it took {guarded.guard_ms:.0f} ms of that)",
            **{**exc.details, "timeout_ms": settings.sql_timeout_ms, "sql": guarded.sql},
        ) from exc
    except ExecutionError as exc:
        exc.details.setdefault("sql", guarded.sql)
        raise
    logger.debug(
        "sql:executed dialect=%s rows=%d truncated=%s elapsed_ms=%.1f",
        db.dialect,
        len(result.rows),
        result.truncated,
        result.elapsed_ms,
    )
    result.sql = guarded.sql
    result.dialect = guarded.dialect
    return result
