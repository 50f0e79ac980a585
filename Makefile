# Two entry points on a fresh clone; each builds its own virtual environment.
#   make demo   install ptx2gcn as a user does (`pip install .`: no extras, not editable) into .venv-demo,
#               then compile an embedded PTX kernel and run it on the gfx942 emulator, printing the check
#   make test   install editable with the test extra into .venv and run the default test suite
PYTHON    ?= python3
VENV      := .venv
STAMP     := $(VENV)/.installed-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)
DEMO_VENV := .venv-demo
# A regular install copies the sources, so the demo's environment is reinstalled when any changes.
SOURCES   := pyproject.toml $(shell find ptx2gcn grammar passes runtime -name '*.py' -o -name '*.lark')

.PHONY: demo test test-slow bench clean

$(STAMP): pyproject.toml
	rm -f $(VENV)/.installed-*
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install -q --upgrade pip
	$(VENV)/bin/pip install -q -e '.[test]'
	touch $@

$(DEMO_VENV)/.installed: $(SOURCES)
	$(PYTHON) -m venv $(DEMO_VENV)
	$(DEMO_VENV)/bin/pip install -q --upgrade pip
	$(DEMO_VENV)/bin/pip install -q .
	touch $@

# -P: the checkout's folder is not put on sys.path, so the installed package is what runs.
demo: $(DEMO_VENV)/.installed
	$(DEMO_VENV)/bin/python -P -m ptx2gcn.demo

test: $(STAMP)
	$(VENV)/bin/pytest -q

test-slow: $(STAMP)
	$(VENV)/bin/pytest -q -m slow

bench: $(STAMP)
	for b in benchmarks/*.py; do $(VENV)/bin/python $$b || exit 1; done

clean:
	rm -rf $(VENV) $(DEMO_VENV) build *.egg-info .pytest_cache .hypothesis
