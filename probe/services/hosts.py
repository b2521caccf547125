"""Where a model configuration may send requests: a plain http(s) base URL, to an allowed host."""

from urllib.parse import urlsplit

from django.conf import settings
from django.utils.translation import gettext as _


def check_url(base_url: str) -> str | None:
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return _("The base URL must start with http:// or https:// and name a host.")
    if parts.query or parts.fragment or parts.username or parts.password:
        return _(
            "The base URL must not carry a query string or a user name and password: API keys "
            "belong in an environment variable."
        )
    return None


def _host_matches(host: str, pattern: str) -> bool:
    pattern = pattern.strip().lower().strip("[]").rstrip(".")
    if pattern.startswith("*."):
        return host.endswith(pattern[1:])
    return host == pattern


def provider_host_problem(base_url: str) -> str | None:
    """Why a request to this base URL may not be sent, or None.

    Only hosts in settings.ALLOWED_PROVIDER_HOSTS are called: the public provider APIs and
    loopback by default, more through the ALLOWED_PROVIDER_HOSTS environment variable, which
    only whoever runs the server sets. No team member can aim a configuration at the server's
    internal network (a database, a cloud metadata address) and read the reply on a page.
    """
    host = (urlsplit(base_url).hostname or "").lower().rstrip(".")
    if not host:
        return None  # no base URL: the adapter's own public default
    if any(_host_matches(host, pattern) for pattern in settings.ALLOWED_PROVIDER_HOSTS):
        return None
    return _(
        "This server does not send requests to %(host)s. The public provider APIs and local "
        "servers (localhost, 127.0.0.1) are allowed; whoever runs the server can allow more "
        "hosts with the ALLOWED_PROVIDER_HOSTS setting."
    ) % {"host": host}
