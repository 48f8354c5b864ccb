"""OAuth 2.0 as the hosted service offers it: discovery (RFC 8414, RFC 9728),
dynamic client registration (RFC 7591), the authorization-code grant with PKCE
(RFC 7636), refresh-token rotation and revocation (RFC 7009), built on authlib.

``store`` keeps the state in Redis (or the embedded fakeredis), ``server``
adapts authlib's authorization server to it, ``routes`` serves it over HTTP,
``discovery`` writes the metadata documents, ``page`` the login page and
``delegation`` reads an external provider's metadata instead.
"""
