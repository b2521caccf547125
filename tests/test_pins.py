"""constraints.txt pins every dependency pyproject.toml names, at a version its range allows.

"Same data, same interval" rests on numpy's generators, and the Dockerfile and the README's
install both take their versions from constraints.txt: a dependency missing from it would be
installed at whatever version the registry serves that day.
"""

import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent


def _pins() -> dict[str, str]:
    pins = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        name, _, version = line.partition("==")
        assert version, f"constraints.txt: {line!r} is not an exact pin (name==version)"
        pins[canonicalize_name(name)] = version
    return pins


def _requirements() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    named = list(project["dependencies"])
    for extra in project.get("optional-dependencies", {}).values():
        named.extend(extra)
    return [Requirement(text) for text in named]


def test_every_dependency_is_pinned_within_its_range():
    pins = _pins()
    missing, outside = [], []
    for requirement in _requirements():
        name = canonicalize_name(requirement.name)
        if name not in pins:
            missing.append(requirement.name)
        elif not requirement.specifier.contains(pins[name], prereleases=True):
            outside.append(f"{requirement.name}=={pins[name]} (allowed: {requirement.specifier})")
        # An extra brings a package of its own: celery[redis] needs redis, psycopg[binary]
        # needs psycopg-binary.
        for extra in requirement.extras:
            brought = {canonicalize_name(extra), canonicalize_name(f"{name}-{extra}")}
            assert brought & pins.keys(), f"{requirement.name}[{extra}]: its package is not pinned"
    assert not missing, f"not pinned in constraints.txt: {', '.join(missing)}"
    assert not outside, f"pinned outside pyproject.toml's range: {', '.join(outside)}"


def test_the_numerical_libraries_are_pinned():
    # Named here because an interval is only reproducible with the same generators.
    pins = _pins()
    for name in ("numpy", "scipy", "pandas"):
        assert name in pins, f"{name} is not pinned"
