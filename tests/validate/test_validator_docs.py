"""Every check code the validator can report is documented in docs/validator.md."""

from pathlib import Path
from typing import get_args

from clinbridge.engine.validate import CheckCode

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_every_check_code_is_documented():
    text = (DOCS / "validator.md").read_text()
    for code in get_args(CheckCode):
        assert f"`{code}`" in text, code
