// The pieces of normbench eval that need no GPU: SHA-256 against known digests, the worker's
// outcome JSON round trip, the C descriptors of a problem's tensors, and how a child's end is
// told (exit status, signal, time limit).
#include <gtest/gtest.h>

#include <csignal>

#include "harness/candidate/candidate_variant.hpp"
#include "harness/candidate/child_process.hpp"
#include "harness/candidate/outcome_json.hpp"
#include "harness/files/sha256.hpp"
#include "harness/errors.hpp"

namespace nb {
namespace {

TEST(Sha256, MatchesKnownDigests) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST(OutcomeJson, RoundTripsEverythingTheReportReads) {
  CaseOutcome o;
  o.flags = {"allocates_in_launch"};
  o.containment = "completed";
  o.validation.disposition = Disposition::incorrect;
  o.validation.tolerance = {1e-5, 1e-4, 1e-3};
  DistributionVerdict d;
  d.distribution = Distribution::offset;
  d.passed = false;
  d.seeds = {1000, 1001};
  d.unwritten = 1;
  d.failure = "y: 1 unwritten";
  TensorErrors e;
  e.name = "y";
  e.normwise = 0.5;
  e.bound = {2e-5, 3e-4, 1e-3};
  d.tensors.push_back(e);
  o.validation.distributions.push_back(d);
  o.validation.after_timing = d;
  o.timing.emplace();
  o.timing->samples_ms = {1.0, 2.0, 3.0};
  o.timing->sm_clock_before_mhz = 1980;
  o.timing->output_check = "digest";
  o.timing->output_check_note = "a copy of the outputs needs 9.0 GiB";
  o.timing->output_mismatch = "y: 5 elements still held the disturbance";
  o.timing->device_ms_per_sample = 2.5;
  o.add_flag(kFlagTimedOutputMismatch, "y: 5 elements");
  o.validation.hidden_shape = HiddenShapeVerdict{"rmsnorm_rows/m509_n509/fp32", "refused", "kb shapes only"};
  const CaseOutcome back = outcome_from_json(outcome_to_json(o));
  EXPECT_EQ(back.flags, o.flags);
  EXPECT_EQ(back.flag_notes, o.flag_notes);
  ASSERT_TRUE(back.validation.hidden_shape.has_value());
  EXPECT_EQ(back.validation.hidden_shape->verdict, "refused");
  EXPECT_EQ(back.validation.hidden_shape->detail, "kb shapes only");
  EXPECT_EQ(back.containment, "completed");
  EXPECT_EQ(back.validation.disposition, Disposition::incorrect);
  EXPECT_EQ(back.validation.tolerance.elementwise, 1e-4);
  ASSERT_EQ(back.validation.distributions.size(), 1u);
  EXPECT_EQ(back.validation.distributions[0].distribution, Distribution::offset);
  EXPECT_EQ(back.validation.distributions[0].seeds, d.seeds);
  EXPECT_EQ(back.validation.distributions[0].tensors[0].normwise, 0.5);
  EXPECT_EQ(back.validation.distributions[0].tensors[0].bound.elementwise, 3e-4);
  ASSERT_TRUE(back.validation.after_timing.has_value());
  EXPECT_EQ(back.validation.after_timing->unwritten, 1);
  ASSERT_TRUE(back.timing.has_value());
  EXPECT_EQ(back.timing->stats.median, 2.0);
  EXPECT_EQ(back.timing->sm_clock_before_mhz, 1980);
  EXPECT_EQ(back.timing->output_check, "digest");
  EXPECT_EQ(back.timing->output_check_note, o.timing->output_check_note);
  EXPECT_EQ(back.timing->output_mismatch, o.timing->output_mismatch);
  EXPECT_EQ(back.timing->device_ms_per_sample, 2.5);
  EXPECT_THROW(outcome_from_json({{"status", "ran"}}), UsageError);
}

TEST(TensorDescriptors, CarryShapesContiguousStridesRolesAndNames) {
  const std::vector<TensorDecl> decls = {{"x", TensorRole::input, 12, {3, 4}}, {"y", TensorRole::inout, 5}};
  const auto d = tensor_descriptors(decls, DeviceTensors{});
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].ndim, 2);
  EXPECT_EQ(d[0].shape[0], 3);
  EXPECT_EQ(d[0].strides[0], 4);
  EXPECT_EQ(d[0].strides[1], 1);
  EXPECT_EQ(d[0].role, NB_INPUT);
  EXPECT_STREQ(d[0].name, "x");
  EXPECT_EQ(d[1].ndim, 1);
  EXPECT_EQ(d[1].shape[0], 5);
  EXPECT_EQ(d[1].role, NB_INOUT);
}

TEST(ChildProcess, TellsExitSignalAndTimeLimitApart) {
  const std::string log = testing::TempDir() + "child.log";
  ChildEnd end = run_child({"sh", "-c", "echo hello; exit 3"}, log, 10);
  EXPECT_EQ(end.how, ChildEnd::How::exited);
  EXPECT_EQ(end.code, 3);
  EXPECT_EQ(read_tail(log), "hello\n");
  end = run_child({"sh", "-c", "kill -SEGV $$"}, log, 10);
  EXPECT_EQ(end.how, ChildEnd::How::signaled);
  EXPECT_EQ(end.code, SIGSEGV);
  EXPECT_EQ(describe_signal(SIGSEGV).rfind("SIGSEGV", 0), 0u);
  end = run_child({"sleep", "30"}, log, 0.3);
  EXPECT_EQ(end.how, ChildEnd::How::timed_out);
  EXPECT_LT(end.seconds, 5);
  EXPECT_EQ(shell_join({"nvcc", "-o", "a b.so"}), "nvcc -o 'a b.so'");
}

}  // namespace
}  // namespace nb
