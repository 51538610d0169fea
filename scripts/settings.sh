# shellcheck shell=sh
# The settings of the measurement scripts and their defaults, each defined here and nowhere
# else. scripts/common.sh sources this file, so a script run directly and one run by make use the
# same defaults; `make help` lists the lines below. Give a setting on make's command line or in
# the environment (`make sweep ROWS=1000000`, `ROWS=1000000 scripts/sweep.sh`); an empty or unset
# setting takes its default. Plain sh, so make's recipes can source it too.

## Every run
: "${ROWS:=10000000}"                         # rows per run
: "${RUNS:=10}"                               # timed runs (interleaved rounds for experiments, peers, spec-bench, store-bench)
: "${WARMUP:=1}"                              # untimed runs (rounds) before them
: "${HOST:=$(hostname -s)}"                   # results go to results/$HOST/
## make experiment, experiments (PRODUCERS, WRITERS and BATCH empty: the experiment's own)
: "${PRODUCERS:=}"                            # producer threads
: "${WRITERS:=}"                              # writer threads (also make store-bench)
: "${BATCH:=}"                                # rows per batch
: "${COMPRESSION:=none}"                      # the Parquet codec
: "${SYNC:=end}"                              # end: fsync the files at the end; none: no fsync
: "${FLOOR_RUNS:=3}"                          # make experiment: runs of generation alone and of encoding alone (experiments and designs run them once per round)
: "${CACHEGRIND_ROWS:=200000}"                # rows of the cachegrind run where hardware counters are missing (also make scaling); 0: none (make experiment, designs)
: "${EXPERIMENTS:=}"                          # make experiments: the numbers to measure (empty: the whole catalog)
: "${SPEC:=}"                                 # a spec file (SPEC.md, specs/) to generate instead of the contacts
: "${SPEC_ROWS:=1000000}"                     # make writer-bench: rows of the SPEC workload
## make ab
: "${AB_A:=}"                                 # pipeline arguments of side A, e.g. "-e 26"
: "${AB_B:=}"                                 # pipeline arguments of side B, e.g. "-e 26 --counters"
: "${AB_NAME:=}"                              # results go to results/$HOST/ab-NAME/
## make sweep, threads
: "${SWEEP_WRITERS:=1,2,4}"                   # the sweep's writer counts
: "${SWEEP_BATCHES:=1024,4096,16384,65536}"   # the sweep's batch sizes
: "${SWEEP_PRODUCERS:=$(nproc)}"              # the sweep's producer counts
: "${THREADS:=1,2,4,8}"                       # make threads: producer and writer counts
## make scaling
: "${PROCS:=1 2}"                             # process counts
: "${CORES_PER_PROC:=1}"                      # CPUs pinned to each process
: "${ROWS_PER_PROC:=5000000}"                 # rows each process writes
: "${SCALING_RUNS:=3}"                        # interleaved repetitions
: "${SCALING_OUTPUT:=}"                       # where the processes write (empty: /dev/shm when writable, else out/)
## make writer-bench
: "${REPS:=5}"                                # repetitions of each cell
: "${BASELINE:=arrow-writer}"                 # what ParallelArrowWriter is compared with: arrow-writer, or arrow-rs-encoder (itself with arrow-rs's column encoder)
## make leaf-costs
: "${LEAF_ROWS:=1000000}"                     # rows of each workload
: "${LEAF_ROUNDS:=5}"                         # rounds each figure is the median of
## make peers
: "${PEER_COMPRESSIONS:=none,zstd(1)}"        # the codecs every writer writes
: "${SCAN_RUNS:=3}"                           # timed runs of each read-back scan
: "${READ_EXPERIMENTS:=14 21}"                # the catalog experiments whose files are scanned too
## make spec-bench
: "${TPCH_SF:=1}"                             # tpchgen-cli's scale factor
: "${COMPARE_ROWS:=2000000}"                  # rows of each side of the closeness comparison
: "${PRESET_ROWS:=2000000}"                   # rows of each other preset's generation cell
: "${SPEC_BENCH_E:=}"                         # the experiment of every pipeline cell; empty: the newest
: "${SPEC_BENCH_BASE:=}"                      # a commit whose pipeline generates its presets beside (empty: none)
: "${SPEC_BENCH_BASE_E:=}"                    # that pipeline's experiment; empty: its newest
## make faults
: "${KILLS:=5}"                               # runs killed with SIGKILL at random points
## make billion
: "${BILLION_ROWS:=1000000000}"               # rows of the run
: "${BILLION_EVERY:=100000000}"               # rows between milestones
: "${BILLION_OUTPUT:=}"                       # where its Parquet goes (empty: out/billion)
## make s3-smoke
: "${SMOKE_ROWS:=1000000}"                    # rows written into the local S3 server
: "${SMOKE_WRITERS:=2}"                       # writer threads of that run
## make store-bench
: "${BIG_ROWS:=0}"                            # rows of the one large object (0: none)
## make cluster (PARTS, SCHEDULER and OUTPUT empty: one part per worker, a LocalCluster, tmpfs)
: "${PARTS:=}"                                # shards
: "${WORKERS:=1 2 4}"                         # LocalCluster worker counts
: "${ROWS_PER_PART:=2000000}"                 # rows of each shard
: "${SCHEDULER:=}"                            # a Dask scheduler to run on, e.g. tcp://host:8786
: "${OUTPUT:=}"                               # a directory every worker can write

# The Python peers read the host too (scripts/peers/shredlab_peers/run.py).
export HOST
