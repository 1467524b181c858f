"""The built-in calculators: every ``specs/*.yaml`` file, compiled on first use.

Calculators are looked up by MedCalc-Bench id (``4`` or ``"4"``), by name, by slug, by an alias,
or fuzzily (rapidfuzz) when nothing matches exactly.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from rapidfuzz import fuzz, process

from clinbridge.calculators.compile import Calculator, compile_spec
from clinbridge.calculators.spec import Spec, load_spec
from clinbridge.errors import CalculatorError, CalculatorSpecError

__all__ = ["SPEC_DIR", "Registry", "default_registry"]

SPEC_DIR = Path(__file__).with_name("specs")
_FILE = re.compile(r"^(\d+)_[a-z0-9_]+\.yaml$")


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[^a-z0-9]+", " ", text.lower()).split())


class Registry:
    """A set of compiled calculators with lookup by id, name or alias."""

    def __init__(self, specs: list[Spec]) -> None:
        self._by_id: dict[int, Calculator] = {}
        self._names: dict[str, int] = {}
        for spec in sorted(specs, key=lambda s: s.id):
            if spec.id in self._by_id:
                raise CalculatorSpecError(f"two specs with id {spec.id}", calculator_id=spec.id)
            self._by_id[spec.id] = compile_spec(spec)
            for name in (spec.name, spec.slug, *spec.aliases):
                self._names.setdefault(_norm(name), spec.id)

    @classmethod
    def from_dir(cls, directory: str | Path) -> Registry:
        """Load every ``<id>_<slug>.yaml`` spec in a directory (the id must match the file name)."""
        specs: list[Spec] = []
        for path in sorted(Path(directory).glob("*.yaml")):
            m = _FILE.match(path.name)
            if not m:
                raise CalculatorSpecError(
                    f"{path}: spec files are named <id>_<slug>.yaml", file=str(path)
                )
            spec = load_spec(path)
            if spec.id != int(m.group(1)):
                raise CalculatorSpecError(
                    f"{path}: file name says id {m.group(1)} but the spec says {spec.id}",
                    file=str(path),
                )
            specs.append(spec)
        return cls(specs)

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self._by_id.values())

    def __len__(self) -> int:
        return len(self._by_id)

    def __contains__(self, key: object) -> bool:
        return isinstance(key, int | str) and self.find(key) is not None

    def ids(self) -> list[int]:
        """The ids of every calculator, sorted."""
        return sorted(self._by_id)

    def find(self, key: int | str, *, fuzzy: bool = True) -> Calculator | None:
        """The calculator ``key`` names, or ``None``."""
        if isinstance(key, int) or (isinstance(key, str) and key.strip().isdigit()):
            return self._by_id.get(int(key))
        k = _norm(key)
        if k in self._names:
            return self._by_id[self._names[k]]
        if not fuzzy or not k:
            return None
        ids = self._fuzzy(k)
        return self._by_id[ids[0]] if len(ids) == 1 else None

    def _fuzzy(self, k: str) -> list[int]:
        """Ids of the best fuzzy matches (several when the best score is shared: ambiguous)."""
        names = list(self._names)
        # A word-subset match first ('wells pe' -> "Wells' Criteria for Pulmonary Embolism"),
        # then a whole-string match for misspellings ('cockroft gault').
        for scorer, cutoff in ((fuzz.token_set_ratio, 90), (fuzz.token_sort_ratio, 85)):
            hits = process.extract(k, names, scorer=scorer, score_cutoff=cutoff, limit=10)
            if hits:
                top = hits[0][1]
                return sorted({self._names[h[0]] for h in hits if h[1] == top})
        return []

    def get(self, key: int | str) -> Calculator:
        """Like :meth:`find` but raises, suggesting the closest names."""
        calc = self.find(key)
        if calc is None:
            ambiguous = [] if isinstance(key, int) else self._fuzzy(_norm(key))
            if len(ambiguous) > 1:
                names = [self._by_id[i].name for i in ambiguous]
                raise CalculatorError(
                    f"{key!r} is ambiguous: {'; '.join(names)}", key=str(key), suggestions=names
                )
            close = process.extract(_norm(str(key)), list(self._names), scorer=fuzz.WRatio, limit=3)
            raise CalculatorError(
                f"no calculator {key!r}; closest: {', '.join(c[0] for c in close)}",
                key=str(key),
                suggestions=[c[0] for c in close],
            )
        return calc


@functools.lru_cache(maxsize=1)
def default_registry() -> Registry:
    """The built-in calculators (loaded once)."""
    return Registry.from_dir(SPEC_DIR)
