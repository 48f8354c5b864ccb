"""Question answering over the knowledge base, behind the ``catholic_qa`` skill.

The path of one question: ``conversation`` reads the earlier turns of the
context and makes the retrieval query; ``engine`` retrieves passages and
numbers them as ``Source`` objects; a ``provider`` (``openai_chat`` for any
OpenAI-compatible chat model, ``extractive`` when none is configured) writes a
draft with ``[n]`` footnotes; ``citations`` checks the draft against the
sources and renumbers the footnotes into the final ``Answer``.
"""
