"""python manage.py load_demo: the demo team, its users (passwords printed), the demo bank, the
default prompts, three simulated model configurations and the simulator's knowledge file."""

import json
import os
import secrets
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction

from probe import bankformat
from probe.models import Item, Membership, ModelConfig, Role, Team
from probe.services.banks import bank_import
from probe.services.configs import config_create
from probe.services.prompts import prompt_defaults_ensure

DEMO_TEAM = ("Demo team", "demo")
DEMO_USERS = [
    ("alice", Role.OWNER),
    ("bob", Role.EDITOR),
    ("carol", Role.SCORER),
    ("dave", Role.VIEWER),
]
DEMO_BANK = Path(__file__).resolve().parents[2] / "demo" / "demo_bank.txt"
# Three simulated models of clearly different character (profiles in adapters/simulator/profiles.py).
DEMO_CONFIGS = [
    ("Expert (simulated)", "sim-expert"),
    ("Overconfident (simulated)", "sim-overconfident"),
    ("Cautious (simulated)", "sim-cautious"),
]
DEFAULT_SIMULATOR_URL = "http://127.0.0.1:8765/v1"
KNOWLEDGE_FILE = "simulator-knowledge.json"


def simulator_url() -> str:
    return getattr(settings, "SIMULATOR_URL", DEFAULT_SIMULATOR_URL)


def knowledge_path() -> Path:
    """Where load_demo writes, and runapp's simulator reads, what the simulated models know."""
    return Path(settings.DATA_DIR) / KNOWLEDGE_FILE


def write_knowledge(team: Team, path: Path) -> int:
    """The team's items that have a key, as the simulator's knowledge file; the item count.

    Written whole to a temporary file and renamed, so a simulator starting meanwhile never
    reads half a file. The same data gives the same bytes, so rerunning changes nothing.
    """
    items = (
        Item.objects.filter(block__bank__team=team, key_entry__isnull=False)
        .select_related("key_entry")
        .order_by("block__bank_id", "block__order", "block_id", "order", "pk")
    )
    knowledge = {
        "comment": (
            "What the simulated models of the demo can know: the demo team's questions and key "
            "answers. Written by manage.py load_demo; read by python -m adapters.simulator_server."
        ),
        "items": [{"question": item.question, "answer": item.key_entry.answer} for item in items],
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".tmp")
    partial.write_text(json.dumps(knowledge, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    os.replace(partial, path)
    return len(knowledge["items"])


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
            prompt_defaults_ensure(team=team)
            for label, model in DEMO_CONFIGS:
                if not ModelConfig.objects.filter(team=team, label=label).exists():
                    config_create(
                        team=team,
                        user=None,
                        label=label,
                        provider="simulator",
                        model_name=model,
                        base_url=simulator_url(),
                        concurrency_limit=8,
                    )
            n_known = write_knowledge(team, knowledge_path())
        credentials_file.write_text("".join(f"{u} {p}\n" for u, p in credentials.items()))
        credentials_file.chmod(0o600)
        self.stdout.write(
            self.style.SUCCESS("Demo data ready. Log in at http://127.0.0.1:8000 as:")
        )
        roles = dict(DEMO_USERS)
        for username, password in credentials.items():
            role = roles.get(username)
            what = f"{role.label.lower()} of {team.name}" if role else "staff (Django admin only)"
            self.stdout.write(f"  {username:<6} password {password:<14} {what}")
        self.stdout.write(f"(kept in {credentials_file})")
        self.stdout.write(
            f"Simulated models: {', '.join(label for label, _model in DEMO_CONFIGS)} at "
            f"{simulator_url()}; they can know {n_known} items ({knowledge_path()})."
        )

    @staticmethod
    def _read(path: Path) -> dict[str, str]:
        if not path.exists():
            return {}
        pairs = (line.split(" ", 1) for line in path.read_text().splitlines() if " " in line)
        return {u: p for u, p in pairs}
