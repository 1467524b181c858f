"""Fixtures for understanding tests: connections to the shared session databases."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from ._devset2db import open_devset2


@pytest.fixture(scope="session")
def understand_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("understand-cache")


def _connect(url: str, cache: Path, embeddings: str = "off") -> Any:
    import clinbridge
    from clinbridge.settings import Settings

    # no example bank: a bank in the home folder must not change what the parser answers here
    settings = Settings(embeddings=embeddings, examples=str(cache / "no-examples.jsonl"))
    return clinbridge.connect(url, settings=settings, cache_dir=cache)


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


@pytest.fixture(scope="session")
def s27_conn(understand_cache: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """Eunomia Synthea27Nj (OMOP 5.4, 28 patients, deaths, no concept_ancestor)."""
    from clinbridge.adapters.omop import load_omop_csv

    root = Path(__file__).resolve().parents[2]
    path = tmp_path_factory.mktemp("s27-understand") / "s27.duckdb"
    load_omop_csv(root / "tests" / "data" / "eunomia-synthea27nj-5.4", f"duckdb:///{path}")
    conn = _connect(f"duckdb:///{path}", understand_cache)
    yield conn
    conn.close()


@pytest.fixture(scope="session")
def fhir_conn(understand_cache: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The Synthea R4 sample loaded with the FHIR adapter."""
    from clinbridge.adapters.fhir.loader import load_fhir

    root = Path(__file__).resolve().parents[2] / "tests" / "data" / "fhir"
    path = tmp_path_factory.mktemp("fhir-understand") / "fhir.duckdb"
    load_fhir([root / "bundles", root / "ndjson"], f"duckdb:///{path}")
    conn = _connect(f"duckdb:///{path}", understand_cache)
    yield conn
    conn.close()


# devset2's three loads, one connection per test module (no embeddings, no example bank)
@pytest.fixture(scope="module")
def fhir2(understand_cache: Path) -> Iterator[Any]:
    with closing(open_devset2("fhir", understand_cache)) as conn:
        yield conn


@pytest.fixture(scope="module")
def s27(understand_cache: Path) -> Iterator[Any]:
    with closing(open_devset2("synthea27nj", understand_cache)) as conn:
        yield conn


@pytest.fixture(scope="module")
def gibleed(understand_cache: Path) -> Iterator[Any]:
    with closing(open_devset2("gibleed", understand_cache)) as conn:
        yield conn
