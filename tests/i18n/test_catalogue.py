"""The Japanese catalogues: every message translated (none fuzzy, placeholders kept), every marked
string of the code in them, the protocol tokens left in English, and the compiled files current."""

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import polib
import pytest
from django.utils import translation

ROOT = Path(__file__).resolve().parents[2]
MESSAGES = ROOT / "locale" / "ja" / "LC_MESSAGES"
CATALOGUES = [MESSAGES / "django.po", MESSAGES / "djangojs.po"]
TOKENS = ("ANSWER", "CONFIDENCE", "HIGH", "MEDIUM", "LOW", "UNKNOWN")


def _tool():
    spec = importlib.util.spec_from_file_location("i18n_tool", ROOT / "tools" / "i18n.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("path", CATALOGUES, ids=lambda p: p.name)
def test_every_message_is_translated(path):
    tool = _tool()
    po = polib.pofile(str(path))
    assert len(po) > (1000 if path.name == "django.po" else 1)
    assert not po.metadata_is_fuzzy
    assert po.metadata["Language"] == "ja"
    assert po.metadata["Plural-Forms"] == "nplurals=1; plural=0;"
    problems = [
        f"{problem}: {entry.msgid!r} ({entry.occurrences[0][0] if entry.occurrences else '?'})"
        for entry in po
        for problem in tool.problems(entry)
    ]
    assert not problems, (
        "untranslated or fuzzy messages (python tools/i18n.py todo / fill):\n" + "\n".join(problems)
    )


def test_the_check_catches_what_it_should():
    tool = _tool()
    assert tool.problems(polib.POEntry(msgid="Save", msgstr="")) == ["untranslated"]
    fuzzy = polib.POEntry(msgid="Save", msgstr="保存", flags=["fuzzy"])
    assert tool.problems(fuzzy) == ["fuzzy"]
    lost = polib.POEntry(msgid="Item %(n)s of %(total)s", msgstr="設問 %(n)s")
    assert tool.problems(lost) == ["placeholders differ: %(total)s"]
    plural = polib.POEntry(
        msgid="%(n)s item", msgid_plural="%(n)s items", msgstr_plural={0: "%(n)s 問"}
    )
    assert tool.problems(plural) == []


def test_protocol_tokens_stay_in_english():
    """A translated message keeps every protocol token its English has: models must write them."""
    po = polib.pofile(str(MESSAGES / "django.po"))
    lost = []
    for entry in po:
        text = entry.msgstr_plural.get(0, "") if entry.msgid_plural else entry.msgstr
        for token in TOKENS:
            if f" {token}" in f" {entry.msgid}" and token not in text:
                lost.append(f"{token} in {entry.msgid!r}")
    assert not lost, lost


def test_the_terms_of_the_probe():
    """The words of the glossary (docs/i18n.md), as the interface uses them."""
    with translation.override("ja"):
        for english, japanese in [
            ("Correct", "正答"),
            ("Confidently wrong", "自信のある誤答"),
            ("Hedged wrong", "留保付き誤答"),
            ("Abstained", "棄権"),
            ("Knowledge", "知識量"),
            ("Hallucination rate", "ハルシネーション率"),
            ("Calibration", "較正"),
            ("Net usable", "正味有用値"),
            ("Item", "設問"),
            ("Block", "ブロック"),
            ("Primary source", "一次資料"),
            ("Confidence", "確信度"),
        ]:
            assert translation.gettext(english) == japanese
        assert "雑音下限" in translation.gettext("Noise floor (items)")
        assert "盲検" in translation.gettext("Score blind")
        assert "解答鍵" in translation.gettext("Key review")


def test_the_compiled_catalogues_are_current(tmp_path):
    """The .mo files come from the .po files (every install compiles them); never stale."""
    for path in CATALOGUES:
        compiled = path.with_suffix(".mo")
        assert compiled.exists(), f"{compiled} missing: run python3 dev.py install"
        fresh = tmp_path / compiled.name
        polib.pofile(str(path)).save_as_mofile(str(fresh))
        assert fresh.read_bytes() == compiled.read_bytes(), (
            f"{compiled.name} is older than {path.name}: run python3 dev.py install"
        )


def test_every_marked_string_is_in_the_catalogue(tmp_path):
    """makemessages over a copy of the code adds nothing: no string was marked and left out."""
    if shutil.which("xgettext") is None or shutil.which("msgmerge") is None:
        if os.environ.get("CI"):
            pytest.fail("CI needs GNU gettext for this check: apt-get install gettext")
        pytest.skip("GNU gettext (xgettext, msgmerge) is not installed: apt-get install gettext")
    copy = tmp_path / "tree"
    # Every directory of the code (a new app is covered unasked), not what is installed or made.
    skipped = {".git", ".venv", "var", "staticfiles", "tests", "bench", "build", "test-artifacts"}
    for path in ROOT.iterdir():
        if path.is_dir() and path.name not in skipped and not path.name.startswith("."):
            shutil.copytree(path, copy / path.name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "manage.py", copy / "manage.py")
    env = {**os.environ, "DATA_DIR": str(tmp_path / "var"), "PYTHONPATH": str(copy)}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    done = subprocess.run(
        [sys.executable, "tools/i18n.py", "update"],
        cwd=copy,
        env=env,
        text=True,
        capture_output=True,
    )
    assert done.returncode == 0, done.stderr
    for path in CATALOGUES:
        before = {e.msgid for e in polib.pofile(str(path)) if not e.obsolete}
        after = {
            e.msgid for e in polib.pofile(str(copy / path.relative_to(ROOT))) if not e.obsolete
        }
        assert after - before == set(), (
            f"marked in the code but not in {path.name} (python tools/i18n.py update): "
            f"{sorted(after - before)}"
        )
        assert before - after == set(), (
            f"in {path.name} but no longer in the code (python tools/i18n.py update): "
            f"{sorted(before - after)}"
        )
