"""The built-in catalogue's vectors, computed once at build time and shipped as
package data, one file per in-process model (``data/catalogue-vectors.npz``
for the English model, ``data/catalogue-vectors.<model>.npz`` for the
others), so a first start copies them instead of running the models over 314
entries.

Vectors are keyed by a hash of the exact text embedded (title, heading and
passage), so an entry edited since the file was built is simply embedded at
start-up like any other passage. Rebuild the file after editing the
catalogue::

    python -m magisterium_a2a.skills.knowledge.catalogue_vectors
"""

from __future__ import annotations

import functools
import hashlib
import io
from importlib import resources
from pathlib import Path

import numpy as np

from magisterium_a2a.skills.knowledge.embeddings import Vector
from magisterium_a2a.skills.knowledge.passages import embedding_text

FILE_NAME = "catalogue-vectors.npz"
"""The English model's file; another model's is ``catalogue-vectors.<model>.npz``."""


def file_name(model: str) -> str:
    from magisterium_a2a.skills.knowledge.local_embeddings import MODEL_NAME

    return FILE_NAME if model == MODEL_NAME else f"catalogue-vectors.{model}.npz"


def text_key(text: str) -> bytes:
    return hashlib.sha256(text.encode()).digest()[:16]


@functools.cache
def shipped(model: str) -> dict[bytes, Vector]:
    """The shipped vectors of ``model`` by text key; empty for another model or no file."""
    source = resources.files("magisterium_a2a.skills.data").joinpath(file_name(model))
    if not source.is_file():
        return {}
    with np.load(io.BytesIO(source.read_bytes()), allow_pickle=False) as data:
        if str(data["model"]) != model:
            return {}
        keys = data["keys"]
        vectors = data["vectors"].astype(np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    vectors = vectors / norms
    return {bytes(k): vectors[i] for i, k in enumerate(keys)}


def build(directory: Path) -> dict[str, int]:
    """Embed every catalogue entry with each in-process model and write its file
    into ``directory``; the number of passages per model."""
    from magisterium_a2a.skills.knowledge.catalogue import load_catalogue
    from magisterium_a2a.skills.knowledge.local_embeddings import LocalEmbedder
    from magisterium_a2a.skills.knowledge.multilingual import MultilingualEmbedder
    from magisterium_a2a.skills.knowledge.passages import split_document

    texts = [
        embedding_text(doc.title, part.heading, part.text)
        for doc in load_catalogue()
        for part in split_document(doc)
    ]
    keys = np.array([text_key(t) for t in texts], dtype="S16")
    written: dict[str, int] = {}
    for embedder in (LocalEmbedder.load(threads=2), MultilingualEmbedder.load(threads=2)):
        vectors = np.concatenate(list(embedder.embed(texts)))
        np.savez_compressed(
            directory / file_name(embedder.model),
            model=np.array(embedder.model),
            keys=keys,
            vectors=vectors.astype(np.float16),
        )
        written[embedder.model] = len(texts)
    return written


if __name__ == "__main__":
    folder = Path(str(resources.files("magisterium_a2a.skills.data")))
    for name, count in build(folder).items():
        print(f"{count} catalogue passages embedded by {name} into {folder / file_name(name)}")
