import clinbridge
from clinbridge import errors


def test_version():
    assert clinbridge.__version__


def test_error_tree_exported_and_sorted():
    assert errors.__all__ == sorted(errors.__all__)
    for name in errors.__all__:
        assert issubclass(getattr(errors, name), errors.ClinbridgeError)


def test_load_error_names_file_record_field():
    e = errors.LoadError("bad value", file="a.csv", record=3, field="person_id")
    assert "a.csv" in str(e) and "3" in str(e) and "person_id" in str(e)
    assert e.to_dict()["code"] == "load"
