#include "harness/validation/device_executor.cuh"
#include "harness/validation/harness_programs.hpp"
#include "harness/validation/host_executor.hpp"

namespace nb {
namespace {

// Threads of a reduction over n elements: enough to stream memory. Their tallies are merged on the
// executor's side in runs of kTallyRun (in index order, each run by one thread), so that at most
// 16384 / kTallyRun come back to the host: a copy of 1.3 MB of ErrorTally and its merge around
// every output of every validated launch had been most of a mid-sized launch's validation.
std::int64_t reduction_threads(std::int64_t n) { return n < 16384 ? (n > 0 ? n : 1) : 16384; }
constexpr std::int64_t kTallyRun = 128;

template <class Ex, class Tally, class Add>
Tally strided_tally(Ex& ex, std::int64_t n, Add add) {
  const std::int64_t threads = reduction_threads(n);
  Scratch<Tally> partial = ex.template scratch<Tally>(threads);
  Tally* p = partial.get();
  ex.each(threads, [=] NB_HD(std::int64_t t) {
    Tally tally;
    for (std::int64_t i = t; i < n; i += threads) add(tally, i);
    p[t] = tally;
  });
  const std::int64_t runs = (threads + kTallyRun - 1) / kTallyRun;
  Scratch<Tally> merged = ex.template scratch<Tally>(runs);
  Tally* m = merged.get();
  ex.each(runs, [=] NB_HD(std::int64_t r) {
    Tally tally;
    const std::int64_t end = (r + 1) * kTallyRun < threads ? (r + 1) * kTallyRun : threads;
    for (std::int64_t t = r * kTallyRun; t < end; ++t) tally.merge(p[t]);
    m[r] = tally;
  });
  Tally total;
  for (const Tally& t : ex.to_host(m, runs)) total.merge(t);
  return total;
}

// The runs' starts and their offsets in the gathered order, on the executor's side: written into
// the staging's host memory and uploaded from there without waiting.
struct RunTable {
  Scratch<std::int64_t> begin, offset;  // offset has one more entry: the total
  std::int64_t runs = 0, total = 0;
};

template <class Ex>
RunTable run_table(Ex& ex, const std::vector<ElementRun>& runs, AuditStaging& staging) {
  const std::int64_t count = std::int64_t(runs.size());
  std::int64_t* begin = staging.host<std::int64_t>(count);
  std::int64_t* offset = staging.host<std::int64_t>(count + 1);
  offset[0] = 0;
  for (std::int64_t r = 0; r < count; ++r) {
    begin[r] = runs[std::size_t(r)].begin;
    offset[r + 1] = offset[r] + runs[std::size_t(r)].count;
  }
  RunTable t{ex.template scratch<std::int64_t>(count), ex.template scratch<std::int64_t>(count + 1), count, offset[count]};
  ex.upload_async(begin, t.begin.get(), count);
  ex.upload_async(offset, t.offset.get(), count + 1);
  staging.keep(t.begin.owner());
  staging.keep(t.offset.owner());
  return t;
}

// Element k of the gathered order: the run holding it (by bisection of the offsets) and its place.
NB_HD inline std::int64_t source_of(const std::int64_t* begin, const std::int64_t* offset, std::int64_t runs, std::int64_t k) {
  std::int64_t lo = 0, hi = runs - 1;
  while (lo < hi) {
    const std::int64_t mid = (lo + hi + 1) / 2;
    if (offset[mid] <= k) lo = mid;
    else hi = mid - 1;
  }
  return begin[lo] + (k - offset[lo]);
}

template <class Ex, class T, class Read>
void gather_with(Ex& ex, const std::vector<ElementRun>& runs, T* host, AuditStaging& staging, Read read) {
  const RunTable table = run_table(ex, runs, staging);
  if (table.total == 0) return;
  Scratch<T> out = ex.template scratch<T>(table.total);
  T* o = out.get();
  const std::int64_t* begin = table.begin.get();
  const std::int64_t* offset = table.offset.get();
  const std::int64_t count = table.runs;
  ex.each(table.total, [=] NB_HD(std::int64_t k) { o[k] = read(source_of(begin, offset, count, k)); });
  ex.to_host_async(o, table.total, host);
  staging.keep(out.owner());
}

}  // namespace

template <class Ex>
void gather_into(Ex& ex, stored::Tensor tensor, const std::vector<ElementRun>& runs, float* host, AuditStaging& staging) {
  gather_with<Ex, float>(ex, runs, host, staging, [=] NB_HD(std::int64_t i) { return tensor[i]; });
}

template <class Ex>
void gather_into(Ex& ex, const double* reference, const std::vector<ElementRun>& runs, double* host,
                 AuditStaging& staging) {
  gather_with<Ex, double>(ex, runs, host, staging, [=] NB_HD(std::int64_t i) { return reference[i]; });
}

template <class Ex>
void draw_inputs(Ex& ex, const std::vector<InputDraw>& draws, const ProgramTensors& tensors, std::uint64_t seed) {
  for (const InputDraw& d : draws) {
    const stored::MutableTensor out = tensors.out(d.tensor);
    const std::int64_t n = tensors.size(d.tensor);
    ex.each(n, [=] NB_HD(std::int64_t i) { out.set(i, d.value(seed, static_cast<std::uint64_t>(i), out.type)); });
    if (!d.plants_specials()) continue;
    // One thread plants them all, in order: a later plant at the same place wins, as on the host.
    const std::uint32_t salt = d.salt;
    ex.each(1, [=] NB_HD(std::int64_t) {
      for (std::int64_t k = 0; k < element_draw::special_count(n); ++k)
        out.set(element_draw::special_position(seed, salt, k, n), element_draw::special_value(k));
    });
  }
}

template <class Ex>
ErrorTally compare_output(Ex& ex, stored::Tensor out, const double* reference, std::int64_t n, double floor,
                          double absolute) {
  return strided_tally<Ex, ErrorTally>(ex, n, [=] NB_HD(ErrorTally & tally, std::int64_t i) {
    tally.add(i, stored::is_poison(out.data, i, out.type), out[i], reference[i], floor, absolute,
              stored::largest_finite(out.type));
  });
}

template <class Ex>
FiniteSquares finite_squares(Ex& ex, const double* reference, std::int64_t n) {
  return strided_tally<Ex, FiniteSquares>(ex, n, [=] NB_HD(FiniteSquares & s, std::int64_t i) { s.add(reference[i]); });
}

#define NB_INSTANTIATE(Ex)                                                                                           \
  template void draw_inputs<Ex>(Ex&, const std::vector<InputDraw>&, const ProgramTensors&, std::uint64_t);           \
  template ErrorTally compare_output<Ex>(Ex&, stored::Tensor, const double*, std::int64_t, double, double);           \
  template FiniteSquares finite_squares<Ex>(Ex&, const double*, std::int64_t);                                         \
  template void gather_into<Ex>(Ex&, stored::Tensor, const std::vector<ElementRun>&, float*, AuditStaging&);          \
  template void gather_into<Ex>(Ex&, const double*, const std::vector<ElementRun>&, double*, AuditStaging&);
NB_INSTANTIATE(DeviceExecutor)
NB_INSTANTIATE(HostExecutor)
#undef NB_INSTANTIATE

}  // namespace nb
