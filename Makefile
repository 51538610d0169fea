# shredlab: `make experiment N=7` measures one experiment, `make test` runs the test suite.
# Both install what they need (Rust comes from rustup; hyperfine is built into .tools/).

# The measurement settings (ROWS, RUNS, ...) and their defaults are in scripts/settings.sh, which
# every script reads: make passes a setting given on its command line or in the environment
# through to the script, and sets none itself.

CARGO ?= cargo

# Where cargo puts the release binaries (CARGO_TARGET_DIR and cargo config honoured), read once
# when a target first needs it; every target that runs a binary builds it first.
BIN_DIR = $(eval BIN_DIR := $(shell scripts/bin-dir.sh))$(BIN_DIR)

# N on the command line or in the environment picks an experiment; without it every target
# measures the catalog's newest (best) entry.
GIVEN_N := $(if $(filter command line environment,$(origin N)),$(N),)

.PHONY: help build docs test lint python-test python python-bench python-cold-install venv list experiment experiments ab compare history index designs trend sweep threads profile scaling writer-bench leaf-costs leaf-bench peers faults billion memory spec-bench s3-smoke store-bench cluster

help:
	@echo "make experiment [N=<n>] [ROWS= RUNS= WARMUP= PRODUCERS= WRITERS= BATCH= COMPRESSION= SYNC=end|none SPEC=specs/<name>.json]"
	@echo "make experiments [EXPERIMENTS=\"20 21\"]  every catalog entry (or a subset), timed in interleaved rounds"
	@echo "make ab AB_A=\"-e 26\" AB_B=\"-e 26 --counters\" AB_NAME=counters  two command lines in interleaved rounds, B against A"
	@echo "make compare BASE=HEAD~1 [N=35] [ARGS= NAME=]  this tree's pipeline against commit BASE's (built once in .compare/), interleaved rounds, faster/slower/no change"
	@echo "make history           change points in results/HOST/history.jsonl (every run appends to it), charts, history.md"
	@echo "make index             results/HOST/index.html: the tables and charts on one page, checked in headless Chromium"
	@echo "make designs                          channel (26), ordered hand-off (27), fused workers (28) by row-group size and worker count"
	@echo "make trend            redraw results/\$$HOST charts and README from the summaries"
	@echo "make sweep [N=]       writers x batch size heatmaps (default: the last experiment)"
	@echo "make threads [N=]     thread sweep and the process pinned to one CPU"
	@echo "make profile [N=]     perf record flamegraph, AMD uProf session when installed"
	@echo "make scaling [PROCS= CORES_PER_PROC= ROWS_PER_PROC= SCALING_RUNS= N=]  multi-process bandwidth scaling"
	@echo "make list             the experiment catalog"
	@echo "make docs             rewrite docs/catalog.md from the catalog (after adding an entry)"
	@echo "make writer-bench     ParallelArrowWriter vs ArrowWriter, both allocators [REPS= SPEC= SPEC_ROWS= BASELINE=arrow-rs-encoder]"
	@echo "make leaf-costs [LEAF_ROWS= LEAF_ROUNDS=]  arrow-rs's encoding CPU per leaf column and stage: contacts, presets, writer matrix"
	@echo "make leaf-bench       each leaf kind alone, one thread: arrow-rs's column encoder vs shredlab's (criterion)"
	@echo "make peers [ROWS= RUNS= PEER_COMPRESSIONS= SCAN_RUNS= READ_EXPERIMENTS=]"
	@echo "                      pyarrow, DuckDB, polars, DataFusion and the Rust writers; read back by three readers"
	@echo "make spec-bench [ROWS= RUNS= TPCH_SF= COMPARE_ROWS= PRESET_ROWS= SPEC_BENCH_E= SPEC_BENCH_BASE= SPEC_BENCH_BASE_E=]  the contacts preset against the hand-written generator, every preset's generation (beside a base commit's), lineitem against tpchgen-cli"
	@echo "make venv             the pinned Python peers in .tools/venv (made on first use by peers and test)"
	@echo "make python           the shredlab Python package (python/), built and installed into .tools/venv"
	@echo "make python-bench [ROWS= RUNS=]  the package's generation CPU against the pipeline's, its writer against pyarrow's"
	@echo "make python-cold-install  time pip install ./python from a fresh clone into a fresh venv, nothing built"
	@echo "make faults [KILLS=]  disk full, signals, SIGKILL, injected failures: exit codes and files left"
	@echo "make memory [N=]      peak RSS and peak live heap per setting: row groups, queue, batch size, allocator"
	@echo "make billion [N= BILLION_ROWS= BILLION_EVERY=]  peak RSS and rows/s every 100 M rows of a 1-billion-row run"
	@echo "make s3-smoke [SMOKE_ROWS= SMOKE_WRITERS=]  a local S3 server (Garage, built into .tools/), a run into it, read back by the pipeline and pyarrow"
	@echo "make store-bench [ROWS= RUNS= WRITERS= BIG_ROWS=]  the same run to local disk and to the local S3 server, interleaved"
	@echo "make cluster [PARTS= WORKERS= ROWS_PER_PART= SCHEDULER=tcp://host:8786 OUTPUT=]  the shards as Dask tasks"
	@echo "make lint             fmt, clippy and shellcheck"
	@echo "make test             lint and the test suite"
	@echo
	@echo "Settings, with their defaults (scripts/settings.sh; empty or unset takes the default):"
	@sed -n -e 's/^## /  /p' -e 's/^: "\$${\([A-Z_]*\):=\(.*\)}"/    \1=\2/p' scripts/settings.sh

build:
	$(CARGO) build --release --locked

list: build
	@$(BIN_DIR)/pipeline --list

# The generated catalog page: `experiments/tests/docs.rs` fails until it is rewritten here.
docs: build
	$(BIN_DIR)/pipeline --list page > docs/catalog.md

experiment: build
	scripts/experiment.sh $(GIVEN_N)

experiments: build
	scripts/experiments.sh

trend: build
	. scripts/settings.sh && "$(BIN_DIR)/results" render "results/$$HOST"


ab: build
	scripts/ab.sh

compare: build
	scripts/compare.sh

# Every run's figures over commits: change points (Apache Otava, its own pinned environment),
# charts and results/$(HOST)/history.md from results/$(HOST)/history.jsonl.
history: build
	scripts/history.sh

# One static page of a host's tables and charts, results/$(HOST)/index.html (make trend and
# make history rewrite it too), and its check in headless Chromium.
index: build
	. scripts/settings.sh && "$(BIN_DIR)/results" index "results/$$HOST" && scripts/page-test.sh

designs: build
	scripts/designs.sh

sweep: build
	N=$(GIVEN_N) scripts/sweep.sh

threads: build
	N=$(GIVEN_N) scripts/threads.sh

profile: build
	scripts/profile.sh $(GIVEN_N)

scaling: build
	N=$(GIVEN_N) scripts/scaling.sh

writer-bench: build
	scripts/writer-bench.sh

leaf-costs: build
	scripts/leaf-costs.sh

leaf-bench: build
	scripts/leaf-bench.sh

peers: build
	scripts/peers.sh

spec-bench: build
	scripts/spec-bench.sh

venv:
	scripts/ensure-venv.sh > /dev/null

memory: build
	N=$(GIVEN_N) scripts/memory.sh

billion: build
	N=$(GIVEN_N) scripts/billion.sh

faults: build
	scripts/faults.sh

s3-smoke: build
	scripts/s3-smoke.sh

store-bench: build
	scripts/store-bench.sh

cluster: build
	N=$(GIVEN_N) scripts/cluster.sh

# shellcheck (pinned, installed into .tools/ on first use) on every shell script, then Rust.
lint:
	scripts/shellcheck.sh
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --release --locked --workspace --all-targets --all-features -- -D warnings

# The object-store tests start a real S3 server: Garage, built into .tools/ on first use. The
# random runs (experiments/tests/random_runs) read their files back with the venv's pyarrow.
test: lint
	scripts/ensure-garage.sh > /dev/null
	python="$$(scripts/ensure-venv.sh)" && SHREDLAB_PYTHON="$$python" $(CARGO) test --release --locked --workspace
	$(CARGO) test --release --locked -p shredlab-writer --features tokio
	$(MAKE) --no-print-directory python-test

# The shredlab Python package (python/, pytest: against the CLI, pyarrow, polars, DuckDB and a
# local Garage), then the peers' Python side against the Rust binaries.
python-test: build
	python="$$(scripts/install-python-package.sh)" && \
	  SHREDLAB_BIN_DIR="$(BIN_DIR)" AWS_EC2_METADATA_DISABLED=true "$$python" -m pytest -q python/tests && \
	  PYTHONPATH=scripts/peers SHREDLAB_BIN_DIR="$(BIN_DIR)" "$$python" -m unittest discover -s scripts/peers/tests -t scripts/peers

# The Python package's targets: generation CPU against the pipeline's, write speed against
# pyarrow.write_table (python/benchmarks/package_bench.py), into results/$(HOST)/python/.
python-bench: build
	python="$$(scripts/install-python-package.sh)" && . scripts/settings.sh && \
	  PYTHONPATH=scripts/peers "$$python" python/benchmarks/package_bench.py "$(BIN_DIR)" "results/$$HOST/python" "$$ROWS" "$$RUNS" "none,zstd(1)"

python-cold-install:
	scripts/python-cold-install.sh

# The shredlab Python package, built (release) and installed into .tools/venv.
python:
	scripts/install-python-package.sh > /dev/null
