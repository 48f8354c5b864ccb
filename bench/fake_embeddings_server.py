"""The tests' fake OpenAI-compatible embeddings server as its own process, so
that a benchmark measures a real loopback round trip without sharing the
benchmark's interpreter: ``python -m bench.fake_embeddings_server PORT DIMS``."""

from __future__ import annotations

import sys

from tests.kb_support import FakeEmbeddings

if __name__ == "__main__":
    FakeEmbeddings(int(sys.argv[2]), port=int(sys.argv[1])).server.serve_forever()
