#!/usr/bin/env bash
# fdsim quick start on a fresh Debian 12 machine (run as root, or as a user with sudo).
#   ./quickstart.sh run    install what is missing, build fdsim only, run the flagship study
#   ./quickstart.sh test   install what is missing, build, run the whole test suite
#                          (then again under AddressSanitizer + UBSan; FDSIM_ASAN=0 skips it)
# Environment: JOBS (parallel build jobs, default nproc), FDSIM_ASAN=0 to skip the sanitizer
# pass (it roughly doubles the time of `test`), FDSIM_SKIP_INSTALL=1 to skip apt-get.
set -euo pipefail
cd "$(dirname "$0")"
mode=${1:-run}
jobs=${JOBS:-$(nproc)}

# ccache makes every rebuild after the first one fast (CMakeLists.txt uses it when present).
packages=(cmake g++ ninja-build git ccache libeigen3-dev libboost-random-dev nlohmann-json3-dev
          libcli11-dev libgtest-dev python3 python3-matplotlib python3-numpy
          pybind11-dev python3-dev)

# pybind11-dev and python3-dev build the Python module (python/); the tests execute the notebook
# analysis/examples/study.ipynb with jupyter-nbconvert, check CITATION.cff with python3-yaml and
# pip-install the analysis package offline in a python3-venv venv (install.pip_offline).
# The test suite also starts a private single-node Slurm (tests/sweep/slurm_test.sh) and runs
# real hashicorp/memberlist nodes against the SWIM model (validation/memberlist/, Go offline in
# GOPATH mode with Debian's copy of the library), and real JGroups 2.12 members against the
# JGroups model (validation/jgroups/, Java compiled offline against Debian's jar). The sanitizer pass is built with clang, whose
# runtime package also holds libFuzzer (tests/fuzz/).
test_packages=(slurm-wlm munge golang-go golang-github-hashicorp-memberlist-dev
               clang libclang-rt-14-dev python3-jsonschema python3-pandas
               default-jdk-headless libjgroups-java
               jupyter-nbconvert python3-ipykernel python3-yaml python3-venv)

install_missing() {  # install_missing PACKAGE...
  [ "${FDSIM_SKIP_INSTALL:-0}" = 1 ] && return 0
  local missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "quickstart: installing ${missing[*]}" >&2
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo=sudo
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

build() {  # build DIR [cmake args...]: configure, then build everything
  local dir=$1; shift
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
  cmake --build "$dir" -j "$jobs"
}

# The main job (scripts/flagship.sh) needs the fdsim binary only (the analysis is Python run
# from the checkout): building the test programs, benchmarks and the Python module too would
# add about 45% to a cold build.
build_main() {  # build_main DIR
  local dir=$1
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$dir" -j "$jobs" --target fdsim
}

case "$mode" in
  run)
    install_missing "${packages[@]}"
    build_main build
    exec ./scripts/flagship.sh
    ;;
  test)
    install_missing "${packages[@]}" "${test_packages[@]}"
    build build
    (cd build && ctest --output-on-failure -j "$jobs" --timeout 900)
    /usr/bin/python3 -m unittest discover -s analysis/tests -t . -q
    # Hostile input through the real binary: mutated scenarios, memory cap, timeout.
    /usr/bin/python3 tests/fuzz/cli_mutation_fuzz.py build/fdsim --cases 1500 --seed 1
    # Every numeric leaf of every shipped scenario at its edge values, 90 s.
    /usr/bin/python3 tests/fuzz/edge_fuzz.py build/fdsim --seconds 90 --seed 1
    # Every declared study's reduced check (studies/README.md): the committed results/ must be
    # what the shipped studies produce, byte for byte.
    FDSIM_BUILD=build JOBS="$jobs" ./scripts/regenerate_results.sh --check-small
    if [ "${FDSIM_ASAN:-1}" = 1 ]; then
      # -O1 without debug info: the sanitizers need no more, and it halves the compile time.
      # Only what the pass runs: no benchmark programs; the memberlist and JGroups comparisons (real
      # nodes against fdsim, timed in wall clock) already ran on the Release build.
      # Built with clang and FDSIM_FUZZ=ON, so the same build also runs the libFuzzer target
      # over the input readers (tests/fuzz/): fuzz.regressions (every input that ever crashed
      # a reader) and fuzz.budget (45 s of fresh fuzzing). The packaging, Slurm, notebook and
      # documentation checks test scripts and text, not memory safety: Release runs them. So
      # does Release alone run the four tests that are long only because they dispatch tens of
      # millions of events or sweep a large grid through code every other test also runs
      # (StallGuard, the T_out memo grid, the periodic-control equivalence): 100 CPU-s under
      # the sanitizers, a quarter of the pass.
      CC=clang CXX=clang++ build build-asan-clang -DFDSIM_SANITIZE=ON -DFDSIM_FUZZ=ON \
        -DCMAKE_BUILD_TYPE=None -DCMAKE_CXX_FLAGS=-O1 -DFDSIM_BUILD_BENCH=OFF
      (cd build-asan-clang && ASAN_OPTIONS=detect_leaks=1 ctest --output-on-failure -j "$jobs" \
         --timeout 1800 \
         -E '^(swim[.]memberlist_quick|swim[.]memberlist_slowness_quick|jgroups[.]library_quick|install[.].*|sweep[.]slurm|notebook[.].*|docs[.].*|StallGuard[.].*|TimeoutTableMemo[.]HitsEqualTheUncachedComputation_OverAGridOfKeys|PeriodicControlArms[.]SameHeartbeatsAsFixedPeriodic_OracleDiagnosis_OrNoDiagnosisAtAll)$')
    fi
    echo "quickstart: all tests passed"
    ;;
  *)
    echo "usage: $0 run|test" >&2
    exit 2
    ;;
esac
