"""Ingestion of every supported format through ``magisterium-a2a ingest``,
its idempotency and atomicity, the ``documents`` and ``doctor`` commands, and
a running server following what was ingested."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from magisterium_a2a.server.config import Settings
from magisterium_a2a.skills.knowledge.library import knowledge_dir, prepare
from magisterium_a2a.skills.knowledge.settings import KnowledgeSettings
from magisterium_a2a.skills.knowledge.store import SCHEMA_VERSION, Store, Writer
from tests.kb_support import BUILTINS, fetch, result_ids, run_cli, search
from tests.support import harness

ENCYCLICAL_MD = """---
id: rerum-novarum
title: Rerum Novarum
author: Leo XIII
year: 1891-05-15
kind: encyclical
url: https://example.org/rerum-novarum
ref: RN
---

## Contents

- [Introduction](#introduction)
- [The remedy](#the-remedy)

## Introduction

That the spirit of *revolutionary change* should have passed beyond politics
into the sphere of practical economics is not surprising.

## The remedy

The workers of the quarry at Mount Zyphra deserve a **just wage**, said the
imaginary text written for this test.
"""


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def store_of(settings: Settings) -> Store:
    prepare(settings)
    return Store(knowledge_dir(settings))


def pdf_bytes(title: str, pages: list[str]) -> bytes:
    """A minimal valid PDF with one line of Helvetica text per page."""
    objects: list[bytes] = []
    kids = " ".join(f"{3 + 2 * i} 0 R" for i in range(len(pages)))
    objects.append(b"<< /Type /Catalog /Pages 2 0 R >>")
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {len(pages)} >>".encode())
    font = 3 + 2 * len(pages)
    for i, text in enumerate(pages):
        content = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode()
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {4 + 2 * i} 0 R "
            f"/Resources << /Font << /F1 {font} 0 R >> >> >>".encode()
        )
        objects.append(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(content), content))
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    objects.append(f"<< /Title ({title}) >>".encode())
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    out += b"trailer\n<< /Size %d /Root 1 0 R /Info %d 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        len(objects),
        xref,
    )
    return bytes(out)


async def test_markdown_front_matter_sections_and_no_table_of_contents(
    settings: Settings, tmp_path: Path
) -> None:
    source = write(tmp_path / "src" / "rn.md", ENCYCLICAL_MD)
    result = run_cli(settings, "ingest", str(source))
    assert result.exit_code == 0, result.output
    summary = " ".join(result.output.split())
    assert "1 added" in summary
    assert "1 catalogue entries now have their full text" in summary
    store = store_of(settings)
    document = store.document("rerum-novarum")
    store.close()
    assert document is not None
    assert (document.title, document.author, document.year, document.ref) == (
        "Rerum Novarum",
        "Leo XIII",
        1891,
        "RN",
    )
    assert document.kind.value == "encyclical"
    assert document.full_text is True
    assert [s.heading for s in document.sections] == ["Introduction", "The remedy"]
    assert "revolutionary change" in document.body
    assert "#introduction" not in document.body and "Contents" not in document.body

    async with harness(settings, builtins=BUILTINS) as h:
        token = await h.token()
        assert result_ids(await search(h, token, "quarry at Mount Zyphra"))[0] == "rerum-novarum"
        task = await fetch(h, token, [{"kind": "text", "text": "rerum-novarum"}])
        body, data = task["artifacts"][0]["parts"]
        assert body["text"].startswith("Introduction\n\nThat the spirit of revolutionary change")
        assert "catalogue entry" not in body["text"]
        assert data["data"] == {
            "id": "rerum-novarum",
            "title": "Rerum Novarum",
            "author": "Leo XIII",
            "ref": "RN",
        }


async def test_every_format_with_defaults_from_the_command_line(
    settings: Settings, tmp_path: Path
) -> None:
    src = tmp_path / "library"
    write(src / "On Hope.md", "# On Hope\n\nHope is the theological virtue of the zarquon.\n")
    write(src / "notes" / "prayer.txt", "On Prayer\n\nPrayer lifts the heart to God.\n\nAgain.")
    write(
        src / "page.html",
        "<html><head><title>Parish Site | Home</title><script>var tracker=1;</script></head>"
        "<body><nav><a href='/'>Home</a> <a href='/about'>About us</a> <a href='/mass'>Mass "
        "times</a></nav><header><p>Saint Example Parish newsletter header</p></header>"
        "<article><h1>On the Sabbath Rest</h1><p>The Lord's day is a day of rest and of joy "
        "for the whole family, set apart for worship and for works of mercy among the "
        "neighbours.</p><h2>Works of mercy</h2><p>Visiting the sick and the lonely is a "
        "fitting work for the Lord's day, as the tradition has long taught the faithful in "
        "every parish.</p></article><footer>Copyright 2024 Saint Example. Privacy policy."
        "</footer></body></html>",
    )
    write(
        src / "docs.jsonl",
        json.dumps({"title": "Quarterly Letter", "body": "Grace builds on nature.\n\nTwo."})
        + "\n\n"
        + json.dumps(
            {
                "id": "cyril-catecheses",
                "title": "Catechetical Lectures",
                "author": "Cyril of Jerusalem",
                "year": 350,
                "kind": "father",
                "sections": [{"heading": "Lecture 1", "text": "On the gnomon.", "ref": "Cat. 1"}],
            }
        )
        + "\n",
    )
    write(src / "one.json", json.dumps({"id": "single", "title": "Single", "body": "Alone."}))
    (src / "scan.pdf").write_bytes(pdf_bytes("A Printed Homily", ["First page words", "Second"]))
    write(src / "image.png", "not really")
    write(src / ".hidden.md", "# Hidden\n\nnever read")

    result = run_cli(
        settings, "ingest", str(src), "--kind", "theology", "--author", "Anon", "--language", "la"
    )
    assert result.exit_code == 0, result.output
    output = " ".join(result.output.split())
    assert "Ingested 7 documents from 6 files" in output
    assert "image.png: not a supported file type" in output

    store = store_of(settings)
    docs = {s.info.id: s for s in store.documents(origin=None) if s.origin.value == "ingest"}
    assert set(docs) == {
        "on-hope",
        "prayer",
        "page",
        "quarterly-letter",
        "cyril-catecheses",
        "single",
        "scan",
    }
    hope = store.document("on-hope")
    prayer = store.document("prayer")
    page = store.document("page")
    homily = store.document("scan")
    cyril = store.document("cyril-catecheses")
    store.close()
    assert hope is not None and prayer is not None and page is not None
    assert homily is not None and cyril is not None
    assert (hope.title, hope.kind.value, hope.author, hope.language) == (
        "On Hope",
        "theology",
        "Anon",
        "la",
    )
    assert prayer.title == "On Prayer" and prayer.body == "Prayer lifts the heart to God.\n\nAgain."
    assert page.title == "On the Sabbath Rest"
    assert "day of rest" in page.body and "Works of mercy" in page.body
    for chrome in ("About us", "Mass times", "newsletter header", "Privacy", "tracker"):
        assert chrome not in page.body
    assert homily.title == "A Printed Homily"
    assert [s.heading for s in homily.sections] == ["Page 1", "Page 2"]
    assert "First page words" in homily.body
    assert (cyril.kind.value, cyril.author, cyril.year) == ("father", "Cyril of Jerusalem", 350)
    assert cyril.sections[0].ref == "Cat. 1"


def test_idempotent_reingest_and_changed_file_replaces(settings: Settings, tmp_path: Path) -> None:
    source = write(tmp_path / "src" / "rn.md", ENCYCLICAL_MD)
    assert run_cli(settings, "ingest", str(tmp_path / "src")).exit_code == 0
    store = store_of(settings)
    before = store.stats()
    store.close()

    again = run_cli(settings, "ingest", str(source))
    assert again.exit_code == 0
    assert "0 added, 0 replaced, 1 unchanged; 0 passages written" in " ".join(again.output.split())
    store = store_of(settings)
    assert store.stats().passages == before.passages
    assert store.index_in_sync()
    store.close()

    write(source, ENCYCLICAL_MD.replace("Mount Zyphra", "Mount Quillon"))
    changed = run_cli(settings, "ingest", str(source))
    assert "0 added, 1 replaced" in " ".join(changed.output.split())
    store = store_of(settings)
    assert store.stats().passages == before.passages
    assert store.stats().documents == before.documents
    [hit] = [p for p, _, _ in store.index.search("Quillon", 10)]
    assert store.index.search("Zyphra", 10) == []
    assert store.passages([hit])[hit].document_id == "rerum-novarum"
    store.close()


@pytest.mark.parametrize(
    ("name", "content", "reason"),
    [
        ("bad.jsonl", '{"title": "ok", "body": "x"}\n{not json\n', "line 2: invalid JSON"),
        ("typo.jsonl", '{"title": "T", "body": "x", "auhtor": "me"}\n', "line 1: auhtor"),
        ("both.jsonl", '{"title": "T", "body": "x", "sections": []}\n', "exactly one of"),
        ("kind.md", "---\nkind: sermon\n---\ntext", "kind 'sermon' is not one of"),
        ("id.md", "---\nid: has space\n---\ntext", "invalid document id"),
        ("year.md", "---\nyear: soon\n---\ntext", "year 'soon' is not a year"),
        ("yaml.md", "---\ntitle: [unclosed\n---\ntext", "invalid YAML front matter"),
        ("empty.txt", "   \n", "the file is empty"),
        ("latin1.txt", "caf\xe9", "not valid UTF-8"),
        ("broken.pdf", "%PDF-1.4 garbage", "PDF"),
        ("list.json", "[]", "no documents in the file"),
    ],
)
def test_a_bad_file_is_named_and_the_others_are_ingested(
    settings: Settings, tmp_path: Path, name: str, content: str, reason: str
) -> None:
    bad = tmp_path / "src" / name
    bad.parent.mkdir()
    if name == "latin1.txt":
        bad.write_bytes(content.encode("latin-1"))
    else:
        write(bad, content)
    write(tmp_path / "src" / "good.md", "# Good\n\nA good file.")
    result = run_cli(settings, "ingest", str(tmp_path / "src"))
    assert result.exit_code == 1
    assert f"error {bad}:" in " ".join(result.output.split())
    assert reason in " ".join(result.output.split())
    assert "1 added" in result.output
    assert "Traceback" not in result.output


def test_missing_path_and_bad_options_are_clear(settings: Settings, tmp_path: Path) -> None:
    missing = run_cli(settings, "ingest", str(tmp_path / "nope"))
    assert missing.exit_code == 2
    assert "no such file or directory" in missing.output
    bad_kind = run_cli(settings, "ingest", str(tmp_path), "--kind", "poem")
    assert bad_kind.exit_code == 2
    assert "Unknown kind 'poem'" in bad_kind.output


def test_two_files_claiming_one_id_is_an_error(settings: Settings, tmp_path: Path) -> None:
    write(tmp_path / "src" / "a.md", "---\nid: same\n---\n# A\n\nfirst")
    write(tmp_path / "src" / "b.md", "---\nid: same\n---\n# B\n\nsecond")
    result = run_cli(settings, "ingest", str(tmp_path / "src"))
    assert result.exit_code == 1
    assert "document id 'same' is also given by" in " ".join(result.output.split())


def test_an_interrupted_ingest_writes_nothing(
    settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for i in range(3):
        write(
            tmp_path / "src" / f"doc{i}.md", f"# Document {i}\n\nText of the blorbic document {i}."
        )
    store = store_of(settings)
    before = store.stats()
    store.close()
    real_put = Writer.put
    calls = {"n": 0}

    def put_then_interrupt(self: Writer, *args: object, **kwargs: object) -> int:
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt
        return real_put(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Writer, "put", put_then_interrupt)
    result = run_cli(settings, "ingest", str(tmp_path / "src"))
    assert result.exit_code != 0
    monkeypatch.undo()
    store = store_of(settings)
    after = store.stats()
    assert (after.documents, after.passages, after.indexed_passages) == (
        before.documents,
        before.passages,
        before.indexed_passages,
    )
    assert store.index.search("blorbic", 10) == []
    store.close()
    assert run_cli(settings, "ingest", str(tmp_path / "src")).exit_code == 0


def test_an_index_left_ahead_of_the_database_is_rebuilt(
    settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path / "src" / "a.md", "# Alpha\n\nThe frobnitz of alpha.")
    store = store_of(settings)
    before = store.stats()

    def crash_between_commits(self: Writer) -> None:
        self._index.commit()
        raise KeyboardInterrupt

    monkeypatch.setattr(Writer, "finish", crash_between_commits)
    from magisterium_a2a.skills.knowledge.ingest import read_file

    [doc] = read_file(tmp_path / "src" / "a.md")
    with pytest.raises(KeyboardInterrupt), store.writer() as writer:
        writer.put(doc)
    monkeypatch.undo()
    store.close()
    store = Store(knowledge_dir(settings))
    assert not store.index_in_sync()
    store.close()

    prepare(settings)
    store = Store(knowledge_dir(settings))
    assert store.index_in_sync()
    assert store.stats().indexed_passages == before.passages
    assert store.index.search("frobnitz", 10) == []
    store.close()


async def test_documents_list_show_delete_and_the_catalogue_entry_returns(
    settings: Settings, tmp_path: Path
) -> None:
    write(tmp_path / "src" / "rn.md", ENCYCLICAL_MD)
    assert run_cli(settings, "ingest", str(tmp_path / "src")).exit_code == 0

    listed = run_cli(settings, "documents", "list", "--origin", "ingest", "--json")
    assert listed.exit_code == 0
    [record] = [json.loads(line) for line in listed.stdout.splitlines()]
    assert record["id"] == "rerum-novarum" and record["origin"] == "ingest"
    assert record["passages"] == 2
    catalogue = run_cli(settings, "documents", "list", "--origin", "catalogue", "--json")
    assert len(catalogue.stdout.splitlines()) > 300
    councils = run_cli(settings, "documents", "list", "--kind", "council", "--json")
    kinds = {json.loads(line)["kind"] for line in councils.stdout.splitlines()}
    assert kinds == {"council"} and '"lumen-gentium"' in councils.stdout
    table = run_cli(settings, "documents", "list", "--kind", "council")
    assert "47 documents." in table.stdout

    shown = run_cli(settings, "documents", "show", "rerum-novarum", "--full")
    assert shown.exit_code == 0
    assert "author: Leo XIII" in shown.stdout and "Mount Zyphra" in shown.stdout

    async with harness(settings, builtins=BUILTINS) as h:
        token = await h.token()
        deleted = run_cli(settings, "documents", "delete", "rerum-novarum")
        assert deleted.exit_code == 0
        assert "built-in catalogue entry is served again" in deleted.stdout
        # The running server follows the change without a restart.
        task = await fetch(h, token, [{"kind": "text", "text": "rerum-novarum"}])
        assert "catalogue entry" in task["artifacts"][0]["parts"][0]["text"]
        assert result_ids(await search(h, token, "quarry at Mount Zyphra")) == []

        assert run_cli(settings, "documents", "delete", "rerum-novarum").exit_code == 0
        task = await fetch(h, token, [{"kind": "text", "text": "rerum-novarum"}])
        assert task["artifacts"][0]["parts"] == [{"kind": "text", "text": "Document not found."}]

        write(tmp_path / "src" / "new.md", "# Brand New\n\nThe snorkack of the new document.")
        assert run_cli(settings, "ingest", str(tmp_path / "src" / "new.md")).exit_code == 0
        assert result_ids(await search(h, token, "snorkack")) == ["new"]

    missing = run_cli(settings, "documents", "delete", "rerum-novarum")
    assert missing.exit_code == 1 and "No document with id" in missing.output
    assert run_cli(settings, "documents", "show", "nope").exit_code == 1


def test_doctor_reports_the_mode_and_the_index(settings: Settings) -> None:
    result = run_cli(settings, "doctor")
    assert result.exit_code == 0, result.output
    text = " ".join(result.stdout.split())
    assert "search mode: HYBRID: BM25 fused with the in-process model" in text
    assert "from the built-in catalogue" in text
    assert "(consistent)" in text


def test_the_builtin_corpus_can_be_switched_off(settings: Settings) -> None:
    assert run_cli(settings, "doctor").exit_code == 0
    result = run_cli(settings, "documents", "list", env={"A2A_BUILTIN_CORPUS": "false"})
    assert result.exit_code == 0
    assert "0 documents." in result.stdout
    assert "314 documents." in run_cli(settings, "documents", "list").stdout


def test_a_store_of_another_layout_is_a_clear_error(settings: Settings) -> None:
    store = store_of(settings)
    with store.writer() as writer:
        writer.set_meta("schema", "0")
    store.close()
    for command in (["doctor"], ["documents", "list"], ["ingest", str(settings.data_dir)]):
        result = run_cli(settings, *command)
        assert result.exit_code != 0
        expected = f"has layout 0, this version needs {SCHEMA_VERSION}"
        assert expected in " ".join(result.output.split())
        assert "Traceback" not in result.output


async def test_the_store_is_asked_for_commits_once_per_turn_of_the_loop(
    settings: Settings, tmp_path: Path
) -> None:
    """A fetch follows another process' commit from the next turn of the event loop
    on: one query to SQLite per turn, not per request."""
    from magisterium_a2a.skills.knowledge.retrieval import KnowledgeBase

    ks = KnowledgeSettings(data_dir=settings.data_dir, embeddings_local=False)
    kb = KnowledgeBase.open(ks)
    asked: list[int] = []
    version = kb.store.data_version

    def counted() -> int:
        asked.append(1)
        return version()

    kb.store.data_version = counted  # type: ignore[method-assign]
    try:
        assert kb.fetch("rerum-novarum") is not None
        for _ in range(5):
            kb.fetch("lumen-gentium")
        assert len(asked) == 1
        write(tmp_path / "src" / "rn.md", ENCYCLICAL_MD)
        assert run_cli(settings, "ingest", str(tmp_path / "src")).exit_code == 0
        same_turn = kb.fetch("rerum-novarum")
        assert same_turn is not None and "Mount Zyphra" not in same_turn.body
        await asyncio.sleep(0)
        next_turn = kb.fetch("rerum-novarum")
        assert next_turn is not None and "Mount Zyphra" in next_turn.body
        assert len(asked) == 2
    finally:
        await kb.aclose()


def test_off_the_loop_every_fetch_follows_a_commit(settings: Settings, tmp_path: Path) -> None:
    from magisterium_a2a.skills.knowledge.retrieval import KnowledgeBase

    kb = KnowledgeBase.open(KnowledgeSettings(data_dir=settings.data_dir, embeddings_local=False))
    try:
        before = kb.fetch("rerum-novarum")
        assert before is not None and "Mount Zyphra" not in before.body
        write(tmp_path / "src" / "rn.md", ENCYCLICAL_MD)
        assert run_cli(settings, "ingest", str(tmp_path / "src")).exit_code == 0
        after = kb.fetch("rerum-novarum")
        assert after is not None and "Mount Zyphra" in after.body
    finally:
        asyncio.run(kb.aclose())
