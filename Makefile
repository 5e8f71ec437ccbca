# The two commands of README.md:  make demo   (set up + serve the demo on http://127.0.0.1:8000)
#                                 make test   (set up + run the whole test suite)
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
HOST   ?= 127.0.0.1:8000

.PHONY: demo test setup check-python migrate clean

check-python:
	@$(PYTHON) -c 'import sys; v=sys.version_info; sys.exit(0) if v >= (3, 12) else sys.exit("This site needs Python 3.12 or newer (found %d.%d). Install it, or set PYTHON=/path/to/python3.12 and run make again." % v[:2])'

$(VENV)/.installed: pyproject.toml | check-python
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@$(PY) -c 'import sys; sys.exit(0) if sys.version_info >= (3, 12) else sys.exit("$(VENV) was made with an old Python: delete it and run make again.")'
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $@

setup: check-python $(VENV)/.installed

demo: setup
	$(PY) manage.py migrate --noinput
	$(PY) manage.py load_demo
	$(PY) manage.py runserver $(HOST)

test: setup
	$(PY) -m pytest $(PYTEST_ARGS)

clean:
	rm -rf $(VENV) db.sqlite3 staticfiles
