#pragma once
// Rows of a persistent grid of clusters handed out as the clusters ask for them, so that a cluster
// that runs slower (one that shares its SMs with others) takes fewer rows and the grid finishes
// together. Cluster c takes rows c and c + clusters by its index; after that, each row its rank 0
// draws the row after next from a counter zeroed before the launch, and the cluster learns it by
// the end of the row (how is the kernel's: softmax carries it in its row exchange, the staged rows
// in a ClusterBroadcast), so the next row's loads still go out a row ahead. A drawn row is never
// left undone: a cluster stops at its first row past the end, and every row it drew after that
// one is larger.
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "kernels/primitives/cluster_exchange.cuh"
#include "kernels/primitives/mbarrier.cuh"

namespace nb::dev {

// The counter's device memory: a kernel that takes its rows this way asks for it as workspace,
// and its launch zeroes it first (cudaMemsetAsync on the kernel's stream).
inline constexpr std::size_t kRowCounterBytes = sizeof(unsigned long long);

struct RowTickets {
  long long row, next, clusters;

  __device__ RowTickets(long long cluster, long long clusters_)
      : row(cluster), next(cluster + clusters_), clusters(clusters_) {}

  // The row after next, from `counter` (one thread of the cluster, once a row).
  __device__ long long draw(unsigned long long* counter) const {
    return 2 * clusters + static_cast<long long>(atomicAdd(counter, 1ull));
  }
  // The row after next by the cluster's fixed share (c, c + clusters, ...), for a grid that draws
  // no rows from the counter.
  __device__ long long after_next_by_share() const { return next + clusters; }
  // On to the next row, `after` being the one drawn (or taken by share) during this row.
  __device__ void advance(long long after) {
    row = next;
    next = after;
  }
};

// Rank 0's 8-byte value of each round pushed into every CTA of the cluster with st.async, onto each
// CTA's own mbarrier; two buffers by round. Rank 0 may push round r + 2 only after every peer has
// received round r: the kernel's own exchanges a row (its reductions) keep the cluster within a
// row of each other, which gives that.
struct ClusterBroadcast {
  alignas(8) long long value[2];
  std::uint64_t arrived[2];

  // Once, by every thread of the CTA before any round.
  __device__ void enter() {
    if (threadIdx.x == 0 && threadIdx.y == 0) {
      mbarrier_init(&arrived[0], 1);
      mbarrier_init(&arrived[1], 1);
      fence_barrier_init();
    }
    cooperative_groups::this_cluster().sync();
  }

  // Thread 0 of every CTA, once a round: its barrier's arrival, and from rank 0 the pushes of `v`.
  __device__ void send(long long v, unsigned round, int ranks) {
    if (threadIdx.x != 0 || threadIdx.y != 0) return;
    const unsigned buffer = round & 1;
    mbarrier_arrive_expect_bytes(&arrived[buffer], sizeof(long long));
    if (cooperative_groups::this_cluster().block_rank() != 0) return;
    for (int to = 0; to < ranks; ++to)
      push_value(cluster_address(&value[buffer], to), v, cluster_address(&arrived[buffer], to));
  }

  // Every thread: rank 0's value of the round, once it has landed.
  __device__ long long receive(unsigned round) {
    const unsigned buffer = round & 1;
    mbarrier_wait(&arrived[buffer], (round >> 1) & 1);
    return value[buffer];
  }

  // No CTA exits while rank 0's last push may still be on its way to it.
  __device__ void leave() const { cooperative_groups::this_cluster().sync(); }
};

}  // namespace nb::dev
