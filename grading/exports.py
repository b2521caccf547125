"""What the grading exports and the API carry: every grade with its version, the agreement of
a grader version with the people, and the costs. Plain dictionaries and rows, for the CSV and
JSON downloads (views_experiment.py) and the API (api/views/grading.py) alike."""

from __future__ import annotations

from decimal import Decimal

from .agreement import Comparison, GraderAgreement, grader_agreement
from .costs import Costs, experiment_costs
from .models import Grade, GradingJob
from .routing_report import routing_export

GRADE_COLUMNS = [
    "job",
    "grader",
    "item_position",
    "response_id",
    "state",
    "by",
    "label",
    "bucket",
    "reason",
    "rule",
    "version_model",
    "version_config",
    "version_prompt",
    "version_parser",
    "input_tokens",
    "output_tokens",
    "latency_ms",
]


def grade_rows(jobs: list[GradingJob]):
    for grade in (
        Grade.objects.filter(job__in=jobs)
        .select_related("job__grader", "response__item", "attempt")
        .order_by("job_id", "response__item__position", "response_id")
    ):
        attempt = grade.attempt
        yield {
            "job": grade.job_id,
            "grader": str(grade.job.grader),
            "item_position": grade.response.item.position,
            "response_id": grade.response_id,
            "state": grade.state,
            "by": grade.by,
            "label": grade.label,
            "bucket": grade.bucket,
            "reason": grade.reason,
            "rule": grade.rule,
            "version_model": grade.version_model,
            "version_config": grade.version_config,
            "version_prompt": grade.version_prompt,
            "version_parser": grade.version_parser,
            "input_tokens": attempt.input_tokens if attempt else None,
            "output_tokens": attempt.output_tokens if attempt else None,
            "latency_ms": attempt.latency_ms if attempt else None,
        }


def _interval(figure) -> list[float] | None:
    return None if figure.interval is None else [figure.interval.low, figure.interval.high]


def comparison_dict(c: Comparison | None) -> dict | None:
    if c is None:
        return None
    out = {"n": c.n}
    for name in ("percent", "kappa", "ac1", "recall_not_correct"):
        figure = getattr(c, name)
        out[name] = figure.value
        out[f"{name}_ci"] = _interval(figure)
    if c.confusion is not None:
        out["confusion"] = {
            "labels": list(c.confusion.labels),
            "rows": [list(row.cells) for row in c.confusion.rows],
        }
    return out


def slice_dict(part: dict) -> dict:
    return {
        "title": str(part["title"]),
        "answers": part["n_units"],
        "against_final": comparison_dict(part["against_final"]),
        "against_scorers": {name: comparison_dict(c) for name, c in part["against_scorers"]},
        "grader_against_scorers": comparison_dict(part["grader_pooled"]),
        "scorers_with_each_other": comparison_dict(part["humans_pooled"]),
    }


def job_version(job: GradingJob) -> dict:
    return {
        "job": job.pk,
        "grader": str(job.grader),
        "status": job.status,
        "config_hash": job.config_hash,
        "prompt_hash": job.prompt_hash,
        "prompt": str(job.prompt) if job.prompt else "",
        "parser_version": job.parser_version,
        "rules_version": job.rules_version,
    }


def agreement_dict(result: GraderAgreement) -> dict:
    return {
        **job_version(result.job),
        "judged_answers": result.judged,
        "decided_by_grader": result.decided,
        "meets_threshold": result.meets,
        "threshold_sentence": result.verdict,
        "overall": slice_dict(result.overall),
        "blocks": [slice_dict(p) for p in result.blocks],
        "answer_formats": [slice_dict(p) for p in result.formats],
    }


def _money(value: Decimal | None) -> str | None:
    return None if value is None else f"{value:.6f}"


def costs_dict(costs: Costs) -> dict:
    def line(x):
        return {
            "label": x.label,
            "kind": x.kind,
            "requests": x.requests,
            "input_tokens": x.input_tokens,
            "output_tokens": x.output_tokens,
            "cost_usd": _money(x.cost),
            "responses": x.responses,
            "tokens_per_response": x.tokens_per_response,
            "latency_ms_per_response": x.latency_per_response_ms,
        }

    return {
        "runs": [line(x) for x in costs.runs],
        "grading": [line(x) for x in costs.grading],
        "runs_cost_usd": _money(costs.runs_cost),
        "grading_cost_usd": _money(costs.grading_cost),
        "total_cost_usd": _money(costs.total),
        "grading_share": costs.grading_share,
    }


COST_COLUMNS = [
    "kind",
    "label",
    "requests",
    "input_tokens",
    "output_tokens",
    "cost_usd",
    "responses",
    "tokens_per_response",
    "latency_ms_per_response",
]


def experiment_dict(experiment, request, w: float = 1.0) -> dict:
    """Everything grading knows of an experiment: its jobs and their versions, every grade, the
    agreement of each finished job, the costs, and a routed experiment's plan and figures
    (``routing``: None when not routed). For those no longer blind to it only."""
    jobs = list(
        GradingJob.objects.filter(experiment=experiment)
        .select_related("grader", "prompt")
        .order_by("-created", "-pk")
    )
    return {
        "experiment": experiment.pk,
        "jobs": [job_version(j) for j in jobs],
        "grades": list(grade_rows(jobs)),
        "agreement": [
            agreement_dict(grader_agreement(j)) for j in jobs if j.status == GradingJob.Status.DONE
        ],
        "costs": costs_dict(experiment_costs(experiment)),
        "routing": routing_export(request, experiment, w),
    }
