"""The regression gate: is the candidate experiment worse than the baseline, beyond noise?

Exit 0: pass. 1: a configuration (or one of its blocks) is worse: a regression. 2: the gate
cannot judge: "Cannot tell yet" while collection, scoring or reconciliation is unfinished, or
"Cannot judge" with the reason no waiting will change (other schemes or prompts, too few shared
items). 3: the command itself is refused (an unknown experiment, a malformed --pair or an unknown
label, a bad --w, --metric or --min-items). --json prints the API's answer, the same shape.
"""

import json
import sys

from django.core.management.base import BaseCommand, CommandError

from probe.models import Experiment
from scoring.comparison import gate_report
from scoring.comparison.gate_decision import METRICS, MIN_ITEMS, NET_USABLE

USAGE = 3  # the exit code of a refused or mistyped command


def _find(name: str, pk: int) -> Experiment:
    experiment = Experiment.objects.filter(pk=pk).first()
    if experiment is None:
        raise gate_report.missing_experiment(name, pk)
    return experiment


class Command(BaseCommand):
    help = (
        "Compare a candidate experiment with a baseline. Exit 0 pass, 1 regression, 2 cannot "
        "tell or cannot judge, 3 refused command."
    )

    def create_parser(self, prog_name, subcommand, **kwargs):
        parser = super().create_parser(prog_name, subcommand, **kwargs)

        # argparse exits 2 on a mistyped option, which is the gate's "cannot tell": a mistyped
        # command exits 3, with argparse's own message.
        def refuse(message):
            raise CommandError(f"Refused: {message}", returncode=USAGE)

        parser.error = refuse
        return parser

    def run_from_argv(self, argv):
        # Django parses the command line before the part that turns a CommandError into its exit
        # code, so an unknown or missing option would leave as a traceback and exit 1, the code
        # of a regression. Refused here instead: exit 3, the message, and with --json the one
        # shape every answer of the gate has.
        try:
            self.create_parser(argv[0], argv[1]).parse_args(argv[2:])
        except CommandError as error:
            message = str(error)
            if "--json" in argv[2:]:
                detail = message.removeprefix("Refused: ")
                outcome = gate_report.Outcome(
                    gate_report.REFUSED, detail, [{"field": None, "message": detail}]
                )
                sys.stdout.write(json.dumps(gate_report.gate_body(outcome), indent=1) + "\n")
            sys.stderr.write(message + "\n")
            raise SystemExit(USAGE) from None
        super().run_from_argv(argv)

    def add_arguments(self, parser):
        parser.add_argument("--baseline", required=True, help="experiment id")
        parser.add_argument("--candidate", required=True, help="experiment id")
        parser.add_argument("--metric", default=NET_USABLE, help=" or ".join(METRICS))
        parser.add_argument(
            "--w", default="1", help="net usable's penalty weight, a number from 0 to 100"
        )
        parser.add_argument(
            "--pair",
            metavar="BASELINE_LABEL=CANDIDATE_LABEL",
            help="compare these two configurations (default: those in both experiments)",
        )
        parser.add_argument(
            "--allow-prompt-change",
            action="store_true",
            help="compare even though the prompt versions differ",
        )
        parser.add_argument(
            "--min-items",
            default=str(MIN_ITEMS),
            help=f"the fewest shared items the gate judges from (default {MIN_ITEMS})",
        )
        parser.add_argument(
            "--figures",
            default="corrected",
            help="for a routed experiment: corrected (the grader's answers corrected by the "
            "audit, the default) or human (only the answers people judged)",
        )
        parser.add_argument("--json", action="store_true", help="print the answer as JSON")

    def handle(self, *args, **options):
        outcome = gate_report.gate_outcome(
            baseline=options["baseline"],
            candidate=options["candidate"],
            find=_find,
            metric=options["metric"],
            w=options["w"],
            pair=options["pair"],
            allow_prompt_change=options["allow_prompt_change"],
            min_items=options["min_items"],
            figures=options["figures"],
        )
        if options["json"]:
            self.stdout.write(json.dumps(gate_report.gate_body(outcome), indent=1))
        elif outcome.verdict == gate_report.REFUSED:
            self.stderr.write(gate_report.gate_text(outcome))
        else:
            self.stdout.write(gate_report.gate_text(outcome))
        raise SystemExit(outcome.exit_code)
