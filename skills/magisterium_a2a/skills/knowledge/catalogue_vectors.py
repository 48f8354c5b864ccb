"""The built-in catalogue's vectors, computed once at build time and shipped as
package data (``data/catalogue-vectors.npz``), so a first start copies them
instead of running the model over 314 entries.

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


def text_key(text: str) -> bytes:
    return hashlib.sha256(text.encode()).digest()[:16]


@functools.cache
def shipped(model: str) -> dict[bytes, Vector]:
    """The shipped vectors of ``model`` by text key; empty for another model or no file."""
    source = resources.files("magisterium_a2a.skills.data").joinpath(FILE_NAME)
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


def build(target: Path) -> int:
    """Embed every catalogue entry with the in-process model and write ``target``."""
    from magisterium_a2a.skills.knowledge.catalogue import load_catalogue
    from magisterium_a2a.skills.knowledge.local_embeddings import LocalEmbedder
    from magisterium_a2a.skills.knowledge.passages import split_document

    embedder = LocalEmbedder.load(threads=2)
    texts = [
        embedding_text(doc.title, part.heading, part.text)
        for doc in load_catalogue()
        for part in split_document(doc)
    ]
    vectors = np.concatenate(list(embedder.embed(texts)))
    keys = np.array([text_key(t) for t in texts], dtype="S16")
    np.savez_compressed(
        target, model=np.array(embedder.model), keys=keys, vectors=vectors.astype(np.float16)
    )
    return len(texts)


if __name__ == "__main__":
    path = Path(str(resources.files("magisterium_a2a.skills.data").joinpath(FILE_NAME)))
    print(f"{build(path)} catalogue passages embedded into {path}")
