"""The missing-codes check finds a code in the SQL only as a whole token."""

from clinbridge.engine._checks_wide import names_code as _names


def test_code_inside_a_keyword_is_not_named() -> None:
    assert not _names("SELECT avg(x) FROM t WHERE a = 1 AND b = 2", "ND")
    assert _names("WHERE x NOT IN ('ND', 'NK') AND y > 0", "ND")


def test_numeric_codes_are_whole_numbers() -> None:
    assert _names("WHERE x NOT IN (-99, 999)", "-99")
    assert not _names("WHERE x <> -999", "-99")
    assert not _names("WHERE x > 99.9", "9")
    assert _names("WHERE x <> 999", "999")
