"""Playwright with Debian's Chromium against live_server (never `playwright install`)."""

import os
import shutil

import pytest

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CANDIDATES = [
    os.environ.get("CHROMIUM_PATH", ""),
    "/usr/bin/chromium",
    "/usr/bin/chromium-browser",
    shutil.which("chromium") or "",
    shutil.which("google-chrome") or "",
]
CHROMIUM = next((path for path in CANDIDATES if path and os.path.exists(path)), None)
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


def pytest_collection_modifyitems(config, items):
    if CHROMIUM is not None:
        return
    if os.environ.get("CI"):
        raise pytest.UsageError("CI needs Chromium for the browser tests: apt-get install chromium")
    reason = "no Chromium found (set CHROMIUM_PATH, or apt-get install chromium)"
    for item in items:
        if "browser" in item.keywords:
            item.add_marker(pytest.mark.skip(reason=reason))


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    return {**browser_type_launch_args, "executable_path": CHROMIUM, "args": ARGS, "headless": True}


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args):
    return {**browser_context_args, "viewport": {"width": 1366, "height": 900}, "locale": "en-GB"}
