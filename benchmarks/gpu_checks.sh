#!/usr/bin/env bash
# Every GPU check of docs/gpu.md in one prepared script, for a lent GPU machine with little time on it.
#
#     OUT=/some/folder bash benchmarks/gpu_checks.sh [STAGE ...]
#
# Stages, in order of priority (each appends its output to $OUT/checks.log as it goes, so a run cut
# short still returns what it finished, and prints its exit status and last lines; each is bounded by
# `timeout`; a device tool returns only a few files, hence one log): install (build the Cython parts in place and
# register the package without touching the network), suite (benchmarks/gpu_suite.py --no-compile),
# cudatests (the CUDA-only tests), memory (span_memory.py --device cuda), compile (the compiled-encoder
# rows), demo (a short demo run with auto sub-batches and --profile, and one with encoder-graphs),
# graph (train.step: graph: the span parser's whole forward and loss as CUDA graphs per length bucket, a minute
# of the demo with --profile for the GPU's busy share, then the graph-step tests with CUDA visible),
# tests (the whole suite with CUDA visible, in parallel). Without arguments: all of them.
#
# Needs data/ptb-sample prepared (python3 benchmarks/parse_speed.py prepares it; carry data/ to the
# device machine) and, where a package is missing there, wheels in .whl/ (see docs/gpu.md).
set -u
OUT=${OUT:-/tmp/gpu-checks}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
stages=("$@")
[ ${#stages[@]} -eq 0 ] && stages=(install graph suite cudatests memory compile demo tests)

stage() {  # stage NUMBER NAME SECONDS COMMAND...
    local number=$1 name=$2 seconds=$3
    shift 3
    local log="$OUT/checks.log" part="/tmp/gpu-check-$number-$name.log"
    echo "== $number $name ($(date -u +%H:%M:%S), limit ${seconds}s): $*" | tee -a "$log"
    local start=$SECONDS
    timeout "$seconds" "$@" 2>&1 | tee "$part" >>"$log"
    local rc=${PIPESTATUS[0]}
    echo "   $name: exit $rc after $((SECONDS - start)) s" | tee -a "$log"
    tail -3 "$part"
}

for s in "${stages[@]}"; do
    case $s in
    install)
        if [ -d .whl ] && ls .whl/*.whl >/dev/null 2>&1; then
            python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
            export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
        fi
        {
            nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv
            python3 -c "import torch, sys; print(sys.version.split()[0], 'torch', torch.__version__, 'cuda', torch.version.cuda, torch.cuda.get_device_name(0))"
            grep -m1 'model name' /proc/cpuinfo; nproc
            git log -1 --format='commit %h %s' 2>/dev/null
        } 2>&1 | tee -a "$OUT/checks.log"
        stage 02 install 240 python3 -m pip install --no-index --no-deps --no-build-isolation -e .
        if ! python3 -c "import mlparse.structs.cky_compiled" 2>/dev/null; then  # no editable install: build in place
            stage 02 build 240 python3 setup.py build_ext --inplace
            export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH}
        fi
        ;;
    suite) stage 03 suite 300 python3 benchmarks/gpu_suite.py --no-compile ;;
    cudatests)
        stage 04 cudatests 240 python3 -m pytest -q -x -p no:cacheprovider tests/test_train_host_syncs.py \
            tests/test_train_mixed_precision.py tests/test_train_overlap.py tests/test_train_budget.py \
            tests/test_structs_eisner.py tests/test_gpu_suite.py tests/test_pretrained.py
        ;;
    memory) stage 05 memory 180 python3 benchmarks/span_memory.py --device cuda --no-timing ;;
    compile) stage 06 compile 300 python3 benchmarks/gpu_suite.py --only-compile ;;
    demo)
        stage 07 demo-profile 150 python3 -m mlparse run demo --runs-dir /tmp/gpu-runs --max-minutes 1 \
            --set train.device=cuda --set train.subbatch_tokens=auto --profile 5
        find /tmp/gpu-runs -name profile.txt -exec cp {} "$OUT/profile.txt" \;
        stage 08 demo-graphs 240 python3 -m mlparse run demo --runs-dir /tmp/gpu-runs-graphs --max-minutes 1 \
            --set train.device=cuda --set train.subbatch_tokens=auto --set train.compile=encoder-graphs
        ;;
    graph)
        stage 10 demo-graph-step 240 python3 -m mlparse run demo --runs-dir /tmp/gpu-runs-step --max-minutes 1 \
            --set train.device=cuda --set train.subbatch_tokens=auto --set train.step=graph \
            --set train.compile=encoder-graphs --profile 5
        find /tmp/gpu-runs-step -name profile.txt -exec cp {} "$OUT/profile-graph-step.txt" \;
        stage 11 graph-tests 180 python3 -m pytest -q -x -p no:cacheprovider tests/test_train_graph_step.py
        ;;
    tests) stage 09 tests 420 python3 -m pytest -q -p no:cacheprovider -n 12 ;;
    *) echo "unknown stage: $s" >&2; exit 2 ;;
    esac
done
