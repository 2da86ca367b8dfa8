#pragma once
// Where the audit's copies from the device land, and what must live until they have
// (docs/validation.md): the device's values of a trial's sampled slices are copied asynchronously,
// in stream order before any variant launches, into page-locked host memory that the audit's host
// thread reads once the copies are done. The host memory is reused from trial to trial; the
// executor's scratch the copies read from (and the run tables they upload) is kept until then.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace nb {

class AuditStaging {
 public:
  // `pinned`: page-locked memory (cudaHostAlloc), for a device executor's asynchronous copies;
  // else ordinary host memory (the host executor's tests, no device needed).
  explicit AuditStaging(bool pinned);
  ~AuditStaging();
  AuditStaging(const AuditStaging&) = delete;
  AuditStaging& operator=(const AuditStaging&) = delete;

  // Room for n values of T, valid until recycle().
  template <class T>
  T* host(std::int64_t n) {
    return static_cast<T*>(take(static_cast<std::size_t>(n > 0 ? n : 1) * sizeof(T)));
  }
  // Keeps memory an enqueued copy reads (the executor's scratch) alive until recycle().
  void keep(std::shared_ptr<void> owner) { kept_.push_back(std::move(owner)); }

  // Everything taken is free again and the kept scratch is released. Only once every copy into
  // this memory has completed and its reader is done with it.
  void recycle();

  std::size_t capacity_bytes() const;

 private:
  struct Block {
    void* data = nullptr;
    std::size_t bytes = 0, used = 0;
  };
  void* take(std::size_t bytes);
  Block allocate(std::size_t bytes) const;
  void release(Block& b) const;

  bool pinned_;
  std::vector<Block> blocks_;
  std::vector<std::shared_ptr<void>> kept_;
};

}  // namespace nb
