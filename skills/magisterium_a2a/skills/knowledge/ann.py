"""Approximate nearest-neighbour search over the stored vectors: usearch's HNSW
graph, kept in one file per model beside the store, and the rules that keep
its answers right while the store changes under running servers.

The file. ``<knowledge dir>/vectors/<model>-<hash>.usearch``, one per model:
usearch's own serialisation (the vectors as f16 and the graph), then ours: a
JSON header (format, model, dimensions, build parameters and times), the
passage ids it holds (sorted), each one's document key and kind, and a
trailer (magic, section lengths, SHA-256 of everything before it). It is
written to a temporary file in the same directory, flushed and renamed over
the old one, so a reader finds the old file or the new one, never half of
one; a server that has the old one mapped keeps reading it (its inode lives
until the server lets go). Builders take a lock file in that directory, so
two ingests never update the same file from two starting points.

When it is used. A server maps the file (usearch's view: pages are read on
demand and shared with the other processes through the page cache) when the
store holds at least ``A2A_VECTORS_ANN_MIN_PASSAGES`` vectors of the model
and the file is whole (trailer, sizes and checksum), of that model, and of
the stored vectors' dimension. Otherwise (absent, unreadable, another model
or dimension, below the threshold, and the two cases below) search is exact over every stored vector
(``embeddings.VectorIndex``), as before; ``doctor`` says which and why.

Staying right as the store changes. Passage ids are never reused (SQLite
AUTOINCREMENT), and a passage's document and kind never change, so what a
file says of an id stays true; what it can lack is news. Whenever the store
changes (its ``data_version``), a server compares the model's ids in the
store with the file's:

- vectors added since the file was built are held in memory and searched
  exactly beside the graph, and the two lists merged by similarity;
- passages deleted since are filtered out of the graph's answers, and the
  graph asked for more when they took places (finally, exact search over
  the graph's own vectors); a file more than half of whose ids are gone is
  not used at all.

A graph that serves badly is not used either: at build, it is searched for
some of its own vectors, and a file whose graph found less than 90% of their
exact ten nearest (``self_recall``, kept in its header; text embeddings give
0.99 and more, uniformly spread vectors 0.29) means exact search.

The next ``ingest``, ``documents embed`` or start-up that embeds the
catalogue brings the file up to date (``update``): in place (new vectors
added to the graph, deleted ones removed) while the changes since the last
full build stay under a fifth of the vectors, rebuilt from the store when
not. It then writes a row in the store's meta table, so every server sees a
change and maps the new file at its next request.

The kind filter. A kind with few vectors in the file (``KIND_EXACT``) is
searched exactly over its own vectors, gathered from the file once and kept;
a larger one by asking the graph for more neighbours than wanted, in the
inverse of its share, and widening (then exact over the kind) when too few
of them are of that kind.

One core. A search runs on the calling thread alone (``threads=1``): the
server already offloads each search to a worker thread. usearch holds a lock
of its own around a search of one index (without the GIL), so two worker
threads of one process search one file one after the other, never at once.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import hashlib
import json
import logging
import math
import os
import re
import struct
import tempfile
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from magisterium_a2a.skills.knowledge.embeddings import (
    EmbeddingsError,
    Vector,
    VectorIndex,
    _blas,
)
from magisterium_a2a.skills.knowledge.index import Ranked, document_key
from magisterium_a2a.skills.knowledge.settings import KnowledgeSettings
from magisterium_a2a.skills.knowledge.store import Store

if TYPE_CHECKING:
    from usearch.index import Index

log = logging.getLogger(__name__)

FORMAT = 1
MAGIC = b"MA2AANN\x00"
_TRAILER = struct.Struct("<8sIIQQQ32s")
"""magic, format, reserved, usearch bytes, header bytes, count, SHA-256."""
_PER_ID = 8 + 8 + 1
"""Bytes per id after the header: the id, its document key, its kind's code."""
DIRECTORY = "vectors"
SUFFIX = ".usearch"
META_KEY = "vectors_ann:"
"""Prefix of the store's meta row a builder writes for each model's file."""

# Build and search parameters, chosen by bench/vectors.py (bench/RESULTS-vectors.md).
METRIC = "cos"
DTYPE = "f16"
CONNECTIVITY = 16
EXPANSION_ADD = 128
EXPANSION_SEARCH = 256
EXPANSION_PER_RESULT = 3
"""A search for many neighbours (fusion asks for 40 to 80) walks the graph this
many times wider than their number: recall@80 0.970 at 128, 0.993 at 256."""

KIND_EXACT = 20_000
"""A kind with at most this many vectors in the file is searched exactly."""
OVERSAMPLE = 2.0
"""A larger kind: neighbours asked of the graph, over ``limit / share``."""
MAX_ANN_COUNT = 4096
"""Beyond this many neighbours the graph is no faster than exact search."""
MAX_DEAD_SHARE = 0.5
"""A file more than this share of whose ids are deleted is not used."""
REBUILD_SHARE = 0.2
"""Changes since the last full build (ids added and removed) past this share
of the vectors: the next update rebuilds rather than edits the graph."""
MIN_SELF_RECALL = 0.9
"""A graph that finds less than this share of the exact ten nearest neighbours of
its own vectors (measured at build: ``self_recall``) is not used. Text embeddings
give 0.99 and more; vectors spread uniformly (a pessimal case no text model makes,
bench/RESULTS-vectors.md) 0.1-0.3, and exact search is the better answer there."""
SELF_SAMPLE = 64
_CHUNK = 16 << 20


@functools.cache
def _usearch() -> type[Index]:
    """usearch's ``Index``, imported on first use, after onnxruntime when that is
    installed: usearch's extension carries its own copy of the C++ runtime, and
    onnxruntime loaded after it crashes in that runtime's locale code (the other
    order is sound). Stores below the threshold never load it."""
    with contextlib.suppress(ImportError):
        import onnxruntime  # noqa: F401

    from usearch.index import Index

    return Index


class AnnUnusable(Exception):
    """The file cannot serve: the message says why (search is exact instead)."""


def path_for(directory: Path, model: str) -> Path:
    """The file of ``model`` in the knowledge directory ``directory``."""
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", model).strip("-.")[:60] or "model"
    digest = hashlib.sha256(model.encode()).hexdigest()[:8]
    return directory / DIRECTORY / f"{slug}-{digest}{SUFFIX}"


# -- the file ----------------------------------------------------------------------


@dataclass(eq=False)
class AnnFile:
    """One opened (memory-mapped) file: the graph, and what it says of each id."""

    path: Path
    header: dict[str, Any]
    index: Index
    keys: npt.NDArray[np.int64]
    """Passage ids, sorted."""
    doc_keys: npt.NDArray[np.int64]
    kinds: npt.NDArray[np.uint8]
    stamp: tuple[int, int, int]
    nbytes: int
    expansion: int = EXPANSION_SEARCH
    """The graph's expansion at search, at the least (``matches``)."""
    _by_kind: dict[int, tuple[npt.NDArray[np.intp], Vector]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def model(self) -> str:
        return str(self.header["model"])

    @property
    def dims(self) -> int:
        return int(self.header["dims"])

    @property
    def kind_names(self) -> list[str]:
        return list(self.header["kinds"])

    def __len__(self) -> int:
        return int(self.keys.shape[0])

    def kind_code(self, kind: str) -> int | None:
        names = self.header["kinds"]
        return names.index(kind) if kind in names else None

    def kind_count(self, code: int) -> int:
        counts: list[int] = self.header["kind_counts"]
        return counts[code]

    def kind_matrix(self, code: int) -> tuple[npt.NDArray[np.intp], Vector]:
        """The positions of a kind's ids and their vectors (from the file, as float32),
        gathered once. Two threads may both gather it the first time: either result
        is the same."""
        found = self._by_kind.get(code)
        if found is None:
            positions = np.flatnonzero(self.kinds == code)
            matrix = np.zeros((positions.shape[0], self.dims), dtype=np.float32)
            for start in range(0, positions.shape[0], 4096):
                chunk = positions[start : start + 4096]
                rows: Any = self.index.get(self.keys[chunk].astype(np.uint64), dtype="f32")
                matrix[start : start + chunk.shape[0]] = np.vstack(rows)
            found = (positions, matrix)
            self._by_kind[code] = found
        return found

    def matches(
        self, query: Vector, count: int, *, exact: bool = False, wide: bool = True
    ) -> tuple[Any, Any]:
        """(ids, similarities) of the graph's ``count`` nearest, on this thread alone.
        ``wide``: the graph walked ``EXPANSION_PER_RESULT`` times wider than the count
        asked, for the ranking of all of them; else just wide enough to return them
        (the kind filter's oversampling, which keeps a few of many). usearch's
        expansion is a property of the index: set and used under a lock."""
        expansion = EXPANSION_PER_RESULT * count if wide else count
        with self._lock:
            self.index.expansion_search = max(self.expansion, expansion)  # type: ignore[misc]
            found = self.index.search(query, count, threads=1, exact=exact)
        similarities = 1.0 - np.asarray(found.distances, dtype=np.float32)
        return np.asarray(found.keys).astype(np.int64), similarities

    def positions(self, ids: npt.NDArray[np.int64]) -> npt.NDArray[np.intp]:
        return np.searchsorted(self.keys, ids)


def _digest_of(handle: Any, length: int) -> bytes:
    digest: bytes = _hash_of(handle, length).digest()
    return digest


def _hash_of(handle: Any, length: int) -> Any:
    digest = hashlib.sha256()
    handle.seek(0)
    left = length
    while left > 0:
        chunk = handle.read(min(_CHUNK, left))
        if not chunk:
            raise AnnUnusable("it is shorter than its trailer says")
        digest.update(chunk)
        left -= len(chunk)
    return digest


def open_file(path: Path) -> AnnFile:
    """Open and check a file (trailer, sizes, checksum, usearch's own header), then
    map it; ``AnnUnusable`` says why it cannot serve."""
    try:
        handle = path.open("rb")
    except FileNotFoundError:
        raise AnnUnusable("no index file") from None
    except OSError as exc:
        raise AnnUnusable(f"cannot read the index file ({exc.strerror})") from None
    with handle:
        stat = os.fstat(handle.fileno())
        size = stat.st_size
        if size < _TRAILER.size:
            raise AnnUnusable("the index file is truncated")
        handle.seek(size - _TRAILER.size)
        magic, form, _, graph, head, count, digest = _TRAILER.unpack(handle.read(_TRAILER.size))
        if magic != MAGIC:
            raise AnnUnusable("the index file is not one of ours or is truncated")
        if form != FORMAT:
            raise AnnUnusable(f"the index file has format {form}, this version reads {FORMAT}")
        body = graph + head + count * _PER_ID
        if body + _TRAILER.size != size:
            raise AnnUnusable("the index file's sections do not add up to its size")
        if _digest_of(handle, body) != digest:
            raise AnnUnusable("the index file's checksum does not match (corrupt)")
        handle.seek(graph)
        try:
            header = json.loads(handle.read(head))
        except ValueError:
            raise AnnUnusable("the index file's header is unreadable") from None
        keys = np.frombuffer(handle.read(count * 8), dtype="<i8").astype(np.int64)
        doc_keys = np.frombuffer(handle.read(count * 8), dtype="<i8").astype(np.int64)
        kinds = np.frombuffer(handle.read(count), dtype=np.uint8).copy()
        # Map the very file checked (through its descriptor), not whatever the
        # path names by now: a builder may have renamed a new one over it.
        fd_path = f"/proc/self/fd/{handle.fileno()}"
        source = fd_path if Path(fd_path).exists() else str(path)
        try:
            index = _usearch().restore(source, view=True, expansion_search=EXPANSION_SEARCH)
        except (ValueError, RuntimeError) as exc:
            raise AnnUnusable(f"usearch cannot read the index file ({exc})") from None
    if index is None or index.ndim != int(header.get("dims", -1)) or len(index) != count:
        raise AnnUnusable("the index file's graph does not match its header")
    return AnnFile(
        path=path,
        header=header,
        index=index,
        keys=keys,
        doc_keys=doc_keys,
        kinds=kinds,
        stamp=(stat.st_ino, stat.st_size, stat.st_mtime_ns),
        nbytes=size,
    )


_opened: dict[Path, AnnFile] = {}
_opened_lock = threading.Lock()


def cached_open(path: Path) -> AnnFile:
    """``open_file``, once per version of the file in this process: a server that
    follows a change of the store maps the file again only if it was replaced."""
    try:
        stat = path.stat()
    except FileNotFoundError:
        with _opened_lock:
            _opened.pop(path, None)
        raise AnnUnusable("no index file") from None
    stamp = (stat.st_ino, stat.st_size, stat.st_mtime_ns)
    with _opened_lock:
        found = _opened.get(path)
    if found is not None and found.stamp == stamp:
        return found
    opened = open_file(path)
    with _opened_lock:
        _opened[path] = opened
    return opened


def _write(
    path: Path,
    index: Index,
    keys: npt.NDArray[np.int64],
    doc_keys: npt.NDArray[np.int64],
    kinds: npt.NDArray[np.uint8],
    header: dict[str, Any],
) -> None:
    """The whole file, under a temporary name, then renamed over ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    temporary = Path(name)
    try:
        index.save(name)
        graph = temporary.stat().st_size
        head = json.dumps(header, sort_keys=True).encode()
        parts = [
            head,
            keys.astype("<i8").tobytes(),
            doc_keys.astype("<i8").tobytes(),
            kinds.astype(np.uint8).tobytes(),
        ]
        with temporary.open("r+b") as handle:
            digest = _hash_of(handle, graph)
            handle.seek(graph)
            for part in parts:
                digest.update(part)
                handle.write(part)
            handle.write(
                _TRAILER.pack(MAGIC, FORMAT, 0, graph, len(head), len(keys), digest.digest())
            )
            handle.flush()
            os.fsync(handle.fileno())
        temporary.chmod(0o644)
        temporary.replace(path)
        with contextlib.suppress(OSError):
            directory = os.open(path.parent, os.O_RDONLY)
            try:
                os.fsync(directory)
            finally:
                os.close(directory)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


# -- building ----------------------------------------------------------------------

Batch = tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], Sequence[str], Vector]
"""Passage ids, their document keys, their kinds, their vectors (one row each)."""


def new_index(
    dims: int,
    *,
    dtype: str = DTYPE,
    connectivity: int = CONNECTIVITY,
    expansion_add: int = EXPANSION_ADD,
    expansion_search: int = EXPANSION_SEARCH,
) -> Index:
    return _usearch()(
        ndim=dims,
        metric=METRIC,
        dtype=dtype,
        connectivity=connectivity,
        expansion_add=expansion_add,
        expansion_search=expansion_search,
    )


def _params(index: Index) -> dict[str, Any]:
    return {
        "metric": METRIC,
        "dtype": str(index.dtype).rsplit(".", 1)[-1].lower(),
        "connectivity": int(index.connectivity),
        "expansion_add": int(index.expansion_add),
    }


def self_recall(index: Index, keys: npt.NDArray[np.int64], sample: int = SELF_SAMPLE) -> float:
    """The share of the exact ten nearest neighbours of some of the index's own
    vectors that the graph finds at the search expansion (on all cores: at build)."""
    chosen = keys[np.linspace(0, keys.shape[0] - 1, min(sample, keys.shape[0])).astype(np.intp)]
    rows: Any = index.get(chosen.astype(np.uint64), dtype="f32")
    queries = np.ascontiguousarray(np.vstack(rows), dtype=np.float32)
    count = min(10, keys.shape[0])
    index.expansion_search = EXPANSION_SEARCH  # type: ignore[misc]
    approximate = np.asarray(index.search(queries, count, threads=0).keys).reshape(-1, count)
    exact = np.asarray(index.search(queries, count, threads=0, exact=True).keys)
    found = sum(
        len(set(a.tolist()) & set(e.tolist()))
        for a, e in zip(approximate, exact.reshape(-1, count), strict=True)
    )
    share: float = found / (count * int(queries.shape[0]))
    return share


def _header(
    model: str,
    index: Index,
    kind_names: list[str],
    kinds: npt.NDArray[np.uint8],
    keys: npt.NDArray[np.int64],
    *,
    rebuilt: float,
    changed: int,
) -> dict[str, Any]:
    import usearch

    counts = np.bincount(kinds, minlength=len(kind_names)).tolist()
    return {
        "self_recall": self_recall(index, keys),
        "format": FORMAT,
        "model": model,
        "dims": int(index.ndim),
        "count": len(kinds),
        **_params(index),
        "kinds": kind_names,
        "kind_counts": counts,
        "built": time.time(),
        "rebuilt": rebuilt,
        "changed_since_rebuild": changed,
        "usearch": str(usearch.__version__),
    }


def build_file(
    path: Path,
    model: str,
    batches: Iterable[Batch],
    *,
    threads: int = 0,
    index: Index | None = None,
    **params: Any,
) -> int:
    """Build the graph of every vector in ``batches`` (on all cores by default) and
    write its file; the number of vectors. ``params`` are ``new_index``'s."""
    keys: list[npt.NDArray[np.int64]] = []
    doc_keys: list[npt.NDArray[np.int64]] = []
    kind_names: list[str] = []
    codes: list[npt.NDArray[np.uint8]] = []
    for ids, documents, kinds, matrix in batches:
        if ids.shape[0] == 0:
            continue
        if index is None:
            index = new_index(int(matrix.shape[1]), **params)
        index.add(ids.astype(np.uint64), np.ascontiguousarray(matrix), threads=threads)
        keys.append(ids.astype(np.int64))
        doc_keys.append(documents.astype(np.int64))
        codes.append(_codes(kinds, kind_names))
    if index is None or not keys:
        raise ValueError("no vectors to index")
    all_keys, all_docs, all_codes = _sorted(keys, doc_keys, codes)
    header = _header(model, index, kind_names, all_codes, all_keys, rebuilt=time.time(), changed=0)
    _write(path, index, all_keys, all_docs, all_codes, header)
    return int(all_keys.shape[0])


def _codes(kinds: Sequence[str], names: list[str]) -> npt.NDArray[np.uint8]:
    out = np.empty(len(kinds), dtype=np.uint8)
    for i, kind in enumerate(kinds):
        if kind not in names:
            if len(names) >= 255:
                raise ValueError("more than 255 kinds")
            names.append(kind)
        out[i] = names.index(kind)
    return out


def _sorted(
    keys: list[npt.NDArray[np.int64]],
    doc_keys: list[npt.NDArray[np.int64]],
    codes: list[npt.NDArray[np.uint8]],
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.uint8]]:
    all_keys = np.concatenate(keys)
    order = np.argsort(all_keys, kind="stable")
    return all_keys[order], np.concatenate(doc_keys)[order], np.concatenate(codes)[order]


def _batches(rows: Iterable[Sequence[tuple[int, str, str, bytes]]], dims: int) -> Iterator[Batch]:
    """Store rows (passage id, document id, kind, vector) as batches; a vector of
    another dimension is left out (exact search leaves it out too)."""
    for chunk in rows:
        usable = [r for r in chunk if len(r[3]) == dims * 4]
        if not usable:
            continue
        ids = np.fromiter((r[0] for r in usable), dtype=np.int64, count=len(usable))
        documents = np.fromiter(
            (document_key(r[1]) for r in usable), dtype=np.int64, count=len(usable)
        )
        matrix = np.frombuffer(b"".join(r[3] for r in usable), dtype="<f4").reshape(-1, dims)
        yield ids, documents, [r[2] for r in usable], matrix.astype(np.float32)


@contextlib.contextmanager
def _builder_lock(directory: Path) -> Iterator[None]:
    directory.mkdir(parents=True, exist_ok=True)
    with (directory / ".lock").open("a") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def update(settings: KnowledgeSettings, models: Iterable[str]) -> list[str]:
    """Bring each model's file up to date with the store, after vectors were
    written: built, edited in place, rebuilt, left as it is, or removed below the
    threshold. One line per model says which; a failure is logged, never raised
    (the vectors are stored: servers search them exactly meanwhile)."""
    wanted = list(dict.fromkeys(models))
    if not wanted:
        return []
    done: list[str] = []
    store = Store(settings.knowledge_dir)
    try:
        for model in wanted:
            try:
                outcome = _update(store, model, settings.vectors_ann_min_passages)
            except (OSError, ValueError, RuntimeError) as exc:
                outcome = f"not updated ({type(exc).__name__}: {exc}); search stays exact"
                log.warning("vector index of %s %s", model, outcome)
            else:
                log.info("vector index of %s: %s", model, outcome)
            done.append(f"{model}: {outcome}")
    finally:
        store.close()
    return done


def _update(store: Store, model: str, threshold: int) -> str:
    path = path_for(store.directory, model)
    if len(store.vector_ids(model)) < max(threshold, 1) and not path.exists():
        return "none (fewer vectors than A2A_VECTORS_ANN_MIN_PASSAGES)"
    with _builder_lock(path.parent):
        ids = store.vector_ids(model)
        if len(ids) < max(threshold, 1):
            if path.exists():
                path.unlink()
                store.put_meta(f"{META_KEY}{model}", json.dumps({"removed": time.time()}))
                return f"removed ({len(ids)} vectors, below A2A_VECTORS_ANN_MIN_PASSAGES)"
            return f"none ({len(ids)} vectors, below A2A_VECTORS_ANN_MIN_PASSAGES)"
        dims = store.vector_dims(model) or 0
        try:
            current: AnnFile | None = open_file(path)
        except AnnUnusable as exc:
            current, why = None, str(exc)
        if current is not None and (current.model != model or current.dims != dims):
            current, why = None, "the file is of another model or dimension"
        elif current is not None and any(
            current.header.get(k) != v for k, v in _params(new_index(dims)).items()
        ):
            current, why = None, "the file was built with other parameters"
        started = time.monotonic()
        if current is not None:
            added = np.setdiff1d(ids, current.keys, assume_unique=True)
            gone = np.setdiff1d(current.keys, ids, assume_unique=True)
            if not len(added) and not len(gone):
                return f"up to date ({len(ids)} vectors)"
            changed = int(current.header.get("changed_since_rebuild", 0)) + len(added) + len(gone)
            if changed <= REBUILD_SHARE * len(ids):
                count = _edit(store, current, added, gone, changed)
                store.put_meta(f"{META_KEY}{model}", json.dumps({"built": time.time()}))
                return (
                    f"updated in place ({len(added)} added, {len(gone)} removed, {count} "
                    f"vectors) in {time.monotonic() - started:.1f} s"
                )
            why = f"{changed} changes since the last full build"
        count = build_file(path, model, _batches(store.vector_rows(model), dims))
        store.put_meta(f"{META_KEY}{model}", json.dumps({"built": time.time()}))
        return f"built ({count} vectors; {why}) in {time.monotonic() - started:.1f} s"


def _edit(
    store: Store,
    current: AnnFile,
    added: npt.NDArray[np.int64],
    gone: npt.NDArray[np.int64],
    changed: int,
) -> int:
    """Edit the graph of ``current``: remove ``gone``, add the vectors of ``added``."""
    index = _usearch().restore(str(current.path), view=False, expansion_search=EXPANSION_SEARCH)
    if index is None:
        raise ValueError("usearch cannot load the index file")
    keep = ~np.isin(current.keys, gone, assume_unique=True)
    if len(gone):
        index.remove(gone.astype(np.uint64))
    kind_names = current.kind_names
    keys, doc_keys, codes = [current.keys[keep]], [current.doc_keys[keep]], [current.kinds[keep]]
    for ids, documents, kinds, matrix in _batches(
        store.vector_rows(current.model, [int(i) for i in added]), current.dims
    ):
        index.add(ids.astype(np.uint64), np.ascontiguousarray(matrix), threads=0)
        keys.append(ids)
        doc_keys.append(documents)
        codes.append(_codes(kinds, kind_names))
    all_keys, all_docs, all_codes = _sorted(keys, doc_keys, codes)
    header = _header(
        current.model,
        index,
        kind_names,
        all_codes,
        all_keys,
        rebuilt=float(current.header.get("rebuilt", time.time())),
        changed=changed,
    )
    _write(current.path, index, all_keys, all_docs, all_codes, header)
    return int(all_keys.shape[0])


# -- serving -----------------------------------------------------------------------


@dataclass(eq=False)
class AnnVectors:
    """The graph of one file, less its deleted ids, plus the vectors added since
    (searched exactly): what ``VectorIndex`` offers, at a fraction of its cost."""

    file: AnnFile
    dead: npt.NDArray[np.int64]
    """Ids of the file no longer in the store, sorted."""
    added: VectorIndex | None = None

    @property
    def dims(self) -> int:
        return self.file.dims

    def __len__(self) -> int:
        return len(self.file) - int(self.dead.shape[0]) + (len(self.added) if self.added else 0)

    def _alive(self, ids: npt.NDArray[np.int64]) -> npt.NDArray[np.bool_]:
        dead = self.dead
        if not dead.shape[0]:
            return np.ones(ids.shape[0], dtype=bool)
        at = np.minimum(np.searchsorted(dead, ids), dead.shape[0] - 1)
        return np.asarray(dead[at] != ids)

    def search(self, query: Vector, limit: int, kind: str | None = None) -> Ranked:
        """(passage id, cosine similarity, document key), best first."""
        if query.shape[0] != self.dims:
            raise EmbeddingsError(
                f"the query vector has {query.shape[0]} dimensions, the stored ones {self.dims}"
            )
        if limit <= 0:
            return []
        query = np.ascontiguousarray(query, dtype=np.float32)
        found = self._from_file(query, limit, kind)
        if self.added is not None:
            found += self.added.search(query, limit, kind)
            found.sort(key=lambda hit: -hit[1])
        return found[:limit]

    async def search_async(self, query: Vector, limit: int, kind: str | None = None) -> Ranked:
        """``search`` off the event loop (usearch releases the GIL while it searches)."""
        import asyncio

        return await asyncio.to_thread(self.search, query, limit, kind)

    def _from_file(self, query: Vector, limit: int, kind: str | None) -> Ranked:
        file = self.file
        size = len(file)
        code: int | None = None
        if kind is None:
            want = limit
        else:
            code = file.kind_code(kind)
            if code is None or file.kind_count(code) == 0:
                return []
            if file.kind_count(code) <= KIND_EXACT:
                return self._exact_kind(query, limit, code)
            want = math.ceil(limit * OVERSAMPLE * size / file.kind_count(code))
        # Room for deleted ids among the nearest.
        want += min(int(self.dead.shape[0]), want)
        while True:
            want = min(want, size)
            exact = want > MAX_ANN_COUNT
            ids, scores = file.matches(query, want, exact=exact, wide=code is None)
            positions = file.positions(ids)
            keep = self._alive(ids)
            if code is not None:
                keep &= file.kinds[positions] == code
            hits = [
                (int(i), float(s), int(d))
                for i, s, d in zip(
                    ids[keep], scores[keep], file.doc_keys[positions[keep]], strict=True
                )
            ]
            if len(hits) >= limit or want >= size:
                return hits[:limit]
            if exact and code is not None:
                return self._exact_kind(query, limit, code)
            want *= 4

    def _exact_kind(self, query: Vector, limit: int, code: int) -> Ranked:
        file = self.file
        positions, matrix = file.kind_matrix(code)
        if not positions.shape[0]:
            return []
        with _blas().limit(limits=1, user_api="blas"):
            scores = matrix @ query
        ids = file.keys[positions]
        if self.dead.shape[0]:
            scores = np.where(self._alive(ids), scores, -np.inf)
        k = min(limit, scores.shape[0])
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.argsort(-scores[top])]
        return [
            (int(ids[i]), float(scores[i]), int(file.doc_keys[positions[i]]))
            for i in top
            if np.isfinite(scores[i])
        ]


Searchable = VectorIndex | AnnVectors


@dataclass(frozen=True, slots=True)
class Loaded:
    vectors: Searchable | None
    state: str
    """How this model's vectors are searched, for ``doctor`` and the logs."""


_warned: set[tuple[Path, str]] = set()


def load(store: Store, model: str, min_passages: int) -> Loaded:
    """The searchable vectors of ``model``: the mapped file with the news since it
    was built, or every stored vector searched exactly (with the reason)."""
    ids = store.vector_ids(model)
    if not len(ids):
        return Loaded(None, "no vectors")
    if len(ids) < max(min_passages, 1):
        return Loaded(
            VectorIndex.load(store.vectors(model)),
            f"exact ({len(ids)} vectors, fewer than A2A_VECTORS_ANN_MIN_PASSAGES={min_passages})",
        )
    path = path_for(store.directory, model)
    try:
        file = cached_open(path)
        dims = store.vector_dims(model)
        if file.model != model:
            raise AnnUnusable(f"the index file is of another model ({file.model})")
        if file.dims != dims:
            raise AnnUnusable(
                f"the index file has {file.dims} dimensions, the stored vectors {dims}"
            )
        found = float(file.header.get("self_recall", 1.0))
        if found < MIN_SELF_RECALL:
            raise AnnUnusable(
                f"the index finds {found:.0%} of the nearest neighbours of its own vectors, "
                f"fewer than {MIN_SELF_RECALL:.0%}: these vectors suit no graph"
            )
        dead = np.setdiff1d(file.keys, ids, assume_unique=True)
        if dead.shape[0] > MAX_DEAD_SHARE * len(file):
            raise AnnUnusable(f"{dead.shape[0]} of the index file's {len(file)} ids are deleted")
    except AnnUnusable as exc:
        if (path, str(exc)) not in _warned:
            _warned.add((path, str(exc)))
            log.warning(
                "vector index of %s not used, exact search instead: %s (%s); "
                "'magisterium-a2a documents embed' builds it",
                model,
                exc,
                path,
            )
        return Loaded(VectorIndex.load(store.vectors(model)), f"exact ({exc}: {path})")
    fresh = np.setdiff1d(ids, file.keys, assume_unique=True)
    added = None
    if len(fresh):
        added = VectorIndex.load(store.vectors_of(model, [int(i) for i in fresh]))
    if added is not None and added.dims != file.dims:
        added = None
    state = (
        f"approximate (usearch HNSW over {len(file)} vectors, {path.name}, "
        f"recall@10 {float(file.header.get('self_recall', 1.0)):.3f} at build, "
        f"{file.nbytes / 1e6:.0f} MB mapped; {len(fresh)} added since searched exactly, "
        f"{dead.shape[0]} deleted since filtered out)"
    )
    return Loaded(AnnVectors(file, dead, added), state)
