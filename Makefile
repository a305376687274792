# Quick start: `make demo` (build and run the tutorials' workloads) and
# `make test` (build and run the whole suite). Both install what is missing.
BUILD_DIR ?= build
BUILD_TYPE ?= Release
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all deps build test test-gpu demo bench format clean

all: build

deps:
	@scripts/install-deps.sh

$(BUILD_DIR)/CMakeCache.txt:
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(CMAKE_FLAGS)

build: deps $(BUILD_DIR)/CMakeCache.txt
	cmake --build $(BUILD_DIR) -j $(JOBS)

test: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)

test-gpu: build
	cd $(BUILD_DIR) && ctest --output-on-failure -L gpu

demo: build
	$(BUILD_DIR)/bin/cudakit demo

bench: build
	$(BUILD_DIR)/bin/cudakit bench

format:
	git ls-files '*.hpp' '*.cpp' '*.h' | xargs clang-format -i

clean:
	rm -rf $(BUILD_DIR)
