// Built instead of process_group_nccl*.cpp when CMake found no CUDA or no
// NCCL (EMBER_WITH_NCCL): this build has no ProcessGroupNCCL.
#include <ember/distributed/process_group_nccl.h>

namespace ember::distributed {

bool nccl_is_available() { return false; }

}  // namespace ember::distributed
