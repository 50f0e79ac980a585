# Two entry points on a fresh clone; each builds its own virtual environment (.venv).
#   make demo   compile an embedded PTX kernel and run it on the gfx942 emulator, printing the check
#   make test   install with the test extra and run the default test suite
PYTHON ?= python3
VENV   := .venv
STAMP  := $(VENV)/.installed-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)

.PHONY: demo test test-slow bench clean

$(STAMP): pyproject.toml
	rm -f $(VENV)/.installed-*
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install -q --upgrade pip
	$(VENV)/bin/pip install -q -e '.[test]'
	touch $@

demo: $(STAMP)
	$(VENV)/bin/python -m ptx2gcn.demo

test: $(STAMP)
	$(VENV)/bin/pytest -q

test-slow: $(STAMP)
	$(VENV)/bin/pytest -q -m slow

bench: $(STAMP)
	for b in benchmarks/*.py; do $(VENV)/bin/python $$b || exit 1; done

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis
