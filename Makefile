# Two commands on a fresh machine: `make run` (serve the site) and `make test` (the whole suite).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cat requirements.txt requirements-dev.txt | sha256sum | cut -c1-12)

.PHONY: install run serve test lint bench bench-http soak gpu-check clean help

install: $(STAMP)  ## install the pinned packages into .venv (once per requirements change)

# These machines set PYTHONDONTWRITEBYTECODE, so every process would compile what it imports again (torch's 2,000
# modules among them). make's commands write the bytecode as Python does by default, once, on first import: pip does
# not byte-compile what it installs (its pass took 175 s, one file at a time), and the install ends by importing what
# the site and the suite use (2,400 modules written, 13 s) instead of compiling all 16,000 (53 s on every
# core): a fresh clone's install took 66 s, against 121 to 140 s. A module imported later is compiled once, then.
unexport PYTHONDONTWRITEBYTECODE
WARM_IMPORTS := django, torch, onnx, onnxruntime, mlperf_loadgen, pandas, plotly.graph_objects, scipy.stats, sklearn.datasets
$(STAMP): requirements.txt requirements-dev.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check --no-compile -r requirements-dev.txt
	$(PY) -c "import $(WARM_IMPORTS)"
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

# migrate also loads the task definitions and the price catalog (data migrations).
# The bundled digits task's four boards are filled once, from real runs, each step only while its board is
# empty: the reference job trains (training time and cost), its model is exported to ONNX and measured through
# MLPerf LoadGen, offline, quick profile (inference latency and cost, at single stream and at throughput). Both
# are priced as the catalog's CPU instance of this machine's vCPU count (aws c5: c5.large on 2 cores), named
# so on the entry: nothing on the board is made up.
BUNDLED := runs/bundled
PRICED_AS := --instance auto --provider aws
run: install  ## install, migrate, fill the bundled task's boards from real runs and serve on 127.0.0.1:8000
	$(PY) manage.py migrate --noinput
	$(PY) manage.py run_reference digits --submit --only-if-missing --out $(BUNDLED) $(PRICED_AS)
	@if [ -f $(BUNDLED)/digits_cnn_seed0.pt ]; then \
	  [ -f $(BUNDLED)/digits.onnx ] || $(PY) manage.py export_onnx digits $(BUNDLED)/digits_cnn_seed0.pt $(BUNDLED)/digits.onnx; \
	  $(PY) manage.py measure_inference digits --model $(BUNDLED)/digits.onnx --scenario offline --quick \
	    --only-if-missing --submit --out $(BUNDLED)/inference $(PRICED_AS); \
	fi
	$(PY) manage.py runserver 127.0.0.1:8000

# The production stack in the foreground (deploy/serve.py): production settings on PostgreSQL (DATABASE_URL, by
# default postgres://postgres@127.0.0.1:5432/dawnboard, created where missing) and Redis (the one on 6379 where it
# answers, else a redis-server of its own), collectstatic and migrate, then gunicorn on 127.0.0.1:8000, a Celery
# worker judging, one for reference runs and beat, their logs here; Ctrl-C stops them all.
serve: install  ## the production stack (gunicorn, judging and reference workers, beat) on PostgreSQL and Redis
	$(PY) -m deploy.serve

# The whole suite on SQLite (the services-marked end-to-end test uses PostgreSQL and Redis itself),
# then the database-facing tests again on PostgreSQL where one is running on 127.0.0.1:5432.
POSTGRES_TEST_URL ?= postgres://postgres@127.0.0.1:5432/dawnboard

# The browser tests drive Debian's chromium (never a downloaded one): install it with apt where it is
# missing and that is possible; otherwise those tests skip themselves with the reason. Likewise axe-core (the
# accessibility check), from npm into .cache/axe-core/: the test injects that file into each page.
.PHONY: browser
AXE_JS := .cache/axe-core/node_modules/axe-core/axe.min.js
browser:  ## install Debian's chromium and axe-core for the browser tests (skipped where impossible)
	@command -v chromium >/dev/null || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) \
		|| echo "chromium could not be installed: the browser tests will be skipped"
	@test -f $(AXE_JS) || (command -v npm >/dev/null && npm install --silent --no-save --no-audit --no-fund \
		--prefix .cache/axe-core axe-core@4) || echo "axe-core could not be installed: the axe test will be skipped"

# The tests run on every core (pytest-xdist), a test module's tests on one worker together.
PYTEST_WORKERS ?= auto

# The documentation builds first, strictly (mkdocs.yml): a broken link or anchor fails the suite. Never with
# `--quiet`: MkDocs 1.6 then counts no warning, and `--strict --quiet` passes a broken link. NO_MKDOCS_2_WARNING
# silences mkdocs-material's banner about its end of life.
test: install browser  ## install and run the whole suite, then its PostgreSQL pass where PostgreSQL runs
	$(VENV)/bin/lint-imports
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict
	$(PY) -m pytest -n $(PYTEST_WORKERS) --dist loadfile --durations=10
	@if $(PY) -c "import socket; socket.create_connection(('127.0.0.1', 5432), 1)" 2>/dev/null; then \
		echo "== the API, command, charts page, entry rank, copied log, token, algorithm track, trust, health and metrics tests again, on PostgreSQL"; \
		DATABASE_URL=$(POSTGRES_TEST_URL) $(PY) -m pytest -n $(PYTEST_WORKERS) --dist loadfile --create-db -m "not services" \
			tests/leaderboard/api tests/leaderboard/test_commands.py tests/leaderboard/test_charts_page.py \
			tests/leaderboard/test_entry_ranks.py tests/leaderboard/test_copied_logs.py tests/leaderboard/test_api_tokens.py \
			tests/leaderboard/test_algorithm_track.py tests/leaderboard/test_trust.py tests/config; \
	else \
		echo "PostgreSQL is not running on 127.0.0.1:5432: the PostgreSQL pass of the API tests is skipped."; \
	fi

lint: install  ## ruff check, ruff format --check and the import contracts
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports

# Each bench judges its goals by bench/goals.py's rule (pairs until the 95 % interval of the median is within +-2 %,
# or 120 s a goal) and appends its verdicts to $(BENCH_VERDICTS); all run, then one table of every goal. A FAIL or
# NOT JUDGED is a finding, not an error: the target fails only when a bench crashed (docs/benchmarks/goals.md).
BENCHES := ingest submission_memory pages train_overhead echo cifar_throughput latency_overhead backends cli_startup
BENCH_VERDICTS ?= .cache/bench-verdicts.jsonl
bench: install  ## the in-process benchmarks, each judging its goals; ends with one table of every goal
	@mkdir -p $(dir $(BENCH_VERDICTS)); rm -f $(BENCH_VERDICTS); crashed=0; \
	for name in $(BENCHES); do \
	  BENCH_VERDICTS=$(BENCH_VERDICTS) $(PY) bench/$$name.py \
	    || { crashed=1; $(PY) -m bench.goals --crashed $$name $(BENCH_VERDICTS); }; \
	done; \
	$(PY) -m bench.goals $(BENCH_VERDICTS); exit $$crashed

# The site over HTTP as readers meet it (issue 12): it starts its own production stack on this machine (gunicorn
# -w 4, a Celery worker, two redis-servers of its own, a fresh PostgreSQL database `dawnboard_http`), loads it
# with wrk at 1,000, 10,000 and 100,000 entries per task, prints one table per size and tears it all down.
bench-http: install  ## the site over HTTP on its own production stack at 1,000 to 100,000 entries a task
	@command -v wrk >/dev/null || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk)
	$(PY) bench/http_bench.py

# The fault and load suite, run by hand before a release (not by CI): it starts its own stack on this machine
# (nginx from deploy/nginx.conf in front of gunicorn, a Celery worker and beat on a redis-server of its own, a fresh
# PostgreSQL database `dawnboard_soak`), prints one table and tears it all down. schemathesis lives in a venv of its
# own, since its pytest plugin would otherwise load into `make test`. nginx comes from apt where it is missing (on a
# machine run by systemd, Debian's package also starts a default site on port 80: `systemctl disable --now nginx`).
SOAK_VENV := .venv-soak
SOAK_STAMP := $(SOAK_VENV)/.installed-$(shell cat requirements-soak.txt | sha256sum | cut -c1-12)

$(SOAK_STAMP): requirements-soak.txt
	test -x $(SOAK_VENV)/bin/python || $(PYTHON) -m venv $(SOAK_VENV)
	$(SOAK_VENV)/bin/python -m pip install --quiet --disable-pip-version-check -r requirements-soak.txt
	rm -f $(SOAK_VENV)/.installed-*
	touch $(SOAK_STAMP)

soak: install $(SOAK_STAMP)  ## the fault and load suite on its own production stack
	@command -v nginx >/dev/null || test -x /usr/sbin/nginx \
		|| (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx)
	$(PY) -m bench.soak

# The prepared GPU check (bench/gpu_check.py): every CUDA path on one GPU, in a few minutes, its figures printed.
# The project's .venv pins torch's CPU build, so name a Python whose torch is a CUDA build, e.g. a GPU image's own:
# make gpu-check GPU_PYTHON=python3 (it reads no database and needs only torch, numpy, pandas, Pillow, tqdm,
# scikit-learn's digits and mlperf-logging, not the site).
GPU_PYTHON ?= $(PY)
gpu-check:  ## the prepared GPU check (on a machine with a GPU)
	$(GPU_PYTHON) bench/gpu_check.py

clean:  ## remove the virtualenvs, caches, collected static files, the built docs and the local database
	rm -rf $(VENV) $(SOAK_VENV) db.sqlite3 staticfiles test-artifacts .cache site

help:  ## list these targets
	@awk -F':.*## ' '/^[a-z-]+:.*## / {printf "  %-11s %s\n", $$1, $$2}' $(MAKEFILE_LIST)
