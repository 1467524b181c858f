"""The test helpers themselves: a missing PostgreSQL server skips locally and fails on CI."""

import pytest

from pg_required import on_ci, pg_unavailable


def test_pg_unavailable_skips_without_ci(monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    assert not on_ci()
    with pytest.raises(pytest.skip.Exception):
        pg_unavailable("server down")


@pytest.mark.parametrize("value", ["true", "1", "yes"])
def test_pg_unavailable_fails_on_ci(monkeypatch, value):
    monkeypatch.setenv("CI", value)
    assert on_ci()
    with pytest.raises(pytest.fail.Exception, match="server down"):
        pg_unavailable("server down")
