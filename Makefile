# AoiZora — the two commands a user needs:
#   make plan   install dependencies, configure, build, run the main job
#   make test   install dependencies, configure, build, run every test (CTest)
# Other targets: build, bench, test-sanitize (the whole suite under ASan + UBSan),
# fuzz (a longer libFuzzer run), fuzz-smoke, clean.

BUILD ?= build
JOBS ?= $(shell nproc)
BUILD_TYPE ?= Release
CMAKE_FLAGS ?=
ifeq ($(CI),true)
  CMAKE_FLAGS += -DAZ_WERROR=ON
endif
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 600
FUZZ_SMOKE_SECONDS ?= 25

.PHONY: deps configure build plan test bench sanitize-build test-sanitize fuzz fuzz-build fuzz-smoke clean

deps:
	@scripts/install-deps

configure: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(CMAKE_FLAGS) >/dev/null

build: configure
	@cmake --build $(BUILD) -j$(JOBS)

# The main job: plan Wan 2.1 T2V-14B at 1280x720, 81 frames on a v5e:2x4 slice.
# It builds the CLI alone (the libraries it links), not the tests or the bench.
plan: configure
	@cmake --build $(BUILD) -j$(JOBS) --target aoizora
	@$(BUILD)/aoizora plan --model wan2.1-t2v-14b --width 1280 --height 720 --frames 81 --topology v5e:2x4 --out plan

# The tests also need Debian's PyTorch (the ONNX exports of tests/torch).
test: build
	@scripts/install-deps --torch
	@ctest --test-dir $(BUILD) --output-on-failure -j$(JOBS)

bench: build
	@$(BUILD)/az_bench

FUZZ_TARGETS = pir_text_fuzz cir_text_fuzz readers_fuzz hlo_text_fuzz stablehlo_text_fuzz onnx_fuzz

# One clang build with AddressSanitizer + UndefinedBehaviorSanitizer (undefined
# behaviour aborts) serves both the sanitizer test run and the fuzz targets.
FUZZ_CONFIGURE = cmake -S . -B $(FUZZ_BUILD) -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DAZ_BUILD_FUZZ=ON -DAZ_BUILD_TESTS=ON -DAZ_BUILD_BENCH=OFF $(CMAKE_FLAGS) >/dev/null

fuzz-build: deps
	@scripts/install-deps --fuzz
	@$(FUZZ_CONFIGURE)
	@cmake --build $(FUZZ_BUILD) -j$(JOBS) $(addprefix --target ,$(FUZZ_TARGETS))

sanitize-build: deps
	@scripts/install-deps --fuzz
	@$(FUZZ_CONFIGURE)
	@cmake --build $(FUZZ_BUILD) -j$(JOBS)

# The tests (unit, CLI end to end, Python) against the sanitized build; any
# report fails the test. plan_golden included: the clang build prices the
# pinned plans as the GCC build does (it priced the training step 2.6% apart
# while the op order of a nested builder call was the compiler's:
# src/pir/build/graph_builder.h, Op order).
#
# Left out here, and run by `make test`: the tests that only repeat a plan to compare
# two runs (the same plan under 1, 2 and 8 threads: cli_e2e_3 and *AcrossThreads; the
# bounded placement search against the unbounded one; the spread's survivors against all).
# Under ASan each costs minutes, and the code they run is run here by the other planner tests.
SANITIZE_SKIP ?= ^cli_e2e_3$$|AcrossThreads|BoundedPlacementSearchPicksWhatTheFullOnePicks|SurvivorsFromTheSpreadPickWhatEverySurvivorPicks
test-sanitize: sanitize-build
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	  ctest --test-dir $(FUZZ_BUILD) --output-on-failure -j$(JOBS) -E '$(SANITIZE_SKIP)'

# Seeds: the golden PIR and CIR files, fuzz/seeds and ../shared/data. New corpus entries go to a scratch folder.
fuzz-smoke: fuzz-build
	@scripts/run-fuzz $(FUZZ_BUILD) $(FUZZ_SMOKE_SECONDS)

fuzz: fuzz-build
	@scripts/run-fuzz $(FUZZ_BUILD) $(FUZZ_SECONDS)

clean:
	rm -rf $(BUILD) $(FUZZ_BUILD)
