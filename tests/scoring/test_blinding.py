"""Before a scorer's reveal, nothing they can fetch names a model.

The test logs in as a scorer, starts scoring, then follows every link, form action and htmx
URL reachable from the experiment's pages, and looks for any model name, provider, configuration
label, run id or raw provider body in bodies, headers and URLs.
"""

import re
from urllib.parse import urljoin, urlparse

import pytest
from django.urls import reverse

from probe.models import Attempt, Run

URL_ATTRS = re.compile(r'(?:href|action|hx-get|hx-post|data-next-url|data-prev-url)="([^"#]+)')


def secrets_of(experiment) -> list[str]:
    """What would identify a model on this experiment's sheets."""
    found = set()
    for run in Run.objects.filter(experiment=experiment).select_related("model_config"):
        config = run.model_config
        found.update({config.label, config.model_name, config.provider})
        found.update(
            str(v) for v in run.config_snapshot.values() if isinstance(v, str) and len(v) > 3
        )
    return sorted(v for v in found if v)


def crawl(client, start_urls, *, limit=400, keep=lambda path: True):
    seen, queue, pages = set(), list(start_urls), []
    while queue and len(seen) < limit:
        url = queue.pop(0)
        if url in seen:
            continue
        seen.add(url)
        for headers in ({}, {"HTTP_HX_REQUEST": "true"}):
            response = client.get(url, **headers)
            pages.append((url, headers, response))
            if response.status_code in (301, 302) and response.get("Location", "").startswith("/"):
                queue.append(response["Location"])
            body = response.content.decode("utf-8", "replace")
            for link in URL_ATTRS.findall(body):
                absolute = urljoin(url, link.replace("&amp;", "&"))
                parsed = urlparse(absolute)
                if parsed.netloc or not parsed.path.startswith("/"):
                    continue
                if parsed.path.startswith(("/static/", "/accounts/logout", "/admin")):
                    continue
                if not keep(parsed.path):
                    continue
                queue.append(parsed.path + (f"?{parsed.query}" if parsed.query else ""))
    return pages


@pytest.mark.parametrize("role", ["scorer", "editor"])
def test_nothing_reachable_names_a_model_before_reveal(client, world, role):
    from scoring.queue import services

    user = world.users[role]
    client.force_login(user)
    assignment = services.assignment_start(experiment=world.scored, user=user)
    forbidden = secrets_of(world.scored)
    assert "Acme-second-config-label" in forbidden and "sim-overconfident" in forbidden
    comment_urls = _discuss(world)
    forbidden.append(AFTER_REVEAL_MARKER)
    run_ids = list(Run.objects.filter(experiment=world.scored).values_list("pk", flat=True))
    raw_bodies = list(
        Attempt.objects.filter(run__experiment=world.scored).values_list("raw_body", flat=True)
    )
    starts = [
        reverse("probe:experiment_detail", kwargs={"experiment_pk": world.scored.pk}),
        reverse("scoring:start", kwargs={"experiment_pk": world.scored.pk}),
        reverse("scoring:item", kwargs={"assignment_token": assignment.token, "position": 1}),
        reverse("scoring:reveal", kwargs={"assignment_token": assignment.token}),
    ]
    starts += [reverse("probe:key_comments", kwargs={"item_pk": item.pk}) for item in world.items]
    starts.append(reverse("scoring:key_review", kwargs={"experiment_pk": world.scored.pk}))
    if role == "scorer":
        keep = lambda path: True  # noqa: E731 - a scorer may follow every link there is
    else:
        # An editor also manages the team's model configurations (which name models by design);
        # what must stay blind is everything that belongs to this experiment's sheets, and the
        # discussion of its items' key entries.
        prefixes = (f"/experiments/{world.scored.pk}/", "/score/", "/runs/", "/items/")
        keep = lambda path: path.startswith(prefixes)  # noqa: E731
    pages = crawl(client, starts, keep=keep)
    fetched = {url for url, _, _ in pages}
    assert any("/score/" in url for url in fetched) and len(fetched) >= 6
    # Every address that serves or lists a response comment is a 404, as for a response that
    # does not exist.
    for url in comment_urls:
        assert client.get(url).status_code == 404, url
        assert client.get(url, HTTP_HX_REQUEST="true").status_code == 404, url
    for url, _headers, _response in pages:
        assert "/responses/" not in url and "/response-comments/" not in url
    if role == "editor":
        # The editor reads the key's thread (the key is theirs to see), the blind comment in
        # it, and is told that a comment written after a reveal waits for theirs.
        thread = reverse("probe:key_comments", kwargs={"item_pk": world.items[0].pk})
        body = next(r for u, h, r in pages if u == thread and not h).content.decode()
        assert BLIND_MARKER in body and "hidden until your reveal" in body
    for url, headers, response in pages:
        where = f"{url} {'(htmx)' if headers else ''}"
        for run_id in run_ids:
            assert f"/runs/{run_id}/" not in url, f"a run URL is reachable: {where}"
        body = response.content.decode("utf-8", "replace")
        header_text = " ".join(f"{k}: {v}" for k, v in response.items())
        for secret in forbidden:
            assert secret not in body, f"{secret!r} in the body of {where}"
            assert secret not in header_text, f"{secret!r} in the headers of {where}"
            assert secret not in url
        for raw in raw_bodies:
            if len(raw) > 40:
                assert raw not in body, f"a raw provider body in {where}"
        assert not re.search(r"/runs/\d+/", body), f"a link to a run in {where}"


AFTER_REVEAL_MARKER = "after-reveal-lead-remark-9d1a"
BLIND_MARKER = "blind-remark-on-the-key-3b7f"


def _discuss(world) -> list[str]:
    """Comments of both kinds, with mentions: the owner (who sees every model) comments on a
    key entry and on responses, quoting an answer of one sheet and a configuration's name; the
    blind editor comments on the key, mentioning the owner; the owner's response comments
    mention the viewer (who scores nothing, so sees the models). Returns the response comments'
    addresses (the threads, their edits and deletions)."""
    from probe.models import ExperimentItem, Membership, Response
    from probe.services.discussion import key_comment_create
    from scoring.discussion.services import response_comment_create
    from scoring.queue import services as queue

    for position, item in enumerate(world.items, start=1):
        ExperimentItem.objects.filter(experiment=world.scored, position=position).update(
            source_item=item
        )
    owner, editor = world.users["owner"], world.users["editor"]
    quote = f"{AFTER_REVEAL_MARKER}: Acme-second-config-label (sim-overconfident) said Retry-Later"
    for item in world.items:
        key_comment_create(
            item=item,
            user=owner,
            membership=Membership.objects.get(team=world.team, user=owner),
            text=quote,
            experiment=world.scored,
        )
    if not queue.Assignment.objects.filter(experiment=world.scored, user=editor).exists():
        queue.assignment_start(experiment=world.scored, user=editor)
    blind = key_comment_create(
        item=world.items[0],
        user=editor,
        membership=Membership.objects.get(team=world.team, user=editor),
        text=f"{BLIND_MARKER} @acme-owner",
        experiment=world.scored,
    )
    assert blind.written_blind
    urls = []
    for response in Response.objects.filter(run__experiment=world.scored):
        comment = response_comment_create(
            response=response, user=owner, text=f"{quote} @acme-viewer"
        )
        kwargs = {"experiment_pk": world.scored.pk, "comment_pk": comment.pk}
        urls += [
            reverse(
                "scoring:response_comments",
                kwargs={"experiment_pk": world.scored.pk, "response_pk": response.pk},
            ),
            reverse("scoring:response_comment_edit", kwargs=kwargs),
        ]
    return urls


# Everything in an answer row that is the answer itself (its text, its confidence, its group size)
# or an opaque per-scorer token: what is left is the row's markup, which must not tell sheets apart.
CONTENT = [
    (re.compile(r'(data-tokens|name="tokens" value)="[^"]*"'), r'\1="TOKEN"'),
    (re.compile(r"-[0-9a-f]{20}\b"), "-TOKEN"),
    (re.compile(r'name="csrfmiddlewaretoken" value="[^"]*"'), "CSRF"),
    (re.compile(r"/\d+/(decide|note|dispute)/"), r"/N/\1/"),
    (re.compile(r'<span class="answer-value">.*?</span>', re.S), "<ANSWER>"),
    (re.compile(r'<span class="conf conf-[^"]*">[^<]*</span>'), ""),
    (re.compile(r'<span class="group-size"[^>]*>[^<]*</span>'), ""),
    (re.compile(r"\s+"), " "),
]
ROW = re.compile(r'<li class="answer[^"]*" tabindex="0" data-tokens="([^"]+)".*?</li>', re.S)


def skeleton(row: str) -> str:
    for pattern, replacement in CONTENT:
        row = pattern.sub(replacement, row)
    return row


def test_no_marker_sets_one_sheet_apart_before_the_reveal(client, world):
    """Parser issues, markdown and raw text are the habits of a model: none shows while scoring.

    One sheet of the experiment is given a parser issue on every item (as a model that writes its
    labels in lower case and its reply in markdown would have); the rows of every item page, with
    the answer, its confidence and the tokens taken out, must then be the same markup for every
    sheet.
    """
    from probe.models import Response
    from scoring.queue import selectors, services

    runs = list(Run.objects.filter(experiment=world.scored).order_by("pk"))
    Response.objects.filter(run=runs[1]).update(issues=["label_case", "markdown", "text_after"])
    user = world.users["scorer"]
    client.force_login(user)
    assignment = services.assignment_start(experiment=world.scored, user=user)
    run_of = {
        selectors.answer_token(assignment, r.pk): r.run_id
        for r in Response.objects.filter(run__experiment=world.scored)
    }
    shapes: dict[str, set[int]] = {}
    n_items = world.scored.items.count()
    for position in range(1, n_items + 1):
        url = reverse(
            "scoring:item", kwargs={"assignment_token": assignment.token, "position": position}
        )
        for headers in ({}, {"HTTP_HX_REQUEST": "true"}):
            body = client.get(url, **headers).content.decode()
            assert "Label not written exactly" not in body and "Markdown" not in body
            for match in ROW.finditer(body):
                row = match.group(0)
                if " decided" in row.split(">", 1)[0]:
                    continue  # an UNKNOWN arrives decided, whichever sheet gave it
                sheets = {run_of[t] for t in match.group(1).split(",")}
                shapes.setdefault(skeleton(row), set()).update(sheets)
    assert shapes, "no undecided answer row found"
    assert len(shapes) == 1, "answer rows differ in markup:\n" + "\n\n".join(shapes)
    # A blind editor's raw-reply page names no model, not even in its <title>.
    client.force_login(world.users["editor"])
    services.assignment_start(experiment=world.scored, user=world.users["editor"])
    body = client.get(reverse("probe:run_raw", kwargs={"run_pk": runs[1].pk})).content.decode()
    title = re.search(r"<title>(.*?)</title>", body, re.S).group(1)
    for secret in secrets_of(world.scored):
        assert secret not in title and secret not in body


# A scorer who joins late: reconciliation has begun and the others have finished ---------------

NOISE = [
    (re.compile(r'name="csrfmiddlewaretoken" value="[^"]*"'), "CSRF"),
    (re.compile(r'"X-CSRFToken": "[^"]*"'), "CSRF"),
]
OTHERS_MARKER = "other-scorer-note-4f1c"


def _others_judge(world, others, bucket):
    """The other scorers judge every response into `bucket`, with a note and a dispute that name
    the marker; reconciliation begins (once) and a lead settles every response with a final
    bucket and a note."""
    from probe.models import Response
    from scoring.models import Reconciliation
    from scoring.queue import services
    from scoring.reconciliation import finals
    from scoring.reconciliation import services as reconcile_services
    from tests.scoring.factories import judge

    responses = list(Response.objects.filter(run__experiment=world.scored))
    for kind in others:
        assignment = services.assignment_start(experiment=world.scored, user=world.users[kind])
        judge(assignment, {r: bucket for r in responses})
        services.judgement_note_set(
            assignment=assignment, responses=responses, note=f"{OTHERS_MARKER} {bucket}"
        )
        services.dispute_raise(
            assignment=assignment, item=responses[0].item, note=f"{OTHERS_MARKER} {bucket}"
        )
    if not Reconciliation.objects.filter(experiment=world.scored).exists():
        reconcile_services.reconciliation_start(experiment=world.scored, user=world.users["owner"])
    for response in responses:
        finals.final_bucket_set(
            experiment=world.scored,
            response=response,
            user=world.users["owner"],
            bucket=bucket,
            note=f"{OTHERS_MARKER} final {bucket}",
        )


def _late_crawl(client, api, world, assignment):
    pk = world.scored.pk
    starts = [
        reverse("probe:experiment_detail", kwargs={"experiment_pk": pk}),
        reverse("scoring:start", kwargs={"experiment_pk": pk}),
        reverse("scoring:item", kwargs={"assignment_token": assignment.token, "position": 1}),
        reverse("scoring:overview", kwargs={"assignment_token": assignment.token}),
        reverse("scoring:key_review", kwargs={"experiment_pk": pk}),
        reverse("scoring:scorers", kwargs={"experiment_pk": pk}),
        reverse("scoring:reconcile", kwargs={"experiment_pk": pk}),
        reverse("scoring:reconcile_item", kwargs={"experiment_pk": pk, "position": 1}),
        reverse("scoring:agreement", kwargs={"experiment_pk": pk}),
        reverse("scoring:final_report", kwargs={"experiment_pk": pk}),
        reverse("scoring:report", kwargs={"assignment_token": assignment.token}),
        reverse("scoring:compare", kwargs={"team_slug": "acme"}) + f"?baseline={pk}&candidate={pk}",
        reverse("scoring:bank_key_review", kwargs={"bank_pk": world.scored.bank_id}),
    ]
    for what in ("responses", "figures", "agreement", "moves"):
        for fmt in ("csv", "json"):
            kwargs = {"experiment_pk": pk, "what": what, "fmt": fmt}
            starts.append(reverse("scoring:final_export", kwargs=kwargs))
    prefixes = (f"/experiments/{pk}/", "/score/", "/runs/", "/t/acme/compare/", "/banks/")
    pages = crawl(client, starts, keep=lambda path: path.startswith(prefixes))
    bodies = {}
    for url, headers, response in pages:
        body = response.content.decode("utf-8", "replace")
        for pattern, replacement in NOISE:
            body = pattern.sub(replacement, body)
        bodies[(url, bool(headers))] = (response.status_code, body)
    for path in (
        f"/experiments/{pk}/results/figures",
        f"/experiments/{pk}/results/responses",
        f"/compare?baseline={pk}&candidate={pk}",
        "/teams/acme/experiments",
    ):
        response = api.get(path)
        bodies[("/api" + path, False)] = (response.status_code, response.content.decode())
    return bodies


@pytest.mark.parametrize("late", ["scorer", "editor"])
def test_a_scorer_who_joins_late_sees_nothing_of_the_others_judgements(client, world, late):
    """The others have finished, reconciliation has begun and every response is settled; the
    late scorer (an editor reaches the lead's pages too) has judged nothing. Every page,
    fragment, export and API answer they can reach must be the same whatever the others
    decided: crawled once with the others all Correct, once all Confidently wrong."""
    from api.models import ApiToken
    from scoring.models import Bucket, Judgement
    from scoring.queue import services
    from tests.api.conftest import ApiClient

    others = [kind for kind in ("scorer", "editor", "owner") if kind != late][-2:]
    _others_judge(world, others, Bucket.CORRECT)
    user = world.users[late]
    assignment = services.assignment_start(experiment=world.scored, user=user)
    client.force_login(user)
    api = ApiClient(ApiToken.issue(user=user, team=world.team, access="read", name="late")[1])
    before = _late_crawl(client, api, world, assignment)
    assert len(before) >= 20
    for (url, _htmx), (_status, body) in before.items():
        assert OTHERS_MARKER not in body, f"another scorer's note in {url}"
    # The others change every bucket (and the lead every final one).
    Judgement.objects.exclude(assignment=assignment).delete()
    _others_judge(world, others, Bucket.CONFIDENT_WRONG)
    after = _late_crawl(client, api, world, assignment)
    assert before.keys() == after.keys()
    for key, page in before.items():
        assert page == after[key], f"{key[0]} changes with the other scorers' buckets"
