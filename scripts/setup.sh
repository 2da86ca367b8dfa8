#!/usr/bin/env bash
# Installs what is missing to build and test normbench, and nothing else. Idempotent: on a
# machine that has everything (or no network, like the GPU hosts) it only checks.
#   scripts/setup.sh [--required-only]   (--required-only: not the browser test's packages, for
#                                         scripts/bench.sh, which runs no test)
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"

# Debian package -> a file that proves it is there (whoever installed it).
declare -A PROVIDES=(
  [cmake]=/usr/bin/cmake
  [ninja-build]=/usr/bin/ninja
  [g++]=/usr/bin/g++
  [libeigen3-dev]=/usr/share/eigen3/cmake/Eigen3Config.cmake
  [nlohmann-json3-dev]=/usr/share/cmake/nlohmann_json/nlohmann_jsonConfig.cmake
  [libbenchmark-dev]=/usr/include/benchmark/benchmark.h
  [libgtest-dev]=/usr/include/gtest/gtest.h
  [libcli11-dev]=/usr/include/CLI/CLI.hpp
  [zlib1g-dev]=/usr/include/zlib.h
)
# Wanted but not required: the browser test and ab.sh's (patch) skip themselves without them.
OPTIONAL=(chromium fonts-liberation fonts-dejavu-core python3 patch)
case "${1:-}" in
  "") ;;
  --required-only) OPTIONAL=() ;;
  *) nb_die "usage: scripts/setup.sh [--required-only]" ;;
esac

present() {
  local pkg="$1" file="${PROVIDES[$1]:-}"
  if [ -n "$file" ] && [ -e "$file" ]; then return 0; fi
  [ "$pkg" = cmake ] && command -v cmake >/dev/null 2>&1 && return 0
  [ "$pkg" = ninja-build ] && command -v ninja >/dev/null 2>&1 && return 0
  [ "$pkg" = chromium ] && command -v chromium >/dev/null 2>&1 && return 0
  [ "$pkg" = python3 ] && command -v python3 >/dev/null 2>&1 && return 0
  [ "$pkg" = patch ] && command -v patch >/dev/null 2>&1 && return 0
  [ "$pkg" = fonts-liberation ] && [ -d /usr/share/fonts/truetype/liberation ] && return 0
  [ "$pkg" = fonts-dejavu-core ] && [ -d /usr/share/fonts/truetype/dejavu ] && return 0
  dpkg -s "$pkg" >/dev/null 2>&1
}

missing=()
for pkg in "${!PROVIDES[@]}" "${OPTIONAL[@]}"; do present "$pkg" || missing+=("$pkg"); done

[ ${#missing[@]} -eq 0 ] || nb_apt_install "${missing[@]}"

failed=()
for pkg in "${!PROVIDES[@]}"; do present "$pkg" || failed+=("$pkg"); done
[ ${#failed[@]} -eq 0 ] || nb_die "missing and not installable here: ${failed[*]}"
for pkg in "${OPTIONAL[@]}"; do present "$pkg" || nb_say "optional $pkg is absent: the browser test will report itself skipped"; done

# The CUDA toolkit (with nvcc, cuBLAS, NVTX) and cuDNN come from NVIDIA, not from Debian main.
command -v nvcc >/dev/null 2>&1 || nb_die "nvcc not found: install the CUDA toolkit (12.0 or newer) under /usr/local/cuda"
cudnn_header=""
for d in "$(dirname "$(command -v nvcc)")/../include" /usr/include/x86_64-linux-gnu /usr/include /usr/local/cuda/include; do
  if [ -f "$d/cudnn_version.h" ]; then cudnn_header="$d/cudnn_version.h"; break; fi
done
[ -n "$cudnn_header" ] || nb_die "cuDNN headers not found (looked under the CUDA toolkit and /usr/include/x86_64-linux-gnu)"
nb_say "ready: $(nvcc --version | tail -1); cuDNN header $cudnn_header"
