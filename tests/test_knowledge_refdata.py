"""Ingestion and retrieval on the real data sets in ../shared/refdata/kb-*
(the Summa's Prima Pars as JSON, the Catechism of Trent as Markdown, the
letters of Cyprian as old HTML), together with the built-in catalogue.

The store is built once per session; the tests skip with a reason when the
data sets are absent (CI has them)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from magisterium_a2a.server.config import Settings
from magisterium_a2a.skills.knowledge.ingest import read_file
from magisterium_a2a.skills.knowledge.library import knowledge_dir
from magisterium_a2a.skills.knowledge.retrieval import KnowledgeBase
from magisterium_a2a.skills.knowledge.store import Store
from tests.kb_support import (
    BUILTINS,
    CYPRIAN,
    SUMMA,
    TRENT,
    fetch,
    need_kb_refdata,
    result_ids,
    run_cli,
    search,
)
from tests.support import harness, isolated_settings


@pytest.fixture(scope="session")
def refdata_settings(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Settings]:
    need_kb_refdata()
    # BM25 (with the thesaurus) over the whole sets: embedding their 4,400 passages
    # would take minutes; tests/test_knowledge_semantic.py embeds a part of them.
    with isolated_settings(
        data_dir=tmp_path_factory.mktemp("kb-refdata"), embeddings_local=False
    ) as settings:
        result = run_cli(
            settings,
            "ingest",
            str(SUMMA),
            str(CYPRIAN),
            str(TRENT),
            "--include",
            "*.[hj]*",
            env={"A2A_EMBEDDINGS_LOCAL": "false"},
        )
        assert result.exit_code == 0, result.output
        settings.__dict__["_ingest_output"] = " ".join(result.output.split())
        yield settings


@pytest.fixture(scope="session")
def store(refdata_settings: Settings) -> Iterator[Store]:
    opened = Store(knowledge_dir(refdata_settings), readonly=True)
    yield opened
    opened.close()


def test_ingest_summary_counts_every_file(refdata_settings: Settings) -> None:
    summary = refdata_settings.__dict__["_ingest_output"]
    # 119 question files + 5 treatise files repeating 76 of them, 82 letters, 1 catechism.
    assert "Ingested 202 documents from 207 files" in summary
    assert "202 added, 0 replaced, 0 unchanged" in summary


def test_summa_questions_from_json(store: Store) -> None:
    summa = [d for d in store.documents(kind="theology") if d.info.id.startswith("summa-")]
    assert len(summa) == 119
    q2 = store.document("summa-theologiae-i-q2")
    assert q2 is not None
    assert q2.title == "Summa Theologiae I, q. 2: The Existence of God"
    assert (q2.author, q2.ref, q2.year) == ("Thomas Aquinas", "Summa Theologiae I q.2", 1268)
    assert [s.ref for s in q2.sections] == [
        "Summa Theologiae I q.2",
        "Summa Theologiae I q.2 a.1",
        "Summa Theologiae I q.2 a.2",
        "Summa Theologiae I q.2 a.3",
    ]
    assert q2.sections[3].heading == "Article 3. Whether God exists?"
    assert "I answer that, The existence of God can be proved in five ways." in q2.body
    q119 = store.document("summa-theologiae-i-q119")
    assert q119 is not None and q119.title.endswith("Of the Propagation of Man As to the Body")


def test_catechism_of_trent_from_markdown(store: Store) -> None:
    trent = store.document("catholic-catechism-trent")
    assert trent is not None
    assert trent.title == "Catechism of the Council of Trent (McHugh & Callan Translation)"
    assert trent.kind.value == "catechism"
    assert trent.author == "John A. McHugh, O.P.; Charles J. Callan, O.P."
    assert len(trent.sections) > 1000
    headings = {s.heading for s in trent.sections}
    assert {"The Necessity Of Religious Instruction", "Definition Of Matrimony"} <= headings
    # The table of contents is navigation, not content.
    assert "Table of Contents" not in headings
    assert "](#" not in trent.body
    # The store gives back exactly the sections it was given.
    [original] = read_file(TRENT)
    assert trent.sections == original.sections
    assert trent.body == original.body


def test_cyprian_letters_from_html(store: Store) -> None:
    letters = [d for d in store.documents() if d.info.id.startswith("epistle-")]
    assert len(letters) == 82
    titles = {d.info.id: d.info.title for d in letters}
    # The subtitle printed under each letter's heading is part of its title.
    assert titles["epistle-66"] == (
        "Epistle LXVI: To Father Stephanus, Concerning Marcianus of Arles, "
        "Who Had Joined Himself to Novatian"
    )
    assert titles["epistle-51"] == "Epistle LI: To Antonianus About Cornelius and Novatian"
    assert titles["epistle-1"] == "Epistle I: To Donatus"
    # A dating note after the subtitle is not part of it.
    assert titles["epistle-3"] == "Epistle III: To the Presbyters and Deacons Abiding at Rome"
    # A heading that already carries its subtitle is left as it is.
    assert titles["epistle-60"] == "Epistle LX. To Euchratius, About an Actor"
    assert not any(t.endswith(("Argument", ".")) for t in titles.values())
    assert all(t.startswith("Epistle ") for t in titles.values())
    assert not any("Ante-Nicene Fathers" in t for t in titles.values())
    for doc_id in titles:
        document = store.document(doc_id)
        assert document is not None
        body = document.body
        for chrome in ("Mirrored from", "HTTrack", "highlight.js", "TopOfPage", "<", "LOC_P"):
            assert chrome not in body, (doc_id, chrome)
    letter = store.document("epistle-66")
    assert letter is not None
    assert letter.body.count("Argument.-As Marcianus, Bishop of Arles") == 1
    assert "Cyprian to his brother Stephen, greeting." in letter.body
    # Footnote markers do not glue digits onto words.
    assert "behoves you to write" in letter.body


def test_reingest_creates_no_duplicates(refdata_settings: Settings, store: Store) -> None:
    before = store.stats()
    again = run_cli(
        refdata_settings,
        "ingest",
        str(SUMMA),
        str(CYPRIAN),
        "--include",
        "*.[hj]*",
        env={"A2A_EMBEDDINGS_LOCAL": "false"},
    )
    assert again.exit_code == 0
    assert "0 added, 0 replaced, 201 unchanged; 0 passages written" in " ".join(
        again.output.split()
    )
    store.refresh()
    after = store.stats()
    assert (after.documents, after.passages, after.indexed_passages) == (
        before.documents,
        before.passages,
        before.indexed_passages,
    )


# Natural questions and the document that must be among the first three.
QUESTIONS: list[tuple[str, str]] = [
    ("does God exist", "summa-theologiae-i-q2"),
    ("is God a body", "summa-theologiae-i-q3"),
    ("can an angel be in several places at once", "summa-theologiae-i-q52"),
    ("does God know future contingent things", "summa-theologiae-i-q14"),
    ("did the world always exist", "summa-theologiae-i-q46"),
    ("is the soul a body", "summa-theologiae-i-q75"),
    ("whether God is everywhere", "summa-theologiae-i-q8"),
    ("do angels speak to one another", "summa-theologiae-i-q107"),
    ("what is predestination", "summa-theologiae-i-q23"),
    ("should infants be baptized before the eighth day", "epistle-58"),
    ("mixing water with the wine in the cup of the Lord", "epistle-62"),
    ("may an actor receive communion", "epistle-60"),
    ("ransoming Christians taken captive by barbarians", "epistle-59"),
    ("consecrated virgins who sleep with men", "epistle-61"),
    ("care of the poor and strangers", "epistle-35"),
    ("the twelve articles of the creed explained for parish priests", "catholic-catechism-trent"),
    ("papal infallibility", "pastor-aeternus"),
    ("the Immaculate Conception", "ineffabilis-deus"),
    ("the Assumption of Mary", "munificentissimus-deus"),
    ("encyclical on ecology and climate change", "laudato-si"),
    ("is contraception allowed", "humanae-vitae"),
    ("a just wage for workers", "rerum-novarum"),
    ("religious liberty", "dignitatis-humanae"),
    ("artificial intelligence", "antiqua-et-nova"),
    ("can women be ordained priests", "ordinatio-sacerdotalis"),
    ("is euthanasia allowed", "iura-et-bona"),
    ("the feast of Christ the King", "quas-primas"),
    ("the Church and non-Christian religions", "nostra-aetate"),
    ("evolution and the origin of man", "humani-generis"),
    ("the prodigal son", "dives-in-misericordia"),
    ("Rerum Novarum", "rerum-novarum"),
]


@pytest.fixture(scope="session")
def knowledge(refdata_settings: Settings) -> Iterator[KnowledgeBase]:
    kb = KnowledgeBase.open(refdata_settings)
    yield kb
    asyncio.run(kb.aclose())


@pytest.mark.parametrize(("question", "expected"), QUESTIONS)
async def test_the_expected_document_is_in_the_top_three(
    knowledge: KnowledgeBase, question: str, expected: str
) -> None:
    hits = await knowledge.search_documents(question, limit=3)
    assert expected in [hit.document.id for hit in hits]


async def test_passages_carry_what_a_citation_needs(knowledge: KnowledgeBase) -> None:
    hits = await knowledge.search_passages("whether God exists", limit=5)
    assert len(hits) == 5
    assert hits[0].document.id == "summa-theologiae-i-q2"
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    best = next(h for h in hits if h.ref == "Summa Theologiae I q.2 a.3")
    assert best.heading == "Article 3. Whether God exists?"
    assert best.cite_id.startswith("summa-theologiae-i-q2#")
    again = knowledge.passage(best.cite_id)
    assert again is not None and again.text == best.text
    citation = best.citation(0)
    assert citation == {
        "cited_text": best.text,
        "cited_text_heading": "Article 3. Whether God exists?",
        "document_title": "Summa Theologiae I, q. 2: The Existence of God",
        "document_index": 0,
        "document_author": "Thomas Aquinas",
        "document_year": 1268,
        "document_reference": "Summa Theologiae I q.2 a.3",
        "source_url": None,
        "document_id": "summa-theologiae-i-q2",
    }
    assert knowledge.passage("summa-theologiae-i-q2#99999") is None
    assert knowledge.passage("no-hash") is None


async def test_search_and_fetch_over_the_ingested_sets(refdata_settings: Settings) -> None:
    async with harness(refdata_settings, builtins=BUILTINS) as h:
        token = await h.token()
        ids = result_ids(await search(h, token, {"query": "does God exist", "kind": "theology"}))
        assert ids[0] == "summa-theologiae-i-q2"
        assert all(i.startswith("summa-") for i in ids)
        task = await fetch(h, token, [{"kind": "data", "data": {"id": ids[0]}}])
        body, data = task["artifacts"][0]["parts"]
        assert data["data"] == {
            "id": "summa-theologiae-i-q2",
            "title": "Summa Theologiae I, q. 2: The Existence of God",
            "author": "Thomas Aquinas",
            "ref": "Summa Theologiae I q.2",
        }
        assert "Article 3. Whether God exists?" in body["text"]
        letter = await fetch(h, token, [{"kind": "text", "text": "epistle-66"}])
        assert letter["artifacts"][0]["parts"][1]["data"]["ref"] is None
