"""Embedding many texts at the model's speed: in windows sorted by length, the
batches of a window run on several threads at once, one window ahead of the
caller.

Ingestion hands a model thousands of passages. Three things keep the cores on
the model: texts of a window are sorted by length (token count where the model
has a tokenizer of its own) so a batch is nearly all text, not padding; the
batches go to a pool of threads, each running one batch on one core
(onnxruntime releases the GIL while it runs, so the threads share one loaded
model); and the next window is tokenised and queued before the current one is
handed back, so the caller's work on it (writing vectors to SQLite) overlaps
the model's on the next. Each window comes back in input order.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

import numpy as np

from magisterium_a2a.skills.knowledge.embeddings import Vector

WINDOW = 256
"""Texts sorted by length together, and the unit handed back: large enough
that batches of similar lengths form, small enough that the progress bar
moves often (a window a few seconds to a minute on 2 cores)."""
_AHEAD = 2
"""Windows queued at once: the one handed back and the one being computed."""

Batch = TypeVar("Batch")
Plan = Callable[[Sequence[str]], list[tuple[list[int], Batch]]]
"""A window's batches: the positions in the window each batch fills, and its input."""


def cores() -> int:
    """The CPU cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def run_windows(
    texts: Sequence[str],
    plan: Plan[Batch],
    infer: Callable[[Batch], Vector],
    dims: int,
    workers: int,
    window: int | None = None,
) -> Iterator[Vector]:
    """One matrix per window of ``window`` (default ``WINDOW``) texts, in order;
    ``workers`` batches at once."""
    window = window or WINDOW
    windows = [texts[s : s + window] for s in range(0, len(texts), window)]
    if workers <= 1:
        return _sequential(windows, plan, infer, dims)
    return _parallel(windows, plan, infer, dims, workers)


def _sequential(
    windows: list[Sequence[str]], plan: Plan[Batch], infer: Callable[[Batch], Vector], dims: int
) -> Iterator[Vector]:
    for texts in windows:
        out = np.empty((len(texts), dims), dtype=np.float32)
        for picked, batch in plan(texts):
            out[picked] = infer(batch)
        yield out


def _parallel(
    windows: list[Sequence[str]],
    plan: Plan[Batch],
    infer: Callable[[Batch], Vector],
    dims: int,
    workers: int,
) -> Iterator[Vector]:
    pool = ThreadPoolExecutor(workers, thread_name_prefix="embed")
    ahead: deque[tuple[int, list[tuple[list[int], Future[Vector]]]]] = deque()
    try:
        for texts in windows:
            ahead.append(
                (len(texts), [(picked, pool.submit(infer, batch)) for picked, batch in plan(texts)])
            )
            if len(ahead) >= _AHEAD:
                yield _collect(*ahead.popleft(), dims)
        while ahead:
            yield _collect(*ahead.popleft(), dims)
    finally:
        # An abandoned run (an error, Ctrl-C) leaves only the batches already running.
        pool.shutdown(wait=False, cancel_futures=True)


def _collect(size: int, futures: list[tuple[list[int], Future[Vector]]], dims: int) -> Vector:
    out = np.empty((size, dims), dtype=np.float32)
    for picked, future in futures:
        out[picked] = future.result()
    return out
