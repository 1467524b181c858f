"""Meta-tests: every error code and setting is documented."""

from pathlib import Path
from typing import get_args

from clinbridge import errors
from clinbridge.settings import SETTINGS, Settings

DOCS = Path(__file__).resolve().parent.parent / "docs"


def test_every_error_code_is_documented():
    text = (DOCS / "errors.md").read_text()
    for code in get_args(errors.ErrorCode):
        assert f"`{code}`" in text, code


def test_every_error_class_has_a_code():
    codes = set(get_args(errors.ErrorCode))
    for name in errors.__all__:
        assert getattr(errors, name).code in codes, name


def test_every_setting_is_documented_and_declared():
    text = (DOCS / "settings.md").read_text()
    assert {s.name for s in SETTINGS} == set(Settings.names())
    for s in SETTINGS:
        assert f"`{s.name}`" in text and s.help


def test_settings_from_env():
    s = Settings.from_env({"CLINBRIDGE_MAX_ROWS": "5", "CLINBRIDGE_LLM": "openai"})
    assert s.max_rows == 5 and s.llm == "openai"
