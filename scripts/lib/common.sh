# Shared by the scripts: repository root, the CUDA toolkit on PATH, messages.
NB_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
export NB_ROOT

nb_say() { printf 'normbench: %s\n' "$*" >&2; }
nb_die() { printf 'normbench: error: %s\n' "$*" >&2; exit 1; }

# A case's NVTX range, "<op> <variant> <problem name> <dtype>" (harness/nvtx_ranges.hpp), from
# OP VARIANT PROBLEM-ID: what ncu's --nvtx-include and nsys's --nvtx-capture select a case by.
nb_case_range() {
  local rest="${3#"$1/"}"
  echo "$1 $2 ${rest//\// }"
}

# Installs Debian packages through apt-get (sudo when not root); on an offline machine it only says so.
nb_apt_install() {
  nb_say "installing: $*"
  local sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  if $sudo apt-get update -qq >/dev/null 2>&1; then
    local pkg
    for pkg in "$@"; do
      $sudo apt-get install -y -qq --no-install-recommends "$pkg" >/dev/null 2>&1 || nb_say "apt-get could not install $pkg"
    done
  else
    nb_say "apt-get cannot reach a package source (offline machine): checking what is present"
  fi
}

# nvcc is often installed outside PATH (/usr/local/cuda/bin); CMake's CUDA language needs it.
if ! command -v nvcc >/dev/null 2>&1; then
  for d in /usr/local/cuda/bin /usr/local/cuda-*/bin; do
    if [ -x "$d/nvcc" ]; then export PATH="$d:$PATH"; break; fi
  done
fi
if [ -z "${CUDACXX:-}" ] && command -v nvcc >/dev/null 2>&1; then export CUDACXX="$(command -v nvcc)"; fi

# The preset: "ci" under CI, else release. NB_PRESET overrides.
nb_preset() {
  if [ -n "${NB_PRESET:-}" ]; then echo "$NB_PRESET"; elif [ -n "${CI:-}" ]; then echo ci; else echo release; fi
}

nb_jobs() { nproc 2>/dev/null || echo 2; }

# nb_configure_and_build [TARGET...]: every target by default; the main job and the profiler name
# normbench alone (with what it runs: the eval worker's interposer), not the tests' 150-odd files.
nb_configure_and_build() {
  local preset target_args=(); preset="$(nb_preset)"
  [ $# -gt 0 ] && target_args=(--target "$@")
  nb_say "configuring (preset $preset)"
  cmake --preset "$preset" >/dev/null || nb_die "cmake configure failed (preset $preset)"
  nb_say "building ${*:-everything} with $(nb_jobs) jobs"
  cmake --build --preset "$preset" -j "$(nb_jobs)" "${target_args[@]}" || nb_die "build failed"
}

nb_build_dir() { echo "$NB_ROOT/build/$(nb_preset)"; }

# A fresh build has no CTest cost data, so ctest would start the tests in index order and a long
# one started last stretches the run: nb_seed_test_costs seeds it from the H100's measured seconds
# (tests/h100_test_seconds.txt) so that the longest start first, and the tests that must run
# alone (RUN_SERIAL) before all of them, back to back, so that none waits for the GPU to drain.
# ctest refines the costs as it runs; a build that has them keeps its own.
nb_seed_test_costs() {
  local preset; preset="$(nb_preset)"
  local costs="$NB_ROOT/build/$preset/Testing/Temporary/CTestCostData.txt"
  [ -f "$costs" ] && return 0
  command -v python3 >/dev/null || return 0
  mkdir -p "$(dirname "$costs")"
  ctest --preset "$preset" --show-only=json-v1 | python3 -c '
import json, sys
seconds = {}
for line in open(sys.argv[1]):
    if line.strip() and not line.startswith("#"):
        name, value = line.split()
        seconds[name] = float(value.lstrip("~"))
for test in json.load(sys.stdin)["tests"]:
    props = {p["name"]: p["value"] for p in test.get("properties", [])}
    cost = seconds.get(test["name"], 0.0) + (10000.0 if props.get("RUN_SERIAL") else 0.0)
    print(test["name"], 1, cost)
print("---")' "$NB_ROOT/tests/h100_test_seconds.txt" > "$costs"
}
