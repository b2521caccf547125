"""A small, real OpenID Connect issuer over HTTP on a loopback port, for the sign-in tests.

It serves discovery, JWKS, authorize (a page where the person types the e-mail address they
sign in as, and presses a button), token (authorization code with PKCE S256, client secret by
post or basic) and userinfo, with RS256 id tokens carrying the nonce it was given. Nothing is
mocked on the application's side: allauth fetches each endpoint over HTTP.
"""

import base64
import hashlib
import html
import json
import secrets
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlencode, urlparse

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm

CLIENT_ID = "blind-probe-test"
CLIENT_SECRET = "test-secret-not-a-real-one"


def _b64url_sha256(text: str) -> str:
    digest = hashlib.sha256(text.encode()).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


class Issuer:
    def __init__(self, *, verified: bool = True):
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.kid = secrets.token_hex(4)
        self.verified = verified
        self.codes: dict[str, dict] = {}
        self.tokens: dict[str, dict] = {}
        self.requests: list[str] = []  # each path the application fetched
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.issuer = self
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()

    # The claims of one sign-in ---------------------------------------------------------------

    def claims(self, email: str) -> dict:
        return {
            "sub": "sub-" + hashlib.sha256(email.encode()).hexdigest()[:16],
            "email": email,
            "email_verified": self.verified,
            "name": email.split("@")[0].replace(".", " ").title(),
        }

    def id_token(self, email: str, nonce: str | None) -> str:
        now = int(time.time())
        payload = {
            **self.claims(email),
            "iss": self.url,
            "aud": CLIENT_ID,
            "iat": now,
            "exp": now + 300,
        }
        if nonce:
            payload["nonce"] = nonce
        return jwt.encode(payload, self.key, algorithm="RS256", headers={"kid": self.kid})

    def discovery(self) -> dict:
        return {
            "issuer": self.url,
            "authorization_endpoint": self.url + "/authorize",
            "token_endpoint": self.url + "/token",
            "userinfo_endpoint": self.url + "/userinfo",
            "jwks_uri": self.url + "/jwks",
            "response_types_supported": ["code"],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["RS256"],
            "scopes_supported": ["openid", "profile", "email"],
            "token_endpoint_auth_methods_supported": ["client_secret_post", "client_secret_basic"],
            "code_challenge_methods_supported": ["S256"],
        }

    def jwks(self) -> dict:
        jwk = json.loads(RSAAlgorithm.to_jwk(self.key.public_key()))
        return {"keys": [{**jwk, "kid": self.kid, "use": "sig", "alg": "RS256"}]}


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def _send(self, status, body, content_type="application/json", headers=()):
        data = body if isinstance(body, bytes) else body.encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _json(self, status, value):
        self._send(status, json.dumps(value))

    def _form(self) -> dict:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length).decode()
        return {k: v[0] for k, v in parse_qs(raw).items()}

    def do_GET(self):
        url = urlparse(self.path)
        self.server.issuer.requests.append(url.path)
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        if url.path == "/.well-known/openid-configuration":
            return self._json(200, self.server.issuer.discovery())
        if url.path == "/jwks":
            return self._json(200, self.server.issuer.jwks())
        if url.path == "/authorize":
            return self._authorize_page(query)
        if url.path == "/userinfo":
            token = self.headers.get("Authorization", "").removeprefix("Bearer ")
            grant = self.server.issuer.tokens.get(token)
            if grant is None:
                return self._json(401, {"error": "invalid_token"})
            return self._json(200, self.server.issuer.claims(grant["email"]))
        return self._json(404, {"error": "not_found"})

    def _authorize_page(self, query):
        if query.get("client_id") != CLIENT_ID or query.get("response_type") != "code":
            return self._json(400, {"error": "invalid_request"})
        hidden = "".join(
            f'<input type="hidden" name="{html.escape(k)}" value="{html.escape(v)}">'
            for k, v in query.items()
        )
        page = (
            "<!doctype html><html><head><title>Test identity provider</title></head>"
            "<body><h1>Test identity provider</h1>"
            f'<form method="post" action="/authorize">{hidden}'
            '<label for="email">E-mail</label> <input id="email" name="email">'
            '<button type="submit">Sign in at the provider</button></form></body></html>'
        )
        self._send(200, page, "text/html; charset=utf-8")

    def do_POST(self):
        url = urlparse(self.path)
        self.server.issuer.requests.append(url.path)
        form = self._form()
        if url.path == "/authorize":
            code = secrets.token_urlsafe(16)
            self.server.issuer.codes[code] = form
            target = (
                form["redirect_uri"]
                + "?"
                + urlencode({"code": code, "state": form.get("state", "")})
            )
            return self._send(302, b"", "text/plain", [("Location", target)])
        if url.path == "/token":
            return self._token(form)
        return self._json(404, {"error": "not_found"})

    def _client_ok(self, form) -> bool:
        auth = self.headers.get("Authorization", "")
        if auth.startswith("Basic "):
            pair = base64.b64decode(auth[6:]).decode()
            return pair == f"{CLIENT_ID}:{CLIENT_SECRET}"
        return (form.get("client_id"), form.get("client_secret")) == (
            CLIENT_ID,
            CLIENT_SECRET,
        )

    def _token(self, form):
        grant = self.server.issuer.codes.pop(form.get("code", ""), None)
        if grant is None or not self._client_ok(form):
            return self._json(400, {"error": "invalid_grant"})
        if form.get("redirect_uri") != grant["redirect_uri"]:
            return self._json(400, {"error": "invalid_grant"})
        challenge = grant.get("code_challenge")
        if challenge and _b64url_sha256(form.get("code_verifier", "")) != challenge:
            return self._json(400, {"error": "invalid_grant", "detail": "PKCE"})
        access = secrets.token_urlsafe(16)
        self.server.issuer.tokens[access] = grant
        return self._json(
            200,
            {
                "access_token": access,
                "token_type": "Bearer",
                "expires_in": 300,
                "id_token": self.server.issuer.id_token(grant["email"], grant.get("nonce")),
            },
        )
