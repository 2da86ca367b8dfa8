// run --devices: the device list, each worker's command line, the worst exit status, the report
// path in a worker's output, and the child processes side by side (start, poll, signal).
#include <gtest/gtest.h>

#include <signal.h>

#include <thread>

#include "child_wait.hpp"
#include "harness/candidate/child_process.hpp"
#include "harness/cli/devices_run.hpp"
#include "harness/errors.hpp"
#include "harness/run/interrupt.hpp"
#include "report_test_support.hpp"

namespace nb {
namespace {

TEST(DevicesRun, ParsesAllAndLists) {
  EXPECT_EQ(parse_device_list("all", 2), (std::vector<int>{0, 1}));
  EXPECT_EQ(parse_device_list("0,2", 4), (std::vector<int>{0, 2}));
  EXPECT_EQ(parse_device_list("3", 4), (std::vector<int>{3}));
  EXPECT_THROW(parse_device_list("0,2", 2), UsageError);
  EXPECT_THROW(parse_device_list("0,0", 2), UsageError);
  EXPECT_THROW(parse_device_list("-1", 2), UsageError);
  EXPECT_THROW(parse_device_list("1x", 2), UsageError);
  EXPECT_THROW(parse_device_list("", 2), UsageError);
  EXPECT_THROW(parse_device_list("0,,1", 2), UsageError);
  EXPECT_THROW(parse_device_list("99999999999", 2), UsageError);
  EXPECT_THROW(parse_device_list("all", 0), DeviceError);
  EXPECT_THROW(parse_device_list("bogus", 0), UsageError) << "a malformed list is a usage error even without a GPU";
}

TEST(DevicesRun, WorkerCommandLineDropsDeviceOptionsAndNamesItsOwn) {
  const std::vector<std::string> argv = {"normbench", "run", "--suite", "quick", "--devices", "all", "--device=3",
                                         "--run-id", "x", "--min-time", "0.1", "--devices=0,1", "--benchmark_filter=a"};
  EXPECT_EQ(worker_command_line(argv, "/bin/normbench", 1, "R-gpu1"),
            (std::vector<std::string>{"/bin/normbench", "run", "--suite", "quick", "--min-time", "0.1",
                                      "--benchmark_filter=a", "--device", "1", "--run-id", "R-gpu1"}));
}

TEST(DevicesRun, WorstExitStatus) {
  EXPECT_EQ(worst_exit_status({}), 0);
  EXPECT_EQ(worst_exit_status({0, 1, 0}), 1);
  EXPECT_EQ(worst_exit_status({1, 3, 2}), 3);
  EXPECT_EQ(worst_exit_status({0, 139}), 3) << "an unknown status is a device failure";
  EXPECT_EQ(worst_exit_status({3, 130, 1}), 130);
}

TEST(DevicesRun, FindsTheLastReportLine) {
  EXPECT_EQ(report_path_in_output("[1/2] x\nreport: a/report.json\nmore\nreport: b/report.json\n"), "b/report.json");
  EXPECT_EQ(report_path_in_output("crashed\n"), "");
}

TEST(ChildProcess, SideBySideChildrenArePolledAndSignalled) {
  test::TempFolder dir;
  const StartedChild quick = start_child({"/bin/sh", "-c", "echo hi; exit 3"}, dir.file("quick.log"));
  const StartedChild slow = start_child({"/bin/sh", "-c", "sleep 30"}, dir.file("slow.log"));
  const std::optional<ChildEnd> end = test::wait_for_end(quick, std::chrono::seconds(5));
  ASSERT_TRUE(end.has_value());
  EXPECT_EQ(end->how, ChildEnd::How::exited);
  EXPECT_EQ(end->code, 3);
  EXPECT_EQ(test::read_text(dir.file("quick.log")), "hi\n");
  EXPECT_FALSE(poll_child(slow).has_value());
  signal_child(slow, SIGTERM);
  const std::optional<ChildEnd> killed = test::wait_for_end(slow, std::chrono::seconds(5));
  ASSERT_TRUE(killed.has_value());
  EXPECT_EQ(killed->how, ChildEnd::How::signaled);
  EXPECT_EQ(killed->code, SIGTERM);
}

TEST(Interrupt, TheFirstSignalOnlySetsTheFlag) {
  clear_interrupt();
  install_interrupt_handlers();
  EXPECT_FALSE(interrupt_requested());
  raise(SIGTERM);
  EXPECT_TRUE(interrupt_requested());
  EXPECT_EQ(interrupt_signal(), SIGTERM);
  clear_interrupt();
  signal(SIGTERM, SIG_DFL);
  signal(SIGINT, SIG_DFL);
}

}  // namespace
}  // namespace nb
