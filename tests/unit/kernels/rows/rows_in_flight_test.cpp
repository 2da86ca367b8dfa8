// blocks_of_512_an_sm: the device's DRAM rate an SM picks two or three blocks of 512 lanes for
// the rows of 16384 2-byte values (LayerNorm, RMSNorm, softmax), and NORMBENCH_ROWS_IN_FLIGHT overrides it;
// parse_rows_in_flight takes "2" or "3" (unset or empty: no setting), and any other value is an
// error that says what it expects; the process's setting is what was set last.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "harness/errors.hpp"
#include "harness/run/rows_in_flight_setting.hpp"
#include "kernels/rows/rows_in_flight.hpp"

namespace nb::rows {
namespace {

// The datasheet rates of the two GPUs measured: 3352 and 4814 GB/s over 132 SMs.
constexpr double kH100GbpsPerSm = 3352.0 / 132, kH200GbpsPerSm = 4814.0 / 132;

TEST(RowsInFlight, TheDramRateAnSmPicksTheBlocks) {
  EXPECT_EQ(blocks_of_512_an_sm(kH100GbpsPerSm, std::nullopt), 2);
  EXPECT_EQ(blocks_of_512_an_sm(kH200GbpsPerSm, std::nullopt), 3);
  EXPECT_EQ(blocks_of_512_an_sm(kThreeBlocksDramGbpsPerSm, std::nullopt), 2);
}

TEST(RowsInFlight, TheSettingOverridesTheDevice) {
  EXPECT_EQ(blocks_of_512_an_sm(kH100GbpsPerSm, parse_rows_in_flight(std::string("3"))), 3);
  EXPECT_EQ(blocks_of_512_an_sm(kH200GbpsPerSm, parse_rows_in_flight(std::string("2"))), 2);
  EXPECT_EQ(blocks_of_512_an_sm(kH200GbpsPerSm, parse_rows_in_flight(std::string(""))), 3);
  EXPECT_EQ(blocks_of_512_an_sm(kH100GbpsPerSm, parse_rows_in_flight(std::nullopt)), 2);
}

TEST(RowsInFlight, TheProcessSettingIsWhatWasSetLast) {
  const std::optional<int> before = rows_in_flight();
  set_rows_in_flight(3);
  EXPECT_EQ(rows_in_flight(), 3);
  set_rows_in_flight(2);
  EXPECT_EQ(rows_in_flight(), 2);
  set_rows_in_flight(std::nullopt);
  EXPECT_EQ(rows_in_flight(), std::nullopt);
  set_rows_in_flight(before);
}

TEST(RowsInFlight, ABadSettingSaysWhatItExpects) {
  for (const std::string bad : {"4", "three", " 3", "2x", "0"}) {
    try {
      parse_rows_in_flight(bad);
      ADD_FAILURE() << "'" << bad << "' was taken";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("NORMBENCH_ROWS_IN_FLIGHT='" + bad + "': expected 2 or 3"),
                std::string::npos)
          << e.what();
    }
  }
}

}  // namespace
}  // namespace nb::rows
