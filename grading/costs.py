"""What an experiment cost: each run's requests (every attempt, retried ones too) and each
grading job's, from the token counts the providers reported and the prices per million tokens
set on each model configuration; with latency and tokens per response (a grading job's over the
responses that made a request: those the rules decided made none). Shown only to those who
are no longer blind to the experiment (a model's price and latency would name it).

A configuration without a price has no cost (None), never a cost of zero; a request whose reply
reported no token count adds nothing and is counted as unpriced."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from django.db.models import Count, Sum

from probe.models import Attempt, Experiment, ModelConfig, Response, Run

from .models import GradeAttempt, GradingJob

MILLION = Decimal(1_000_000)
# Providers whose replies count thinking tokens apart from the output tokens they bill with them.
THINKING_APART = ("gemini",)


def price_of(config: ModelConfig | None, input_tokens: int, output_tokens: int) -> Decimal | None:
    if config is None:
        return None
    pin, pout = config.price_input_per_million, config.price_output_per_million
    if pin is None or pout is None:
        return None
    return (Decimal(input_tokens) * pin + Decimal(output_tokens) * pout) / MILLION


@dataclass
class Line:
    """One run or one grading job."""

    label: str
    kind: str  # "run" or "grading"
    requests: int
    input_tokens: int
    output_tokens: int
    cost: Decimal | None
    responses: int = 0  # a grading job's: the responses that made a request
    latency_ms: int = 0  # summed over requests that report it

    @property
    def tokens_per_response(self) -> float | None:
        if not self.responses:
            return None
        return (self.input_tokens + self.output_tokens) / self.responses

    @property
    def latency_per_response_ms(self) -> float | None:
        return self.latency_ms / self.responses if self.responses else None


@dataclass
class Costs:
    runs: list[Line] = field(default_factory=list)
    grading: list[Line] = field(default_factory=list)

    @staticmethod
    def _sum(lines: list[Line]) -> Decimal | None:
        costs = [line.cost for line in lines]
        return sum(costs, Decimal(0)) if costs and all(c is not None for c in costs) else None

    @property
    def runs_cost(self) -> Decimal | None:
        return self._sum(self.runs)

    @property
    def grading_cost(self) -> Decimal | None:
        return self._sum(self.grading) if self.grading else Decimal(0)

    @property
    def total(self) -> Decimal | None:
        if self.runs_cost is None or self.grading_cost is None:
            return None
        return self.runs_cost + self.grading_cost

    @property
    def grading_share(self) -> float | None:
        total = self.total
        if not total:
            return None
        return float(self.grading_cost / total)


def _sums(qs) -> dict:
    return qs.aggregate(
        n=Count("pk"),
        inp=Sum("input_tokens"),
        out=Sum("output_tokens"),
        latency=Sum("latency_ms"),
    )


def experiment_costs(experiment: Experiment) -> Costs:
    costs = Costs()
    for run in (
        Run.objects.filter(experiment=experiment)
        .select_related("model_config")
        .order_by("order", "pk")
    ):
        attempts = Attempt.objects.filter(run=run)
        s = _sums(attempts)
        inp, out = s["inp"] or 0, s["out"] or 0
        if run.model_config.provider in THINKING_APART:
            out += attempts.aggregate(n=Sum("reasoning_tokens"))["n"] or 0
        costs.runs.append(
            Line(
                label=f"{run.model_config.label} · {run.repeat}",
                kind="run",
                requests=s["n"],
                input_tokens=inp,
                output_tokens=out,
                cost=price_of(run.model_config, inp, out),
                responses=Response.objects.filter(run=run).count(),
                latency_ms=s["latency"] or 0,
            )
        )
    for job in GradingJob.objects.filter(experiment=experiment).select_related(
        "grader__model_config"
    ):
        s = _sums(GradeAttempt.objects.filter(job=job))
        inp, out = s["inp"] or 0, s["out"] or 0
        config = job.grader.model_config
        costs.grading.append(
            Line(
                label=f"{job.grader} #{job.pk}",
                kind="grading",
                requests=s["n"],
                input_tokens=inp,
                output_tokens=out,
                cost=price_of(config, inp, out) if config else Decimal(0),
                # Over the responses that made a request: an answer the rules decided made
                # none, and counting it would spread the tokens and latency too thin.
                responses=job.grades.filter(attempt__isnull=False).count(),
                latency_ms=s["latency"] or 0,
            )
        )
    return costs
