"""Where a model configuration may send requests: a plain http(s) base URL, to an allowed host.

Two rules. A named host must be on the operator's list (settings.ALLOWED_PROVIDER_HOSTS). A
loopback address (127.0.0.0/8, ::1, localhost) reaches the server's own services (Redis,
PostgreSQL, the app itself), so it is allowed only on the ports the operator listed in
settings.PROVIDER_LOOPBACK_PORTS (the local simulator's by default), whatever the host list says.
"""

import ipaddress
from urllib.parse import urlsplit

from django.conf import settings
from django.utils.translation import gettext as _

from ..wording import word_list

DEFAULT_PORTS = {"http": 80, "https": 443}


def check_url(base_url: str) -> str | None:
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return _("The base URL must start with http:// or https:// and name a host.")
    if parts.query or parts.fragment or parts.username or parts.password:
        return _(
            "The base URL must not carry a query string or a user name and password: API keys "
            "belong in an environment variable."
        )
    try:
        parts.port  # noqa: B018 (raises on a port out of range or not a number)
    except ValueError:
        return _("The base URL's port must be a number from 1 to 65535.")
    return None


def _host_matches(host: str, pattern: str) -> bool:
    pattern = pattern.strip().lower().strip("[]").rstrip(".")
    if pattern.startswith("*."):
        return host.endswith(pattern[1:])
    return host == pattern


def is_loopback(host: str) -> bool:
    """localhost (and its subdomains, which resolvers send to loopback too), 127.0.0.0/8, ::1,
    and IPv4-mapped forms of these."""
    host = host.lower().strip("[]").rstrip(".")
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    mapped = getattr(address, "ipv4_mapped", None)
    return address.is_loopback or (mapped is not None and mapped.is_loopback)


def loopback_ports() -> list[int]:
    return sorted({int(port) for port in getattr(settings, "PROVIDER_LOOPBACK_PORTS", ())})


def _loopback_problem(host: str, port: int | None) -> str | None:
    allowed = loopback_ports()
    if port in allowed:
        return None
    if not allowed:
        return _(
            "This server does not send requests to its own loopback address (%(host)s): no "
            "local port is allowed. Whoever runs the server can allow the ports of local model "
            "servers with the PROVIDER_LOOPBACK_PORTS setting."
        ) % {"host": host}
    return _(
        "This server sends requests to its own loopback address (%(host)s) only on the ports "
        "allowed by the PROVIDER_LOOPBACK_PORTS setting (%(ports)s), not on port %(port)s. "
        "Whoever runs the server can allow more."
    ) % {"host": host, "ports": word_list(allowed), "port": port}


def provider_host_problem(base_url: str) -> str | None:
    """Why a request to this base URL may not be sent, or None.

    Only hosts in settings.ALLOWED_PROVIDER_HOSTS are called: the public provider APIs by
    default, more through the ALLOWED_PROVIDER_HOSTS environment variable, which only whoever
    runs the server sets; loopback only on the ports of PROVIDER_LOOPBACK_PORTS. No team member
    can aim a configuration at the server's internal network (a database, a cloud metadata
    address, its own Redis) and read the reply on a page.
    """
    parts = urlsplit(base_url)
    host = (parts.hostname or "").lower().rstrip(".")
    if not host:
        return None  # no base URL: the adapter's own public default
    if is_loopback(host):
        try:
            port = parts.port or DEFAULT_PORTS.get(parts.scheme)
        except ValueError:
            port = None
        return _loopback_problem(host, port)
    if any(_host_matches(host, pattern) for pattern in settings.ALLOWED_PROVIDER_HOSTS):
        return None
    return _(
        "This server does not send requests to %(host)s. The public provider APIs are allowed, "
        "and local servers on the ports of the PROVIDER_LOOPBACK_PORTS setting; whoever runs "
        "the server can allow more hosts with the ALLOWED_PROVIDER_HOSTS setting."
    ) % {"host": host}
