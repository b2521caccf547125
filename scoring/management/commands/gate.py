"""The regression gate: is the candidate experiment worse than the baseline, beyond noise?

Exit 0: not worse beyond the paired interval. Exit 1: worse. Exit 2: the data cannot tell yet
(collection, scoring or reconciliation unfinished) or the two cannot be compared as asked.
"""

import json

from django.core.management.base import BaseCommand, CommandError

from probe.models import Experiment
from scoring import compare


class Command(BaseCommand):
    help = "Compare a candidate experiment with a baseline; exit 1 on a regression beyond noise."

    def add_arguments(self, parser):
        parser.add_argument("--baseline", type=int, required=True, help="experiment id")
        parser.add_argument("--candidate", type=int, required=True, help="experiment id")
        parser.add_argument("--metric", choices=compare.METRICS, default=compare.NET_USABLE)
        parser.add_argument("--w", type=float, default=1.0, help="net usable's penalty weight")
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
        parser.add_argument("--json", action="store_true", help="print the comparison as JSON")

    def handle(self, *args, **options):
        experiments = {
            e.pk: e
            for e in Experiment.objects.filter(pk__in=[options["baseline"], options["candidate"]])
        }
        for name in ("baseline", "candidate"):
            if options[name] not in experiments:
                raise CommandError(f"No experiment with id {options[name]} ({name}).")
        pair = None
        if options["pair"]:
            if "=" not in options["pair"]:
                raise CommandError("--pair takes BASELINE_LABEL=CANDIDATE_LABEL.")
            pair = tuple(part.strip() for part in options["pair"].split("=", 1))
        try:
            result = compare.compare(
                experiments[options["baseline"]],
                experiments[options["candidate"]],
                metric=options["metric"],
                w=options["w"],
                pair=pair,
                allow_prompt_change=options["allow_prompt_change"],
            )
        except (compare.CannotTellYet, compare.NotComparable) as error:
            if options["json"]:
                self.stdout.write(json.dumps({"verdict": "cannot tell", "why": str(error)}))
            else:
                self.stdout.write(f"Cannot tell yet: {error}")
            raise SystemExit(2) from None
        if options["json"]:
            self.stdout.write(json.dumps(compare.comparison_dict(result), indent=1))
        else:
            self.stdout.write(compare.comparison_text(result))
        raise SystemExit(1 if result.regression else 0)
