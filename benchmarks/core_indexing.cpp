// Suite core: mask selection, index_select and gather over 16M fp32 (compiled
// only when ember/ops/indexing.h exists).
#include "bench.h"
#include "ember/ops/indexing.h"

namespace {

using ember_bench::Case;
using ember_bench::kMi;
using ember_bench::twin;

ember_bench::Workload masked_select() {
  constexpr int64_t n = 16 * kMi;
  return {"core", "masked_select_16M", [] {
            auto x = twin(at::randn({n}));
            auto mask = twin(at::randn({n}) > 0);  // about half selected
            return Case{[=] { return ember::masked_select(x.e, mask.e); },
                        [=] { return at::masked_select(x.t, mask.t); }};
          }};
}

// Rows of a [4M, 4] table picked by 1M random indices.
ember_bench::Workload index_select() {
  constexpr int64_t rows = 4 * kMi, picks = kMi;
  return {"core", "index_select_4Mx4_1M_rows", [] {
            auto table = twin(at::randn({rows, 4}));
            auto idx = twin(at::randint(rows, {picks}, at::kLong));
            return Case{[=] { return ember::index_select(table.e, 0, idx.e); },
                        [=] { return at::index_select(table.t, 0, idx.t); }};
          }};
}

// Every output element gathers one element of its row.
ember_bench::Workload gather() {
  constexpr int64_t n = 4096;
  return {"core", "gather_dim1_4096x4096", [] {
            auto x = twin(at::randn({n, n}));
            auto idx = twin(at::randint(n, {n, n}, at::kLong));
            return Case{[=] { return ember::gather(x.e, 1, idx.e); },
                        [=] { return at::gather(x.t, 1, idx.t); }};
          }};
}

[[maybe_unused]] const bool kRegistered =
    ember_bench::add_workloads({masked_select(), index_select(), gather()});

}  // namespace
