"""Fixtures for understanding tests: connections to the shared session databases."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture(scope="session")
def understand_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("understand-cache")


def _connect(url: str, cache: Path, embeddings: str = "off") -> Any:
    import clinbridge
    from clinbridge.settings import Settings

    return clinbridge.connect(url, settings=Settings(embeddings=embeddings), cache_dir=cache)


@pytest.fixture(scope="session")
def eunomia_conn(eunomia_duckdb_url: str, understand_cache: Path) -> Iterator[Any]:
    conn = _connect(eunomia_duckdb_url, understand_cache)
    yield conn
    conn.close()


@pytest.fixture(scope="session")
def synth_conn(understand_cache: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from clinbridge.synthetic.omop import generate_omop

    path = tmp_path_factory.mktemp("synth-understand") / "synth.duckdb"
    generate_omop(f"duckdb:///{path}", patients=300, seed=1)
    conn = _connect(f"duckdb:///{path}", understand_cache)
    yield conn
    conn.close()
