"""Imported diocese data in one SQLite file, ``<data_dir>/dioceses/dioceses.sqlite``.

Three tables: directory records that add to or replace built-in ones, yearly
statistics (one row per diocese, year and metric; ``value`` NULL where the
source lacks the figure) and financial totals. Each import is one
transaction, so an interrupted import leaves the file as it was; rows are
keyed, so importing the same file again changes nothing. A null never
overwrites a value an earlier import gave. Servers open the file read-only.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path

from magisterium_a2a.skills.dioceses.model import Diocese

SCHEMA = """
CREATE TABLE IF NOT EXISTS dioceses (
    id TEXT PRIMARY KEY,
    record TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS statistics (
    diocese_id TEXT NOT NULL,
    year INTEGER NOT NULL,
    metric TEXT NOT NULL,
    value REAL,
    source TEXT,
    PRIMARY KEY (diocese_id, year, metric)
);
CREATE TABLE IF NOT EXISTS financials (
    diocese_id TEXT NOT NULL,
    year INTEGER NOT NULL,
    field TEXT NOT NULL,
    value REAL,
    currency TEXT,
    source TEXT,
    PRIMARY KEY (diocese_id, year, field)
);
"""
_UPSERT_STATISTIC = """
INSERT INTO statistics (diocese_id, year, metric, value, source) VALUES (?, ?, ?, ?, ?)
ON CONFLICT (diocese_id, year, metric) DO UPDATE SET
    value = COALESCE(excluded.value, statistics.value),
    source = CASE WHEN excluded.value IS NULL THEN statistics.source ELSE excluded.source END
"""
_UPSERT_FINANCIAL = """
INSERT INTO financials (diocese_id, year, field, value, currency, source) VALUES (?, ?, ?, ?, ?, ?)
ON CONFLICT (diocese_id, year, field) DO UPDATE SET
    value = COALESCE(excluded.value, financials.value),
    currency = COALESCE(excluded.currency, financials.currency),
    source = CASE WHEN excluded.value IS NULL THEN financials.source ELSE excluded.source END
"""


@dataclass(frozen=True, slots=True)
class Statistic:
    diocese_id: str
    year: int
    metric: str
    value: float | None
    source: str | None


@dataclass(frozen=True, slots=True)
class Financial:
    diocese_id: str
    year: int
    field: str
    value: float | None
    currency: str | None
    source: str | None


def database_path(data_dir: Path) -> Path:
    return data_dir / "dioceses" / "dioceses.sqlite"


@contextmanager
def writing(data_dir: Path) -> Iterator[sqlite3.Connection]:
    """One write transaction: committed when the block ends, rolled back if it raises
    (an exception, or Ctrl-C as KeyboardInterrupt)."""
    path = database_path(data_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    with closing(sqlite3.connect(path, isolation_level=None)) as db:
        db.executescript(SCHEMA)
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")


def put_dioceses(db: sqlite3.Connection, dioceses: Iterable[Diocese]) -> None:
    db.executemany(
        "INSERT INTO dioceses (id, record) VALUES (?, ?) "
        "ON CONFLICT (id) DO UPDATE SET record = excluded.record",
        ((d.id, d.model_dump_json(exclude_defaults=True)) for d in dioceses),
    )


def put_statistics(db: sqlite3.Connection, rows: Iterable[Statistic]) -> None:
    for row in rows:
        db.execute(_UPSERT_STATISTIC, (row.diocese_id, row.year, row.metric, row.value, row.source))


def put_financials(db: sqlite3.Connection, rows: Iterable[Financial]) -> None:
    for row in rows:
        db.execute(
            _UPSERT_FINANCIAL,
            (row.diocese_id, row.year, row.field, row.value, row.currency, row.source),
        )


class Reader:
    """Read-only access for a server; absent file means nothing imported."""

    def __init__(self, data_dir: Path) -> None:
        self.path = database_path(data_dir)

    def signature(self) -> tuple[int, int] | None:
        """Changes whenever an import commits (size and modification time)."""
        try:
            stat = self.path.stat()
        except FileNotFoundError:
            return None
        return stat.st_mtime_ns, stat.st_size

    @contextmanager
    def _open(self) -> Iterator[sqlite3.Connection | None]:
        if not self.path.exists():
            yield None
            return
        with closing(sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro", uri=True)) as db:
            yield db

    def dioceses(self) -> list[Diocese]:
        with self._open() as db:
            if db is None:
                return []
            rows = db.execute("SELECT record FROM dioceses ORDER BY id").fetchall()
        return [Diocese.model_validate_json(record) for (record,) in rows]

    def has_statistics(self) -> bool:
        with self._open() as db:
            if db is None:
                return False
            return db.execute("SELECT 1 FROM statistics LIMIT 1").fetchone() is not None

    def statistics(
        self, diocese_id: str, year_from: int | None = None, year_to: int | None = None
    ) -> list[Statistic]:
        with self._open() as db:
            if db is None:
                return []
            rows = db.execute(
                "SELECT diocese_id, year, metric, value, source FROM statistics "
                "WHERE diocese_id = ? AND year >= ? AND year <= ? ORDER BY year, metric",
                (diocese_id, year_from or -1, year_to or 10_000),
            ).fetchall()
        return [Statistic(*row) for row in rows]

    def financials(self, diocese_id: str) -> list[Financial]:
        """The latest year's financial totals of that diocese, if any were imported."""
        with self._open() as db:
            if db is None:
                return []
            rows = db.execute(
                "SELECT diocese_id, year, field, value, currency, source FROM financials "
                "WHERE diocese_id = ? AND year = "
                "(SELECT MAX(year) FROM financials WHERE diocese_id = ?) ORDER BY field",
                (diocese_id, diocese_id),
            ).fetchall()
        return [Financial(*row) for row in rows]
