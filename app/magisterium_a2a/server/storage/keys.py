"""Every key the server writes, under one prefix, named in one place.

Every per-user key carries the user in a hash tag (``{...}``) so that, on a
Redis Cluster, one user's tasks, contexts, limits and revocation markers share
a slot and one script may touch them together. The test mode's scenario keys
carry the token hash in theirs, for the same reason.
"""

from __future__ import annotations

from functools import lru_cache
from urllib.parse import quote


@lru_cache(maxsize=65_536)
def _user_tag(user_id: str) -> str:
    """A user's hash tag: any user id, made safe for a key (quoted on every request before)."""
    return "{" + quote(user_id, safe="") + "}"


class Keys:
    """Names of every key the server writes, under one prefix."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix

    def user_tag(self, user_id: str) -> str:
        return _user_tag(user_id)

    # --- one user's keys (one hash slot) ---------------------------------------

    def task(self, user_id: str, task_id: str) -> str:
        return f"{self.prefix}:{_user_tag(user_id)}:task:{task_id}"

    def context(self, user_id: str, context_id: str) -> str:
        return f"{self.prefix}:{_user_tag(user_id)}:ctx:{context_id}"

    def bucket(self, user_id: str, bucket: str) -> str:
        return f"{self.prefix}:{_user_tag(user_id)}:limit:{bucket}"

    def revoked(self, user_id: str, token_id: str) -> str:
        """Exists for a while after the token ``token_id`` of this user is revoked."""
        return f"{self.prefix}:{_user_tag(user_id)}:revoked:{token_id}"

    # --- tokens -------------------------------------------------------------------

    def token(self, token_hash: str) -> str:
        return f"{self.prefix}:token:{token_hash}"

    @property
    def token_index(self) -> str:
        return f"{self.prefix}:tokens"

    def is_token_key(self, key: str) -> bool:
        """Whether ``key`` belongs to the token store (which a test-mode reset keeps)."""
        return key == self.token_index or key.startswith(f"{self.prefix}:token:")

    # --- the test mode ------------------------------------------------------------

    @property
    def test_clock(self) -> str:
        """The test mode's clock offset (seconds), shared by every process."""
        return f"{self.prefix}:test:clock"

    def test_scenarios(self, token_id: str) -> str:
        """A hash: scenario id -> its spec (JSON), for one token."""
        return f"{self.prefix}:test:{{{token_id}}}:scenarios"

    def test_counts(self, token_id: str) -> str:
        """A hash: scenario id -> how many calls it still applies to, for one token."""
        return f"{self.prefix}:test:{{{token_id}}}:counts"

    @property
    def everything(self) -> str:
        """A SCAN pattern matching every key under the prefix."""
        return f"{self.prefix}:*"
