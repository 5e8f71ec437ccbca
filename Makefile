# The two commands of README.md:  make demo   (set up + serve the demo on http://127.0.0.1:8000,
#                                               with the background worker beside it)
#                                 make test   (set up + run the whole test suite)
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
HOST   ?= 127.0.0.1:8000

.PHONY: demo reset-demo test lint setup check-python migrate clean translations browser pdf-libs

check-python:
	@$(PYTHON) -c 'import sys; v=sys.version_info; sys.exit(0) if v >= (3, 12) else sys.exit("This site needs Python 3.12 or newer (found %d.%d). Install it, or set PYTHON=/path/to/python3.12 and run make again." % v[:2])'

# The packages' installation goes to $(INSTALL_LOG), with one line on the screen (and the log's
# end if it fails).
INSTALL_LOG := $(VENV)/install.log
$(VENV)/.installed: pyproject.toml | check-python
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@$(PY) -c 'import sys; sys.exit(0) if sys.version_info >= (3, 12) else sys.exit("$(VENV) was made with an old Python: delete it and run make again.")'
	@echo "Installing the site's packages in $(VENV) (about 30 seconds the first time on a fast connection; log: $(INSTALL_LOG))"
	@{ $(PY) -m pip install --upgrade pip && $(PY) -m pip install -e '.[test]'; } > $(INSTALL_LOG) 2>&1 \
		|| { tail -n 25 $(INSTALL_LOG); echo "*** The installation failed: the whole log is in $(INSTALL_LOG)"; exit 1; }
	@touch $@

# The .mo files are build output (git-ignored): compiled from locale/*/LC_MESSAGES/django.po
# with polib, so GNU gettext is not needed.
translations: $(VENV)/.installed
	@$(PY) manage.py compile_translations --verbosity 0

# The PDFs (standings, a round by name: WeasyPrint) need Pango from the operating system, and
# fonts that cover the names people type (Latin, Cyrillic, Greek, Arabic: Noto and DejaVu;
# Chinese, Japanese, Korean: Noto CJK). Install Debian's packages when WeasyPrint cannot load
# Pango or no font covers Chinese or Arabic (as root), or say how. Without Pango the site runs
# and its PDF addresses answer 503 with a page that says so; without the fonts such names print
# as empty boxes.
PDF_PACKAGES := libpango-1.0-0 libpangoft2-1.0-0 libharfbuzz-subset0 fonts-dejavu-core fonts-noto-core fonts-noto-cjk
pdf-libs: $(VENV)/.installed
	@if $(PY) -c 'import weasyprint' >/dev/null 2>&1 && fc-list :lang=zh family 2>/dev/null | grep -q . \
		&& fc-list :lang=ar family 2>/dev/null | grep -q .; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo "Installing Pango and fonts for the PDFs: apt-get install $(PDF_PACKAGES) (log: $(VENV)/pdf-libs-install.log; the CJK fonts are about 100 MB)"; \
		{ apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y $(PDF_PACKAGES); } > $(VENV)/pdf-libs-install.log 2>&1 \
			|| { tail -n 25 $(VENV)/pdf-libs-install.log; echo "*** Installing Pango and fonts failed (see $(VENV)/pdf-libs-install.log): the PDFs will answer 503 or print some names as boxes"; }; \
	else \
		echo "*** WeasyPrint cannot load Pango, or no font covers Chinese or Arabic: the PDFs will answer 503 (and their tests fail) or print such names as boxes."; \
		echo "*** Install them as root: apt-get update && apt-get install -y $(PDF_PACKAGES)"; \
	fi

setup: check-python $(VENV)/.installed translations pdf-libs

demo: setup
	$(PY) manage.py migrate --noinput
	$(PY) manage.py createcachetable --verbosity 0
	$(PY) manage.py load_demo
	@# The background worker (ledger replays, long imports) beside the web server, started again
	@# if it stops (on SQLite a long write elsewhere can make it give up), after recovering the
	@# task a stopped one left "running" (manage.py recover_tasks); both stop together
	@# (Ctrl-C). The links in the messages to players point at this server (DJANGO_SITE_URL;
	@# HOST=0.0.0.0:PORT: the machine's address on its network, which is then an allowed host).
	eval "$$($(PY) -m clubsite.env '$(HOST)')"; \
	echo "Links in the messages to players point at $$DJANGO_SITE_URL (DJANGO_SITE_URL=... to change it)"; \
	( trap 'kill $$CHILD 2>/dev/null; exit 0' INT TERM; \
	  while :; do $(PY) manage.py recover_tasks >/dev/null; \
	  $(PY) manage.py db_worker --interval 0.5 --no-reload --verbosity 0 & CHILD=$$!; \
	  wait $$CHILD; sleep 1; done ) & WORKER=$$!; \
	trap 'kill $$WORKER 2>/dev/null' EXIT INT TERM; \
	$(PY) manage.py runserver $(HOST)

# The demo from scratch: the SQLite database (and its journal files) deleted, then make demo,
# which loads the demo again, dated from today.
reset-demo:
	rm -f db.sqlite3 db.sqlite3-wal db.sqlite3-shm db.sqlite3-journal
	$(MAKE) demo

# The browser tests (tests/browser/) drive the distribution's Chromium through Playwright, which
# never downloads a browser of its own here: install Debian's package when it is missing (as
# root), or say how. Without it they are skipped, except under CI=1 where they fail.
CHROMIUM := /usr/bin/chromium
browser:
	@if [ -x $(CHROMIUM) ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo "Installing Chromium for the browser tests: apt-get install chromium (log: $(VENV)/chromium-install.log)"; \
		{ apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium; } > $(VENV)/chromium-install.log 2>&1 \
			|| { tail -n 25 $(VENV)/chromium-install.log; echo "*** Installing Chromium failed: see $(VENV)/chromium-install.log"; exit 1; }; \
	else \
		echo "*** $(CHROMIUM) is missing, so the browser tests (tests/browser/) will be skipped"; \
		echo "*** (with CI set they fail). Install it as root: apt-get update && apt-get install -y chromium"; \
	fi

test: setup browser
	$(PY) -m pytest $(PYTEST_ARGS)

# ruff: lint and format check (.ci/run fails on any finding; `ruff format .` fixes the format);
# lint-imports: the layers of docs/ARCHITECTURE.md (pyproject.toml [tool.importlinter]), imports
# inside functions included; bench/import_graph.py: no import cycle.
lint: $(VENV)/.installed
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports --no-cache
	$(PY) bench/import_graph.py > /dev/null || $(PY) bench/import_graph.py

clean:
	rm -rf $(VENV) db.sqlite3 staticfiles
