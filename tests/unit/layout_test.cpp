// The layout's dependency rules (docs/architecture.md) hold in the code: every project include of
// every source file runs the way its room may depend, top level and inside harness/. The back
// edges not yet moved are listed with the step that removes them; a listed edge that no longer
// exists fails too, so the list only shrinks and stays true.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace nb::test {
namespace {

namespace fs = std::filesystem;

struct Include {
  std::string from;  // the including file, relative to the source root
  std::string to;    // what it names: "harness/run/runner.hpp"
};

bool is_source(const fs::path& p) {
  static const std::set<std::string> kinds{".hpp", ".cpp", ".cu", ".cuh", ".h", ".c"};
  return kinds.count(p.extension().string()) > 0;
}

// The quoted includes naming a file under one of the project's rooms, in every source file of
// the rooms given.
std::vector<Include> project_includes(const std::vector<std::string>& rooms) {
  const fs::path root = NORMBENCH_SOURCE_DIR;
  std::vector<Include> found;
  for (const std::string& room : rooms) {
    for (const auto& entry : fs::recursive_directory_iterator(root / room)) {
      if (!entry.is_regular_file() || !is_source(entry.path())) continue;
      std::ifstream in(entry.path());
      for (std::string line; std::getline(in, line);) {
        const auto hash = line.find_first_not_of(" \t");
        if (hash == std::string::npos || line.compare(hash, 1, "#") != 0) continue;
        const auto word = line.find("include", hash);
        const auto open = line.find('"', hash);
        if (word == std::string::npos || open == std::string::npos || open < word) continue;
        const auto close = line.find('"', open + 1);
        if (close == std::string::npos) continue;
        found.push_back({fs::relative(entry.path(), root).generic_string(), line.substr(open + 1, close - open - 1)});
      }
    }
  }
  return found;
}

std::string top_room(const std::string& path) { return path.substr(0, path.find('/')); }

// harness/<folder>/..., or "harness" for the core files at its top.
std::string harness_room(const std::string& path) {
  const auto second = path.find('/', std::string("harness/").size());
  return second == std::string::npos ? "harness" : path.substr(0, second);
}

const std::vector<std::string> kCodeRooms{"harness", "baselines", "kernels", "apps", "include"};

// What each room may include besides itself. tests/ and examples/ may include anything.
const std::map<std::string, std::set<std::string>>& allowed_rooms() {
  static const std::map<std::string, std::set<std::string>> allowed{
      {"include", {}},
      {"harness", {"include"}},
      {"baselines", {"harness", "include"}},
      {"kernels", {"baselines", "harness", "include"}},
      {"apps", {"kernels", "baselines", "harness", "include"}},
  };
  return allowed;
}

TEST(Layout, TheTopLevelRoomsDependOneWay) {
  const auto includes = project_includes(kCodeRooms);
  ASSERT_GT(includes.size(), 500u) << "the scan found too few includes to mean anything";
  for (const Include& inc : includes) {
    const std::string from = top_room(inc.from), to = top_room(inc.to);
    const bool project_room = allowed_rooms().count(to) > 0 || to == "tests" || to == "examples";
    if (from == to || !project_room) continue;  // a header of its own folder, or a generated one
    EXPECT_TRUE(allowed_rooms().at(from).count(to)) << inc.from << " includes " << inc.to << ": " << from
                                                    << " may not depend on " << to << " (docs/architecture.md)";
  }
}

// harness/'s folders, lowest first: a folder may include its own files and those of folders
// below it.
const std::vector<std::string>& harness_layers() {
  static const std::vector<std::string> layers{
      "harness",  // the core contracts: problem, dtype, tensors, variant, op spec, registry, tolerance
      "harness/files",      "harness/npy",        "harness/device",     "harness/timing",
      "harness/launches",   "harness/validation", "harness/plan_cache", "harness/run",
      "harness/report",     "harness/candidate",  "harness/cli",
  };
  return layers;
}

// Includes that still run up the layers, each with the step of docs/architecture.md that moves it.
const std::map<std::pair<std::string, std::string>, std::string>& known_back_edges() {
  static const std::map<std::pair<std::string, std::string>, std::string> known{};  // none left
  return known;
}

TEST(Layout, HarnessFoldersDependDownTheirLayers) {
  std::map<std::string, std::size_t> rank;
  for (std::size_t i = 0; i < harness_layers().size(); ++i) rank[harness_layers()[i]] = i;
  std::set<std::pair<std::string, std::string>> seen;
  for (const Include& inc : project_includes({"harness"})) {
    if (top_room(inc.to) != "harness") continue;
    const std::string from = harness_room(inc.from), to = harness_room(inc.to);
    ASSERT_TRUE(rank.count(from)) << inc.from << ": harness/ has a folder the layers do not name";
    ASSERT_TRUE(rank.count(to)) << inc.to << ": harness/ has a folder the layers do not name";
    if (rank[to] <= rank[from]) continue;
    seen.insert({from, to});
    EXPECT_TRUE(known_back_edges().count({from, to}))
        << inc.from << " includes " << inc.to << ": " << from << " sits below " << to << " (docs/architecture.md)";
  }
  for (const auto& [edge, step] : known_back_edges())
    EXPECT_TRUE(seen.count(edge)) << edge.first << " -> " << edge.second
                                  << " is gone: take it off the known back edges (" << step << ")";
}

}  // namespace
}  // namespace nb::test
