"""``clinbridge serve``: the HTTP API and web page (needs the ``server`` extra)."""

from __future__ import annotations

import ipaddress
import sys
from pathlib import Path

import click

from clinbridge.cli._io import bank_option
from clinbridge.settings import Settings

__all__ = ["serve_cmd"]


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@click.command("serve")
@click.option(
    "--db",
    "urls",
    multiple=True,
    required=True,
    help="Database URL, or NAME=URL (repeat for several sources). Opened read-only.",
)
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind.")
@click.option("--port", default=8000, type=int, show_default=True, help="Port to bind.")
@click.option(
    "--token",
    default=None,
    help="API token clients must send (Authorization: Bearer); default $CLINBRIDGE_API_TOKEN. "
    "Required when --host is not a loopback address.",
)
@click.option(
    "--audit",
    "audit_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Audit log file (SQLite, append-only; default ~/.clinbridge/audit.sqlite).",
)
@bank_option
@click.option("--pool", "pool_size", default=2, show_default=True, help="Connections per source.")
@click.option(
    "--max-body", default=1_000_000, show_default=True, help="Largest request body, in bytes."
)
@click.option(
    "--timeout", default=60.0, show_default=True, help="Longest a request may take, in seconds."
)
def serve_cmd(
    urls: tuple[str, ...],
    host: str,
    port: int,
    token: str | None,
    audit_path: Path | None,
    bank_path: Path | None,
    pool_size: int,
    max_body: int,
    timeout: float,
) -> None:
    """Serve the API (OpenAPI document at /openapi.json) and the page at http://HOST:PORT/."""
    token = token or Settings.from_env().api_token or None
    if not is_loopback(host) and not token:
        raise click.UsageError(
            f"refusing to bind {host} without an API token: give --token or set "
            "CLINBRIDGE_API_TOKEN (loopback addresses need none)"
        )
    try:
        import uvicorn

        from clinbridge.server._app import ServerConfig, create_app
    except ModuleNotFoundError as exc:
        raise click.ClickException(
            f"'clinbridge serve' needs the server extra ({exc.name} is missing): "
            "pip install 'clinbridge[server]'"
        ) from None

    config = ServerConfig(
        sources=list(urls),
        token=token,
        audit_path=audit_path,
        bank_path=bank_path,
        settings=Settings.from_env(),
        pool_size=pool_size,
        max_body_bytes=max_body,
        request_timeout_s=timeout,
    )
    app = create_app(config)
    click.echo(
        f"clinbridge serving {', '.join(app.state.cb.pools)} on http://{host}:{port}/ "
        f"(audit log {app.state.cb.audit.path}; token {'required' if token else 'off'})",
        err=True,
    )
    try:
        # access_log off: uvicorn's access lines carry query strings (patient ids).
        uvicorn.run(app, host=host, port=port, access_log=False, log_level="info")
    finally:
        app.state.cb.close()
    sys.exit(0)
