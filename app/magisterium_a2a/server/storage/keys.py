"""Every key the server writes, under one prefix, named in one place.

Every per-user key carries the user in a hash tag (``{...}``) so that, on a
Redis Cluster, one user's tasks, contexts, limits and revocation markers share
a slot and one script may touch them together. The test mode's scenario keys
carry the token hash in theirs, for the same reason.
"""

from __future__ import annotations

from functools import lru_cache


@lru_cache(maxsize=65_536)
def _user_tag(owner: str) -> str:
    """A user's hash tag, from ``identity.owner_key`` (already safe inside a key)."""
    return "{" + owner + "}"


class Keys:
    """Names of every key the server writes, under one prefix."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix

    def user_tag(self, owner: str) -> str:
        return _user_tag(owner)

    # --- one user's keys (one hash slot) ---------------------------------------
    # They take the user's ``owner`` key (``Principal.owner``), which keeps users
    # of different issuers apart.

    def task(self, owner: str, task_id: str) -> str:
        return f"{self.prefix}:{_user_tag(owner)}:task:{task_id}"

    def context(self, owner: str, context_id: str) -> str:
        return f"{self.prefix}:{_user_tag(owner)}:ctx:{context_id}"

    def bucket(self, owner: str, bucket: str) -> str:
        return f"{self.prefix}:{_user_tag(owner)}:limit:{bucket}"

    def revoked(self, owner: str, token_id: str) -> str:
        """Exists for a while after the token ``token_id`` of this user is revoked."""
        return f"{self.prefix}:{_user_tag(owner)}:revoked:{token_id}"

    # --- tokens -------------------------------------------------------------------

    def token(self, token_hash: str) -> str:
        return f"{self.prefix}:token:{token_hash}"

    @property
    def token_index(self) -> str:
        return f"{self.prefix}:tokens"

    def is_credential_key(self, key: str) -> bool:
        """Whether ``key`` belongs to the token store or the OAuth server (clients,
        sessions): credentials, which a test-mode reset keeps."""
        return key == self.token_index or key.startswith(
            (f"{self.prefix}:token:", f"{self.prefix}:oauth:")
        )

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


class OAuthKeys:
    """Every Redis key of the authorization server, under the server's prefix.

    None is per user; a grant's record and its tombstone share a hash tag (the
    grant id), so one read sees both on a Redis Cluster too.
    """

    def __init__(self, prefix: str) -> None:
        self.base = f"{prefix}:oauth"
        self.limits = f"{prefix}:oauth-limit"

    def client(self, client_id: str) -> str:
        return f"{self.base}:client:{client_id}"

    def code(self, code_hash: str) -> str:
        return f"{self.base}:code:{code_hash}"

    def grant(self, grant_id: str) -> str:
        return f"{self.base}:grant:{{{grant_id}}}"

    def grant_ended(self, grant_id: str) -> str:
        return f"{self.base}:grant:{{{grant_id}}}:ended"

    def access(self, token_hash: str) -> str:
        return f"{self.base}:access:{token_hash}"

    def refresh(self, token_hash: str) -> str:
        return f"{self.base}:refresh:{token_hash}"

    def refresh_used(self, token_hash: str) -> str:
        return f"{self.base}:refresh-used:{token_hash}"

    def code_used(self, code_hash: str) -> str:
        """The grant a spent code opened, kept a day after the code's own record
        is gone, so that a second use still ends that grant."""
        return f"{self.base}:code-used:{code_hash}"

    @property
    def csrf_key(self) -> str:
        """The key that signs the login form's CSRF tokens, shared by every replica."""
        return f"{self.base}:csrf-key"

    def csrf_used(self, nonce: str) -> str:
        return f"{self.base}:csrf-used:{nonce}"

    def throttle(self, kind: str, who: str, window: int) -> str:
        """A fixed-window counter: registrations, approvals, failed sign-ins. Not
        under ``oauth:``, so a test-mode reset forgets it as it does rate limits."""
        return f"{self.limits}:{kind}:{window}:{who}"
