#!/usr/bin/env bash
# scripts/device/ab.sh with the change given as a patch, on a stand-in tree (a CMake project whose
# "normbench" writes, as its report, the name of the tree it was built from): the base side runs
# the tree less the change, the new side this tree, and afterwards the build folder is this tree's
# again. The last check is the one that failed on the GPU host: the next call there copied the
# sources in with older times than the base's objects and rebuilt the commit stamp, so ninja
# relinked normbench from the base's objects and the "new" runs measured the base.
#   ab_patch_base_test.sh   (skips, exit 77, without patch, cmake, ninja or a C++ compiler)
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
for tool in patch cmake ninja c++; do
  command -v "$tool" >/dev/null 2>&1 || { echo "skip: no $tool"; exit 77; }
done
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
mkdir -p "$tree/scripts/device" "$tree/scripts/lib"
cp "$repo/scripts/device/ab.sh" "$tree/scripts/device/"
cp "$repo/scripts/lib/common.sh" "$tree/scripts/lib/"

cat > "$tree/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.25)
project(ab_fixture CXX)
add_executable(normbench main.cpp tree.cpp)
EOF
cat > "$tree/CMakePresets.json" <<'EOF'
{"version": 6,
 "configurePresets": [{"name": "release", "generator": "Ninja", "binaryDir": "${sourceDir}/build/release"}],
 "buildPresets": [{"name": "release", "configurePreset": "release"}]}
EOF
# `run ... --out DIR` writes DIR/gpu/stamp/report.json holding the tree's name; `compare A B ...`
# prints both reports' names.
cat > "$tree/main.cpp" <<'EOF'
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
const char* tree_name();
int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "run") == 0) {
    std::string out;
    for (int i = 2; i + 1 < argc; ++i)
      if (std::strcmp(argv[i], "--out") == 0) out = argv[i + 1];
    const auto dir = std::filesystem::path(out) / "gpu" / "stamp";
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "report.json") << tree_name() << "\n";
    return 0;
  }
  if (argc > 3 && std::strcmp(argv[1], "compare") == 0) {
    std::string base, next;
    std::ifstream(argv[2]) >> base;
    std::ifstream(argv[3]) >> next;
    std::printf("compare %s %s\n", base.c_str(), next.c_str());
    return 0;
  }
  return 2;
}
EOF
echo 'const char* tree_name() { return "base"; }' > "$tree/tree.cpp"
cp "$tree/tree.cpp" "$tree/tree.cpp.orig"
echo 'const char* tree_name() { return "new"; }' > "$tree/tree.cpp"
(cd "$tree" && diff -u --label a/tree.cpp --label b/tree.cpp tree.cpp.orig tree.cpp > change.patch; rm tree.cpp.orig)

fail=0
check() {  # check WHAT EXPECTED ACTUAL
  if [ "$2" = "$3" ]; then echo "ok   $1"; else echo "FAIL $1: '$3', expected '$2'"; fail=1; fi
}
tree_of_normbench() {
  rm -rf "$tree/probe" && "$tree/build/release/normbench" run --out "$tree/probe" && cat "$tree/probe/gpu/stamp/report.json"
}
(cd "$tree" && cmake --preset release > build.log 2>&1 && cmake --build --preset release >> build.log 2>&1) ||
  { cat "$tree/build.log"; echo "FAIL the stand-in tree did not build"; exit 1; }

OUT="$tree/out" bash "$tree/scripts/device/ab.sh" "$tree/change.patch" --suite quick > "$tree/ab.log" 2>&1
check "ab.sh exits 0" 0 "$?"
check "base and new sides" "compare base new" "$(head -1 "$tree/out/ab/compare.txt" 2>/dev/null)"
check "the tree's source after" 'const char* tree_name() { return "new"; }' "$(cat "$tree/tree.cpp")"
check "the tree's normbench after" new "$(tree_of_normbench)"

# The next call: the sources come in with older times than anything built, and the commit stamp
# (here main.cpp) is rebuilt.
find "$tree" -maxdepth 1 -name '*.cpp' -exec touch -d '2000-01-01' {} +
touch "$tree/main.cpp"
(cd "$tree" && cmake --build --preset release >> build.log 2>&1)
check "the tree's normbench, built again by the next call" new "$(tree_of_normbench)"
[ $fail -eq 0 ] || cat "$tree/ab.log"
exit $fail
