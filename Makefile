# mlparse — the README's two commands are `make demo` and `make test`; `make docs` builds the documentation site.
#
# `install` pins torch to 2.13.0 before installing the package: on the project's
# machines pip's find-links holds the CPU wheel of that exact version and takes it;
# elsewhere PyPI's default Linux wheel of 2.13.0 is the CUDA build.  A torch that is
# already importable is kept as it is (a GPU machine with its own build, say).

PYTHON ?= python3
# pytest-xdist workers of `make test` (two: the CI machine's cores; the suite is mostly processes and waits)
TEST_WORKERS ?= 2
STAMP  := .make/installed
PYX    := $(shell find mlparse evalb -name '*.pyx' 2>/dev/null)
PXI    := $(shell find mlparse evalb -name '*.pxi' 2>/dev/null)

.PHONY: install test demo bench docs clean

# The stamp alone is not trusted: if the installed package is not this checkout (an editable
# install made from another copy of the repository, say), install again.  The check runs from /
# (so that this folder is not on the path), hence the stamp's absolute path.
install:
	@cd / && $(PYTHON) -c "import os, sys, evalb, depeval, mlparse; here = os.path.realpath('$(CURDIR)'); \
	sys.exit(any(not os.path.realpath(m.__file__).startswith(here + os.sep) for m in (evalb, depeval, mlparse)))" \
	2>/dev/null || rm -f $(CURDIR)/$(STAMP)
	@$(MAKE) --no-print-directory $(STAMP)

$(STAMP): pyproject.toml setup.py $(PYX) $(PXI)
	@$(PYTHON) -c "import torch" 2>/dev/null || $(PYTHON) -m pip install "torch==2.13.0"
	$(PYTHON) -m pip install -q "setuptools>=64" "cython>=3.0" "numpy>=1.24" wheel
	$(PYTHON) -m pip install -q --no-build-isolation -e ".[dev,docs]"
	@mkdir -p $(dir $(STAMP)) && touch $(STAMP)

test: install
	$(PYTHON) -m pytest -q -n $(TEST_WORKERS)

demo: install
	$(PYTHON) -m mlparse demo

# The generated reference pages must be current, and the site must build without a warning.
docs: install
	$(PYTHON) tools/gen_docs.py --check
	NO_MKDOCS_2_WARNING=1 $(PYTHON) -m mkdocs build --strict --site-dir .make/site

# Workers are started by their benchmarks; these two need what only the person running them knows.
BENCH_NEEDS_ARGUMENTS := benchmarks/speed_guard.py benchmarks/peers_ewt.py

bench: install
	@for b in benchmarks/*.py; do \
	  case "$$b" in *_worker.py) continue;; esac; \
	  if echo " $(BENCH_NEEDS_ARGUMENTS) " | grep -q " $$b "; then echo "== $$b: needs arguments ($(PYTHON) $$b --help), skipped"; continue; fi; \
	  echo "== $$b"; $(PYTHON) $$b || exit 1; done

clean:
	rm -rf .make build *.egg-info
	find mlparse evalb -name '*.so' -delete
	for pyx in $(PYX); do rm -f "$${pyx%.pyx}.c"; done
