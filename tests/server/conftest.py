"""Server fixtures: the app over real DuckDB files (Eunomia + synthetic OMOP), a live uvicorn.

``server_config`` builds a :class:`ServerConfig` with its own audit log and example bank under a
tmp dir; ``live_server`` runs the app under uvicorn on a free loopback port in a thread.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the server extra (fastapi) is not installed")

from clinbridge.settings import Settings

QUESTION = "How many patients had a gastrointestinal hemorrhage?"


@pytest.fixture(scope="session")
def server_dirs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("server")


@pytest.fixture(scope="session")
def artifacts_dir() -> Path:
    """Screenshots and other run outputs (under tmp/artifacts, git-ignored)."""
    path = Path(__file__).resolve().parents[2] / "tmp" / "artifacts" / "server"
    path.mkdir(parents=True, exist_ok=True)
    return path


def make_config(eunomia: Path, synth: Path, base: Path, **kw):  # type: ignore[no-untyped-def]
    from clinbridge.server import ServerConfig

    base.mkdir(parents=True, exist_ok=True)
    return ServerConfig(
        sources=[f"eunomia=duckdb:///{eunomia}", f"synth=duckdb:///{synth}"],
        audit_path=base / "audit.sqlite",
        bank_path=base / "examples.jsonl",
        settings=Settings(embeddings="off"),
        cache_dir=base / "cache",
        **kw,
    )


@pytest.fixture(scope="session")
def app(eunomia_duckdb: Path, synth_duckdb: Path, server_dirs: Path):  # type: ignore[no-untyped-def]
    pytest.importorskip("fastapi", reason="the server extra (fastapi) is not installed")
    from clinbridge.server import create_app

    application = create_app(make_config(eunomia_duckdb, synth_duckdb, server_dirs / "app"))
    yield application
    application.state.cb.close()


@pytest.fixture(scope="session")
def client(app):  # type: ignore[no-untyped-def]
    from fastapi.testclient import TestClient

    with TestClient(app) as c:
        yield c


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LiveServer:
    def __init__(self, app, port: int) -> None:  # type: ignore[no-untyped-def]
        import uvicorn

        self.url = f"http://127.0.0.1:{port}"
        self.server = uvicorn.Server(
            uvicorn.Config(app, host="127.0.0.1", port=port, access_log=False, log_level="warning")
        )
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.05)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


@pytest.fixture(scope="session")
def live_server(app) -> Iterator[LiveServer]:  # type: ignore[no-untyped-def]
    with LiveServer(app, free_port()) as srv:
        yield srv
