# Two commands matter: `make book` and `make test`. Each makes .venv and
# installs the pinned requirements first (only when they changed).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# Single-threaded BLAS/OpenMP: timings stay comparable and nothing depends on thread count.
export OMP_NUM_THREADS := 1
export OPENBLAS_NUM_THREADS := 1
export MKL_NUM_THREADS := 1
export PYTHONHASHSEED := 0
# numba's idle worker threads wait passively (OpenMP spins them by default): with two test
# workers on two cores spinning threads took the cores from the working ones. It changes
# no result; benchmarks do not get it (they time the libraries as users run them).
test nbval nbval-kernels notebooks: export OMP_WAIT_POLICY := passive
# Parallel jobs for the unit tests and nbval (`make test JOBS=4` on a bigger machine).
JOBS ?= 2
# nbval: each chapter's stored outputs against a fresh run. pytest-xdist hands each
# worker whole notebooks (--dist loadfile): a chapter's cells run in order in one
# kernel of their own, so the result does not depend on how chapters are shared out.
NBVAL := -m pytest -n $(JOBS) --dist loadfile --nbval book --nbval-sanitize-with book/nbval_sanitize.cfg -p no:randomly
# `make nbval` runs the chapters under the machine's own OpenBLAS kernel (OPENBLAS_CORETYPE
# unset); `make nbval-kernels` under three x86-64 kernels that round differently (FMA,
# AVX without FMA, SSE3). A stored output that depends on the CPU fails one of them, so
# CI runs both; nothing pins the kernel.
KERNELS := Haswell Sandybridge Prescott
NBVAL_NATIVE := env -u OPENBLAS_CORETYPE $(BIN)/python $(NBVAL)

.PHONY: test nbval nbval-kernels timings book site-test notebooks bench mutants dist binder-check lint clean

$(STAMP): requirements.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -r requirements.txt
	touch $(STAMP)

## make test: lint, unit, property and equivalence tests, then nbval once (the machine's kernel)
test: $(STAMP)
	$(BIN)/ruff check boostlib tests benchmarks tools site_tests
	$(BIN)/python -m pytest -n $(JOBS) tests
	$(NBVAL_NATIVE)

## make nbval: the chapters' stored outputs against fresh runs, under the machine's OpenBLAS kernel
nbval: $(STAMP)
	$(NBVAL_NATIVE)

## make nbval-kernels: nbval under each of the other OpenBLAS kernels (CI runs it after make test)
nbval-kernels: $(STAMP)
	@failed=""; for core in $(KERNELS); do \
	  echo "== nbval, OPENBLAS_CORETYPE=$$core"; \
	  OPENBLAS_CORETYPE=$$core $(BIN)/python $(NBVAL) || failed="$$failed $$core"; \
	done; \
	if [ -n "$$failed" ]; then echo "nbval failed with OPENBLAS_CORETYPE:$$failed"; exit 1; fi

## make book: build the static site into _build/html from the stored outputs (fails on any
## warning); stops first if a chapter's code, boostlib or data changed since it was executed
book: $(STAMP)
	$(BIN)/python tools/executed.py
	$(BIN)/jupyter-book build . -W -n --keep-going

## make site-test: open every built page in headless Chromium (run after make book)
site-test: $(STAMP)
	$(BIN)/python -m pytest site_tests -v

## make notebooks: re-execute every chapter in place, recorded in book/executed.json
## (after changing boostlib; make book asks for it)
notebooks: $(STAMP)
	$(BIN)/python tools/execute_notebooks.py book

## make bench: every benchmark, results under benchmarks/results/
bench: $(STAMP)
	$(BIN)/python benchmarks/run_all.py

## make mutants: mutation testing (mutmut) of the losses, directions, steps, loop and trees;
## score and survivors in benchmarks/results/mutation.md. A benchmark (about an hour or more
## on one core), not part of make test; one group: .venv/bin/python benchmarks/mutation.py steps
mutants: $(STAMP)
	$(BIN)/python benchmarks/mutation.py --max-children 2

## make timings: wall and CPU time of make test, make book and make nbval-kernels, into
## benchmarks/results/make_targets.csv (run it on a quiet machine; the README quotes it)
timings: $(STAMP)
	$(BIN)/python benchmarks/make_targets.py

## make dist: boostlib's sdist and wheel into dist/, checked by twine; they hold boostlib only
dist: $(STAMP)
	rm -rf dist
	$(BIN)/python -m build --outdir dist .
	$(BIN)/twine check --strict dist/*
	$(BIN)/python tools/check_dist.py dist

## make binder-check: Binder's image would run Python 3.11 and install requirements.txt
## (jupyter-repo2docker --no-build: offline, no container engine)
binder-check: $(STAMP)
	$(BIN)/python tools/binder_check.py .

clean:
	rm -rf _build .pytest_cache dist build
