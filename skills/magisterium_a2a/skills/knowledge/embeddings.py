"""The semantic layer: embeddings from an OpenAI-compatible endpoint, and the
in-memory vector index built from the stored vectors.

Any server that speaks ``POST /v1/embeddings`` works: a hosted API, or a
local sentence-transformers model behind text-embeddings-inference, infinity,
llama.cpp or Ollama. Vectors are L2-normalised float32, stored beside the
passages in SQLite under the model's name, so switching models never mixes
vectors. The server never calls an endpoint at start-up: ``magisterium-a2a
ingest`` (and ``documents embed``) compute the vectors; a query is embedded
when it is searched, and a failing endpoint degrades that search to BM25 alone.
The in-process model (``local_embeddings.py``) is the default when no
endpoint is set.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import httpx
import numpy as np
import numpy.typing as npt
from threadpoolctl import ThreadpoolController

from magisterium_a2a.skills.knowledge.index import Ranked, document_key
from magisterium_a2a.skills.knowledge.settings import KnowledgeSettings

Vector = npt.NDArray[np.float32]


class EmbeddingsError(RuntimeError):
    """The endpoint failed or answered something unusable; the message says which."""


def endpoint_of(url: str) -> str:
    """Accept the base (``.../v1``) or the full ``.../v1/embeddings`` URL."""
    url = url.rstrip("/")
    return url if url.endswith("/embeddings") else f"{url}/embeddings"


def _vectors(payload: Any, expected: int) -> Vector:
    try:
        items = sorted(payload["data"], key=lambda item: int(item["index"]))
        rows = [item["embedding"] for item in items]
        matrix = np.asarray(rows, dtype=np.float32)
    except (KeyError, TypeError, ValueError) as exc:
        raise EmbeddingsError(
            f"the embeddings endpoint answered an unexpected shape ({exc})"
        ) from None
    if matrix.ndim != 2 or matrix.shape[0] != expected or matrix.shape[1] == 0:
        raise EmbeddingsError(
            f"the embeddings endpoint returned {matrix.shape[0] if matrix.ndim else 0} "
            f"vectors for {expected} inputs"
        )
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    normalised: Vector = (matrix / norms).astype(np.float32)
    return normalised


class EmbeddingsClient:
    """A client of one model on one OpenAI-compatible endpoint."""

    def __init__(
        self,
        url: str,
        model: str,
        *,
        api_key: str | None = None,
        timeout: float = 30.0,
        batch_size: int = 64,
    ) -> None:
        self.url = endpoint_of(url)
        self.model = model
        self.batch_size = batch_size
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._timeout = timeout
        self._async: httpx.AsyncClient | None = None

    @classmethod
    def from_settings(cls, settings: KnowledgeSettings) -> EmbeddingsClient | None:
        if not (settings.embeddings_url and settings.embeddings_model):
            return None
        key = settings.embeddings_api_key
        return cls(
            settings.embeddings_url,
            settings.embeddings_model,
            api_key=key.get_secret_value() if key else None,
            timeout=settings.embeddings_timeout_seconds,
            batch_size=settings.embeddings_batch_size,
        )

    def _body(self, texts: Sequence[str]) -> dict[str, Any]:
        return {"model": self.model, "input": list(texts)}

    def _check(self, response: httpx.Response) -> Any:
        if response.status_code != 200:
            raise EmbeddingsError(
                f"the embeddings endpoint {self.url} answered HTTP {response.status_code}"
            )
        try:
            return response.json()
        except ValueError as exc:
            raise EmbeddingsError(
                f"the embeddings endpoint answered invalid JSON ({exc})"
            ) from None

    def embed(self, texts: Sequence[str]) -> Iterator[Vector]:
        """Embed many texts, one batch at a time (for ingestion); yields per batch."""
        with httpx.Client(timeout=self._timeout, headers=self._headers) as client:
            for start in range(0, len(texts), self.batch_size):
                batch = texts[start : start + self.batch_size]
                try:
                    response = client.post(self.url, json=self._body(batch))
                except httpx.HTTPError as exc:
                    raise EmbeddingsError(
                        f"cannot reach the embeddings endpoint {self.url}: {type(exc).__name__}"
                    ) from None
                yield _vectors(self._check(response), len(batch))

    async def embed_query(self, text: str) -> Vector:
        if self._async is None:
            self._async = httpx.AsyncClient(timeout=self._timeout, headers=self._headers)
        try:
            response = await self._async.post(self.url, json=self._body([text]))
        except httpx.HTTPError as exc:
            raise EmbeddingsError(
                f"cannot reach the embeddings endpoint {self.url}: {type(exc).__name__}"
            ) from None
        vector: Vector = _vectors(self._check(response), 1)[0]
        return vector

    async def aclose(self) -> None:
        if self._async is not None:
            await self._async.aclose()
            self._async = None


@functools.cache
def _blas() -> ThreadpoolController:
    return ThreadpoolController()


def to_blob(vector: Vector) -> bytes:
    return vector.astype("<f4").tobytes()


@dataclass
class VectorIndex:
    """Every stored vector of one model as one matrix; exact search by dot product.

    Exact search over a float32 matrix costs a few milliseconds at 100,000
    passages and needs no index structure to keep in step with the store.
    """

    ids: npt.NDArray[np.int64]
    keys: npt.NDArray[np.int64]
    kinds: npt.NDArray[np.str_]
    matrix: Vector

    @classmethod
    def load(cls, rows: Sequence[tuple[int, str, str, bytes]]) -> VectorIndex | None:
        """From (passage id, document id, kind, vector) rows; None when there are none."""
        if not rows:
            return None
        dims = len(rows[0][3]) // 4
        usable = [r for r in rows if len(r[3]) == dims * 4]
        ids = np.fromiter((r[0] for r in usable), dtype=np.int64, count=len(usable))
        keys = np.fromiter((document_key(r[1]) for r in usable), dtype=np.int64, count=len(usable))
        kinds = np.array([r[2] for r in usable])
        matrix = np.frombuffer(b"".join(r[3] for r in usable), dtype="<f4").reshape(-1, dims)
        return cls(ids, keys, kinds, matrix.astype(np.float32))

    @property
    def dims(self) -> int:
        return int(self.matrix.shape[1])

    def __len__(self) -> int:
        return int(self.ids.shape[0])

    def search(self, query: Vector, limit: int, kind: str | None = None) -> Ranked:
        """(passage id, cosine similarity, document key), best first."""
        if query.shape[0] != self.dims:
            raise EmbeddingsError(
                f"the query vector has {query.shape[0]} dimensions, the stored ones {self.dims}"
            )
        # One BLAS thread: this product is memory-bound, and OpenBLAS's own
        # threads (spinning between calls) only contend with the server's.
        with _blas().limit(limits=1, user_api="blas"):
            scores = self.matrix @ query
        if kind is not None:
            scores = np.where(self.kinds == kind, scores, -np.inf)
        k = min(limit, len(scores))
        if k <= 0:
            return []
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.argsort(-scores[top])]
        return [
            (int(self.ids[i]), float(scores[i]), int(self.keys[i]))
            for i in top
            if np.isfinite(scores[i])
        ]

    async def search_async(self, query: Vector, limit: int, kind: str | None = None) -> Ranked:
        """``search`` off the event loop (numpy releases the GIL for the product)."""
        return await asyncio.to_thread(self.search, query, limit, kind)
