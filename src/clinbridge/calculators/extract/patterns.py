"""Patterns the rule extractor reads ages, sex, dates and feet-and-inches with."""

from __future__ import annotations

import datetime as dt
import re

__all__ = [
    "AGE_PATTERNS",
    "DATE",
    "FEET_INCHES",
    "FEMALE",
    "MALE",
    "SEX_NOUN",
    "WORD_NUMBER",
    "month_number",
    "to_date",
    "word_number",
]

AGE_PATTERNS = [
    (re.compile(r"\b(\d{1,3})[\s\-]*(?:year|yr)s?[\s\-]*old\b", re.I), "year"),
    (re.compile(r"\b(\d{1,3})[\s\-]*(?:month)s?[\s\-]*old\b", re.I), "month"),
    (re.compile(r"\b(\d{1,3})[\s\-]*(?:week)s?[\s\-]*old\b", re.I), "week"),
    (re.compile(r"\b(\d{1,3})\s*(?:yo|y/o|y\.o\.|yr old|years of age)\b", re.I), "year"),
    (re.compile(r"\bage[ds]?\s*(?:of|:|was|is)?\s*(\d{1,3})\b", re.I), "year"),
    (re.compile(r"\b(\d{1,3})\s*(?:M|F)\b"), "year"),
]
_ONES = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
_TEENS = [
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
]
_TENS = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
WORD_NUMBER = re.compile(
    rf"\b((?:{'|'.join(_TENS)})(?:[\s\-](?:{'|'.join(_ONES)}))?|{'|'.join(_TEENS + _ONES)})"
    r"[\s\-]*(year|month|week)s?[\s\-]*old\b",
    re.I,
)


def word_number(text: str) -> int:
    """'sixty-two' → 62, 'six' → 6 (words matched by :data:`WORD_NUMBER`)."""
    n = 0
    for w in re.split(r"[\s\-]+", text.lower()):
        if w in _TENS:
            n += 20 + 10 * _TENS.index(w)
        elif w in _TEENS:
            n += 10 + _TEENS.index(w)
        elif w in _ONES:
            n += 1 + _ONES.index(w)
    return n


FEMALE = re.compile(
    r"\b(woman|women|female|girl|lady|she|her|hers|mrs|ms|mother|pregnan\w*|gravida)\b", re.I
)
MALE = re.compile(r"\b(man|men|male|boy|gentleman|he|his|him|mr)\b", re.I)
SEX_NOUN = re.compile(
    r"\b(?:year|yr|month|week)s?[\s\-]*old\s+(woman|female|girl|lady|man|male|boy|gentleman)\b",
    re.I,
)
_MONTHS = (
    "january|february|march|april|may|june|july|august|september|october|november|december|"
    "jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec"
)
DATE = re.compile(
    r"\b(\d{1,2})/(\d{1,2})/(\d{4})\b|\b(\d{4})-(\d{2})-(\d{2})\b|"
    rf"\b({_MONTHS})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b",
    re.I,
)
FEET_INCHES = re.compile(
    r"\b(\d)\s*(?:ft|feet|foot|')\s*(?:,?\s*(\d{1,2}(?:\.\d+)?)\s*(?:in|inches|inch|\"|'')?)?", re.I
)


def month_number(name: str) -> int:
    """'March' / 'mar' → 3."""
    names = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    return names.index(name[:3].lower()) + 1


def to_date(m: re.Match[str]) -> dt.date | None:
    """The date a :data:`DATE` match names (month/day/year, ISO or month name), if valid."""
    try:
        if m.group(1):
            return dt.date(int(m.group(3)), int(m.group(1)), int(m.group(2)))
        if m.group(4):
            return dt.date(int(m.group(4)), int(m.group(5)), int(m.group(6)))
        return dt.date(int(m.group(9)), month_number(m.group(7)), int(m.group(8)))
    except (ValueError, TypeError):
        return None
