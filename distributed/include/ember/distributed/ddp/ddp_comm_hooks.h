#pragma once
// The built-in DDP communication hooks (torch.distributed.algorithms.ddp_comm_hooks).
#include "ember/distributed/ddp/default_hooks.h"
#include "ember/distributed/ddp/powersgd_hook.h"
#include "ember/distributed/ddp/ddp_zero_hook.h"
