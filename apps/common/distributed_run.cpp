#include "distributed_run.h"

#include <csignal>
#include <cstdlib>
#include <string>

#include <ember/core/error.h>
#include <ember/core/tensor.h>
#include <ember/ops/factories.h>

#if EMBER_APPS_DISTRIBUTED
#include <ember/distributed/distributed.h>
#endif

namespace ember::apps {
namespace {

int64_t env_int(const char* name, int64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::stoll(v) : fallback;
}

}  // namespace

DistributedRun DistributedRun::from_environment() {
  DistributedRun run;
  // ember-run sets TORCHELASTIC_RUN_ID with the rest; a stray RANK alone is not a launch.
  if (!std::getenv("TORCHELASTIC_RUN_ID") || !std::getenv("WORLD_SIZE") || !std::getenv("RANK")) return run;
#if EMBER_APPS_DISTRIBUTED
  distributed::init_process_group("gloo");
  run.launched_ = true;
  run.rank_ = distributed::get_rank();
  run.world_size_ = distributed::get_world_size();
  run.restart_count_ = env_int("RESTART_COUNT", 0);
#else
  EMBER_FAIL("launched by ember-run (WORLD_SIZE ", std::getenv("WORLD_SIZE"),
             "), but the apps were built without Ember::distributed (EMBER_BUILD_DISTRIBUTED=OFF)");
#endif
  return run;
}

DistributedRun::DistributedRun(DistributedRun&& other) noexcept
    : ddp_(std::move(other.ddp_)),
      launched_(other.launched_), rank_(other.rank_), world_size_(other.world_size_),
      restart_count_(other.restart_count_) {
  other.launched_ = false;
}

DistributedRun::~DistributedRun() {
  ddp_.reset();
#if EMBER_APPS_DISTRIBUTED
  if (launched_ && distributed::is_initialized()) distributed::destroy_process_group();
#endif
}

void DistributedRun::wrap(const std::shared_ptr<nn::Module>& model) {
#if EMBER_APPS_DISTRIBUTED
  if (!launched_) return;
  if (world_size_ > 1) distributed::convert_sync_batchnorm(model);
  ddp_ = std::make_shared<distributed::DistributedDataParallel>(model);
#else
  (void)model;
#endif
}

Tensor DistributedRun::forward(const std::function<Tensor()>& fn) {
#if EMBER_APPS_DISTRIBUTED
  if (ddp_) return static_cast<distributed::DistributedDataParallel*>(ddp_.get())->forward(fn);
#endif
  return fn();
}

void DistributedRun::barrier() const {
#if EMBER_APPS_DISTRIBUTED
  if (launched_) distributed::barrier();
#endif
}

std::vector<double> DistributedRun::sum(std::vector<double> values) const {
#if EMBER_APPS_DISTRIBUTED
  if (launched_ && world_size_ > 1 && !values.empty()) {
    Tensor t = tensor(values, kFloat64);
    distributed::all_reduce(t, distributed::ReduceOp::SUM);
    const double* p = t.data_ptr<double>();
    values.assign(p, p + values.size());
  }
#endif
  return values;
}

void DistributedRun::maybe_inject_fault(int64_t epoch) const {
  const char* spec = std::getenv("EMBER_TRAIN_KILL");
  if (!launched_ || !spec || restart_count_ != 0) return;
  const std::string s(spec);
  const auto colon = s.find(':');
  EMBER_CHECK(colon != std::string::npos, "EMBER_TRAIN_KILL must be RANK:EPOCH, got '", s, "'");
  if (std::stoll(s.substr(0, colon)) == rank_ && std::stoll(s.substr(colon + 1)) == epoch) std::raise(SIGKILL);
}

}  // namespace ember::apps
