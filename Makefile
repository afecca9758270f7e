# Two commands do all set-up on a fresh Debian or Raspberry Pi OS machine:
#   make run    — the companion (ARGS="..." passes options, e.g. ARGS="--seed 7")
#   make test   — lint, type checks and the whole test suite
# Each creates .venv and installs whatever is missing, system packages included.

SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
ARGS ?=

.PHONY: run test lint typecheck bench clean system-packages

run: $(STAMP)
	$(BIN)/battleline-companion $(ARGS)

test: $(STAMP)
	$(BIN)/ruff check companion vision hardware firmware tests
	$(BIN)/mypy --strict companion/rules
	$(BIN)/mypy companion vision hardware
	$(BIN)/python -m pytest -n auto $(ARGS)

lint: $(STAMP)
	$(BIN)/ruff check companion vision hardware firmware tests

typecheck: $(STAMP)
	$(BIN)/mypy --strict companion/rules
	$(BIN)/mypy companion vision hardware

bench: $(STAMP)
	$(BIN)/battleline-companion bench rules

# The translations (Babel): every marked string of the companion and the hardware into
# companion/locale/battleline.pot, each language's .po updated from it (new strings
# empty, gone ones dropped), then every .po compiled to the .mo the package ships.
# argparse's own words (usage, "the following arguments are required", ...) come from
# this Python's argparse.py, copied to build/python3.N/ so the catalog names its version,
# not this machine's path (companion.i18n.ArgumentParser serves them from our catalog).
LOCALE := companion/locale
ARGPARSE = build/$(shell $(BIN)/python -c 'import sys; print("python%d.%d" % sys.version_info[:2])')
.PHONY: catalogs
catalogs: $(STAMP)
	mkdir -p $(ARGPARSE) && cp "$$($(BIN)/python -c 'import argparse; print(argparse.__file__)')" $(ARGPARSE)/
	$(BIN)/pybabel extract -F pyproject.toml --add-location=file --sort-by-file --no-wrap \
	  --project=battleline-companion -o $(LOCALE)/battleline.pot companion hardware vision \
	  $(ARGPARSE)
	$(BIN)/pybabel update -i $(LOCALE)/battleline.pot -d $(LOCALE) -D battleline \
	  --ignore-obsolete --no-wrap --no-fuzzy-matching
	$(BIN)/pybabel compile -d $(LOCALE) -D battleline --statistics

# The touchscreen as a kiosk on the Pi: a systemd unit that starts it full screen at
# boot through SDL's kmsdrm driver (ARGS="--orientation portrait" for Touch Display 2).
.PHONY: kiosk-install
kiosk-install: $(STAMP)
	$(BIN)/battleline-companion kiosk --install $(ARGS)

# On a Raspberry Pi the venv sees the apt-installed picamera2 and lgpio, which
# are built against the system's libcamera and kernel and do not come from PyPI.
IS_PI := $(shell grep -qs 'Raspberry Pi' /proc/device-tree/model && echo yes)

$(STAMP): pyproject.toml
	@$(MAKE) --no-print-directory system-packages
	@test -x $(BIN)/python || $(PYTHON) -m venv $(if $(IS_PI),--system-site-packages) $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $@

# Installs only what is missing, and says what and why before it does.
system-packages:
	@missing=""; \
	$(PYTHON) -c 'import venv, ensurepip' 2>/dev/null || missing="$$missing python3-venv python3-pip"; \
	/sbin/ldconfig -p 2>/dev/null | grep -q 'libGL.so.1 ' || missing="$$missing libgl1"; \
	/sbin/ldconfig -p 2>/dev/null | grep -q 'libglib-2.0.so.0 ' || missing="$$missing libglib2.0-0"; \
	if [ -n "$(IS_PI)" ]; then \
	  for p in python3-picamera2 python3-lgpio; do \
	    dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; \
	  done; \
	fi; \
	if [ -n "$$missing" ]; then \
	  if ! command -v apt-get >/dev/null; then \
	    echo "Missing system packages:$$missing — install them with your package manager and run again."; exit 1; \
	  fi; \
	  echo "Installing missing system packages:$$missing (OpenCV needs libGL/GLib; the Pi's camera and GPIO come from apt)"; \
	  sudo=""; [ "$$(id -u)" = 0 ] || sudo="sudo"; \
	  $$sudo apt-get update -qq && $$sudo apt-get install -y -qq --no-install-recommends $$missing; \
	fi

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache

# Copies firmware/ onto a Raspberry Pi Pico running MicroPython, plugged in by
# USB (PORT=/dev/ttyACM0 picks one); see firmware/README.md.
.PHONY: flash-pico
flash-pico: $(STAMP)
	@test -x $(BIN)/mpremote || $(BIN)/python -m pip install --quiet 'mpremote>=1.20,<2'
	$(BIN)/python -m hardware.flash $(if $(PORT),--port $(PORT))
