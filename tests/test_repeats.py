"""No block of six or more lines stands twice in src/clinbridge, imports aside (issue 14).

A small reading of the source, run in CI: lines are compared with their white space folded;
blank lines, comments, lone punctuation and whole import statements are passed over. Lines of
the same *shape* with other names (declarative field lists, click options) are not looked for
here; docs/house.md lists those that stay and why, and the command that shows them.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "clinbridge"
RUN = 6
_PUNCT = re.compile(r"[()\[\]{},:;*]+")

# Pairs of files let through (none: the trial word lists are written once now).
OWNED_ELSEWHERE: set[frozenset[str]] = set()


def _lines(path: Path) -> list[tuple[int, str]]:
    text = path.read_text(encoding="utf-8")
    imports: set[int] = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import | ast.ImportFrom):
            imports.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    out = []
    for no, line in enumerate(text.splitlines(), start=1):
        folded = " ".join(line.split())
        if no in imports or not folded or folded.startswith("#") or _PUNCT.fullmatch(folded):
            continue
        out.append((no, folded))
    return out


def repeated_runs(root: Path = PACKAGE) -> list[tuple[str, int, str, int]]:
    """(file, line, file, line) for every run of ``RUN`` lines that stands in two places."""
    seen: dict[tuple[str, ...], list[tuple[str, int]]] = defaultdict(list)
    for path in sorted(root.rglob("*.py")):
        lines = _lines(path)
        name = path.relative_to(root).as_posix()
        for k in range(len(lines) - RUN + 1):
            seen[tuple(s for _, s in lines[k : k + RUN])].append((name, lines[k][0]))
    out = []
    for places in seen.values():
        for i, (fa, la) in enumerate(places):
            for fb, lb in places[i + 1 :]:
                if not (fa == fb and abs(la - lb) < RUN):
                    out.append((fa, la, fb, lb))
    return out


def test_no_block_of_six_lines_is_repeated_outside_imports():
    found = [r for r in repeated_runs() if frozenset({r[0], r[2]}) not in OWNED_ELSEWHERE]
    shown = sorted({f"{fa}:{la} ~ {fb}:{lb}" for fa, la, fb, lb in found})[:20]
    assert not found, "repeated blocks (make one piece of code serve both):\n" + "\n".join(shown)


def test_the_reading_finds_a_repeated_block(tmp_path):
    body = "".join(f"    total = total + {i} * factor\n" for i in range(7))
    for name in ("a.py", "b.py"):
        (tmp_path / name).write_text(f"def f(total, factor):\n{body}    return total\n")
    (tmp_path / "c.py").write_text(
        "from x import (\n" + "".join(f"    n{i},\n" for i in range(9)) + ")\n"
    )
    (tmp_path / "d.py").write_text(
        "from x import (\n" + "".join(f"    n{i},\n" for i in range(9)) + ")\n"
    )
    pairs = {(fa, fb) for fa, _, fb, _ in repeated_runs(tmp_path)}
    assert pairs == {("a.py", "b.py")}  # the import blocks of c.py and d.py do not count
