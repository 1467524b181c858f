"""The audit log: one append-only SQLite row per API request.

Each row keeps who asked (the user the client names, or ``anonymous``), what was asked (question,
patient, plan, SQL), what came back (decision, reason, HTTP status) and how long it took. The
file lives in the application's directory (default ``~/.clinbridge/audit.sqlite``), never in a
user's database. Triggers refuse UPDATE and DELETE, so rows can only be added.
"""

from __future__ import annotations

import datetime as dt
import sqlite3
import threading
from pathlib import Path
from typing import Any

import orjson

__all__ = ["AuditLog", "default_audit_path"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS audit (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    ts TEXT NOT NULL,
    request_id TEXT NOT NULL,
    user TEXT NOT NULL,
    method TEXT NOT NULL,
    path TEXT NOT NULL,
    action TEXT NOT NULL,
    source TEXT,
    question TEXT,
    patient_id TEXT,
    plan TEXT,
    sql TEXT,
    decision TEXT,
    reason TEXT,
    status INTEGER NOT NULL,
    duration_ms REAL NOT NULL,
    timings TEXT
);
CREATE TRIGGER IF NOT EXISTS audit_no_update BEFORE UPDATE ON audit
BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
CREATE TRIGGER IF NOT EXISTS audit_no_delete BEFORE DELETE ON audit
BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
"""

_COLUMNS = (
    "id",
    "ts",
    "request_id",
    "user",
    "method",
    "path",
    "action",
    "source",
    "question",
    "patient_id",
    "plan",
    "sql",
    "decision",
    "reason",
    "status",
    "duration_ms",
    "timings",
)


def default_audit_path() -> Path:
    return Path.home() / ".clinbridge" / "audit.sqlite"


class AuditLog:
    """Append-only request log in a SQLite file (thread-safe)."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path is not None else default_audit_path()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.executescript(_SCHEMA)

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def append(
        self,
        *,
        request_id: str,
        user: str,
        method: str,
        path: str,
        action: str,
        status: int,
        duration_ms: float,
        source: str | None = None,
        question: str | None = None,
        patient_id: str | None = None,
        plan: Any = None,
        sql: str | None = None,
        decision: str | None = None,
        reason: str | None = None,
        timings: dict[str, Any] | None = None,
    ) -> int:
        row = (
            dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds"),
            request_id,
            user,
            method,
            path,
            action,
            source,
            question,
            patient_id,
            orjson.dumps(plan).decode() if plan is not None else None,
            sql,
            decision,
            reason,
            status,
            round(duration_ms, 3),
            orjson.dumps(timings).decode() if timings else None,
        )
        with self._lock:
            cur = self._conn.execute(
                f"INSERT INTO audit ({', '.join(_COLUMNS[1:])}) "
                f"VALUES ({', '.join('?' * (len(_COLUMNS) - 1))})",
                row,
            )
            return int(cur.lastrowid or 0)

    def entries(
        self, *, limit: int = 100, offset: int = 0, action: str | None = None
    ) -> list[dict[str, Any]]:
        """Newest first."""
        sql = f"SELECT {', '.join(_COLUMNS)} FROM audit"
        args: list[Any] = []
        if action:
            sql += " WHERE action = ?"
            args.append(action)
        sql += " ORDER BY id DESC LIMIT ? OFFSET ?"
        args += [limit, offset]
        with self._lock:
            rows = self._conn.execute(sql, args).fetchall()
        out = []
        for r in rows:
            item = dict(zip(_COLUMNS, r, strict=True))
            for key in ("plan", "timings"):
                if item[key]:
                    item[key] = orjson.loads(item[key])
            out.append(item)
        return out

    def count(self) -> int:
        with self._lock:
            return int(self._conn.execute("SELECT COUNT(*) FROM audit").fetchone()[0])
