"""The docs and the command line agree: what `manage.py <command> --help` offers is documented,
and what the docs show a command taking, it takes.

Each of the project's commands is asked for its --help parser, as `--help` prints it. Every
option of its own (not Django's common ones) must appear in README.md or docs/ as `--option`;
every `manage.py <command> ... --option` line in them must name an option the command has; and
where the docs list an option's values (`--format json|text`), they are its choices, all of them.
"""

import re
from pathlib import Path

import pytest
from django.core.management import get_commands, load_command_class
from django.core.management.base import BaseCommand

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
PROJECT_APPS = ("probe", "scoring")
USAGE = re.compile(r"manage\.py\s+([a-z_]+)([^\n`]*)")
OPTION = re.compile(r"--([a-z][a-z0-9-]*)(?:[ =]([A-Za-z0-9_.-]+(?:\|[A-Za-z0-9_.-]+)+))?")


def _project_commands() -> dict[str, BaseCommand]:
    return {
        name: load_command_class(app, name)
        for name, app in get_commands().items()
        if app in PROJECT_APPS
    }


def _options(command: BaseCommand, name: str) -> dict[str, tuple | None]:
    """Each long option of the command's own parser, with its choices (None when free)."""
    common = {
        flag
        for action in BaseCommand().create_parser("manage.py", "x")._actions
        for flag in action.option_strings
    }
    found = {}
    for action in command.create_parser("manage.py", name)._actions:
        for flag in action.option_strings:
            if flag.startswith("--") and flag not in common:
                found[flag[2:]] = tuple(action.choices) if action.choices else None
    return found


def _doc_text() -> str:
    return "\n".join(path.read_text() for path in DOCS)


COMMANDS = _project_commands()


def test_the_project_has_commands_to_check():
    assert {"import_bank", "export_bank", "collect", "gate", "export_results"} <= COMMANDS.keys()


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_option_a_command_offers_is_documented(name):
    text = _doc_text()
    assert f"manage.py {name}" in text, f"`manage.py {name}` appears nowhere in README.md or docs/"
    undocumented = [
        option
        for option in _options(COMMANDS[name], name)
        if not re.search(rf"--{re.escape(option)}(?![a-z0-9-])", text)
    ]
    assert not undocumented, f"manage.py {name}: undocumented options {undocumented}"


def _documented_uses():
    for path in DOCS:
        for match in USAGE.finditer(path.read_text()):
            if match.group(1) in COMMANDS:
                yield path.relative_to(ROOT), match.group(1), match.group(2)


@pytest.mark.parametrize(
    "where,name,args", list(_documented_uses()), ids=lambda value: str(value)[:40]
)
def test_every_documented_use_of_a_command_is_one_it_takes(where, name, args):
    options = _options(COMMANDS[name], name)
    for option, values in OPTION.findall(args):
        assert option in options, f"{where}: manage.py {name} has no --{option}"
        choices = options[option]
        if values and choices is not None:
            assert set(values.split("|")) == set(map(str, choices)), (
                f"{where}: manage.py {name} --{option} lists {values}; it takes "
                f"{'|'.join(map(str, choices))}"
            )
