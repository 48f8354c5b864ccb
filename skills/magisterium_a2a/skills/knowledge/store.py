"""The content store on disk: documents, passages and vectors in SQLite, the
passages' full-text index in tantivy beside them.

Layout under ``<data_dir>/knowledge/``: ``documents.sqlite3`` (the source of
truth) and ``index/`` (tantivy, derived). A change is made in one ``Writer``
session: SQLite changes wait in an open transaction while the tantivy writer
takes the same changes; ``commit`` commits tantivy, records its opstamp in
SQLite and commits SQLite. An interruption before the end leaves both as
they were; one between the two commits leaves tantivy one commit ahead,
which ``open`` detects by the opstamp and repairs by rebuilding the index
from SQLite. Writers take SQLite's write lock first (``BEGIN IMMEDIATE``), so
one change runs at a time across processes, and readers (servers) never
wait: SQLite runs in WAL mode and tantivy readers see whole commits only.
"""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import orjson

from magisterium_a2a.skills.knowledge.index import (
    INDEX_SCHEMA,
    IndexEntry,
    IndexWriter,
    PassageIndex,
)
from magisterium_a2a.skills.knowledge.model import (
    Document,
    DocumentInfo,
    DocumentKind,
    Origin,
    Section,
)
from magisterium_a2a.skills.knowledge.passages import PassageText, split_document

SCHEMA_VERSION = "3"
# Layout 3 keeps a vector per passage for each model (the English and the
# cross-lingual one); a layout-2 store is upgraded in place when opened for
# writing (every server start does), its vectors kept.
_UPGRADE_FROM_2 = """
alter table embeddings rename to embeddings_v2;
create table embeddings(
    passage_id integer not null,
    model text not null,
    vector blob not null,
    primary key (passage_id, model)
);
insert into embeddings(passage_id, model, vector)
    select passage_id, model, vector from embeddings_v2;
drop table embeddings_v2;
update meta set value = '3' where key = 'schema';
"""
_SCHEMA = """
create table if not exists meta(key text primary key, value text not null);
create table if not exists documents(
    id text primary key,
    origin text not null,
    title text not null,
    author text,
    ref text,
    url text,
    year integer,
    kind text not null,
    genre text,
    language text not null,
    full_text integer not null,
    sections blob not null, -- [heading, ref, start, end] per section, offsets into body
    body text not null,
    source text,
    content_hash text not null,
    passages integer not null
);
create table if not exists passages(
    id integer primary key autoincrement,
    doc_id text not null,
    ordinal integer not null,
    heading text,
    ref text,
    text text not null
);
create index if not exists passages_by_doc on passages(doc_id, ordinal);
create table if not exists embeddings(
    passage_id integer not null,
    model text not null,
    vector blob not null,
    primary key (passage_id, model)
);
"""
_INFO_COLUMNS = "id, title, author, ref, url, year, kind, genre, language, full_text"


class StoreError(RuntimeError):
    """The store cannot be opened or changed; the message says why."""


@dataclass(frozen=True, slots=True)
class StoredPassage:
    id: int
    document_id: str
    ordinal: int
    heading: str | None
    ref: str | None
    text: str


@dataclass(frozen=True, slots=True)
class DocumentSummary:
    info: DocumentInfo
    origin: Origin
    source: str | None
    passages: int


@dataclass(frozen=True, slots=True)
class StoreStats:
    documents: int
    catalogue_documents: int
    passages: int
    indexed_passages: int
    embedded: dict[str, int]
    database_bytes: int
    index_bytes: int


def _info_fields(row: Sequence[Any]) -> dict[str, Any]:
    return {
        "id": row[0],
        "title": row[1],
        "author": row[2],
        "ref": row[3],
        "url": row[4],
        "year": row[5],
        "kind": DocumentKind(row[6]),
        "genre": row[7],
        "language": row[8],
        "full_text": bool(row[9]),
    }


def _info(row: Sequence[Any]) -> DocumentInfo:
    # Rows were validated on the way in: construct without validating again
    # (this is on the path of every search result and every fetch).
    return DocumentInfo.model_construct(**_info_fields(row))


class Store:
    """One open store. Not thread-safe: use it from one thread (the event loop)."""

    def __init__(self, directory: Path, *, readonly: bool = False) -> None:
        self.directory = directory
        self.db_path = directory / "documents.sqlite3"
        self.index_path = directory / "index"
        self.readonly = readonly
        if readonly:
            if not self.db_path.exists():
                raise StoreError(f"no knowledge store at {directory}")
            self._db = sqlite3.connect(
                f"file:{self.db_path}?mode=ro", uri=True, isolation_level=None
            )
        else:
            directory.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.db_path, isolation_level=None, timeout=60)
            self._db.execute("pragma journal_mode=wal")
            self._upgrade()
            self._db.executescript(_SCHEMA)
            self._db.execute(
                "insert or ignore into meta(key, value) values('schema', ?)", (SCHEMA_VERSION,)
            )
            self._check_schema()
            if self.meta("index_schema") != INDEX_SCHEMA:
                # An index of an older layout cannot be opened: drop it; ``prepare``
                # sees it out of step and rebuilds it from the passages.
                shutil.rmtree(self.index_path, ignore_errors=True)
                self._db.execute("delete from meta where key = 'index_opstamp'")
                self._db.execute(
                    "insert or replace into meta(key, value) values('index_schema', ?)",
                    (INDEX_SCHEMA,),
                )
        self._db.execute("pragma busy_timeout=60000")
        if readonly:
            self._check_schema()
        if readonly and self.meta("index_schema") != INDEX_SCHEMA:
            self._db.close()
            raise StoreError(
                f"the index at {directory} needs rebuilding: run 'magisterium-a2a doctor'"
            )
        self.index = PassageIndex(self.index_path)
        self._data_version = self.data_version()

    def close(self) -> None:
        self._db.close()

    def _upgrade(self) -> None:
        """Bring a layout-2 store to layout 3 in one transaction (nothing is lost)."""
        exists = self._db.execute(
            "select 1 from sqlite_master where type = 'table' and name = 'meta'"
        ).fetchone()
        if not exists or self.meta("schema") != "2":
            return
        self._db.executescript(f"begin immediate;\n{_UPGRADE_FROM_2}\ncommit;")

    def _check_schema(self) -> None:
        found = self.meta("schema")
        if found != SCHEMA_VERSION:
            self._db.close()
            raise StoreError(
                f"the knowledge store at {self.directory} has layout {found}, this version "
                f"needs {SCHEMA_VERSION}: ingest into a new A2A_DATA_DIR (or delete "
                f"{self.directory} and ingest again)"
            )

    # -- freshness -----------------------------------------------------------------

    def data_version(self) -> int:
        """Changes whenever another connection commits (SQLite's own cheap counter)."""
        row = self._db.execute("pragma data_version").fetchone()
        return int(row[0])

    def refresh(self) -> bool:
        """Follow a commit made by another process; True when something changed."""
        version = self.data_version()
        if version == self._data_version:
            return False
        self._data_version = version
        self.index.reload()
        return True

    # -- meta ----------------------------------------------------------------------

    def meta(self, key: str) -> str | None:
        row = self._db.execute("select value from meta where key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def index_in_sync(self) -> bool:
        recorded = self.meta("index_opstamp")
        committed = PassageIndex.committed_opstamp(self.index_path)
        passages = self._db.execute("select count(*) from passages").fetchone()[0]
        if recorded is None:
            return passages == 0 and self.index.num_passages == 0
        return committed == int(recorded) and self.index.num_passages == passages

    # -- reading -------------------------------------------------------------------

    def document(self, document_id: str) -> Document | None:
        row = self._db.execute(
            f"select {_INFO_COLUMNS}, sections, source, origin, body from documents where id = ?",
            (document_id,),
        ).fetchone()
        if row is None:
            return None
        body = str(row[13])
        sections = [
            Section.model_construct(heading=heading, text=body[start:end], ref=ref)
            for heading, ref, start, end in orjson.loads(row[10])
        ]
        return Document.model_construct(
            **_info_fields(row), sections=sections, source=row[11], origin=Origin(row[12])
        )

    def fetch(self, document_id: str) -> tuple[DocumentInfo, str] | None:
        """A document's metadata and rendered body: one row, nothing to assemble."""
        row = self._db.execute(
            f"select {_INFO_COLUMNS}, body from documents where id = ?", (document_id,)
        ).fetchone()
        return None if row is None else (_info(row), str(row[10]))

    def content_hash(self, document_id: str) -> tuple[str, Origin] | None:
        row = self._db.execute(
            "select content_hash, origin from documents where id = ?", (document_id,)
        ).fetchone()
        return None if row is None else (str(row[0]), Origin(row[1]))

    def documents(
        self, *, origin: Origin | None = None, kind: str | None = None
    ) -> list[DocumentSummary]:
        clauses, params = [], []
        if origin is not None:
            clauses.append("origin = ?")
            params.append(origin.value)
        if kind is not None:
            clauses.append("kind = ?")
            params.append(kind)
        where = f"where {' and '.join(clauses)}" if clauses else ""
        rows = self._db.execute(
            f"select {_INFO_COLUMNS}, origin, source, passages from documents {where} order by id",
            params,
        ).fetchall()
        return [DocumentSummary(_info(r), Origin(r[10]), r[11], int(r[12])) for r in rows]

    def document_infos(self, ids: Iterable[str]) -> dict[str, DocumentInfo]:
        wanted = list(dict.fromkeys(ids))
        if not wanted:
            return {}
        marks = ",".join("?" * len(wanted))
        rows = self._db.execute(
            f"select {_INFO_COLUMNS} from documents where id in ({marks})", wanted
        ).fetchall()
        return {row[0]: _info(row) for row in rows}

    def passages(self, ids: Sequence[int]) -> dict[int, StoredPassage]:
        if not ids:
            return {}
        marks = ",".join("?" * len(ids))
        rows = self._db.execute(
            f"select id, doc_id, ordinal, heading, ref, text from passages where id in ({marks})",
            list(ids),
        ).fetchall()
        return {row[0]: StoredPassage(*row) for row in rows}

    def passage_at(self, document_id: str, ordinal: int) -> StoredPassage | None:
        row = self._db.execute(
            "select id, doc_id, ordinal, heading, ref, text from passages "
            "where doc_id = ? and ordinal = ?",
            (document_id, ordinal),
        ).fetchone()
        return None if row is None else StoredPassage(*row)

    def vectors(self, model: str) -> list[tuple[int, str, str, bytes]]:
        """(passage id, document id, kind, vector) of every passage embedded by ``model``."""
        return self._db.execute(
            "select e.passage_id, d.id, d.kind, e.vector from embeddings e "
            "join passages p on p.id = e.passage_id join documents d on d.id = p.doc_id "
            "where e.model = ? order by e.passage_id",
            (model,),
        ).fetchall()

    def vector_ids(self, model: str) -> npt.NDArray[np.int64]:
        """The passage ids that have a vector of ``model``, sorted (read from the
        primary key's index alone, not the vectors)."""
        rows = self._db.execute(
            "select passage_id from embeddings where model = ? order by passage_id", (model,)
        )
        return np.fromiter((r[0] for r in rows), dtype=np.int64)

    def vector_dims(self, model: str) -> int | None:
        """The dimension of ``model``'s first stored vector (what exact search takes)."""
        row = self._db.execute(
            "select length(vector) from embeddings where model = ? order by passage_id limit 1",
            (model,),
        ).fetchone()
        return None if row is None else int(row[0]) // 4

    def vectors_of(self, model: str, ids: Sequence[int]) -> list[tuple[int, str, str, bytes]]:
        """``vectors`` of the given passage ids only."""
        return [row for chunk in self.vector_rows(model, ids) for row in chunk]

    def vector_rows(
        self, model: str, ids: Sequence[int] | None = None, size: int = 20_000
    ) -> Iterator[list[tuple[int, str, str, bytes]]]:
        """``vectors`` (of every passage, or of ``ids``) a batch at a time."""
        query = (
            "select e.passage_id, d.id, d.kind, e.vector from embeddings e "
            "join passages p on p.id = e.passage_id join documents d on d.id = p.doc_id "
            "where e.model = ?"
        )
        if ids is None:
            cursor = self._db.execute(f"{query} order by e.passage_id", (model,))
            while batch := cursor.fetchmany(size):
                yield batch
            return
        for start in range(0, len(ids), 500):
            chunk = list(ids[start : start + 500])
            marks = ",".join("?" * len(chunk))
            yield self._db.execute(
                f"{query} and e.passage_id in ({marks}) order by e.passage_id", [model, *chunk]
            ).fetchall()

    def put_meta(self, key: str, value: str) -> None:
        """Set one meta row in a transaction of its own (servers see the change)."""
        if self.readonly:
            raise StoreError("the store is open read-only")
        self._db.execute("insert or replace into meta(key, value) values (?, ?)", (key, value))

    def passages_without_vector(
        self, model: str, origin: Origin | None = None
    ) -> list[StoredPassage]:
        """Passages with no vector of ``model`` (only documents of ``origin`` if given)."""
        where, args = "", [model]
        if origin is not None:
            where, args = " and d.origin = ?", [model, origin.value]
        rows = self._db.execute(
            "select p.id, p.doc_id, p.ordinal, p.heading, p.ref, p.text from passages p "
            "join documents d on d.id = p.doc_id "
            "left join embeddings e on e.passage_id = p.id and e.model = ? "
            f"where e.passage_id is null{where} order by p.id",
            args,
        ).fetchall()
        return [StoredPassage(*row) for row in rows]

    def stats(self) -> StoreStats:
        db = self._db
        documents = db.execute("select count(*) from documents").fetchone()[0]
        catalogue = db.execute(
            "select count(*) from documents where origin = ?", (Origin.CATALOGUE.value,)
        ).fetchone()[0]
        passages = db.execute("select count(*) from passages").fetchone()[0]
        embedded = dict(db.execute("select model, count(*) from embeddings group by model"))
        db_bytes = sum(
            p.stat().st_size for p in self.directory.glob("documents.sqlite3*") if p.is_file()
        )
        index_bytes = sum(p.stat().st_size for p in self.index_path.iterdir() if p.is_file())
        return StoreStats(
            documents=documents,
            catalogue_documents=catalogue,
            passages=passages,
            indexed_passages=self.index.num_passages,
            embedded={str(k): int(v) for k, v in embedded.items()},
            database_bytes=db_bytes,
            index_bytes=index_bytes,
        )

    # -- writing -------------------------------------------------------------------

    @contextmanager
    def writer(self) -> Iterator[Writer]:
        """One atomic change: everything in the block, or nothing."""
        if self.readonly:
            raise StoreError("the store is open read-only")
        self._db.execute("begin immediate")
        writer = Writer(self._db, IndexWriter(self.index))
        try:
            yield writer
            writer.finish()
        except BaseException:
            writer.abort()
            raise
        self._data_version = self.data_version()
        self.index.reload()

    def rebuild_index(self) -> int:
        """Re-create the full-text index from SQLite; the number of passages indexed."""
        with self.writer() as writer:
            return writer.reindex_all()


class Writer:
    """The changes of one ``Store.writer()`` block."""

    def __init__(self, db: sqlite3.Connection, index: IndexWriter) -> None:
        self._db = db
        self._index = index
        self._touched = False

    def put(
        self,
        document: Document,
        *,
        passages: list[PassageText] | None = None,
    ) -> int:
        """Store (or replace) a document and its passages; the number of passages."""
        self.delete(document.id)
        parts = passages if passages is not None else split_document(document)
        body, spans = document.body_with_spans()
        sections = orjson.dumps(
            [
                [section.heading, section.ref, start, end]
                for section, (start, end) in zip(document.sections, spans, strict=True)
            ]
        )
        self._db.execute(
            "insert into documents(id, origin, title, author, ref, url, year, kind, genre, "
            "language, full_text, sections, body, source, content_hash, passages) "
            "values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                document.id,
                document.origin.value,
                document.title,
                document.author,
                document.ref,
                document.url,
                document.year,
                document.kind.value,
                document.genre,
                document.language,
                int(document.full_text),
                sections,
                body,
                document.source,
                document.content_hash(),
                len(parts),
            ),
        )
        entries: list[IndexEntry] = []
        for part in parts:
            cursor = self._db.execute(
                "insert into passages(doc_id, ordinal, heading, ref, text) values (?, ?, ?, ?, ?)",
                (document.id, part.ordinal, part.heading, part.ref, part.text),
            )
            pid = int(cursor.lastrowid or 0)
            entries.append(
                IndexEntry(
                    pid,
                    document.id,
                    document.kind.value,
                    document.title,
                    part.heading or "",
                    part.text,
                )
            )
        self._index.add(entries)
        self._touched = True
        return len(parts)

    def delete(self, document_id: str) -> bool:
        """Remove a document and its passages; False when there was none."""
        found = self._db.execute("delete from documents where id = ?", (document_id,)).rowcount
        self._db.execute(
            "delete from embeddings where passage_id in (select id from passages where doc_id = ?)",
            (document_id,),
        )
        self._db.execute("delete from passages where doc_id = ?", (document_id,))
        if found:
            self._index.delete_document(document_id)
            self._touched = True
        return bool(found)

    def put_vectors(self, model: str, vectors: Iterable[tuple[int, bytes]]) -> int:
        rows = list(vectors)
        self._db.executemany(
            "insert or replace into embeddings(passage_id, model, vector) values (?, ?, ?)",
            [(pid, model, blob) for pid, blob in rows],
        )
        return len(rows)

    def set_meta(self, key: str, value: str) -> None:
        self._db.execute("insert or replace into meta(key, value) values (?, ?)", (key, value))

    def reindex_all(self) -> int:
        self._index.delete_all()
        rows = self._db.execute(
            "select p.id, p.doc_id, d.kind, d.title, p.heading, p.text "
            "from passages p join documents d on d.id = p.doc_id"
        )
        count = 0
        batch: list[IndexEntry] = []
        for pid, doc_id, kind, title, heading, text in rows:
            batch.append(IndexEntry(pid, doc_id, kind, title, heading or "", text))
            if len(batch) >= 1000:
                self._index.add(batch)
                count += len(batch)
                batch = []
        self._index.add(batch)
        self._touched = True
        return count + len(batch)

    def finish(self) -> None:
        if self._touched:
            opstamp = self._index.commit()
            self.set_meta("index_opstamp", str(opstamp))
        else:
            self._index.rollback()
        self._db.execute("commit")

    def abort(self) -> None:
        try:
            self._index.rollback()
        finally:
            self._db.execute("rollback")
