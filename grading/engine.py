"""The grading collector: the rules first, then a model grader's requests through collection's
`Sender`, under a lease on the job, with the same limits, retry windows and recovery as a run.

`job_grade` takes the job's lease (one task at a time grades a job), writes the rules' grades in
one batch, then sends one request per answer the rules left (at most the configuration's limit
at once, each holding a slot of the provider's shared limit), writes every attempt with its raw
reply, tokens and latency, and parses each reply strictly into a grade. Idempotent: an answer
with a grade is done; an answer whose request already succeeded is parsed from the stored
attempt and never asked again; grades are written under the (job, response) unique constraint.
"""

from __future__ import annotations

import dataclasses
import logging
import queue
import time

from django.db import DatabaseError, transaction
from django.db.models.functions import Now
from django.utils import timezone

from adapters import CompletionRequest, ConfigurationError, get_adapter
from probe import limits
from probe.models import Response
from probe.services.collection import (
    FLUSH_BATCH,
    FLUSH_SECONDS,
    Leases,
    Result,
    Sender,
    Unit,
    api_key_for,
    final_message,
    renew_every,
    setting,
    storable,
)
from probe.services.configs import options_refusal
from probe.services.hosts import provider_host_problem
from scoring.review.keys import keys_in_force

from . import labels, rules, texts
from .dispatch import send_job
from .models import Grade, GradeAttempt, GradingJob
from .parser import parse_reply

logger = logging.getLogger("grading")


# Leases on jobs: collection's leases on runs (probe.services.collection.lease), on the job.

JOB_LEASES = Leases(
    GradingJob, GradingJob.ACTIVE, GradingJob.Status.QUEUED, GradingJob.Status.RUNNING
)
lease_take = JOB_LEASES.take
lease_renew = JOB_LEASES.renew
lease_release = JOB_LEASES.release
lease_holder_live = JOB_LEASES.holder_live


def fail_job(job_pk: int, message: str) -> None:
    GradingJob.objects.filter(pk=job_pk, status__in=GradingJob.ACTIVE).update(
        status=GradingJob.Status.FAILED, error_message=message[:5000], finished_at=timezone.now()
    )


# The collector -------------------------------------------------------------------------------


class JobGrader:
    def __init__(self, job_pk: int, *, wait=None, deadline: float | None = None):
        self.job_pk = job_pk
        self.wait = wait
        self.deadline = deadline

    def grade(self) -> str:
        """'done', 'busy', 'inactive', 'stopped' or 'sliced'."""
        token = lease_take(self.job_pk)
        if token is None:
            active = GradingJob.objects.filter(pk=self.job_pk, status__in=GradingJob.ACTIVE)
            return "busy" if active.exists() else "inactive"
        self.token = token
        try:
            return self._grade()
        finally:
            try:
                lease_release(self.job_pk, token)
            except DatabaseError:
                pass

    def _grade(self) -> str:
        job = GradingJob.objects.select_related("experiment", "grader", "prompt").get(
            pk=self.job_pk
        )
        self.job = job
        self.scheme = job.experiment.scheme_obj
        self.labels = labels.scheme_labels(self.scheme)
        self.keys = keys_in_force(job.experiment)
        responses = list(
            Response.objects.filter(run__experiment=job.experiment)
            .select_related("item")
            .exclude(item_id__in=[i for i, k in self.keys.items() if k.dropped])
            .order_by("item__position", "pk")
        )
        graded = set(Grade.objects.filter(job=job).values_list("response_id", flat=True))
        todo = [r for r in responses if r.pk not in graded]
        left = self._rules(todo)
        self.by_pk = {r.pk: r for r in left}
        if left and not job.grader.uses_model:
            self._bulk([self._grade_row(r, Grade.State.UNDECIDED, Grade.By.RULES) for r in left])
            left = []
        if left:
            outcome = self._ask(left)
            if outcome != "done":
                return outcome
        return self._end()

    # -- the rules ------------------------------------------------------------------------------

    def _rules(self, todo: list[Response]) -> list[Response]:
        rows, left = [], []
        for response in todo:
            key = self.keys.get(response.item_id)
            decision = rules.decide(
                key=key.answer if key else "", answer=response.answer, abstained=response.abstained
            )
            if decision is None or decision.label not in self.labels + (labels.NOT_ATTEMPTED,):
                left.append(response)
                continue
            row = self._grade_row(response, Grade.State.DECIDED, Grade.By.RULES)
            row.label, row.rule, row.reason = decision.label, decision.rule, decision.reason
            row.confidence = 1.0  # a rule decides only what is certain
            row.bucket = labels.bucket_for(self.scheme, decision.label, response)
            rows.append(row)
        self._bulk(rows)
        return left

    def _grade_row(self, response, state, by, attempt=None) -> Grade:
        job = self.job
        if by == Grade.By.RULES:
            version = ("", "", "", job.rules_version)
        else:
            reported = (attempt.reported_model if attempt else "") or job.config_snapshot.get(
                "model_name", ""
            )
            version = (reported, job.config_hash, job.prompt_hash, job.parser_version)
        return Grade(
            job=job,
            response=response,
            state=state,
            by=by,
            attempt=attempt,
            version_model=version[0][:200],
            version_config=version[1],
            version_prompt=version[2],
            version_parser=version[3],
        )

    def _bulk(self, rows: list[Grade]) -> None:
        if rows:
            with transaction.atomic():
                Grade.objects.bulk_create(rows, ignore_conflicts=True)
                GradingJob.objects.filter(pk=self.job_pk).update(progress_at=Now())

    # -- the model ------------------------------------------------------------------------------

    def request_text(self, response: Response) -> str:
        key = self.keys.get(response.item_id)
        case = texts.Case(
            question=response.item.question,
            key=key.answer if key else response.item.key_answer,
            answer_format=response.item.answer_format,
            answer=response.answer or "",
            confidence=response.confidence,
        )
        prompt = self.job.prompt
        return texts.build_request(prompt.text, prompt.examples, case, self.labels)

    def _ask(self, left: list[Response]) -> str:
        snapshot = self.job.config_snapshot
        try:
            adapter = get_adapter(snapshot.get("provider") or "")
        except KeyError:
            fail_job(self.job_pk, f"Unknown provider {snapshot.get('provider')!r}.")
            return "stopped"
        attempts = GradeAttempt.objects.filter(job=self.job, response_id__in=self.by_pk)
        self.numbers: dict[int, int] = {}
        retried: dict[int, int] = {}
        done_before = {}
        for attempt in attempts.order_by("number"):
            self.numbers[attempt.response_id] = attempt.number
            if attempt.outcome in GradeAttempt.SUCCESS:
                done_before[attempt.response_id] = attempt
            elif attempt.outcome == GradeAttempt.Outcome.RETRYABLE:
                retried[attempt.response_id] = retried.get(attempt.response_id, 0) + 1
        if done_before:
            self._bulk([self._parsed(self.by_pk[pk], a) for pk, a in done_before.items()])
        todo = [r for r in left if r.pk not in done_before]
        if not todo:
            return "done"
        requests = [self._request(snapshot, r) for r in todo]
        problem = options_refusal(adapter.name, snapshot) or provider_host_problem(
            requests[0].base_url or adapter.default_base_url or ""
        )
        if problem:
            fail_job(self.job_pk, problem)
            return "stopped"
        try:
            api_key = api_key_for(adapter, requests[0], snapshot)
        except ConfigurationError as exc:
            fail_job(self.job_pk, exc.message)
            return "stopped"
        if api_key:
            requests = [dataclasses.replace(r, api_key=api_key) for r in requests]
        units = [
            Unit(r.pk, request, retried.get(r.pk, 0))
            for r, request in zip(todo, requests, strict=True)
        ]
        sender = Sender(
            units=units,
            adapter=adapter,
            limiter=limits.get_limiter(),
            limit_key=limits.limit_key(snapshot, adapter.default_base_url),
            limit=int(snapshot.get("concurrency_limit") or 1),
            wait=self.wait,
            slot_seconds=setting("PROBE_RUN_LEASE_SECONDS"),
        )
        return self._drive(sender)

    def _request(self, snap: dict, response: Response) -> CompletionRequest:
        return CompletionRequest(
            model=snap.get("model_name") or "",
            prompt=self.request_text(response),
            base_url=snap.get("base_url") or None,
            temperature=snap.get("temperature"),
            max_output_tokens=snap.get("max_output_tokens"),
            reasoning_effort=snap.get("reasoning_effort") or None,
            thinking_budget=snap.get("thinking_budget"),
            seed=snap.get("seed"),
        )

    def _drive(self, sender: Sender) -> str:
        sender.start()
        every = renew_every()
        next_renew = time.monotonic() + every
        outcome, finished, batch = "done", False, []
        while not finished:
            flush_at = time.monotonic() + FLUSH_SECONDS
            while len(batch) < FLUSH_BATCH and (remaining := flush_at - time.monotonic()) > 0:
                try:
                    item = sender.results.get(timeout=remaining)
                except queue.Empty:
                    break
                if item is None:
                    finished = True
                    break
                batch.append(item)
            if batch:
                self._write(batch)
                batch = []
            now = time.monotonic()
            if self.deadline is not None and now > self.deadline and not sender.stop.is_set():
                outcome = "sliced"
                sender.stop.set()
            if now >= next_renew:
                next_renew = now + every
                if not lease_renew(self.job_pk, self.token, dict(sender.activity)):
                    outcome = "stopped"
                    sender.stop.set()
        sender.join()
        if sender.crash is not None:
            raise sender.crash
        if outcome == "done" and sender.open > 0:
            outcome = "stopped"
        return outcome

    def _write(self, batch: list[Result]) -> None:
        pairs = []
        for result in batch:
            pk = result.unit.item_pk
            self.numbers[pk] = self.numbers.get(pk, 0) + 1
            pairs.append((result, self._attempt_row(pk, self.numbers[pk], result)))
        with transaction.atomic():
            GradeAttempt.objects.bulk_create([a for _r, a in pairs])
            grades = []
            for result, attempt in pairs:
                response = self.by_pk[result.unit.item_pk]
                if result.completion is not None:
                    grades.append(self._parsed(response, attempt))
                elif result.final:
                    row = self._grade_row(response, Grade.State.FAILED, Grade.By.MODEL, attempt)
                    row.reason = storable(final_message(result))[:1000]
                    grades.append(row)
                else:
                    logger.info(
                        "grading job %s response %s: %s; retry %s in %.1f s",
                        self.job_pk,
                        response.pk,
                        result.error.kind,
                        result.unit.retried,
                        result.delay,
                    )
            Grade.objects.bulk_create(grades, ignore_conflicts=True)
            GradingJob.objects.filter(pk=self.job_pk).update(progress_at=Now())

    def _attempt_row(self, response_pk: int, number: int, result: Result) -> GradeAttempt:
        completion, error = result.completion, result.error
        common = {"job_id": self.job_pk, "response_id": response_pk, "number": number}
        if completion is not None:
            return GradeAttempt(
                **common,
                outcome=completion.outcome,
                http_status=completion.http_status,
                latency_ms=completion.latency_ms,
                request_id=(completion.request_id or "")[:200],
                finish_reason=(completion.finish_reason or "")[:60],
                input_tokens=completion.input_tokens,
                output_tokens=completion.output_tokens,
                reported_model=(completion.reported_model or "")[:200],
                text=storable(completion.text),
                raw_body=storable(completion.raw_body),
                request_sent=completion.request_sent,
            )
        return GradeAttempt(
            **common,
            outcome=GradeAttempt.Outcome.FATAL if result.final else GradeAttempt.Outcome.RETRYABLE,
            http_status=error.status,
            latency_ms=getattr(error, "latency_ms", None),
            request_id=(error.request_id or "")[:200],
            error_kind=(error.kind or "")[:60],
            error_message=storable(error.message),
            raw_body=storable(error.body),
            request_sent=error.request_sent,
        )

    def _parsed(self, response: Response, attempt: GradeAttempt) -> Grade:
        parsed = parse_reply(attempt.text, self.labels)
        if parsed.label is None:
            row = self._grade_row(response, Grade.State.PARSE_FAILURE, Grade.By.MODEL, attempt)
            row.reason = parsed.problem
            return row
        row = self._grade_row(response, Grade.State.DECIDED, Grade.By.MODEL, attempt)
        row.label, row.reason, row.confidence = parsed.label, parsed.reason, parsed.confidence
        row.bucket = labels.bucket_for(self.scheme, parsed.label, response)
        return row

    def _end(self) -> str:
        GradingJob.objects.filter(pk=self.job_pk, status__in=GradingJob.ACTIVE).update(
            status=GradingJob.Status.DONE, finished_at=timezone.now()
        )
        return "done"


def job_grade(*, job_pk: int, wait=None, deadline: float | None = None) -> str:
    """Grade one job in this thread (the Celery task and the tests call it)."""
    return JobGrader(job_pk, wait=wait, deadline=deadline).grade()


def sweep_stale_jobs() -> dict:
    """Queue again every active job nothing works on: the same rule as collection's sweep
    (``Leases.unattended``: its last task taken by a worker that died since, or not sent
    lately)."""
    lapsed = GradingJob.objects.filter(JOB_LEASES.unattended()).values_list("pk", flat=True)
    sent = [pk for pk in lapsed if send_job(pk)]
    return {"requeued": len(sent)}
