"""An OpenAI-compatible chat-completions provider, on httpx.

It speaks only the common core of ``POST /v1/chat/completions`` (``model``,
``messages``, ``max_tokens``, ``temperature``, a bearer key), which OpenAI,
vLLM, Ollama and llama.cpp's server all accept, and reads only
``choices[0].message.content``. Each request is bounded by one deadline, start
to finish, so a server that stalls or trickles bytes cannot hold a task past
``A2A_LLM_TIMEOUT_SECONDS``. Failures are not retried here: the task fails
with a message that says what happened and that the user may try again.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Sequence
from typing import Any

import httpx

from magisterium_a2a.skills.qa.conversation import Turn
from magisterium_a2a.skills.qa.prompt import (
    Message,
    answer_messages,
    read_answer,
    read_query,
    rewrite_messages,
)
from magisterium_a2a.skills.qa.provider import AnswerRequest, Draft, ProviderError
from magisterium_a2a.skills.qa.settings import QASettings

log = logging.getLogger(__name__)
REWRITE_MAX_TOKENS = 100
# Reasoning models served by Ollama or llama.cpp may put their thinking in the content.
_THINKING = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)


class UnusableReply(ProviderError):
    """The model answered, but with nothing usable (malformed or empty)."""


def endpoint_of(url: str) -> str:
    """Accept the API base (``.../v1``) or the full ``.../chat/completions`` URL."""
    url = url.rstrip("/")
    return url if url.endswith("/chat/completions") else f"{url}/chat/completions"


MALFORMED = "The language model returned a malformed reply; please try again later."


def _content(payload: Any) -> str:
    try:
        choice = payload["choices"][0]
        content = choice["message"]["content"]
    except (KeyError, IndexError, TypeError):
        raise UnusableReply(MALFORMED) from None
    if content is None:
        content = ""
    if not isinstance(content, str):
        raise UnusableReply(MALFORMED)
    content = _THINKING.sub("", content).strip()
    if not content:
        raise UnusableReply("The language model returned an empty answer; please try again.")
    if choice.get("finish_reason") == "length":
        log.warning("the LLM answer was cut at max_tokens; consider raising A2A_LLM_MAX_TOKENS")
    return content


class ChatCompletionsProvider:
    judges_relevance = True

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        timeout: float = 60.0,
        max_tokens: int = 1024,
        temperature: float = 0.2,
        rewrite_followups: bool = True,
    ) -> None:
        self.url = endpoint_of(base_url)
        self.model = model
        self.timeout = timeout
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.rewrite_followups = rewrite_followups
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client: httpx.AsyncClient | None = None

    @classmethod
    def from_settings(cls, settings: QASettings) -> ChatCompletionsProvider:
        key = settings.llm_api_key
        return cls(
            settings.llm_base_url,
            settings.llm_model,
            api_key=key.get_secret_value() if key else None,
            timeout=settings.llm_timeout_seconds,
            max_tokens=settings.llm_max_tokens,
            temperature=settings.llm_temperature,
            rewrite_followups=settings.llm_rewrite_followups,
        )

    @property
    def description(self) -> str:
        return f"the language model {self.model} at {self.url}"

    async def _post(self, body: dict[str, Any]) -> httpx.Response:
        if self._client is None:
            self._client = httpx.AsyncClient(
                timeout=httpx.Timeout(self.timeout), headers=self._headers
            )
        try:
            async with asyncio.timeout(self.timeout):
                return await self._client.post(self.url, json=body)
        except (TimeoutError, httpx.TimeoutException):
            log.warning("LLM %s: no answer within %gs", self.url, self.timeout)
            raise ProviderError(
                f"The language model did not answer within {self.timeout:g} seconds; "
                "please try again later."
            ) from None
        except httpx.HTTPError as exc:
            log.warning("LLM %s unreachable: %s", self.url, type(exc).__name__)
            raise ProviderError(
                "The language model service cannot be reached; please try again later."
            ) from None

    async def _complete(self, messages: list[Message], max_tokens: int, temperature: float) -> str:
        body = {
            "model": self.model,
            "messages": messages,
            "max_tokens": max_tokens,
            "temperature": temperature,
            "stream": False,
        }
        response = await self._post(body)
        status = response.status_code
        if status != 200:
            log.warning("LLM %s answered HTTP %d: %s", self.url, status, response.text[:300])
        if status == 429:
            wait = response.headers.get("Retry-After", "")
            when = f"in {wait} seconds" if wait.isdigit() else "in a moment"
            raise ProviderError(
                f"The language model service is busy (HTTP 429); please try again {when}."
            )
        if status >= 500:
            raise ProviderError(
                f"The language model service failed (HTTP {status}); please try again later."
            )
        if status != 200:
            raise ProviderError(
                f"The language model service refused the request (HTTP {status}); "
                "the server's LLM settings need checking."
            )
        try:
            payload = response.json()
        except ValueError:
            raise UnusableReply(MALFORMED) from None
        return _content(payload)

    async def standalone_query(self, question: str, conversation: Sequence[Turn]) -> str | None:
        if not (self.rewrite_followups and conversation):
            return None
        try:
            reply = await self._complete(
                rewrite_messages(question, conversation), REWRITE_MAX_TOKENS, 0.0
            )
        except UnusableReply:
            return None
        return read_query(reply)

    async def answer(self, request: AnswerRequest) -> Draft:
        reply = await self._complete(answer_messages(request), self.max_tokens, self.temperature)
        return read_answer(reply)

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None
