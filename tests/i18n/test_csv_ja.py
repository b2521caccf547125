"""Every CSV download, fetched by a Japanese user, has no English in its headings or in the
values the product writes (buckets, scheme, confidence, verdicts, providers, format issues, row
kinds, yes/no): the page crawl's rule (tests/i18n/test_pages_ja.py) applied to the files. What
users and models wrote (names, questions, answers, labels) is theirs, and the bank's CSV is an
interchange format with machine names, so neither is checked here."""

import pytest
from django.utils import translation

from scoring.queue import services as queue_services
from scoring.report.export_labels import header
from tests.i18n.test_pages_ja import ALLOWED, IDENTIFIER, WORD
from tests.report.test_download_language import NAME, download_urls, japanese, rows_of
from tests.report.test_final_report import make_team

# The columns whose values the product writes, not its users or models.
PRODUCT_VALUES = {
    "item",  # the scorers' times: "all" for a scorer's whole row
    "scheme",
    "bucket",
    "verdict",
    "confidence",
    "provider",
    "simulated",
    "abstained",
    "hedged",
    "issues",
    "key_flagged",
    "unblinded",
    "needs_recheck",
    "row",
    "facet",
    "figure",
    "answer_at",
    "calibration_single_level",
    "gap_is_noise",
    "separable",
    "within_repeat_variation",
}


@pytest.fixture(autouse=True)
def _default_language_afterwards():
    yield
    translation.deactivate()


def english(text: str) -> list[str]:
    return [w for w in WORD.findall(IDENTIFIER.sub(" ", text)) if w not in ALLOWED]


def test_no_english_in_any_csv_a_japanese_user_downloads(client, world):
    team = make_team(world, name=NAME)
    queue_services.assignment_reveal(assignment=team.b)
    japanese(world.users["editor"])
    client.force_login(world.users["editor"])
    found, files = [], 0
    for name, url, _word, extension in download_urls(world, team.b, team.experiment):
        if extension != "csv" or name == "probe:bank_export":
            continue
        files += 1
        rows = rows_of(client.get(url))
        heading = rows[0]
        found += [f"{url}: heading {h!r}" for h in heading if english(h)]
        with translation.override("ja"):
            machine = {header(c): c for c in PRODUCT_VALUES}
        checked = [i for i, h in enumerate(heading) if h in machine]
        assert checked, (url, heading)  # every results CSV has values the product writes
        for row in rows[1:]:
            found += [f"{url}: {heading[i]} {row[i]!r}" for i in checked if english(row[i])]
    assert files == 6  # responses and figures of a scorer; final buckets, figures, moves; times
    assert not found, "\n".join(sorted(set(found))[:40])
