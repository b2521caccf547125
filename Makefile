# Shortcuts for dev.py, which needs nothing but Python 3.11+.
.PHONY: run test install lint
run:
	python3 dev.py run
test:
	python3 dev.py test
install:
	python3 dev.py install
lint:
	.venv/bin/ruff check . && .venv/bin/ruff format --check .
