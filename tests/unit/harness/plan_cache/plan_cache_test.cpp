// The plan cache's parts that need no GPU: where its folder is (options, NORMBENCH_PLAN_CACHE, the
// XDG convention), the file format of one plan, and the folder of files: atomic writes, and every
// unusable file (corrupt, truncated, foreign, of another format) a warning and a miss.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "harness/files/sha256.hpp"
#include "harness/plan_cache/plan_cache_setting.hpp"
#include "harness/plan_cache/plan_record.hpp"
#include "harness/plan_cache/plan_store.hpp"
#include "report_test_support.hpp"

namespace nb {
namespace {

namespace fs = std::filesystem;

EnvironmentLookup environment(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char* name) -> const char* {
    const auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

TEST(PlanCacheSetting, OptionsComeFirstThenTheVariableThenTheXdgConvention) {
  const auto all = environment({{"NORMBENCH_PLAN_CACHE", "/plans"}, {"XDG_CACHE_HOME", "/xdg"}, {"HOME", "/home/u"}});
  EXPECT_EQ(resolve_plan_cache(std::string("/mine"), false, all), (PlanCacheSetting{"/mine", "--plan-cache"}));
  const PlanCacheSetting off = resolve_plan_cache(std::nullopt, true, all);
  EXPECT_FALSE(off.enabled());
  EXPECT_EQ(off.describe(), "off (--no-plan-cache)");
  EXPECT_EQ(resolve_plan_cache(std::nullopt, false, all), (PlanCacheSetting{"/plans", "NORMBENCH_PLAN_CACHE"}));
  EXPECT_EQ(resolve_plan_cache(std::nullopt, false, environment({{"XDG_CACHE_HOME", "/xdg"}, {"HOME", "/home/u"}})),
            (PlanCacheSetting{"/xdg/normbench/cudnn-plans", "XDG_CACHE_HOME"}));
  const PlanCacheSetting home = resolve_plan_cache(std::nullopt, false, environment({{"HOME", "/home/u"}}));
  EXPECT_EQ(home, (PlanCacheSetting{"/home/u/.cache/normbench/cudnn-plans", "HOME"}));
  EXPECT_EQ(home.describe(), "/home/u/.cache/normbench/cudnn-plans (HOME)");
}

TEST(PlanCacheSetting, EmptyAndRelativeXdgValuesAreIgnoredAndNoHomeMeansNoCache) {
  // The XDG Base Directory specification: an empty or relative XDG_CACHE_HOME is not used.
  for (const char* xdg : {"", "relative/cache"})
    EXPECT_EQ(resolve_plan_cache(std::nullopt, false, environment({{"XDG_CACHE_HOME", xdg}, {"HOME", "/h"}})).folder,
              "/h/.cache/normbench/cudnn-plans")
        << xdg;
  EXPECT_EQ(resolve_plan_cache(std::nullopt, false, environment({{"NORMBENCH_PLAN_CACHE", ""}, {"HOME", "/h"}})).origin,
            "HOME");
  EXPECT_FALSE(resolve_plan_cache(std::nullopt, false, environment({})).enabled());
}

TEST(PlanCacheSetting, RelativeFoldersAreMadeAbsoluteForTheWorkersToo) {
  const PlanCacheSetting s = resolve_plan_cache(std::string("plans/../cache"), false, environment({}));
  EXPECT_TRUE(fs::path(s.folder).is_absolute());
  EXPECT_EQ(s.folder, (fs::current_path() / "cache").string());
  EXPECT_EQ(resolve_plan_cache(std::nullopt, false, environment({{"NORMBENCH_PLAN_CACHE", "c"}})).folder,
            (fs::current_path() / "c").string());
}

PlanRecord record(const std::string& key = "k1") {
  PlanRecord r;
  r.key_sha256 = plan_key_sha256("GPU A sm_90, cuDNN 91400", key);
  r.identity = "GPU A sm_90, cuDNN 91400";
  r.label = "rms_forward M=1 N=524288 fp16, inference phase";
  r.status = "ok (engine 5, heur A config 1 of 3, notes runtime_compilation)\nsecond line";
  r.build_s = 27.25;
  r.runtime_compiled = true;
  r.blob = std::string("{\"plan\": 1}\n\0\xff binary", 22);
  return r;
}

TEST(PlanRecord, SurvivesItsFileFormatByteForByte) {
  const PlanRecord r = record();
  const std::string bytes = encode_plan_record(r);
  EXPECT_EQ(bytes.rfind("normbench-plan-cache 1\n", 0), 0u);
  const PlanRecord back = decode_plan_record(bytes);
  EXPECT_EQ(back.key_sha256, r.key_sha256);
  EXPECT_EQ(back.identity, r.identity);
  EXPECT_EQ(back.label, r.label);
  EXPECT_EQ(back.status, r.status) << "a newline inside a field stays inside the header line";
  EXPECT_DOUBLE_EQ(back.build_s, 27.25);
  EXPECT_TRUE(back.runtime_compiled);
  EXPECT_EQ(back.blob, r.blob);
}

TEST(PlanRecord, KeysDifferByIdentityAndByGraph) {
  EXPECT_EQ(plan_key_sha256("a", "g"), plan_key_sha256("a", "g"));
  EXPECT_NE(plan_key_sha256("a", "g"), plan_key_sha256("b", "g"));
  EXPECT_NE(plan_key_sha256("a", "g"), plan_key_sha256("a", "h"));
  EXPECT_NE(plan_key_sha256("a\ngraph\nb", "c"), plan_key_sha256("a", "b\ngraph\nc")) << "fields cannot slide";
}

void expect_refused(const std::string& bytes, const std::string& why) {
  try {
    decode_plan_record(bytes);
    ADD_FAILURE() << "decoded what should say: " << why;
  } catch (const PlanRecordError& e) {
    EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
  }
}

TEST(PlanRecord, RefusesWhatIsNotExactlyARecordAndSaysWhy) {
  const std::string good = encode_plan_record(record());
  const std::size_t header_end = good.find('\n', good.find('\n') + 1) + 1;
  expect_refused("", "ends before its format line");
  expect_refused("{\"json\": true}\n", "not a normbench plan cache file");
  expect_refused("normbench-plan-cache 2\n{}\n", "format 2, this normbench reads format 1");
  expect_refused("normbench-plan-cache 1\n", "ends before its header");
  expect_refused("normbench-plan-cache 1\nnot json\n", "not a JSON object");
  expect_refused("normbench-plan-cache 1\n{\"key_sha256\": \"x\"}\n", "has no identity");
  std::string mistyped = good;
  mistyped.replace(mistyped.find("\"build_s\":27.25"), 15, "\"build_s\":\"27\"");
  expect_refused(mistyped, "build_s is \"27\"");
  expect_refused(good.substr(0, good.size() - 3), "truncated: its plan has 19 of 22 bytes");
  expect_refused(good.substr(0, header_end), "truncated: its plan has 0 of 22 bytes");
  expect_refused(good + "x", "its plan has 23 bytes, its header says 22");
  std::string corrupt = good;
  corrupt[header_end + 2] ^= 1;
  expect_refused(corrupt, "corrupt");
}

void write_file(const std::string& path, const std::string& bytes) { std::ofstream(path, std::ios::binary) << bytes; }

TEST(PlanStore, SavesAtomicallyIntoAFolderItCreatesAndLoadsItBack) {
  test::TempFolder temp;
  std::ostringstream warnings;
  const PlanStore store((temp.path / "a" / "b").string(), warnings);
  const PlanRecord r = record();
  EXPECT_FALSE(store.load(r.key_sha256, r.identity)) << "nothing stored yet: a plain miss";
  ASSERT_TRUE(store.save(r));
  EXPECT_EQ(store.path_of(r.key_sha256), (temp.path / "a" / "b" / (r.key_sha256 + ".plan")).string());
  int files = 0;
  for (const auto& entry : fs::directory_iterator(temp.path / "a" / "b")) {
    ++files;
    EXPECT_EQ(entry.path().extension(), ".plan") << "no temporary file is left behind: " << entry.path();
  }
  EXPECT_EQ(files, 1);
  const auto back = store.load(r.key_sha256, r.identity);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->blob, r.blob);
  PlanRecord newer = r;
  newer.blob = "rebuilt";
  ASSERT_TRUE(store.save(newer)) << "a rebuilt plan replaces the file";
  EXPECT_EQ(store.load(r.key_sha256, r.identity)->blob, "rebuilt");
  EXPECT_EQ(warnings.str(), "");
}

// Each unusable file: nullopt and one warning naming the file and the reason, then a rebuild's
// save replaces it.
TEST(PlanStore, UnusableFilesAreWarningsAndMissesNeverErrors) {
  test::TempFolder temp;
  const PlanRecord r = record();
  const std::string good = encode_plan_record(r);
  PlanRecord other_identity = r;
  other_identity.identity = "GPU B sm_80, cuDNN 91400";
  const std::pair<std::string, std::string> cases[] = {
      {"", "ends before its format line"},
      {good.substr(0, good.size() / 2), "it ends before its header"},
      {good.substr(0, good.size() - 5), "truncated"},
      {good.substr(0, good.size() - 1) + "?", "corrupt"},
      {encode_plan_record(record("another graph")), "it holds the plan of another key"},
      {encode_plan_record(other_identity), "it was built for GPU B sm_80, cuDNN 91400, not for GPU A sm_90"},
      {"normbench-plan-cache 99\n", "format 99"},
  };
  for (const auto& [bytes, why] : cases) {
    std::ostringstream warnings;
    const PlanStore store(temp.path.string(), warnings);
    write_file(store.path_of(r.key_sha256), bytes);
    EXPECT_FALSE(store.load(r.key_sha256, r.identity)) << why;
    const std::string w = warnings.str();
    EXPECT_NE(w.find("normbench: plan cache: " + store.path_of(r.key_sha256) + ": "), std::string::npos) << w;
    EXPECT_NE(w.find(why), std::string::npos) << w;
    EXPECT_NE(w.find("building the plan again"), std::string::npos) << w;
    ASSERT_TRUE(store.save(r));
    EXPECT_TRUE(store.load(r.key_sha256, r.identity)) << "the rebuilt plan's save replaced " << why;
  }
}

TEST(PlanStore, AFolderInPlaceOfAFileIsAWarning) {
  test::TempFolder temp;
  std::ostringstream warnings;
  const PlanStore store(temp.path.string(), warnings);
  const PlanRecord r = record();
  fs::create_directories(store.path_of(r.key_sha256));
  EXPECT_FALSE(store.load(r.key_sha256, r.identity));
  EXPECT_NE(warnings.str().find("is not a file"), std::string::npos) << warnings.str();
}

TEST(PlanStore, AFolderThatCannotBeWrittenIsAWarningAndTheRunGoesOn) {
  test::TempFolder temp;
  write_file(temp.file("occupied"), "a file where the folder should be");
  std::ostringstream warnings;
  const PlanStore store((temp.path / "occupied" / "plans").string(), warnings);
  EXPECT_FALSE(store.save(record()));
  EXPECT_NE(warnings.str().find("the plan of rms_forward M=1 N=524288 fp16, inference phase is not kept"),
            std::string::npos)
      << warnings.str();
  EXPECT_FALSE(store.load(record().key_sha256, record().identity));
}

}  // namespace
}  // namespace nb
