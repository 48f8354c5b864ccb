"""The knowledge base: documents, their passages, the on-disk store with its
full-text index, ingestion, embeddings and retrieval.

Skills and ``catholic_qa`` use it through ``skills.knowledge.retrieval``
(see that module for the stable API); the operator commands use ``library``
and ``ingestion``.
"""
