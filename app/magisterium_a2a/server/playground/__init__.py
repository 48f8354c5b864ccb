"""The playground: a static page at ``/`` for trying the endpoint from a browser.

It is a client like any other: it reads the agent card, posts JSON-RPC to the
card's ``url``, and signs in through the OAuth discovery documents, so it
shows exactly what a client sees (the server has no private API for it). The
files ship with the package (``static/``) and need no build step; they are
read once, when the routes are built, and served with a strict Content
Security Policy: scripts, styles and images from this origin only, network
calls to this origin and the public URL's, no frames, no form posts.

On by default in development and test mode; ``A2A_PLAYGROUND=1`` turns it on
elsewhere, ``A2A_PLAYGROUND=0`` off.
"""

from magisterium_a2a.server.playground.routes import ASSET_PREFIX, build_router

__all__ = ["ASSET_PREFIX", "build_router"]
