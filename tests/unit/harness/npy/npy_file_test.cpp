// The .npy reader and writer against files NumPy wrote (tests/data/npy, make_npy_fixtures.py):
// values, shapes and format versions read back; the writer reproduces NumPy's bytes; what the
// bridge cannot take (Fortran order, integers, a missing file) is a clear UsageError.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <tuple>
#include <unistd.h>
#include <vector>

#include "harness/errors.hpp"
#include "harness/npy/npy_file.hpp"

namespace nb {
namespace {

std::string fixture(const std::string& name) { return std::string(NORMBENCH_TEST_DATA_DIR) + "/npy/" + name; }

std::string bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(NpyFile, ReadsWhatNumpyWrote) {
  const NpyArray a = read_npy(fixture("f32_2x3.npy"));
  EXPECT_EQ(a.descr, "<f4");
  EXPECT_EQ(a.shape, (std::vector<std::int64_t>{2, 3}));
  ASSERT_EQ(a.values.size(), 6u);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(a.values[i], i / 4.0);

  const NpyArray b = read_npy(fixture("f64_5.npy"));
  EXPECT_EQ(b.shape, (std::vector<std::int64_t>{5}));
  EXPECT_EQ(b.values[1], -2.25);
  EXPECT_TRUE(std::isnan(b.values[2]));
  EXPECT_TRUE(std::isinf(b.values[3]));
  EXPECT_EQ(b.values[4], 1e300);

  const NpyArray s = read_npy(fixture("f32_scalar.npy"));
  EXPECT_TRUE(s.shape.empty());
  EXPECT_EQ(s.values, std::vector<double>{7.0});

  const NpyArray v2 = read_npy(fixture("f32_v2_4.npy"));
  EXPECT_EQ(v2.values, (std::vector<double>{0, 1, 2, 3}));
}

TEST(NpyFile, WritesNumpysBytes) {
  const auto dir = std::filesystem::temp_directory_path();
  const std::string f32 = (dir / "nb_npy_f32.npy").string(), f64 = (dir / "nb_npy_f64.npy").string();
  write_npy_f32(f32, {2, 3}, {0, 0.25f, 0.5f, 0.75f, 1, 1.25f});
  EXPECT_EQ(bytes_of(f32), bytes_of(fixture("f32_2x3.npy")));
  write_npy_f64(f64, {5}, {1.5, -2.25, NAN, INFINITY, 1e300});
  const NpyArray back = read_npy(f64);
  EXPECT_EQ(bytes_of(f64).substr(0, 128), bytes_of(fixture("f64_5.npy")).substr(0, 128));
  EXPECT_EQ(back.values[4], 1e300);
  EXPECT_THROW(write_npy_f32(f32, {4}, {1, 2}), UsageError);
}

TEST(NpyFile, RefusesWhatTheBridgeCannotTake) {
  for (const char* name : {"f32_fortran.npy", "i32_3.npy", "missing.npy"}) {
    try {
      read_npy(fixture(name));
      ADD_FAILURE() << name << " was accepted";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(read_npy(fixture("make_npy_fixtures.py")), UsageError);
}

// A version 1.0 file of float32 zeros whose header claims `shape` and whose data holds `values`.
std::string hostile_npy(const std::string& name, const std::string& shape, std::size_t values) {
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape + ", }";
  header.append((64 - (10 + header.size() + 1) % 64) % 64, ' ');
  header += "\n";
  const std::string path = (std::filesystem::temp_directory_path() / ("nb_npy_hostile_" + name + ".npy")).string();
  std::ofstream out(path, std::ios::binary);
  out.write("\x93NUMPY\x01\x00", 8);
  out.put(static_cast<char>(header.size() & 0xff)).put(static_cast<char>(header.size() >> 8));
  out << header << std::string(values * sizeof(float), '\0');
  return path;
}

// A negative dimension, a product that wraps around 2^64 to the right count, or more values than
// the file holds: a UsageError naming the file, before anything is allocated (no bad_alloc).
TEST(NpyFile, RefusesHostileShapes) {
  const std::vector<std::tuple<std::string, std::string, std::size_t, std::string>> files = {
      {"minus_one", "(-1,)", 4, "'-1'"},
      {"trillion", "(1000000000000,)", 4, "the file holds 4"},
      {"two_negatives", "(-7, -31)", 217, "'-7'"},            // -7 * -31 = 217 values, as the file holds
      {"wraps", "(11, 8384883669867978027)", 217, "2^63"},    // 11 * that wraps to 217 in 64 bits
      {"huge_dims", "(4294967296, 4294967296)", 4, "2^63"},
      {"not_a_number", "(3x,)", 3, "'3x'"},
      {"fraction", "(2.5,)", 3, "'2.5'"},
      {"no_parens", "5", 5, "bad shape"},
  };
  for (const auto& [name, shape, values, message] : files) {
    const std::string path = hostile_npy(name, shape, values);
    try {
      const NpyArray a = read_npy(path);
      ADD_FAILURE() << shape << " was read as " << a.values.size() << " values";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << shape << ": " << e.what();
    }
    std::filesystem::remove(path);
  }
  EXPECT_EQ(read_npy(hostile_npy("empty_dim", "(0, 5)", 0)).values.size(), 0u);  // zero is a dimension
  EXPECT_THROW(write_npy_f32("/tmp/nb_never.npy", {-2, -2}, std::vector<float>(4)), UsageError);
}

// A write that fails midway (here the file size limit; a full disk alike) leaves no file behind,
// neither a truncated array nor the temporary one.
TEST(NpyFile, AFailedWriteLeavesNoPartialFile) {
  const auto dir = std::filesystem::temp_directory_path() / ("nb_npy_full_" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "x.npy").string();
  rlimit saved{};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &saved), 0);
  const auto old_handler = signal(SIGXFSZ, SIG_IGN);  // the write returns EFBIG instead of killing us
  rlimit small = saved;
  small.rlim_cur = 4096;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  bool threw = false;
  try {
    write_npy_f32(path, {100000}, std::vector<float>(100000, 1.0f));
  } catch (const UsageError&) {
    threw = true;
  }
  setrlimit(RLIMIT_FSIZE, &saved);
  signal(SIGXFSZ, old_handler);
  EXPECT_TRUE(threw);
  EXPECT_FALSE(std::filesystem::exists(path)) << "a truncated x.npy was left behind";
  EXPECT_TRUE(std::filesystem::is_empty(dir)) << "a temporary file was left behind";
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace nb
