"""The sign-in and consent page: plain HTML, no script, nothing from elsewhere.

A user proves who they are with the API token the operator issued them and
approves (or denies) the client. Every field has a label, the error is
announced (``role="alert"``) and tied to the field it concerns, and the page
reads the same without styles.
"""

from __future__ import annotations

from html import escape

PLAN_CHOICES = ("free", "pro", "organization", "enterprise")

_STYLE = (
    "body{font-family:system-ui,sans-serif;max-width:34rem;margin:2rem auto;padding:0 1rem;"
    "line-height:1.5;color:#1b1b1b;background:#fff}"
    "label,legend{font-weight:600}input[type=password]{width:100%;padding:.5rem;font-size:1rem}"
    "fieldset{border:1px solid #767676;margin:1rem 0}"
    ".error{border-left:4px solid #b00020;padding:.25rem .75rem;color:#b00020}"
    "button{font-size:1rem;padding:.5rem 1.25rem;margin-right:.75rem}"
    "code{overflow-wrap:anywhere}"
)


def login_page(
    *,
    action: str,
    client_name: str | None,
    client_id: str,
    redirect_uri: str | None,
    scope: str,
    params: list[tuple[str, str]],
    csrf: str,
    demo_plans: bool,
    error: str | None = None,
) -> str:
    name = escape(client_name or client_id)
    hidden = "\n".join(
        f'<input type="hidden" name="{escape(k)}" value="{escape(v)}">' for k, v in params
    )
    hidden += f'\n<input type="hidden" name="csrf" value="{escape(csrf)}">'
    described = ' aria-describedby="token-error" aria-invalid="true"' if error else ""
    alert = f'<p id="token-error" class="error" role="alert">{escape(error)}</p>' if error else ""
    destination = (
        f"<p>After you decide, you go back to <code>{escape(redirect_uri)}</code>.</p>"
        if redirect_uri
        else ""
    )
    plans = ""
    if demo_plans:
        options = "\n".join(
            f'<div><input type="radio" id="plan-{p}" name="demo_plan" value="{p}">'
            f' <label for="plan-{p}">Demo user on the {p} plan</label></div>'
            for p in PLAN_CHOICES
        )
        plans = (
            "<fieldset><legend>Development mode: or sign in as a demo user</legend>"
            f"{options}</fieldset>"
        )
    return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Sign in to allow {name}</title>
<style>{_STYLE}</style>
</head>
<body>
<main>
<h1>Allow {name} to use your account?</h1>
<p><strong>{name}</strong> asks to call this agent for you (scope <code>{escape(scope)}</code>),
with your plan and your rate limits. It never sees your API token.</p>
{destination}
<form method="post" action="{escape(action)}">
{hidden}
{alert}
<p><label for="api_token">Your API token</label><br>
<input type="password" id="api_token" name="api_token" autocomplete="current-password"
 spellcheck="false"{described}></p>
{plans}
<p><button type="submit" name="decision" value="approve">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button></p>
</form>
</main>
</body>
</html>
"""


def error_page(status: int, error: str, description: str | None) -> str:
    """A request the client cannot be told about (unknown client, bad redirect URI)."""
    detail = f"<p>{escape(description)}</p>" if description else ""
    return f"""<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Authorization request refused</title><style>{_STYLE}</style></head>
<body><main>
<h1>This authorization request cannot be served</h1>
<p role="alert">Error <code>{escape(error)}</code> (HTTP {status}).</p>
{detail}
<p>Go back to the application and try again; if it keeps happening, tell its developer.</p>
</main></body>
</html>
"""
