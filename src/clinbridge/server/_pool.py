"""A small pool of read-only connections per source.

A :class:`clinbridge.api.Connection` (its database handle and its parser) serves one request at a
time; the pool hands each request its own and makes the others wait, up to a deadline.
"""

from __future__ import annotations

import contextlib
import queue
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from clinbridge.errors import ExecutionError

if TYPE_CHECKING:
    from clinbridge.api import Connection
    from clinbridge.catalog import Catalog
    from clinbridge.settings import Settings

__all__ = ["BusyError", "SourcePool"]


class BusyError(ExecutionError):
    """No connection became free before the request's deadline (HTTP 503)."""


class SourcePool:
    """``size`` read-only connections to one database URL, opened lazily."""

    def __init__(
        self,
        url: str,
        *,
        size: int = 2,
        settings: Settings | None = None,
        cache_dir: str | Path | None = None,
        schema: str | None = None,
    ) -> None:
        from clinbridge.api import connect

        self.url = url
        self.size = max(1, size)
        self._settings = settings
        self._cache_dir = cache_dir
        self._schema = schema
        self._free: queue.LifoQueue[Connection] = queue.LifoQueue()
        self._all: list[Connection] = []
        self._lock = threading.Lock()
        first = connect(url, schema=schema, settings=settings, cache_dir=cache_dir)
        self._all.append(first)
        self._free.put(first)
        self.catalog: Catalog = first.catalog
        self.name = first.catalog.source

    @contextlib.contextmanager
    def connection(self, timeout_s: float = 30.0) -> Iterator[Connection]:
        conn = self._take(timeout_s)
        try:
            yield conn
        finally:
            self._free.put(conn)

    def _take(self, timeout_s: float) -> Connection:
        try:
            return self._free.get_nowait()
        except queue.Empty:
            pass
        with self._lock:
            grow = len(self._all) < self.size
            if grow:
                from clinbridge.api import connect

                conn = connect(
                    self.url,
                    schema=self._schema,
                    settings=self._settings,
                    cache_dir=self._cache_dir,
                )
                self._all.append(conn)
                return conn
        try:
            return self._free.get(timeout=timeout_s)
        except queue.Empty:
            raise BusyError(
                f"source {self.name!r}: all {self.size} connections busy for {timeout_s:.0f} s"
            ) from None

    def close(self) -> None:
        for conn in self._all:
            conn.close()
        self._all.clear()
