"""LLM backends: any OpenAI-compatible server over HTTP, or a local transformers model.

Both turn chat messages into text; when given a JSON schema they ask for output constrained to
it. :func:`get_backend` builds the configured one from :class:`~clinbridge.settings.Settings`
(``CLINBRIDGE_LLM=openai|transformers|none``, ``CLINBRIDGE_LLM_URL``, ``CLINBRIDGE_LLM_MODEL``).

``OpenAIBackend`` posts to ``{url}/chat/completions`` (vLLM, llama.cpp's server, Ollama, TGI) and
asks for ``response_format={"type": "json_schema", ...}`` (vLLM, OpenAI); a server that rejects it
(an HTTP error naming the format) is asked again with ``{"type": "json_object", "schema": ...}``
(llama.cpp's and Ollama's form), then ``{"type": "json_object", "value": ...}`` (TGI's guidance),
then with no constraint at all; the mode that worked is remembered.
``TransformersBackend`` loads a local model directory (GPU when available, else CPU) and
generates greedily; its output is parsed and validated like any other.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

from clinbridge.errors import ConfigError, LLMError

if TYPE_CHECKING:
    import httpx

    from clinbridge.settings import Settings

__all__ = ["LLMBackend", "Message", "OpenAIBackend", "TransformersBackend", "get_backend"]

logger = logging.getLogger(__name__)

Message = dict[str, str]
JsonMode = Literal["json_schema", "json_object", "json_value", "none"]


class LLMBackend:
    """Turns chat messages into text (JSON when a schema is given).

    A backend subclasses it and implements :meth:`_reply`; callers use :meth:`complete`.
    """

    name: str

    def complete(
        self,
        messages: Sequence[Message],
        *,
        schema: dict[str, Any] | None = None,
        max_tokens: int = 1024,
    ) -> str:
        """The model's reply to ``messages`` (constrained to ``schema`` when given)."""
        return self._reply(messages, schema, max_tokens)

    def _reply(
        self, messages: Sequence[Message], schema: dict[str, Any] | None, max_tokens: int
    ) -> str:
        raise NotImplementedError(f"{type(self).__name__} does not implement _reply")


# -- OpenAI-compatible HTTP -----------------------------------------------------------------------


class OpenAIBackend(LLMBackend):
    """Any server speaking the OpenAI chat-completions protocol."""

    name = "openai"

    def __init__(
        self,
        url: str,
        model: str = "",
        *,
        timeout_s: float = 120.0,
        api_key: str | None = None,
        transport: httpx.BaseTransport | None = None,
        temperature: float = 0.0,
    ) -> None:
        import httpx

        self.url = url.rstrip("/")
        self.model = model
        self.temperature = temperature
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(
            base_url=self.url, timeout=timeout_s, headers=headers, transport=transport
        )
        self.json_mode: JsonMode = "json_schema"
        self.calls = 0

    def close(self) -> None:
        """Release the backend's connection."""
        self._client.close()

    def _response_format(self, schema: dict[str, Any], mode: JsonMode) -> dict[str, Any] | None:
        if mode == "json_schema":
            return {
                "type": "json_schema",
                "json_schema": {"name": "answer", "schema": schema, "strict": False},
            }
        if mode == "json_object":  # llama.cpp server, Ollama
            return {"type": "json_object", "schema": schema}
        if mode == "json_value":  # text-generation-inference (guidance)
            return {"type": "json_object", "value": schema}
        return None

    def _reply(
        self, messages: Sequence[Message], schema: dict[str, Any] | None, max_tokens: int
    ) -> str:
        import httpx

        modes: list[JsonMode] = ["none"]
        if schema is not None:
            order: list[JsonMode] = ["json_schema", "json_object", "json_value", "none"]
            modes = order[order.index(self.json_mode) :]
        last_error = ""
        for mode in modes:
            body: dict[str, Any] = {
                "messages": list(messages),
                "temperature": self.temperature,
                "max_tokens": max_tokens,
            }
            if self.model:
                body["model"] = self.model
            fmt = self._response_format(schema, mode) if schema is not None else None
            if fmt is not None:
                body["response_format"] = fmt
            start = time.perf_counter()
            try:
                resp = self._client.post("/chat/completions", json=body)
            except httpx.HTTPError as exc:
                raise LLMError(
                    f"cannot reach the LLM server at {self.url}: {exc}", url=self.url
                ) from exc
            self.calls += 1
            if (
                resp.status_code in (400, 404, 415, 422, 500, 501)
                and fmt is not None
                and _rejects_format(resp)
            ):
                last_error = resp.text[:300]
                logger.info(
                    "server rejected response_format %s (%s); trying the next mode",
                    mode,
                    resp.status_code,
                )
                continue
            if resp.status_code >= 400:
                raise LLMError(
                    f"LLM server answered HTTP {resp.status_code}: {resp.text[:300]}",
                    url=self.url,
                    status=resp.status_code,
                )
            try:
                data = resp.json()
                text = data["choices"][0]["message"]["content"]
            except (ValueError, KeyError, IndexError, TypeError) as exc:
                raise LLMError(
                    f"LLM server sent an unexpected reply: {resp.text[:300]}", url=self.url
                ) from exc
            if schema is not None and mode != self.json_mode:
                logger.info("LLM server %s: using response_format mode %s", self.url, mode)
                self.json_mode = mode
            logger.debug("llm:completed in %.0f ms", (time.perf_counter() - start) * 1000)
            return str(text or "")
        raise LLMError(f"LLM server refused every output format: {last_error}", url=self.url)


def _rejects_format(resp: httpx.Response) -> bool:
    text = resp.text.lower()
    return any(
        w in text for w in ("response_format", "json_schema", "json schema", "schema", "grammar")
    )


# -- local transformers ---------------------------------------------------------------------------


class TransformersBackend(LLMBackend):
    """A local causal language model (a directory with config, weights and tokenizer)."""

    name = "transformers"

    def __init__(self, model: Any, tokenizer: Any, *, device: str | None = None) -> None:
        self.model = model
        self.tokenizer = tokenizer
        self.device = device or str(getattr(model, "device", "cpu"))

    @classmethod
    def from_path(cls, path: str, *, device: str | None = None) -> TransformersBackend:
        """Load a model directory (no hub access: the path must exist locally)."""
        import os
        from pathlib import Path

        if not path or not Path(path).exists():
            raise ConfigError(
                f"transformers backend: model path {path!r} does not exist (set CLINBRIDGE_LLM_MODEL)"
            )
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        dtype = torch.bfloat16 if device.startswith("cuda") else torch.float32
        try:
            tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
            model: Any = AutoModelForCausalLM.from_pretrained(
                path, local_files_only=True, dtype=dtype
            )
        except (OSError, ValueError) as exc:
            raise ConfigError(f"transformers backend: cannot load {path!r}: {exc}") from exc
        model.to(device)
        model.eval()
        return cls(model, tokenizer, device=device)

    def _prompt(self, messages: Sequence[Message]) -> str:
        tok = self.tokenizer
        if getattr(tok, "chat_template", None):
            return str(
                tok.apply_chat_template(list(messages), tokenize=False, add_generation_prompt=True)
            )
        parts = [f"<|{m['role']}|>\n{m['content']}\n" for m in messages]
        return "".join(parts) + "<|assistant|>\n"

    def _reply(
        self, messages: Sequence[Message], schema: dict[str, Any] | None, max_tokens: int
    ) -> str:
        import torch

        prompt = self._prompt(messages)
        if schema is not None:
            prompt += "{"  # start the JSON object; generation continues it
        inputs = self.tokenizer(prompt, return_tensors="pt", add_special_tokens=False)
        inputs = {
            k: v.to(self.device) for k, v in inputs.items() if k in ("input_ids", "attention_mask")
        }
        pad = self.tokenizer.pad_token_id
        if pad is None:
            pad = self.tokenizer.eos_token_id
        try:
            with torch.no_grad():
                out = self.model.generate(
                    **inputs, max_new_tokens=max_tokens, do_sample=False, pad_token_id=pad
                )
        except Exception as exc:
            raise LLMError(f"local model failed to generate: {exc}") from exc
        new = out[0][inputs["input_ids"].shape[1] :]
        text = self.tokenizer.decode(new, skip_special_tokens=True)
        return ("{" + text) if schema is not None else str(text)


def get_backend(settings: Settings, *, transport: httpx.BaseTransport | None = None) -> LLMBackend:
    """The backend ``settings.llm`` names ('openai' or 'transformers')."""
    kind = (settings.llm or "none").lower()
    if kind == "openai":
        import os

        return OpenAIBackend(
            settings.llm_url,
            settings.llm_model,
            timeout_s=settings.llm_timeout_s,
            api_key=os.environ.get("CLINBRIDGE_LLM_API_KEY"),
            transport=transport,
        )
    if kind == "transformers":
        return TransformersBackend.from_path(settings.llm_model)
    raise ConfigError(
        f"no LLM backend configured (llm={settings.llm!r}); use openai or transformers",
        llm=settings.llm,
    )
