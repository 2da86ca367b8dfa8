#include "harness/variant.hpp"

#include <stdexcept>

namespace nb {
namespace {

class KernelVariant final : public Variant {
 public:
  explicit KernelVariant(KernelVariantSpec spec) : spec_(std::move(spec)) {
    if (!spec_.launch) throw std::logic_error("variant " + spec_.name + " has no launch function");
  }
  std::string name() const override { return spec_.name; }
  std::string kind() const override { return spec_.kind; }
  std::string idea() const override { return spec_.idea; }
  Support supports(const Problem& p) const override { return spec_.supports ? spec_.supports(p) : Support::yes(); }
  std::size_t workspace_bytes(const Problem& p) const override {
    return spec_.workspace_bytes ? spec_.workspace_bytes(p) : 0;
  }
  std::vector<Distribution> claims() const override { return spec_.claims; }
  void launch(const Problem& p, const DeviceTensors& t, void* ws, cudaStream_t s) override {
    spec_.launch(p, t, ws, s);
  }

 private:
  KernelVariantSpec spec_;
};

}  // namespace

std::unique_ptr<Variant> make_kernel_variant(KernelVariantSpec spec) {
  return std::make_unique<KernelVariant>(std::move(spec));
}

}  // namespace nb
