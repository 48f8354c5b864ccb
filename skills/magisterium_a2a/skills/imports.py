"""What every importer of operator files shares: YAML without aliases, text
fields of bounded length that no spreadsheet reads as a formula, and URLs that
point at public web hosts only.

Imported data is shown to every caller of the skills, so a file an operator was
handed must not turn a 70 KB YAML file into a 200 MB store (aliases), a name
into a spreadsheet formula (``=HYPERLINK(...)`` in an exported answer), or an
image link into a pointer at the operator's own network (169.254.169.254).
"""

from __future__ import annotations

import ipaddress
from typing import Annotated, Any
from urllib.parse import urlsplit

import yaml
from pydantic import AfterValidator, Field

MAX_TEXT_CHARS = 200
"""A name, place, title or other one-line field of an imported record."""
MAX_LIST_ITEMS = 50
"""Aliases, education and other lists of an imported record."""
MAX_URL_CHARS = 2000
FORMULA_STARTS = ("=", "+", "@", "\t", "\r")
PRIVATE_SUFFIXES = (".localhost", ".local", ".internal", ".lan", ".home.arpa", ".corp")


class NoAliasLoader(yaml.SafeLoader):
    """PyYAML's safe loader that refuses aliases (``*name``): each would copy its
    anchor's whole value again, and a small file could expand without bound."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()  # type: ignore[no-untyped-call]
            raise yaml.composer.ComposerError(
                None,
                None,
                "aliases (*name) are not accepted in imported files; write the value out",
                event.start_mark,
            )
        return super().compose_node(parent, index)


def load_yaml(text: str) -> Any:
    """YAML as ``yaml.safe_load`` reads it, without aliases (``yaml.YAMLError`` if any)."""
    return yaml.load(text, Loader=NoAliasLoader)


def plain_text(value: str) -> str:
    """A one-line text field: no formula start, no control characters."""
    if value.startswith(FORMULA_STARTS):
        raise ValueError("must not start with =, +, @ or a control character")
    if not value.isprintable():
        raise ValueError("must not contain control characters")
    return value


def public_url(value: str) -> str:
    """An http(s) URL of a public host: no userinfo, no IP address or name of a
    private, loopback, link-local or reserved network."""
    parts = urlsplit(value)
    host = parts.hostname or ""
    if parts.scheme not in ("http", "https") or not host or "@" in parts.netloc:
        raise ValueError("must be an http(s) URL of a public host")
    if not value.isprintable() or "\\" in value:
        raise ValueError("must not contain control characters or backslashes")
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        if host == "localhost" or host.endswith(PRIVATE_SUFFIXES) or "." not in host:
            raise ValueError(f"{host!r} is not a public host") from None
        return value
    if not address.is_global:
        raise ValueError(f"{host!r} is not a public address")
    return value


Text = Annotated[str, Field(max_length=MAX_TEXT_CHARS), AfterValidator(plain_text)]
"""A one-line text field of an imported record."""
Texts = Annotated[list[Text], Field(max_length=MAX_LIST_ITEMS)]
URL = Annotated[str, Field(max_length=MAX_URL_CHARS), AfterValidator(public_url)]
