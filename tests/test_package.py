from pathlib import Path

import clinbridge
from clinbridge import errors


def test_version():
    assert clinbridge.__version__


def test_error_tree_exported_and_sorted():
    assert errors.__all__ == sorted(errors.__all__)
    for name in errors.__all__:
        obj = getattr(errors, name)
        if isinstance(obj, type):
            assert issubclass(obj, errors.ClinbridgeError), name


def test_load_error_names_file_record_field():
    e = errors.LoadError("bad value", file="a.csv", record=3, field="person_id")
    assert "a.csv" in str(e) and "3" in str(e) and "person_id" in str(e)
    assert e.to_dict()["code"] == "load"


def test_install_check_flags_cuda_runtime_packages():
    """bench/bench_install.py's detector (the dry run itself is the bench: it needs the index)."""
    import importlib.util

    path = Path(__file__).resolve().parent.parent / "bench" / "bench_install.py"
    spec = importlib.util.spec_from_file_location("bench_install", path)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)

    def item(name: str, size: int = 1000) -> dict:
        return {
            "metadata": {"name": name, "version": "1"},
            "download_info": {"url": "u", "archive_info": {"size": size}},
        }

    report = {"install": [item("clinbridge"), item("nvidia-cublas-cu12"), item("big", 2**30)]}
    assert mod.heavy_packages(report) == ["big==1", "nvidia-cublas-cu12==1"]
    assert mod.heavy_packages({"install": [item("clinbridge"), item("torch")]}) == []
