#!/usr/bin/env python3
"""Set up and run the app, or its tests, from a fresh checkout with nothing but Python 3.11+.

python3 dev.py run     install into .venv, migrate, load the demo, serve with a worker
python3 dev.py test    install into .venv, run the whole test suite (pytest arguments pass through)
"""

import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PYTHON = BIN / ("python.exe" if os.name == "nt" else "python")
STAMP = VENV / ".installed"


def sh(*args: object) -> None:
    print("+", " ".join(str(a) for a in args), flush=True)
    subprocess.run([str(a) for a in args], cwd=ROOT, check=True)


def install() -> None:
    if sys.version_info < (3, 11):  # noqa: UP036 - dev.py runs under whatever python3 is
        sys.exit(f"Python 3.11 or newer is needed; this is {sys.version.split()[0]}.")
    pyproject = ROOT / "pyproject.toml"
    if STAMP.exists() and STAMP.stat().st_mtime >= pyproject.stat().st_mtime:
        return
    if not PYTHON.exists():
        print(f"Creating the virtual environment in {VENV}", flush=True)
        venv.create(VENV, with_pip=True)
    sh(PYTHON, "-m", "pip", "install", "--quiet", "--upgrade", "pip")
    sh(PYTHON, "-m", "pip", "install", "--quiet", "-e", ".[dev]")
    collectstatic()
    STAMP.touch()


def collectstatic() -> None:
    # Hashed, gzipped copies of the static files in staticfiles/ (pages link the hashed names).
    sh(PYTHON, "manage.py", "collectstatic", "--noinput", "--verbosity", "0")


def run() -> None:
    install()
    collectstatic()  # again: a stylesheet may have changed since the install
    sh(PYTHON, "manage.py", "migrate", "--noinput")
    sh(PYTHON, "manage.py", "load_demo")
    print("\nOpen http://127.0.0.1:8000 and log in with one of the users above. Ctrl-C stops.\n")
    try:
        sh(PYTHON, "manage.py", "runapp", "127.0.0.1:8000")
    except KeyboardInterrupt:
        pass


def test(extra: list[str]) -> None:
    install()
    where = os.environ.get("DATABASE_URL", "").split("@")[-1] or "SQLite (var/)"
    print(f"Database: {where}; broker: {os.environ.get('CELERY_BROKER_URL', 'filesystem://')}")
    result = subprocess.run([str(PYTHON), "-m", "pytest", *extra], cwd=ROOT)
    sys.exit(result.returncode)


def main() -> None:
    command = sys.argv[1] if len(sys.argv) > 1 else ""
    if command == "run":
        run()
    elif command == "test":
        test(sys.argv[2:])
    elif command == "install":
        install()
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
