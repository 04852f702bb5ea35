#pragma once
// Join: training with uneven inputs (torch.distributed.algorithms.Join,
// PyTorch 1.10). Every rank runs its training loop inside join(); a rank
// whose inputs ran out keeps shadowing the collectives of the ranks still
// training (DistributedDataParallel: its gradient all_reduces, on zeros) so
// that nobody waits forever, until every rank is done; then the joinables
// make the ranks agree again (DDP broadcasts the model from a rank that
// joined last). See "Uneven inputs: Join" in docs/distributed.md.
//
//   distributed::join({&ddp}, [&] {
//     for (auto& batch : my_batches) { ... ddp.forward(...) ... backward, step ... }
//   });
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include <ember/distributed/process_group.h>

namespace ember::distributed {

// What a join context tells each joinable.
struct JoinConfig {
  bool enabled = false;
  // DDP: divide summed gradients by the group's size (true; ranks that joined
  // contribute zeros) or by the number of ranks still training (false).
  bool divide_by_initial_world_size = true;
  // The first joinable of the context notifies it once per iteration.
  bool is_first_joinable = false;
};

// A class that takes part in a join context (torch's Joinable).
class Joinable {
 public:
  virtual ~Joinable() = default;
  // Runs on a rank that joined, once per iteration of the ranks still
  // training: issues the collectives one such iteration issues.
  virtual void join_main_hook() = 0;
  // Runs once every rank joined; is_last_joiner: no rank was still training
  // when this one joined.
  virtual void join_post_hook(bool is_last_joiner) = 0;
  // The group the joinable's collectives run on.
  virtual std::shared_ptr<ProcessGroup> join_process_group() const = 0;

  void set_join_config(JoinConfig config) { join_config_ = config; }
  const JoinConfig& join_config() const { return join_config_; }

 protected:
  // Called by a training rank once per iteration (the first joinable only;
  // others get -1 and nothing runs): an all_reduce matched by the joined
  // ranks' join loop. Returns the number of ranks still training.
  int64_t notify_join_context();

 private:
  JoinConfig join_config_;
};

struct JoinOptions {
  bool divide_by_initial_world_size = true;
};

// Runs body (this rank's training loop) with the joinables in join mode, then
// shadows the other ranks until every rank finished its body, then runs the
// joinables' post hooks. Every joinable must use the same process group, and
// every rank must call join with the same joinables. An exception from body
// leaves join mode and propagates (the other ranks then fail on their
// collectives' timeout).
void join(const std::vector<Joinable*>& joinables, const std::function<void()>& body, const JoinOptions& options = {});

}  // namespace ember::distributed
