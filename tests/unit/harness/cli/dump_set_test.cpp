// normbench dump writes its files as one set: a reader of the folder finds the old complete set
// or the new one, never inputs of one seed beside the reference of another (a write that fails
// midway, as on a full disk) and never the files of an earlier problem beside the new ones.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>

#include "cli_runner.hpp"
#include "harness/errors.hpp"
#include "harness/files/folder_swap.hpp"
#include "report_test_support.hpp"

namespace nb {
namespace {

namespace fs = std::filesystem;
using test::expect_usage_error;
using test::run_cli;

// Every file of `dir` by name, with its bytes.
std::map<std::string, std::string> files_of(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& entry : fs::directory_iterator(dir))
    files[entry.path().filename().string()] = test::read_text(entry.path().string());
  return files;
}

int dump(const std::string& problem, const std::string& seed, const fs::path& dir) {
  return run_cli({"dump", "--problem", problem, "--seed", seed, dir.string()}).status;
}

TEST(DumpSet, ADumpOfAnotherProblemLeavesNoStaleFiles) {
  test::TempFolder parent;
  const fs::path dir = parent.path / "trial";
  ASSERT_EQ(dump("rmsnorm_rows/m4_n8/fp32", "1", dir), kExitOk);
  EXPECT_TRUE(fs::exists(dir / "w.npy"));
  ASSERT_EQ(dump("softmax/m7_n31/fp32", "1", dir), kExitOk);
  std::map<std::string, std::string> files = files_of(dir);
  EXPECT_EQ(files.size(), 3u) << "rmsnorm_rows's w.npy stayed beside softmax's files";
  EXPECT_TRUE(files.count("x.npy") && files.count("y.reference.npy") && files.count("manifest.json"));
  EXPECT_NE(files["manifest.json"].find("softmax/m7_n31/fp32"), std::string::npos);
  EXPECT_EQ(std::distance(fs::directory_iterator(parent.path), fs::directory_iterator()), 1)
      << "a staging folder was left beside the dump";
}

// The file size limit makes the second, larger file of the set fail as a full disk would.
TEST(DumpSet, AWriteThatFailsMidwayLeavesTheOldCompleteSet) {
  test::TempFolder parent;
  const fs::path dir = parent.path / "trial";
  const std::string problem = "softmax/m16_n256/fp32";  // x.npy 16 KiB, y.reference.npy 32 KiB
  ASSERT_EQ(dump(problem, "1", dir), kExitOk);
  const std::map<std::string, std::string> before = files_of(dir);
  rlimit saved{};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &saved), 0);
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);  // the write returns EFBIG instead of killing us
  rlimit small = saved;
  small.rlim_cur = 24 * 1024;  // x.npy fits, y.reference.npy does not
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  const int status = dump(problem, "2", dir);
  setrlimit(RLIMIT_FSIZE, &saved);
  std::signal(SIGXFSZ, old_handler);
  EXPECT_EQ(status, kExitUsage);
  EXPECT_EQ(files_of(dir), before) << "the folder holds a mix of the seed-1 and seed-2 sets";
  EXPECT_EQ(std::distance(fs::directory_iterator(parent.path), fs::directory_iterator()), 1)
      << "the half-written set was left beside the dump";
  ASSERT_EQ(dump(problem, "2", dir), kExitOk);
  EXPECT_NE(files_of(dir).at("x.npy"), before.at("x.npy"));
}

// A folder holding anything a dump does not write is refused before the work, and kept as it was:
// replacing the set must never remove someone's files.
TEST(DumpSet, AFolderWithOtherFilesIsRefusedAndKept) {
  test::TempFolder parent;
  const fs::path dir = parent.path / "trial";
  fs::create_directories(dir / "sub");
  std::ofstream(dir / "notes.txt") << "mine";
  expect_usage_error({"dump", "--problem", "softmax/m7_n31/fp32", dir.string()}, "which a dump does not write");
  EXPECT_EQ(test::read_text((dir / "notes.txt").string()), "mine");
  EXPECT_TRUE(fs::is_directory(dir / "sub"));
  fs::remove(dir / "notes.txt");
  fs::remove(dir / "sub");
  std::ofstream(dir / "mine.npy") << "not a dump";
  expect_usage_error({"dump", "--problem", "softmax/m7_n31/fp32", dir.string()}, "no manifest.json");
  EXPECT_TRUE(fs::exists(dir / "mine.npy"));
  fs::remove(dir / "mine.npy");
  EXPECT_EQ(dump("softmax/m7_n31/fp32", "1", dir), kExitOk);  // an empty folder is fine
  std::ofstream(dir.parent_path() / "file") << "x";
  expect_usage_error({"dump", "--problem", "softmax/m7_n31/fp32", (dir.parent_path() / "file").string()},
                     "is not a folder");
}

TEST(FolderSwap, AFillThatThrowsLeavesTheOldSetAndNoStagingFolder) {
  test::TempFolder parent;
  const fs::path dir = parent.path / "set";
  replace_folder(dir.string(), [](const std::string& staging) { std::ofstream(staging + "/a") << "old"; });
  EXPECT_THROW(replace_folder(dir.string(),
                              [](const std::string& staging) {
                                std::ofstream(staging + "/a") << "new";
                                throw UsageError("disk full");
                              }),
               UsageError);
  EXPECT_EQ(files_of(dir), (std::map<std::string, std::string>{{"a", "old"}}));
  replace_folder(dir.string(), [](const std::string& staging) { std::ofstream(staging + "/b") << "new"; });
  EXPECT_EQ(files_of(dir), (std::map<std::string, std::string>{{"b", "new"}}));
  EXPECT_EQ(std::distance(fs::directory_iterator(parent.path), fs::directory_iterator()), 1);
  // A link to a folder is followed: the link stays, the folder it leads to takes the set.
  fs::create_symlink(dir, parent.path / "link");
  replace_folder((parent.path / "link").string(), [](const std::string& staging) { std::ofstream(staging + "/c") << "c"; });
  EXPECT_TRUE(fs::is_symlink(parent.path / "link"));
  EXPECT_EQ(files_of(dir), (std::map<std::string, std::string>{{"c", "c"}}));
}

}  // namespace
}  // namespace nb
