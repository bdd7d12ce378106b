# jitrun: the two quick-start commands. Each installs what is missing, configures, builds, then runs.
BUILD ?= build
MODEL ?= $(BUILD)/models/tiny_cnn.mlirbc
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all setup configure build run test clean

all: build

setup:
	@bash scripts/setup.sh

$(BUILD)/build.ninja: | setup
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)

configure: setup $(BUILD)/build.ninja

build: configure
	cmake --build $(BUILD) -j $(JOBS)

run: build
	$(BUILD)/tools/jitrun $(MODEL) --dump-statistics=pretty --benchmark=10

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

clean:
	rm -rf $(BUILD)

# `make bench`: jitrun vs oneDNN side by side (BENCH_FLAGS=--threads=2 ...).
BENCH_FLAGS ?=
.PHONY: bench
bench: configure
	cmake --build $(BUILD) --target jitrun-bench -j $(JOBS)
	$(BUILD)/tools/jitrun-bench $(BENCH_FLAGS)

# `make fusion-table`: regenerate docs/fusion_table.md (statistics of every model).
.PHONY: fusion-table
fusion-table: build
	python3 scripts/fusion_table.py

# `make zoo-bench`: every zoo model at full size: dispatches, roots, compile
# time, latency at 1 and 2 threads (a benchmark; RUNS=N runs per figure).
.PHONY: zoo-bench
zoo-bench: build
	python3 scripts/zoo_full.py
