"""A large corpus for the knowledge-base benchmarks, generated at run time from
the real texts in ../shared/refdata/kb-* (never committed).

The sentences of the Summa's Prima Pars, the Catechism of Trent and Cyprian's
letters are read with the project's own readers, then recombined: each
synthetic document has a title taken from a real question or letter and
paragraphs made of runs of consecutive real sentences, so the vocabulary, term
frequencies and passage lengths are those of real theological prose while
every passage is distinct.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

from magisterium_a2a.skills.knowledge.ingest import discover, read_file
from magisterium_a2a.skills.knowledge.passages import _SENTENCE_END

ROOT = Path(__file__).resolve().parent.parent
# Beside the checkout; KB_REFDATA names another place (a worktree's checkout is deeper).
REFDATA = Path(os.environ.get("KB_REFDATA") or ROOT.parent / "shared" / "refdata")
SOURCES = [
    REFDATA / "kb-summa-prima-pars",
    REFDATA / "kb-catechism-trent" / "Catholic_Catechism_Trent.md",
    REFDATA / "kb-fathers-cyprian-letters",
]
KINDS = ["theology", "catechism", "father", "council", "encyclical", "other"]


def real_sentences() -> tuple[list[str], list[str]]:
    """(sentences, titles) of the reference texts."""
    files, _ = discover(SOURCES, "*.[hjm]*[lnd]")
    sentences: list[str] = []
    titles: list[str] = []
    for path in files:
        if path.name == "SOURCE.md":
            continue
        for document in read_file(path):
            titles.append(document.title)
            for section in document.sections:
                for paragraph in section.text.split("\n\n"):
                    sentences.extend(
                        s for s in _SENTENCE_END.split(" ".join(paragraph.split())) if len(s) > 20
                    )
    return sentences, titles


def generate(path: Path, passages: int, per_document: int = 20, seed: int = 7) -> dict[str, int]:
    """Write JSON Lines documents holding about ``passages`` passages."""
    if not REFDATA.is_dir():
        raise SystemExit(f"{REFDATA} is absent: the benchmark needs the reference texts")
    sentences, titles = real_sentences()
    rnd = random.Random(seed)
    documents = passages // per_document
    words = 0
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as out:
        for i in range(documents):
            sections = []
            for j in range(per_document):
                # About 150-200 words: one paragraph becomes one passage.
                start = rnd.randrange(len(sentences) - 12)
                paragraph = " ".join(sentences[start : start + rnd.randint(6, 9)])
                words += len(paragraph.split())
                sections.append({"heading": f"Part {j + 1}", "text": paragraph})
            record = {
                "id": f"bench-{i:06d}",
                "title": f"{rnd.choice(titles)} ({i})",
                "author": "Benchmark",
                "year": 1200 + i % 800,
                "kind": KINDS[i % len(KINDS)],
                "sections": sections,
            }
            out.write(json.dumps(record) + "\n")
    return {
        "documents": documents,
        "sections": documents * per_document,
        "sentences": len(sentences),
        "words": words,
        "bytes": path.stat().st_size,
    }
