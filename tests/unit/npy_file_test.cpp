// The .npy reader and writer against files NumPy wrote (tests/data/npy, make_npy_fixtures.py):
// values, shapes and format versions read back; the writer reproduces NumPy's bytes; what the
// bridge cannot take (Fortran order, integers, a missing file) is a clear UsageError.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

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

}  // namespace
}  // namespace nb
