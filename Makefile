# Quick start: `make demo` (build and run the tutorials' workloads) and
# `make test` (build and run the whole suite). Both install what is missing.
BUILD_DIR ?= build
BUILD_TYPE ?= Release
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=
# The Python venv the tests run in, made from the `python3` on PATH; the
# extension and the CLI are built in $(BUILD_DIR) with the rest (the C++ is
# built once), packed into a wheel from there (scripts/pack-build-wheel.sh:
# seconds, no compile) and the venv gets that wheel installed with pip.
VENV ?= .venv
PYTHON ?= python3
VENV_PY := $(VENV)/bin/python
PY_CMAKE_FLAGS = -DCUDAKIT_BUILD_PYTHON=ON -DPython_EXECUTABLE=$(abspath $(VENV_PY))

.PHONY: all deps venv build python-install wheel wheel-check test test-numpy1 test-gpu compat demo bench format clean

all: build

deps:
	@scripts/install-deps.sh

$(VENV_PY): python/requirements-dev.txt
	$(PYTHON) -m venv $(VENV)
	$(VENV_PY) -m pip install -q -r python/requirements-dev.txt
	touch $(VENV_PY)

venv: $(VENV_PY)

$(BUILD_DIR)/CMakeCache.txt: | $(VENV_PY)
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(PY_CMAKE_FLAGS) $(CMAKE_FLAGS)

build: deps $(VENV_PY) $(BUILD_DIR)/CMakeCache.txt
	@# An existing build directory is switched to the venv's Python (quick when set).
	@grep -q "^CUDAKIT_BUILD_PYTHON:BOOL=ON" $(BUILD_DIR)/CMakeCache.txt && \
	  grep -q "^Python_EXECUTABLE:.*=$(abspath $(VENV_PY))$$" $(BUILD_DIR)/CMakeCache.txt || \
	  cmake -S . -B $(BUILD_DIR) $(PY_CMAKE_FLAGS)
	cmake --build $(BUILD_DIR) -j $(JOBS)

# Packs the built extension, CLI and package files into a wheel
# ($(BUILD_DIR)/dist) and installs it into the venv, as a user's pip install
# would (the `cudakit` command included); compiles nothing.
BUILD_WHEEL_DIR = $(BUILD_DIR)/dist
python-install: build
	@site=$$($(VENV_PY) -c "import sysconfig; print(sysconfig.get_paths()['platlib'])") && \
	  rm -rf "$$site/cudakit" && \
	  wheel=$$(scripts/pack-build-wheel.sh $(BUILD_DIR) $(abspath $(VENV_PY)) $(BUILD_WHEEL_DIR)) && \
	  $(VENV_PY) -m pip install -q --no-deps --no-index --force-reinstall "$$wheel"

# A wheel for other machines, in dist/: scikit-build-core's own build (pip
# wheel .: the library, the extension and the CLI, Boost.Context linked in),
# then `auditwheel repair` gives it its manylinux tag. Uses the venv's pinned
# build tools (no download); ccache makes a rebuild of the same sources quick.
wheel: deps $(VENV_PY)
	rm -rf dist/raw dist/cudakit-*.whl
	$(VENV_PY) -m pip wheel . -v --no-deps --no-build-isolation -w dist/raw
	PATH=$(abspath $(VENV))/bin:$$PATH $(VENV_PY) -m auditwheel repair -w dist dist/raw/cudakit-*.whl
	@ls dist/cudakit-*.whl

# Builds the wheel as a user does, installs it into a fresh venv and checks
# the CLI, doctor and the tutorials' programs against it (scripts/wheel-check.sh).
wheel-check: deps $(VENV_PY)
	PYTHON=$(abspath $(VENV_PY)) scripts/wheel-check.sh

test: python-install
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)
	cd tests/python && $(abspath $(VENV_PY)) -m pytest -q -rs -p no:cacheprovider .
	$(MAKE) --no-print-directory test-numpy1
	$(MAKE) --no-print-directory compat

# numba-cuda and its simulator in a venv of their own (the reference column of
# numba-cuda's own kernel tests on the CPU backend).
VENV_SIM ?= .venv-numba-sim
$(VENV_SIM)/bin/python: python/requirements-numba-sim.txt
	$(PYTHON) -m venv $(VENV_SIM)
	$(VENV_SIM)/bin/python -m pip install -q -r python/requirements-numba-sim.txt
	touch $(VENV_SIM)/bin/python

# PyCUDA's current test suite and its example programs, `pycuda` renamed to
# `cudakit`, and numba-cuda's own kernel tests through its test shim, on the
# CPU backend (on a GPU: the same scripts without CUDAKIT_BACKEND). Each
# prints its counts; a PyCUDA failure not in its list of known ones (each
# with its reason) fails the target, and so does passing fewer than 90% of
# the cudapy tests numba-cuda's simulator passes.
compat: python-install $(VENV_SIM)/bin/python
	CUDAKIT_BACKEND=cpu tests/python/compat/run_pycuda_suite.sh $(abspath $(VENV_PY))
	CUDAKIT_BACKEND=cpu $(VENV_PY) tests/python/compat/run_pycuda_examples.py
	CUDAKIT_BACKEND=cpu $(VENV_PY) tests/python/compat/run_numba_cudapy_tests.py --jobs $(JOBS) \
	  --timeout 600 --numba --numba-python $(abspath $(VENV_SIM))/bin/python --require 90


# The oldest NumPy the package supports (1.24), in a venv of its own: the same
# wheel installed, the whole Python suite again.
VENV_NP1 ?= .venv-numpy1
$(VENV_NP1)/bin/python: python/requirements-numpy1.txt
	$(PYTHON) -m venv $(VENV_NP1)
	$(VENV_NP1)/bin/python -m pip install -q -r python/requirements-numpy1.txt
	touch $(VENV_NP1)/bin/python

test-numpy1: python-install $(VENV_NP1)/bin/python
	@site=$$($(VENV_NP1)/bin/python -c "import sysconfig; print(sysconfig.get_paths()['platlib'])") && \
	  rm -rf "$$site/cudakit" && \
	  $(VENV_NP1)/bin/python -m pip install -q --no-deps --no-index --force-reinstall $(BUILD_WHEEL_DIR)/cudakit-*.whl
	cd tests/python && $(abspath $(VENV_NP1))/bin/python -m pytest -q -p no:cacheprovider .

test-gpu: python-install
	cd $(BUILD_DIR) && ctest --output-on-failure -L gpu
	cd tests/python && $(abspath $(VENV_PY)) -m pytest -q -rs -p no:cacheprovider -m gpu .

demo: python-install
	$(BUILD_DIR)/bin/cudakit demo
	@for program in tests/python/tutorial/*.py; do \
	  case $$program in *multi_gpu*) [ "$$($(VENV_PY) -c 'import cudakit.driver as d; print(d.Device.count())')" -ge 2 ] || \
	    { echo "== $$program: skipped (needs 2 devices: 2 GPUs, or CUDAKIT_BACKEND=cpu CUDAKIT_CPU_DEVICES=2)"; continue; };; esac; \
	  echo "== $$program"; $(VENV_PY) $$program || exit 1; \
	done

bench: build
	$(BUILD_DIR)/bin/cudakit bench

format:
	git ls-files '*.hpp' '*.cpp' '*.h' | xargs clang-format -i

clean:
	rm -rf $(BUILD_DIR) $(VENV) $(VENV_NP1) $(VENV_SIM)
