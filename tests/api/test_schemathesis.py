"""Schemathesis, with every check, against the API served by gunicorn and authenticated with an
owner's read-and-write token: every answer is documented in the schema, status and body."""

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.db import connection

from api.models import ApiToken
from api.urls import api
from tests.api.served import gunicorn

CONFIG = Path(__file__).with_name("schemathesis.toml")
# Examples per operation and phase: enough for every status an endpoint documents, and a run
# of a few minutes on two cores.
MAX_EXAMPLES = 25


@pytest.mark.django_db(transaction=True)
def test_schemathesis_finds_nothing(world, tmp_path):
    if connection.vendor != "postgresql":
        pytest.skip("gunicorn's workers need a database server they share with the test")
    _row, token = ApiToken.issue(
        user=world.users["owner"], team=world.team, access="write", name="schemathesis"
    )
    schema = tmp_path / "openapi.json"
    schema.write_text(json.dumps(api.get_openapi_schema()))
    # Schemathesis sends thousands of requests: the rates are not what it tests.
    rates = {
        name: "1000000/m"
        for name in (
            "API_THROTTLE_RATE",
            "API_ADDRESS_THROTTLE_RATE",
            "API_FAILED_AUTH_THROTTLE_RATE",
        )
    }
    with gunicorn(tmp_path, workers=2, **rates) as base:
        started = time.monotonic()
        run = subprocess.run(
            [
                str(Path(sys.executable).with_name("st")),
                "--config-file",
                str(CONFIG),
                "run",
                str(schema),
                "--url",
                base,
                "--checks",
                "all",
                "--max-examples",
                str(MAX_EXAMPLES),
                "--seed",
                "20261201",
                # One worker: schemathesis's threads trip a CPython 3.11 race in ast.parse
                # ("AST constructor recursion depth mismatch") while describing strategies.
                "--workers",
                "1",
                "--header",
                f"Authorization: Bearer {token}",
                "--no-color",
                "--generation-database",
                "none",
            ],
            cwd=tmp_path,  # its cache of crashes stays out of the work tree
            capture_output=True,
            text=True,
            timeout=900,
        )
        elapsed = time.monotonic() - started
    output = run.stdout + run.stderr
    assert run.returncode == 0, output[-12000:]
    assert "generated" in output and "failed" not in output.split("Test cases:", 1)[-1], output
    summary = output.split("Test cases:", 1)[-1].strip().splitlines()[0]
    print(f"schemathesis: {summary}; {elapsed:.0f} s")
