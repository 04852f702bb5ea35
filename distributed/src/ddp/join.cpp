// Note [Join protocol]
// Each iteration of a training rank starts with an all_reduce of 1 on the
// join group (notify_join_context, from the first joinable's forward pass); a
// joined rank contributes 0 to that all_reduce from its join loop, so the sum
// is the number of ranks still training. While it is positive, the joined
// rank runs every joinable's main hook, which issues the same collectives, in
// the same order, as the training ranks' iteration. When it is 0 every rank
// joined: the ranks whose first count was already 0 are the last joiners.
#include <ember/distributed/ddp/join.h>

#include <ember/core/error.h>
#include <ember/ops/factories.h>

namespace ember::distributed {

int64_t Joinable::notify_join_context() {
  if (!join_config_.enabled || !join_config_.is_first_joinable) return -1;
  Tensor one = ones({1}, TensorOptions(kInt64));
  join_process_group()->all_reduce(one)->wait();
  return one.item<int64_t>();
}

namespace {

// Leaves join mode on every exit from join().
class JoinModeScope {
 public:
  JoinModeScope(const std::vector<Joinable*>& joinables, const JoinOptions& options) : joinables_(joinables) {
    for (size_t i = 0; i < joinables_.size(); ++i)
      joinables_[i]->set_join_config({.enabled = true,
                                      .divide_by_initial_world_size = options.divide_by_initial_world_size,
                                      .is_first_joinable = i == 0});
  }
  ~JoinModeScope() {
    for (Joinable* j : joinables_) j->set_join_config({});
  }
  JoinModeScope(const JoinModeScope&) = delete;
  JoinModeScope& operator=(const JoinModeScope&) = delete;

 private:
  const std::vector<Joinable*>& joinables_;
};

}  // namespace

void join(const std::vector<Joinable*>& joinables, const std::function<void()>& body, const JoinOptions& options) {
  EMBER_CHECK(!joinables.empty(), "join: at least one joinable is needed");
  for (size_t i = 0; i < joinables.size(); ++i) {
    EMBER_CHECK(joinables[i] != nullptr, "join: joinable ", i, " is null");
    EMBER_CHECK(!joinables[i]->join_config().enabled, "join: joinable ", i, " is in a join context already");
  }
  std::shared_ptr<ProcessGroup> group = joinables[0]->join_process_group();
  EMBER_CHECK(group != nullptr, "join: joinable 0 has no process group");
  for (size_t i = 1; i < joinables.size(); ++i)
    EMBER_CHECK(joinables[i]->join_process_group() == group, "join: joinable ", i,
                " uses another process group than joinable 0; a join context needs one group");
  JoinModeScope scope(joinables, options);
  body();
  // Note [Join protocol]: shadow the ranks still training.
  bool is_last_joiner = true;
  while (true) {
    Tensor count = zeros({1}, TensorOptions(kInt64));
    group->all_reduce(count)->wait();
    if (count.item<int64_t>() == 0) break;
    for (Joinable* j : joinables) j->join_main_hook();
    is_last_joiner = false;
  }
  for (Joinable* j : joinables) j->join_post_hook(is_last_joiner);
}

}  // namespace ember::distributed
