"""python manage.py runapp: the web server and a real Celery worker process, together.

The embedded default for a laptop: Ctrl-C stops both. Production runs gunicorn and
``celery worker`` as separate services (docker-compose.yml).
"""

import os
import signal
import subprocess
import sys

from django.core.management import call_command
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Serve the app and run a Celery worker beside it."

    def add_arguments(self, parser):
        parser.add_argument("addrport", nargs="?", default="127.0.0.1:8000")
        parser.add_argument("--concurrency", type=int, default=4)

    def handle(self, *args, addrport: str, concurrency: int, **options):
        worker = subprocess.Popen(
            [
                sys.executable, "-m", "celery", "-A", "probe", "worker",
                "--pool", "threads", "--concurrency", str(concurrency), "--loglevel", "INFO",
                "--without-gossip", "--without-mingle", "--hostname", "embedded@%h",
            ],
            env={**os.environ},
        )
        self.stdout.write(f"Celery worker started (pid {worker.pid}).")
        try:
            call_command("runserver", addrport, use_reloader=False)
        finally:
            worker.send_signal(signal.SIGTERM)
            try:
                worker.wait(timeout=10)
            except subprocess.TimeoutExpired:
                worker.kill()
