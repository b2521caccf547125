"""Graders: a deterministic rule grader and model graders, as a blind second opinion.

A grader is a model configuration plus a grading prompt version plus a strict parser; the
deterministic rule grader (`rules.py`) runs first and needs no model. Grading is collection's
kind of work (`engine.py` sends through probe's collection `Sender`, within the same limits and
retry windows, under a lease on the grading job; `tasks.py` holds the Celery tasks and the
sweep). Every grade stores the grader's version: (model as the provider reported it,
configuration hash, prompt hash, parser version). See docs/grader.md.

Modules: `models` (grading prompts, graders, jobs, attempts, grades), `texts` (the default
grading prompts and the request text, pure), `parser` (the strict reply parser, pure), `rules`
(the deterministic grader, pure), `labels` (scheme labels and the bucket of a label),
`services` (the writes), `engine` (the grading collector), `selectors` (the reads), `tasks`.
"""
