"""The local simulator as an OpenAI-compatible HTTP server (`POST /v1/chat/completions`, `GET /v1/models`).

Run it:
    python -m adapters.simulator_server --host 127.0.0.1 --port 8765 --knowledge items.json \
        [--profiles profiles.json] [--seed 0] [--latency-scale 1.0]

or embed it with `start_simulator_in_thread(knowledge)`. See docs/providers.md.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
import uuid
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from adapters.simulator import DEFAULT_PORT, DEFAULT_SEED, SimulatedReply, Simulator, openai_error

MAX_REQUEST_BYTES = 16 * 1024 * 1024


class SimulatorServer(ThreadingHTTPServer):
    daemon_threads = True
    # Tests start and stop many servers on fresh ports; do not hold the port in TIME_WAIT.
    allow_reuse_address = True

    def __init__(
        self, address: tuple[str, int], simulator: Simulator, *, verbose: bool = False
    ) -> None:
        super().__init__(address, _Handler)
        self.simulator = simulator
        self.verbose = verbose

    @property
    def base_url(self) -> str:
        host, port = self.server_address[:2]
        host = f"[{host}]" if ":" in str(host) else host
        return f"http://{host}:{port}/v1"

    def stop(self) -> None:
        """Stop serving and close the socket (from any thread but the serving one)."""
        self.shutdown()
        self.server_close()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body go out in separate writes; without this each reply waits for a delayed ACK.
    disable_nagle_algorithm = True
    server_version = "blindprobe-simulator/1.0"
    server: SimulatorServer

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        path = urlsplit(self.path).path.rstrip("/")
        if path in ("/v1/models", "/models"):
            self._send(self.server.simulator.list_models())
        else:
            self._send(_not_found(path))

    def do_POST(self) -> None:  # noqa: N802
        path = urlsplit(self.path).path.rstrip("/")
        length = int(self.headers.get("content-length") or 0)
        if length > MAX_REQUEST_BYTES:
            self._send(
                openai_error(413, "Request too large.", type_="invalid_request_error"), close=True
            )
            return
        raw = self.rfile.read(length) if length else b""
        if path not in ("/v1/chat/completions", "/chat/completions"):
            self._send(_not_found(path))
            return
        try:
            payload = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            self._send(
                openai_error(
                    400, "The request body is not valid JSON.", type_="invalid_request_error"
                )
            )
            return
        reply = self.server.simulator.chat_completion(payload)
        if reply.delay_seconds > 0:
            time.sleep(reply.delay_seconds)
        self._send(reply)

    def _send(self, reply: SimulatedReply, *, close: bool = False) -> None:
        body = reply.body_bytes()
        self.send_response(reply.status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.send_header("x-request-id", f"req_sim_{uuid.uuid4().hex}")
        self.send_header("x-simulator", "simulated responses, not a real model")
        for name, value in reply.headers.items():
            self.send_header(name, value)
        if close:
            self.send_header("connection", "close")
            self.close_connection = True
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        if self.server.verbose:
            super().log_message(format, *args)


def _not_found(path: str) -> SimulatedReply:
    return openai_error(
        404,
        f"Unknown path {path or '/'}; the simulator serves POST /v1/chat/completions and GET /v1/models.",
        type_="invalid_request_error",
        code="unknown_url",
    )


def start_simulator_in_thread(
    knowledge: Mapping[str, Any],
    profiles: Mapping[str, Any] | None = None,
    host: str = "127.0.0.1",
    port: int = 0,
    *,
    seed: int = DEFAULT_SEED,
    latency_scale: float = 1.0,
    verbose: bool = False,
) -> tuple[SimulatorServer, str]:
    """Serve the simulator from a daemon thread; returns the server and its base URL (`.../v1`).

    `port=0` picks a free port. Stop it with `server.stop()`.
    """
    simulator = Simulator(knowledge, profiles, seed=seed, latency_scale=latency_scale)
    server = SimulatorServer((host, port), simulator, verbose=verbose)
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, name="simulator", daemon=True
    )
    thread.start()
    return server, server.base_url


def _load_json(path: str, what: str, parser: argparse.ArgumentParser) -> Any:
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except OSError as exc:
        parser.error(f"cannot read the {what} file {path}: {exc.strerror}")
    except ValueError as exc:
        parser.error(f"the {what} file {path} is not valid JSON: {exc}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m adapters.simulator_server",
        description="Serve simulated language models over an OpenAI-compatible API, for demos and tests.",
    )
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT)
    parser.add_argument(
        "--knowledge",
        required=True,
        metavar="PATH",
        help='JSON {"items": [{"question": ..., "answer": ...}]}: what the models can know',
    )
    parser.add_argument(
        "--profiles",
        metavar="PATH",
        help="JSON file adding or overriding model profiles (see docs/providers.md)",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=DEFAULT_SEED,
        help="seed of the injected-error sequence (answers depend on the request's seed)",
    )
    parser.add_argument(
        "--latency-scale",
        type=float,
        default=1.0,
        help="multiply every profile's latency (0 answers at once)",
    )
    parser.add_argument("--quiet", action="store_true", help="do not log each request")
    args = parser.parse_args(argv)

    knowledge = _load_json(args.knowledge, "knowledge", parser)
    profiles = _load_json(args.profiles, "profiles", parser) if args.profiles else None
    try:
        simulator = Simulator(knowledge, profiles, seed=args.seed, latency_scale=args.latency_scale)
    except ValueError as exc:
        parser.error(str(exc))
    server = SimulatorServer((args.host, args.port), simulator, verbose=not args.quiet)
    print(
        f"Simulator: {len(simulator.knowledge.items)} items, simulated models "
        f"{', '.join(simulator.profiles)}; base URL {server.base_url}",
        file=sys.stderr,
        flush=True,
    )
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
