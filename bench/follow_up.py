"""A follow-up of a 1,000-item experiment (5 configurations, 5,000 responses, all with final
buckets): "Run again" with every earlier run included as it is, then the carry of the 5,000
identical answers' buckets. Target: under 2 s in all.

Run it on PostgreSQL (the figure that counts):
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench .venv/bin/python bench/follow_up.py
Without DATABASE_URL it runs on SQLite. It makes and drops a database of its own.
"""

import time

from _setup import describe, django_setup, median, throwaway_database

TARGET_S = 2.0
N_ITEMS, N_CONFIGS, ROUNDS = 1000, 5, 3


def answer_for(item_index: int, run_index: int):
    return f"answer {item_index} r{run_index}", ("HIGH", "MEDIUM", "LOW")[
        (item_index + run_index) % 3
    ]


def main() -> None:
    django_setup()
    with throwaway_database("follow_up") as connection:
        from probe.models import Block, ExperimentItem, Item, Response
        from probe.services.experiments import experiment_start
        from scoring.comparison import followups
        from scoring.models import FinalBucket
        from scoring.queue import carry
        from tests.builders import standalone_experiment

        experiment, user = standalone_experiment(
            n_items=N_ITEMS, n_configs=N_CONFIGS, repeats=1, answer_for=answer_for
        )
        # The snapshot's bank items (a follow-up and the carry match item versions by them).
        block = Block.objects.create(bank=experiment.bank, code="A", title="Bench")
        items = Item.objects.bulk_create(
            Item(block=block, question=f"Question {i + 1}?", order=i + 1) for i in range(N_ITEMS)
        )
        snapshot = list(ExperimentItem.objects.filter(experiment=experiment).order_by("position"))
        for item, bank_item in zip(snapshot, items, strict=True):
            item.source_item = bank_item
        ExperimentItem.objects.bulk_update(snapshot, ["source_item"])
        FinalBucket.objects.bulk_create(
            FinalBucket(response_id=pk, bucket="correct", unanimous=True)
            for pk in Response.objects.filter(run__experiment=experiment).values_list(
                "pk", flat=True
            )
        )
        runs = list(experiment.runs.all())
        total, create, carried = [], [], []
        for _ in range(ROUNDS):
            start = time.perf_counter()
            again = followups.experiment_follow_up(origin=experiment, user=user, include_runs=runs)
            # Every run is included: starting it finds nothing to collect and completes it.
            again = experiment_start(experiment=again, user=user, queue=False)
            middle = time.perf_counter()
            made = carry.carry_sync(experiment=again)
            end = time.perf_counter()
            assert made == N_ITEMS * N_CONFIGS, made
            create.append(middle - start)
            carried.append(end - middle)
            total.append(end - start)
        print(f"{describe(connection)}: follow-up of {N_ITEMS} items x {N_CONFIGS} runs included")
        print(f"  create and start the follow-up (5,000 copied) : median {median(create):.2f} s")
        print(f"  carry 5,000 buckets:                           median {median(carried):.2f} s")
        print(
            f"  total: median {median(total):.2f} s, worst {max(total):.2f} s"
            f"   (target: under {TARGET_S:.0f} s)"
        )


if __name__ == "__main__":
    main()
