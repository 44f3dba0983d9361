# Everything the project needs is installed here, into .venv, from pyproject.toml.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: run test lint bench sandbox clean package package-test icons screenshots

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --upgrade pip
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	$(BIN)/python -m compileall -q app > /dev/null
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/partner-desk

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

test: lint
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest

sandbox: $(STAMP)
	$(BIN)/partner-desk sandbox --port 8080

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis build dist

# the frozen app (packaging/partner-desk.spec), in dist/; on Linux also the archive
package: $(STAMP)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[package]'
	$(BIN)/pyinstaller --noconfirm --clean --log-level WARN --distpath dist --workpath build packaging/partner-desk.spec
	$(BIN)/python packaging/archive.py

package-test: package
	$(BIN)/python packaging/smoke_test.py

icons: $(STAMP)
	$(BIN)/python packaging/make_icons.py

# the README's pictures, made by driving the windows over the embedded sandbox
screenshots: $(STAMP)
	PARTNER_DESK_SCREENSHOTS=docs/screenshots QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest -n0 -q tests/ui/test_readme_screenshots.py

# the app byte-compiled first, as pip leaves an installed one (PYTHONDONTWRITEBYTECODE or not)
bench: $(STAMP)
	$(BIN)/python -m compileall -q app > /dev/null
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m bench
