"""python manage.py load_demo: the demo team, its users (passwords printed) and the demo bank."""

import secrets
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction

from probe import bankformat
from probe.models import Membership, Role, Team
from probe.services.banks import bank_import

DEMO_TEAM = ("Demo team", "demo")
DEMO_USERS = [
    ("alice", Role.OWNER),
    ("bob", Role.EDITOR),
    ("carol", Role.SCORER),
    ("dave", Role.VIEWER),
]
DEMO_BANK = Path(__file__).resolve().parents[2] / "demo" / "demo_bank.txt"


class Command(BaseCommand):
    help = "Create the demo team, users and bank (once); print the users and their passwords."

    def handle(self, *args, **options):
        credentials_file = Path(settings.DATA_DIR) / "demo-credentials.txt"
        credentials = self._read(credentials_file)
        User = get_user_model()
        with transaction.atomic():
            team, created = Team.objects.get_or_create(
                slug=DEMO_TEAM[1], defaults={"name": DEMO_TEAM[0]}
            )
            for username, role in [("admin", None), *DEMO_USERS]:
                user = User.objects.filter(username=username).first()
                if user is None or username not in credentials:
                    # A new user, or one whose password this install never recorded: set one.
                    user = user or User(username=username, email=f"{username}@example.invalid")
                    password = secrets.token_urlsafe(9)
                    user.set_password(password)
                    if role is None:
                        user.is_staff = user.is_superuser = True
                    user.save()
                    credentials[username] = password
                if role is not None:
                    Membership.objects.get_or_create(team=team, user=user, defaults={"role": role})
            if not team.banks.exists():
                data = bankformat.load(DEMO_BANK.read_bytes(), DEMO_BANK.name)
                bank_import(team=team, user=None, data=data, source="demo", file_format="text")
        credentials_file.write_text("".join(f"{u} {p}\n" for u, p in credentials.items()))
        credentials_file.chmod(0o600)
        self.stdout.write(self.style.SUCCESS("Demo data ready. Log in at http://127.0.0.1:8000 as:"))
        roles = dict(DEMO_USERS)
        for username, password in credentials.items():
            role = roles.get(username)
            what = f"{role.label.lower()} of {team.name}" if role else "staff (Django admin only)"
            self.stdout.write(f"  {username:<6} password {password:<14} {what}")
        self.stdout.write(f"(kept in {credentials_file})")

    @staticmethod
    def _read(path: Path) -> dict[str, str]:
        if not path.exists():
            return {}
        pairs = (line.split(" ", 1) for line in path.read_text().splitlines() if " " in line)
        return {u: p for u, p in pairs}
