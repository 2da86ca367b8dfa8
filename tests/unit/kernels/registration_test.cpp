// One way to add a variant or an op (docs/adding-a-kernel.md, docs/adding-an-op.md), held for
// every op the registry lists: the op is one folder under kernels/ named after it, listed by one
// line of kernels/ops.cpp; each of its variants is one numbered file, N_<name>.cu or .cpp, in the
// op's folder or the family folder above it, whose first line is a comment (its idea), and one
// line naming its factory in the table, the variants.cpp of that same folder.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "harness/registry.hpp"
#include "kernels/ops.hpp"

namespace nb::test {
namespace {

namespace fs = std::filesystem;

const fs::path& kernels_root() {
  static const fs::path root = fs::path(NORMBENCH_SOURCE_DIR) / "kernels";
  return root;
}

std::string text_of(const fs::path& p) {
  std::ifstream in(p);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The one folder under kernels/ named after the op, at any depth.
std::vector<fs::path> folders_named(const std::string& name) {
  std::vector<fs::path> found;
  for (const auto& entry : fs::recursive_directory_iterator(kernels_root()))
    if (entry.is_directory() && entry.path().filename() == name) found.push_back(entry.path());
  return found;
}

// The op's folder and the family folders above it, nearest first.
std::vector<fs::path> op_and_family_folders(const fs::path& op_folder) {
  std::vector<fs::path> folders;
  for (fs::path f = op_folder; f != kernels_root(); f = f.parent_path()) folders.push_back(f);
  return folders;
}

// The numbered file of a variant: N_<name>.cu or N_<name>.cpp in the nearest folder that has one.
std::optional<fs::path> variant_file(const std::vector<fs::path>& folders, const std::string& variant) {
  const std::regex numbered("[0-9]+_" + variant + "\\.(cu|cpp)");
  for (const fs::path& folder : folders)
    for (const auto& entry : fs::directory_iterator(folder))
      if (std::regex_match(entry.path().filename().string(), numbered)) return entry.path();
  return std::nullopt;
}

const Registry& registry() {
  static const Registry r(make_ops());
  return r;
}

TEST(Registration, AnOpIsOneFolderAndOneLineOfTheOpsTable) {
  const std::string ops_table = text_of(kernels_root() / "ops.cpp");
  for (const auto& op : registry().ops()) {
    const auto folders = folders_named(op->name());
    EXPECT_EQ(folders.size(), 1u) << op->name() << ": one folder under kernels/ named after the op";
    EXPECT_NE(ops_table.find("make_" + op->name() + "_op()"), std::string::npos)
        << op->name() << ": kernels/ops.cpp lists it as make_" << op->name() << "_op()";
  }
}

TEST(Registration, AVariantIsOneNumberedFileAndOneLineOfItsTable) {
  for (const auto& op : registry().ops()) {
    const auto named = folders_named(op->name());
    if (named.size() != 1) continue;  // the test above says so
    const auto folders = op_and_family_folders(named.front());
    for (const auto& variant : op->variants()) {
      const auto file = variant_file(folders, variant->name());
      if (!file) {
        ADD_FAILURE() << op->name() << " " << variant->name() << ": no N_" << variant->name()
                      << ".cu or .cpp in " << fs::relative(named.front(), kernels_root()) << " or the folders above";
        continue;
      }
      const std::string source = text_of(*file);
      EXPECT_EQ(source.rfind("// ", 0), 0u) << *file << ": the first line says the variant's idea";
      const fs::path table = file->parent_path() / "variants.cpp";
      ASSERT_TRUE(fs::exists(table)) << *file << ": its folder has no variants.cpp";
      EXPECT_NE(text_of(table).find("make_" + variant->name() + "_variant("), std::string::npos)
          << table << " lists make_" << variant->name() << "_variant(...)";
    }
  }
}

}  // namespace
}  // namespace nb::test
