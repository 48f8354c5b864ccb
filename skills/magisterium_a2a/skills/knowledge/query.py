"""Query understanding: what a question asks, in the vocabulary of the sources.

Two steps, both cheap and both before the search itself:

- question scaffolding ("what does the Church teach about", "is it true
  that", "ever") is dropped from the words matched lexically; the index's
  analyser already drops single question words ("does", "why", ...);
- the team's theological thesaurus (``data/thesaurus.yaml``) adds the words
  the sources use for the reader's everyday ones ("change" adds
  "immutability", "choose freely" adds "free-will"). It only adds: every
  word of the question stays in the search, and added words weigh less.

Entries match on analysed terms (lower-cased, stemmed, stop words dropped),
so "changes" and "changing" trigger the entry written as "change", and a
phrase matches when all its words are in the question, in any order.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

import yaml

# libyaml when PyYAML has it (its wheels do): ten times faster than the pure-Python reader
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

Analyse = Callable[[str], list[str]]
"""Text to analysed search terms (``PassageIndex.terms``)."""

_SCAFFOLDING = re.compile(
    r"""
    \b(?:
        what\s+(?:does|do|did|is|has)\s+(?:the\s+)?(?:catholic\s+)?church\s+
            (?:say|says|teach|teaches|think|believe|hold)(?:\s+(?:about|on|regarding|concerning))?
      | (?:according\s+to|in)\s+(?:the\s+)?(?:catholic\s+)?(?:church|church's|catholic)\s+
            (?:teaching|doctrine)
      | according\s+to\s+(?:the\s+)?(?:catholic\s+)?church
      | is\s+it\s+true\s+that
      | (?:can\s+you\s+)?(?:please\s+)?(?:tell|explain\s+to|show)\s+me(?:\s+about)?
      | i\s+(?:want|would\s+like)\s+to\s+know(?:\s+about)?
      | ever | really | actually | exactly
      | allowed | permitted | permissible | acceptable | okay | ok
    )\b
    """,
    re.IGNORECASE | re.VERBOSE,
)


class ThesaurusError(ValueError):
    """The thesaurus file is malformed; the message says where."""


@dataclass(frozen=True, slots=True)
class Entry:
    when: tuple[str, ...]
    add: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Understood:
    """A question ready for search."""

    question: str
    """The reader's text, unchanged (what the embedding model reads)."""
    lexical: str
    """The text matched lexically: the question less its scaffolding."""
    expansions: tuple[str, ...]
    """Words and phrases of the sources' vocabulary added by the thesaurus."""


def strip_scaffolding(question: str) -> str:
    """The question without its scaffolding phrases; the question itself when
    nothing else would remain."""
    stripped = " ".join(_SCAFFOLDING.sub(" ", question).split())
    return stripped if stripped.strip(" ?.!,;:") else question


def parse_entries(data: Any) -> list[Entry]:
    if not isinstance(data, list):
        raise ThesaurusError("the thesaurus is a list of entries")
    entries: list[Entry] = []
    for number, item in enumerate(data, start=1):
        if not isinstance(item, dict) or set(item) != {"when", "add"}:
            raise ThesaurusError(f"entry {number}: needs exactly 'when' and 'add'")
        when, add = item["when"], item["add"]
        if not (isinstance(when, list) and isinstance(add, list) and when and add):
            raise ThesaurusError(f"entry {number}: 'when' and 'add' are non-empty lists")
        entries.append(Entry(tuple(str(w) for w in when), tuple(str(a) for a in add)))
    return entries


@functools.cache
def builtin_entries() -> tuple[Entry, ...]:
    """The shipped thesaurus."""
    text = resources.files("magisterium_a2a.skills.data").joinpath("thesaurus.yaml").read_text()
    return tuple(parse_entries(yaml.load(text, Loader=_LOADER)))


class Thesaurus:
    """Entries compiled against one analyser."""

    def __init__(self, entries: Sequence[Entry], analyse: Analyse) -> None:
        self._analyse = analyse
        self._rules: list[tuple[list[frozenset[str]], tuple[str, ...]]] = []
        for entry in entries:
            triggers = [frozenset(analyse(phrase)) for phrase in entry.when]
            triggers = [t for t in triggers if t]
            if triggers:
                self._rules.append((triggers, entry.add))

    def __len__(self) -> int:
        return len(self._rules)

    def expansions(self, question: str) -> tuple[str, ...]:
        """The added words for a question: every triggered entry's words, less
        those whose terms the question already has, without repeats."""
        terms = set(self._analyse(question))
        added: dict[str, None] = {}
        for triggers, words in self._rules:
            if any(trigger <= terms for trigger in triggers):
                for word in words:
                    if not set(self._analyse(word)) <= terms:
                        added[word] = None
        return tuple(added)

    def fired(self, question: str) -> list[tuple[frozenset[str], tuple[str, ...]]]:
        """Each trigger the question holds (its analysed terms) with the words its
        entry adds: which of the reader's words a thesaurus word stands for."""
        terms = set(self._analyse(question))
        return [
            (trigger, words)
            for triggers, words in self._rules
            for trigger in triggers
            if trigger <= terms
        ]

    def understand(self, question: str) -> Understood:
        return Understood(question, strip_scaffolding(question), self.expansions(question))
