// normbench eval, dump and check without a GPU: every bad candidate (missing file, wrong suffix,
// compile error with nvcc's message, a library without nb_candidate_launch or of another ABI
// version, an unknown op) is a clear message and exit 2 before any device is touched; list
// tensors prints the order a candidate receives; dump and check close the .npy loop.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>
#include <vector>

#include "harness/npy/npy_file.hpp"

namespace nb {
namespace {

namespace fs = std::filesystem;

struct CliRun {
  int status = -1;
  std::string output;
};

CliRun normbench(const std::string& args) {
  const std::string log = testing::TempDir() + "eval_cli_" + std::to_string(getpid()) + ".log";
  const int raw = std::system((std::string(NORMBENCH_BINARY) + " " + args + " > " + log + " 2>&1").c_str());
  CliRun r;
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  std::ifstream in(log);
  std::stringstream s;
  s << in.rdbuf();
  r.output = s.str();
  return r;
}

std::string write_file(const std::string& name, const std::string& text) {
  const std::string path = testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

// A host-compiled library: the probe loads it like any candidate.
std::string host_library(const std::string& name, const std::string& source) {
  const std::string src = write_file(name + ".c", source), lib = testing::TempDir() + name + ".so";
  const std::string cmd = "cc -shared -fPIC -I " + std::string(NORMBENCH_SOURCE_DIR) + "/include -o " + lib + " " + src;
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  return lib;
}

const std::string kProblem = " --op rmsnorm_rows --problem rmsnorm_rows/m7_n1000/fp32";

TEST(EvalCli, AMissingOrUnknownCandidateIsAUsageError) {
  CliRun r = normbench("eval /nonexistent/cand.cu" + kProblem);
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("no such candidate file"), std::string::npos) << r.output;
  r = normbench("eval " + write_file("cand.txt", "x") + kProblem);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find(".cu file"), std::string::npos) << r.output;
  r = normbench("eval " + write_file("cand_op.cu", "x") + " --op no_such_op");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("no_such_op"), std::string::npos) << r.output;
}

TEST(EvalCli, ACompileErrorShowsNvccsMessage) {
  const CliRun r = normbench("eval " + write_file("broken.cu", "this is not CUDA;\n") + kProblem);
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("nvcc failed"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("error"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("-cudart shared"), std::string::npos) << r.output;
}

TEST(EvalCli, ALibraryWithoutLaunchOrOfAnotherAbiIsAUsageError) {
  const std::string header = "#include \"normbench/candidate.h\"\n";
  CliRun r = normbench("eval " +
                    host_library("no_launch", header + "NB_EXPORT int nb_candidate_abi_version(void) { return 1; }\n") +
                    kProblem);
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("does not export nb_candidate_launch"), std::string::npos) << r.output;
  r = normbench("eval " + host_library("abi99", header + "NB_EXPORT int nb_candidate_abi_version(void) { return 99; }\n") +
                kProblem);
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("ABI version 99"), std::string::npos) << r.output;
  r = normbench("eval " + host_library("no_abi", "int unrelated(void) { return 0; }\n") + kProblem);
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("nb_candidate_abi_version"), std::string::npos) << r.output;
  r = normbench("eval " + write_file("not_elf.so", "plain text") + kProblem);
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("cannot load"), std::string::npos) << r.output;
}

TEST(EvalCli, ListTensorsPrintsTheDeclaredOrderWithShapesAndRoles) {
  const CliRun r = normbench("list tensors --problem rmsnorm_rows/m7_n1000/fp32");
  EXPECT_EQ(r.status, 0) << r.output;
  const auto x = r.output.find("0  x"), w = r.output.find("1  w"), y = r.output.find("2  y");
  ASSERT_NE(x, std::string::npos) << r.output;
  EXPECT_LT(x, w);
  EXPECT_LT(w, y);
  EXPECT_NE(r.output.find("input   (7, 1000)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("output  (7, 1000)"), std::string::npos) << r.output;
  EXPECT_EQ(normbench("list tensors --op batchnorm_train").status, 0);
  EXPECT_EQ(normbench("list tensors").status, 2);
}

TEST(NpyBridge, DumpThenCheckPassesTheReferenceAndFailsZeros) {
  const fs::path dir = fs::path(testing::TempDir()) / ("npy_bridge_" + std::to_string(getpid()));
  fs::remove_all(dir);
  const std::string trial = " --problem batchnorm_train/n4_c3_h5_w7/fp32 --distribution offset --seed 7";
  CliRun r = normbench("dump" + trial + " " + dir.string());
  ASSERT_EQ(r.status, 0) << r.output;
  ASSERT_TRUE(fs::exists(dir / "manifest.json"));
  const NpyArray x = read_npy((dir / "x.npy").string());
  EXPECT_EQ(x.shape, (std::vector<std::int64_t>{4, 3, 5, 7}));
  EXPECT_EQ(x.descr, "<f4");
  EXPECT_TRUE(fs::exists(dir / "running_mean.npy"));  // inout: its value before the launch
  const fs::path out = dir / "out";
  fs::create_directories(out);
  for (const char* name : {"y", "save_mean", "save_invstd", "running_mean", "running_var"}) {
    const NpyArray ref = read_npy((dir / (std::string(name) + ".reference.npy")).string());
    EXPECT_EQ(ref.descr, "<f8");
    std::vector<float> values(ref.values.begin(), ref.values.end());
    write_npy_f32((out / (std::string(name) + ".npy")).string(), ref.shape, values);
  }
  r = normbench("check" + trial + " --outputs " + out.string());
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("passed"), std::string::npos) << r.output;
  write_npy_f32((out / "y.npy").string(), {4, 3, 5, 7}, std::vector<float>(420, 0.0f));
  r = normbench("check" + trial + " --outputs " + out.string());
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("incorrect"), std::string::npos) << r.output;
  fs::remove(out / "y.npy");
  r = normbench("check" + trial + " --outputs " + out.string());
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("y.npy"), std::string::npos) << r.output;
}

// Outputs whose headers lie about their shape, and problems too big for host memory: a message and
// exit 2, never an uncaught length_error or bad_alloc (abort, 134) or a wrong answer.
TEST(NpyBridge, HostileShapesAndHugeProblemsAreUsageErrorsNotCrashes) {
  const fs::path dir = fs::path(testing::TempDir()) / ("npy_hostile_" + std::to_string(getpid()));
  const std::string trial = " --problem softmax/m7_n31/fp32 --outputs " + dir.string();
  for (const auto& [shape, values] : std::vector<std::pair<std::string, int>>{
           {"(-1,)", 4}, {"(1000000000000,)", 4}, {"(-7, -31)", 217}, {"(11, 8384883669867978027)", 217}}) {
    fs::remove_all(dir);
    fs::create_directories(dir);
    std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape + ", }";
    header.append((64 - (10 + header.size() + 1) % 64) % 64, ' ');
    header += "\n";
    std::ofstream out(dir / "y.npy", std::ios::binary);
    out.write("\x93NUMPY\x01\x00", 8);
    out.put(static_cast<char>(header.size())).put(0);
    out << header << std::string(std::size_t(values) * 4, '\0');
    out.close();
    CliRun r = normbench("check" + trial);
    EXPECT_EQ(r.status, 2) << shape << ": " << r.output;
    EXPECT_NE(r.output.find("y.npy"), std::string::npos) << shape << ": " << r.output;
  }
  fs::remove_all(dir);
  for (const char* command : {"dump", "check --outputs"}) {
    CliRun r = normbench(std::string(command) + " " + dir.string() + " --problem softmax/m1000000000_n1000000000/fp32");
    EXPECT_EQ(r.status, 2) << command << ": " << r.output;
    EXPECT_NE(r.output.find("host memory"), std::string::npos) << command << ": " << r.output;
  }
  EXPECT_FALSE(fs::exists(dir)) << "the refused dump left its folder behind";
}

}  // namespace
}  // namespace nb
