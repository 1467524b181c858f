"""The HTTP API and web page: ask, inspect, approve, plot, calculate — with an audit log.

``clinbridge serve --db URL`` runs :func:`create_app` under uvicorn (the ``server`` extra).
See docs/server.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from clinbridge.server._audit import AuditLog
from clinbridge.server._pool import BusyError, SourcePool

if TYPE_CHECKING:
    from clinbridge.server._app import ServerConfig, create_app

__all__ = ["AuditLog", "BusyError", "ServerConfig", "SourcePool", "create_app"]


def __getattr__(name: str) -> object:
    # FastAPI is an optional extra: import it only when the app is asked for.
    if name in {"create_app", "ServerConfig"}:
        from clinbridge.server import _app

        return getattr(_app, name)
    raise AttributeError(name)
