# jitrun: the two quick-start commands. Each installs what is missing, configures, builds, then runs.
BUILD ?= build
MODEL ?= $(BUILD)/models/tiny_cnn.mlirbc
# One --input per model argument: SHAPExTYPE is seeded random data (see
# `jitrun --help`); the bundled model takes one 32x32 RGB image.
INPUTS ?= --input=1x32x32x3xf32
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
	$(BUILD)/tools/jitrun $(MODEL) $(INPUTS) --dump-statistics=pretty --benchmark=10

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

# `make api-latency`: each model (default: the shared corpus) compiled and run
# through the C API and through the CLI, checked equal, then its latency both
# ways side by side, best of 3 batches of LATENCY_RUNS runs.
LATENCY_RUNS ?= 100
LATENCY_MODELS ?= $(wildcard ../shared/corpus/*.mlir)
.PHONY: api-latency
api-latency: build
	mkdir -p $(BUILD)/api-latency
	$(BUILD)/tests/api/jitrun_api_vs_cli --latency=$(LATENCY_RUNS) $(BUILD)/tools/jitrun \
		$(BUILD)/api-latency $(LATENCY_MODELS)

# `make python-bench`: the Python package's call overhead against the C API,
# resnet18 through Python against the CLI, and warm starts (a benchmark).
.PHONY: python-bench
python-bench: build
	/usr/bin/python3 scripts/python_bench.py

# `make fusion-table`: regenerate docs/fusion_table.md (statistics of every model).
.PHONY: fusion-table
fusion-table: build
	/usr/bin/python3 scripts/fusion_table.py

# `make onnx-conformance`: jitrun on Debian's ONNX backend test data; rewrites
# docs/onnx_conformance.md (pass / fail / unsupported / error per test).
# `make onnx-conformance-check`: fails if a test the table marks pass fails
# (also a ctest entry, so make test runs it).
.PHONY: onnx-conformance onnx-conformance-check
onnx-conformance: build
	/usr/bin/python3 scripts/onnx_conformance.py --write docs/onnx_conformance.md
onnx-conformance-check: build
	/usr/bin/python3 scripts/onnx_conformance.py --check docs/onnx_conformance.md

# `make onnx-models`: torchvision models exported to ONNX, jitrun vs PyTorch
# (correctness, dispatches, compile time, latency at 1 and 2 threads side by
# side); writes docs/onnx_models.md. A benchmark, not a test: it takes minutes.
.PHONY: onnx-models
onnx-models: build
	/usr/bin/python3 scripts/onnx_models.py --bench --write docs/onnx_models.md

# `make quant-bench`: torchvision CNNs quantized as ONNX Runtime's quantize_static
# writes them (QDQ) and a transformer encoder as quantize_dynamic does, against
# their float exports; writes docs/quant_bench.md. A benchmark: minutes.
.PHONY: quant-bench
quant-bench: build
	/usr/bin/python3 scripts/quant_bench.py --write docs/quant_bench.md

# `make model-bench`: torchvision models (ONNX) and the zoo at full size, jitrun
# against PyTorch and against the host's roofline at 1 and 2 threads; writes
# docs/model_bench.md (a benchmark: about 15 minutes).
.PHONY: model-bench
model-bench: build
	/usr/bin/python3 scripts/model_bench.py --write docs/model_bench.md

# `make dynamic-bench`: dynamic shapes side by side: a specialization against
# a static compile of the same shape, time to the first result at a new
# shape, and batch 1-64 throughput against PyTorch; writes
# docs/dynamic_bench.md (a benchmark: about 10 minutes).
.PHONY: dynamic-bench
dynamic-bench: build
	/usr/bin/python3 scripts/dynamic_bench.py --write docs/dynamic_bench.md

# `make zoo-bench`: every zoo model at full size: dispatches, roots, compile
# time, latency at 1 and 2 threads (a benchmark; RUNS=N runs per figure).
.PHONY: zoo-bench
zoo-bench: build
	/usr/bin/python3 scripts/zoo_full.py

# Oracles that share no code with jitrun (scripts/mlir_oracle.py: upstream
# MLIR lowered to loops by mlir-opt and run by mlir-runner, mlir-22-tools).
# `make check-oracle`: every test-size zoo model at 1 and 2 threads, integer
# inputs over their full range. `make fuzz-diff SECONDS=N SEED=S`: random
# programs through jitrun in every mode against the same oracle; failures go
# to /tmp/fuzz_diff_failures with their reproducers. `make fuzz-diff-ci`: the
# fixed budget CI runs (seed 1, 80 programs, 480 runs: about 45 s).
SEED ?= 1
SECONDS ?= 60
# `make check-layout`: the folders include only what their arrows allow
# (no MLIR under support/ and runtime/, codegen and fusion never include each
# other) and no C++ file is over 1000 lines (scripts/check_layout.py).
.PHONY: check-layout
check-layout:
	python3 scripts/check_layout.py

.PHONY: check-oracle check-full fuzz-diff fuzz-diff-ci
# `make check-full`: every zoo model at full size, fast path against
# --reference, and --reference against mlir-runner (scripts/check_full.py).
check-full: build
	python3 scripts/check_full.py
check-oracle: build
	python3 scripts/mlir_oracle.py $(BUILD)/zoo/*.mlirbc --modes default,t2 --full-range
fuzz-diff: build
	python3 scripts/fuzz_diff.py --seed $(SEED) --seconds $(SECONDS)
fuzz-diff-ci: build
	python3 scripts/fuzz_diff.py --seed 1 --count 80

# Sanitizers and fuzzing (issue 6). `make test-sanitize`: ASan+UBSan build
# (build-asan, clang 22, with the libFuzzer target) and its ctest suite, the
# fuzzer for FUZZ_SECONDS, then a TSan build (build-tsan) and its suite.
# `make fuzz FUZZ_SECONDS=N`: the fuzzer alone. See README.md.
ASAN_BUILD ?= build-asan
TSAN_BUILD ?= build-tsan
FUZZ_SECONDS ?= 60
FUZZ_DIR ?= $(ASAN_BUILD)/fuzz-run
# -O1 with line tables builds in a third of RelWithDebInfo's time and keeps
# file:line in reports; NDEBUG as the Debian LLVM/MLIR were built (without
# it llvm::Statistic's layout differs from theirs: a UBSan report in every
# pass with a statistic).
SAN_FLAGS = -O1 -gline-tables-only -DNDEBUG
SAN_CMAKE = -G Ninja -DCMAKE_BUILD_TYPE=Release \
	-DCMAKE_C_FLAGS_RELEASE='$(SAN_FLAGS)' -DCMAKE_CXX_FLAGS_RELEASE='$(SAN_FLAGS)' \
	-DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 $(CMAKE_FLAGS)
SUPP := $(CURDIR)/scripts
# Sanitized processes stop at the first report with a stack; the ctest suites
# run `jitrun` as a subprocess, which inherits these.
SAN_ENV = ASAN_OPTIONS=halt_on_error=1:abort_on_error=0:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1 \
	LSAN_OPTIONS=suppressions=$(SUPP)/lsan.supp:print_suppressions=0 \
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:report_error_type=1 \
	TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:history_size=4:suppressions=$(SUPP)/tsan.supp
# Seeds: the zoo the build generates, the shared real-model corpus when
# present, and the small IR files of the CLI, fusion and pipeline tests.
# Seeds larger than FUZZ_SEED_MAX_BYTES are left out and mutants stay under that
# size: the big zoo models take 10-30 s each under ASan, so with them the
# seed pass alone outlasts a 60 s run (FUZZ_SEED_MAX_BYTES=100000000: all).
FUZZ_SEEDS = $(wildcard $(ASAN_BUILD)/zoo/*.mlirbc ../shared/corpus/*.mlir \
	tests/cli/*.mlir tests/fusion/*.mlir tests/pipeline/*.mlir)
FUZZ_SEED_MAX_BYTES ?= 65536

.PHONY: setup-sanitize test-sanitize test-asan test-asan-ci test-tsan fuzz fuzz-build fuzz-regressions
setup-sanitize:
	@bash scripts/setup.sh sanitize

$(ASAN_BUILD)/build.ninja: | setup-sanitize
	cmake -S . -B $(ASAN_BUILD) $(SAN_CMAKE) -DJITRUN_SANITIZE=address -DJITRUN_FUZZ=ON
$(TSAN_BUILD)/build.ninja: | setup-sanitize
	cmake -S . -B $(TSAN_BUILD) $(SAN_CMAKE) -DJITRUN_SANITIZE=thread

test-asan: setup-sanitize $(ASAN_BUILD)/build.ninja
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && env $(SAN_ENV) ctest --output-on-failure -j $(JOBS)

test-tsan: setup-sanitize $(TSAN_BUILD)/build.ninja
	cmake --build $(TSAN_BUILD) -j $(JOBS)
	cd $(TSAN_BUILD) && env $(SAN_ENV) ctest --output-on-failure -j $(JOBS)

fuzz-build: setup-sanitize $(ASAN_BUILD)/build.ninja
	cmake --build $(ASAN_BUILD) --target jitrun-fuzz-compile jitrun_zoo -j $(JOBS)

# Every input that ever crashed the fuzzer, run once each.
fuzz-regressions: fuzz-build
	env $(SAN_ENV) $(ASAN_BUILD)/tests/fuzz/jitrun-fuzz-compile -runs=0 tests/fuzz/regressions

# The fuzzer works on a scratch copy of the seeds; crash files land in
# $(FUZZ_DIR)/artifacts/. The last lines print the number of executions.
fuzz: fuzz-regressions
	rm -rf $(FUZZ_DIR) && mkdir -p $(FUZZ_DIR)/corpus $(FUZZ_DIR)/artifacts
	for f in $(FUZZ_SEEDS); do \
	  [ $$(stat -c %s $$f) -le $(FUZZ_SEED_MAX_BYTES) ] && cp $$f $(FUZZ_DIR)/corpus/; \
	done; ls $(FUZZ_DIR)/corpus | wc -l
	{ env $(SAN_ENV) $(ASAN_BUILD)/tests/fuzz/jitrun-fuzz-compile \
	    -max_total_time=$(FUZZ_SECONDS) -timeout=120 -rss_limit_mb=6144 -max_len=$(FUZZ_SEED_MAX_BYTES) \
	    -dict=tests/fuzz/mlir.dict -print_final_stats=1 \
	    -artifact_prefix=$(FUZZ_DIR)/artifacts/ $(FUZZ_DIR)/corpus; \
	  echo $$? > $(FUZZ_DIR)/status; } 2>&1 | tee $(FUZZ_DIR)/fuzz.log; \
	  status=$$(cat $(FUZZ_DIR)/status); \
	  grep -E 'stat::number_of_executed_units|^Done [0-9]+ runs' $(FUZZ_DIR)/fuzz.log; \
	  ls $(FUZZ_DIR)/artifacts; exit $$status

# CI's sanitizer pass (`.ci/run`): an ASan+UBSan build (SAN_FLAGS) of the libraries, the
# CLI, jit-opt, the unit, API and ONNX wire tests, and a run of the suites that reach
# every pass and the API: unit tests, the C and C++ API tests, the ONNX
# importer's wire-format walk on damaged models, the lit tests
# of every fusion, codegen and import pass and the CLI's hostile-input tests.
ASAN_CI_BUILD ?= build-asan-ci
ASAN_CI_LIT ?= (codegen|fusion|pipeline)/|cli/(onnx_import|integer_division|gather_out_of_range|bool_tensors|file_kinds|kernel_cache|kernel_cache_full_disk|calls_and_messages|host_if|deep_nesting|huge_constant|random_bytes|truncated_mlir|memory_limit|int8_matmul_epilogue_values|wrong_input|squeeze_excite|parallel_pad|pad_border_fill|integer_math_tiles|generic_kernels|dispatch_writes_in_place|program_cache)
test-asan-ci: setup-sanitize
	cmake -S . -B $(ASAN_CI_BUILD) $(SAN_CMAKE) -DJITRUN_SANITIZE=address
	cmake --build $(ASAN_CI_BUILD) -j $(JOBS) --target jitrun jit-opt jitrun_models \
	  jitrun_unit_tests jitrun_api_c_test jitrun_api_tests jitrun_onnx_tests
	cd $(ASAN_CI_BUILD) && env $(SAN_ENV) LIT_FILTER='$(ASAN_CI_LIT)' \
	  ctest --output-on-failure -j $(JOBS) -R '^(unit_tests|api\.c|api\.cpp|onnx_wire|lit)$$'

# Keeps going after a failure so that one run reports all three parts.
test-sanitize:
	$(MAKE) -j1 -k test-asan fuzz test-tsan
